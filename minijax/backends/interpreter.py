"""Chapter 06 — the interpreter backend: "compiling" a jaxpr by keeping it.

The simplest possible backend. Lowering keeps the jaxpr; compiling keeps it
too; running it is :func:`run_jaxpr` (chapter 05's ``eval_jaxpr``, with
nested ``jit`` calls run in place) under the eval trace, which applies one
NumPy primitive after another — exactly what eager mode
does. So ``jit`` with this backend is *not faster* than eager execution: it
has the same per-primitive cost, plus the call overhead. What it does give is
everything else ``jit`` means: one trace per argument signature, a cached
program, the AOT stages, and the same results and printed jaxprs as JAX.
Chapter 09 registers a backend that generates Numba code from the same
jaxpr, and there the speed comes.

``as_text()`` is the printed jaxpr; ``cost_analysis()`` estimates the work
(:func:`jaxpr_cost_analysis`).
"""
from __future__ import annotations

import numpy as np

from minijax.array import Array
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.buffers import Buffer
from minijax.core import eval_trace, set_current_trace
from minijax.dispatch import to_numpy
from minijax.jaxpr import Literal, jaxprs_in_params

__all__ = ["InterpreterBackend", "jaxpr_cost_analysis", "as_output_array", "run_jaxpr",
           "inline_call_primitives"]


# =============================================================================
# Cost analysis: a rough count of the work, like XLA's cost_analysis()
# =============================================================================
# What kind of work an equation is comes from its primitive's attributes
# (chapter 00's ``Primitive.kind``, ``moves_data``, ``transcendental``), stated
# where each primitive is created: no list of names to keep in sync here.
#: Kinds that read their whole input once (reductions, scans, sorts).
_READS_INPUT_KINDS = frozenset({"reduction", "cumulative", "sort"})


def _size(aval) -> int:
    return int(np.prod(aval.shape, dtype=np.int64))


def _nbytes(aval) -> int:
    return _size(aval) * aval.dtype.itemsize


def _eqn_flops(eqn) -> int:
    """The arithmetic of one equation (not counting nested jaxprs)."""
    prim = eqn.primitive
    if prim.moves_data:  # reshape, transpose, gather, convert_element_type...
        return 0
    if prim.kind == "dot":  # dot_general: 2*M*N*K, one multiply and one add per term
        (lhs_contract, _), _ = eqn.params["dimension_numbers"]
        k = int(np.prod([eqn.invars[0].aval.shape[d] for d in lhs_contract], dtype=np.int64))
        return 2 * _size(eqn.outvars[0].aval) * k
    if prim.kind in _READS_INPUT_KINDS:
        return _size(eqn.invars[0].aval)
    return sum(_size(v.aval) for v in eqn.outvars)  # elementwise: one op per output


def jaxpr_cost_analysis(closed_jaxpr) -> dict[str, float]:
    """``{'flops', 'transcendentals', 'bytes accessed'}`` of a jaxpr, as floats.

    - ``flops``: elementwise operations count one per output element,
      ``dot_general`` counts ``2*M*N*K``, reductions one per input element,
      and data movement (reshape, transpose, gather...) nothing;
    - ``transcendentals``: output elements of ``exp``, ``sin``, ``log``...
      (also counted in ``flops``; XLA counts them only here);
    - ``bytes accessed``: bytes read and written, each equation's inputs
      and outputs (so a value used twice is counted twice).

    Equations holding jaxprs (a nested ``jit``) count the work inside.
    """
    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    cost = {"flops": 0.0, "transcendentals": 0.0, "bytes accessed": 0.0}
    for eqn in jaxpr.eqns:
        inner = list(jaxprs_in_params(eqn.params))
        if inner:
            for sub in inner:
                for key, val in jaxpr_cost_analysis(sub).items():
                    cost[key] += val
            continue
        cost["flops"] += _eqn_flops(eqn)
        if eqn.primitive.transcendental:
            cost["transcendentals"] += sum(_size(v.aval) for v in eqn.outvars)
        cost["bytes accessed"] += (sum(_nbytes(v.aval) for v in eqn.invars)
                                   + sum(_nbytes(v.aval) for v in eqn.outvars))
    return cost


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


def run_jaxpr(jaxpr, consts, args) -> list:
    """:func:`~minijax.jaxpr.eval_jaxpr`, with nested calls (``jit``) evaluated in place."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = lambda v: v.val if isinstance(v, Literal) else env[v]  # noqa: E731
    for eqn in jaxpr.eqns:
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
