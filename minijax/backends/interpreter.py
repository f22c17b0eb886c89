"""Chapter 06 — the interpreter backend: "compiling" a jaxpr by keeping it.

The simplest possible backend. Lowering keeps the jaxpr; compiling keeps it
too; running it is :func:`run_jaxpr` (chapter 05's ``eval_jaxpr``, with
nested ``jit`` calls run in place) under the eval trace, which applies one
NumPy primitive after another — exactly what eager mode
does, except that, as every compiler, it skips dead code (pure equations
whose results nobody reads: an unused ``pure_callback`` is never called).
So ``jit`` with this backend is *not faster* than eager execution: it
has the same per-primitive cost, plus the call overhead. What it does give is
everything else ``jit`` means: one trace per argument signature, a cached
program, the AOT stages, and the same results and printed jaxprs as JAX.
Chapter 09 registers a backend that generates Numba code from the same
jaxpr, and there the speed comes.

``as_text()`` is the printed jaxpr; ``cost_analysis()`` estimates the work
(:func:`minijax.backends.cost.jaxpr_cost_analysis`).
"""
from __future__ import annotations

import weakref

import numpy as np

from minijax.array import Array
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.buffers import Buffer
from minijax.core import eval_trace, set_current_trace
from minijax.dispatch import to_numpy
from minijax.backends.cost import jaxpr_cost_analysis
from minijax.jaxpr import Literal, Var

__all__ = ["InterpreterBackend", "as_output_array", "run_jaxpr", "live_eqns",
           "inline_call_primitives"]


# =============================================================================
# The backend
# =============================================================================
def as_output_array(x, aval) -> Array:
    """``x`` as an ``Array`` of type ``aval``.

    A jaxpr may return one of its inputs unchanged (a NumPy array, a Python
    scalar) or a literal (``in (1.0:f32[],)``); a jitted function always
    returns ``Array``s of the jaxpr's output types.
    """
    if isinstance(x, Array) and x.aval == aval:
        return x
    value = np.asarray(to_numpy(x), dtype=aval.dtype)
    return Array(aval, Buffer(value))


#: Call primitives whose body the interpreter runs inline (``jit`` registers
#: itself): a nested ``jit`` is part of the program being run, not a separate
#: program to compile and call, as XLA inlines it too.
inline_call_primitives: set = set()


#: jaxpr -> the equations a run of it needs (see :func:`live_eqns`)
_live_eqns_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def live_eqns(jaxpr) -> list:
    """The equations of ``jaxpr`` a run needs: those with effects, and those whose
    results are read, in program order.

    A compiled program never computes what nobody reads (XLA drops dead code, as
    chapter 09's kernel plan does), which is observable in one case: a
    ``pure_callback`` whose result is unused is never called (chapter 12).
    """
    eqns = _live_eqns_cache.get(jaxpr)
    if eqns is None:
        live = {v for v in jaxpr.outvars if isinstance(v, Var)}
        kept = []
        for eqn in reversed(jaxpr.eqns):
            if eqn.effects or any(v in live for v in eqn.outvars):
                kept.append(eqn)
                live.update(v for v in eqn.invars if isinstance(v, Var))
        eqns = _live_eqns_cache[jaxpr] = kept[::-1]
    return eqns


def run_jaxpr(jaxpr, consts, args) -> list:
    """:func:`~minijax.jaxpr.eval_jaxpr`, with nested calls (``jit``) evaluated in place,
    and dead code (pure equations whose results nobody reads) skipped."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = lambda v: v.val if isinstance(v, Literal) else env[v]  # noqa: E731
    for eqn in live_eqns(jaxpr):
        ins = [read(v) for v in eqn.invars]
        if eqn.primitive in inline_call_primitives:
            inner = eqn.params["jaxpr"]
            outs = run_jaxpr(inner.jaxpr, inner.consts, ins)
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


class InterpreterLowering(Lowering):
    """The "lowered" program is the jaxpr itself."""

    def as_text(self) -> str:
        return str(self.closed_jaxpr)

    def cost_analysis(self) -> dict[str, float]:
        return jaxpr_cost_analysis(self.closed_jaxpr)


class InterpreterExecutable(Executable):
    """Run the jaxpr with :func:`eval_jaxpr`, one eager primitive at a time."""

    def __call__(self, *flat_args) -> list[Array]:
        lowering = self.lowering
        with set_current_trace(eval_trace):
            outs = run_jaxpr(lowering.jaxpr, lowering.consts, flat_args)
        return [as_output_array(x, aval) for x, aval in zip(outs, self.out_avals)]

    def as_text(self) -> str:
        return str(self.lowering.closed_jaxpr)

    def cost_analysis(self) -> dict[str, float]:
        return jaxpr_cost_analysis(self.lowering.closed_jaxpr)


class InterpreterBackend(Backend):
    """The NumPy interpreter: lowering and compiling keep the jaxpr as it is."""
    name = "interpreter"
    platform = "cpu"
    ir_name = "interpreter program"
    compiler_name = "interpreter"

    def lower(self, closed_jaxpr, *, name: str, **options) -> InterpreterLowering:
        return InterpreterLowering(self, closed_jaxpr, name)

    def compile(self, lowering: Lowering, **options) -> InterpreterExecutable:
        return InterpreterExecutable(lowering)


register_backend("interpreter", InterpreterBackend(), priority=0)
