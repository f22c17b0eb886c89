"""Chapter 06 — ahead-of-time stages: ``jit(f).trace(x).lower().compile()``.

Calling a jitted function does four things at once: trace, lower, compile,
run. JAX lets you take the steps one at a time, each step returning an
object you can inspect:

=================================  ===========================================
``traced = jit(f).trace(*args)``   :class:`Traced`: ``.jaxpr``, ``.out_info``
``lowered = traced.lower()``       :class:`Lowered`: ``.as_text()`` (the
                                   backend's program), ``.cost_analysis()``
``compiled = lowered.compile()``   :class:`Compiled`: call it on arrays of
                                   the traced types, ``.as_text()``,
                                   ``.cost_analysis()``
=================================  ===========================================

(``jit(f).lower(*args)`` is ``trace`` then ``lower``.) The arguments may be
:class:`~minijax.ShapeDtypeStruct` s: only shapes and dtypes matter until
the compiled program is called. A ``Compiled`` is specialized: calling it on
other shapes or dtypes is JAX's ``TypeError``, and it cannot be transformed
(no ``vmap`` of a compiled program: transformations change signatures).

This module also writes the ``jax_log_compiles`` messages of each stage, on
the loggers and with the words JAX uses.
"""
from __future__ import annotations

import contextlib
import logging
import time
from typing import Any, NamedTuple

from minijax.config import log_compiles as _log_compiles
from minijax import tree_util
from minijax.core import Tracer, get_aval
from minijax.interpreters.partial_eval import ShapeDtypeStruct
from minijax.jaxpr import eval_jaxpr

__all__ = ["TraceResult", "ArgInfo", "Traced", "Lowered", "Compiled", "lower_jaxpr",
           "compile_lowering", "log_elapsed_time", "check_arg_avals_for_call"]

# JAX's logger names, so that a program configuring JAX's logging configures ours.
dispatch_logger = logging.getLogger("jax._src.dispatch")
pxla_logger = logging.getLogger("jax._src.interpreters.pxla")


def log_priority() -> int:
    """WARNING when ``jax_log_compiles`` is set (so it shows by default), else DEBUG."""
    return logging.WARNING if _log_compiles.value else logging.DEBUG


@contextlib.contextmanager
def log_elapsed_time(fmt: str, fun_name: str, logger=dispatch_logger):
    """Log ``fmt`` with the block's duration, e.g. "Finished tracing f for jit in 0.001 sec"."""
    start = time.perf_counter()
    yield
    priority = log_priority()
    if logger.isEnabledFor(priority):
        elapsed = time.perf_counter() - start
        logger.log(priority, fmt.format(fun_name=fun_name, elapsed_time=elapsed))


class TraceResult(NamedTuple):
    """What tracing a jitted function once produced (one entry of ``jit``'s cache)."""
    closed_jaxpr: Any       # ClosedJaxpr of the function on flat dynamic arguments
    params: dict            # the params of its ``jit`` equation
    in_tree: Any            # PyTreeDef of (dynamic positional args, dynamic kwargs)
    out_tree: Any           # PyTreeDef of the output
    const_args: list        # tracers the function closed over: extra leading arguments
    arg_names: tuple        # a name per flat dynamic argument ("x", "params['w']")


# =============================================================================
# Lowering and compiling, with JAX's log messages
# =============================================================================
def lower_jaxpr(closed_jaxpr, name: str, backend, in_shardings: tuple = (), **options):
    """``backend.lower`` with JAX's "Compiling jit(f) ..." and timing messages."""
    priority = log_priority()
    if pxla_logger.isEnabledFor(priority):
        pxla_logger.log(priority, f"Compiling jit({name}) with global shapes and types "
                                  f"{tuple(closed_jaxpr.in_avals)}. Argument mapping: "
                                  f"{tuple(in_shardings)}.")
    with log_elapsed_time("Finished jaxpr to " + backend.ir_name +
                          " conversion {fun_name} in {elapsed_time:.9f} sec", f"jit({name})"):
        return backend.lower(closed_jaxpr, name=name, **options)


def compile_lowering(lowering, **options):
    """``backend.compile`` with JAX's "Finished XLA compilation" timing message."""
    backend = lowering.backend
    with log_elapsed_time("Finished " + backend.compiler_name +
                          " compilation of {fun_name} in {elapsed_time:.9f} sec",
                          f"jit({lowering.name})"):
        return backend.compile(lowering, **options)


# =============================================================================
# The stages
# =============================================================================
class ArgInfo:
    """One flat argument of a stage: its abstract value and whether it is donated."""
    __slots__ = ("_aval", "donated")

    def __init__(self, aval, donated: bool):
        self._aval = aval
        self.donated = donated

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)

    def __repr__(self):
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


def _shape_dtype(aval, weak_type: bool) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=weak_type and aval.weak_type)


class Stage:
    """What every stage knows: its arguments (``args_info``) and output structure."""
    args_info: Any
    out_tree: Any

    @property
    def in_tree(self):
        """Tree structure of the pair (positional arguments, keyword arguments)."""
        return tree_util.tree_structure(self.args_info)

    @property
    def in_avals(self):
        return tree_util.tree_map(lambda a: a._aval, self.args_info)

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        return tuple(i for i, a in enumerate(tree_util.tree_leaves(self.args_info))
                     if a.donated)


def _args_info(result: TraceResult):
    avals = result.closed_jaxpr.in_avals[len(result.const_args):]
    donated = result.params["donated_invars"][len(result.const_args):]
    return result.in_tree.unflatten([ArgInfo(a, d) for a, d in zip(avals, donated)])


class Traced(Stage):
    """A function traced for particular argument types: its jaxpr, ready to lower."""

    def __init__(self, result: TraceResult, backend, fun_sourceinfo: str):
        self._result = result
        self._backend = backend
        self._fun_sourceinfo = fun_sourceinfo
        self.args_info = _args_info(result)
        self.out_tree = result.out_tree

    jaxpr = property(lambda self: self._result.closed_jaxpr)
    fun_name = property(lambda self: self._result.params["name"])

    @property
    def out_avals(self):
        return self.out_tree.unflatten(self.jaxpr.out_avals)

    @property
    def out_info(self):
        """The output as a pytree of ``ShapeDtypeStruct`` (weak types included)."""
        return self.out_tree.unflatten([_shape_dtype(a, True) for a in self.jaxpr.out_avals])

    def __call__(self, *args, **kwargs):
        """Evaluate the traced jaxpr (op by op) on new arguments."""
        flat = tree_util.tree_leaves((args, kwargs))
        jaxpr = self.jaxpr
        return self.out_tree.unflatten(eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *flat))

    def lower(self, **options) -> "Lowered":
        """Translate the jaxpr for the backend: a :class:`Lowered`."""
        if any(isinstance(c, Tracer) for c in self._result.const_args):
            raise TypeError("Cannot lower a function that closes over traced values "
                            f"(while tracing {self._fun_sourceinfo}).")
        lowering = lower_jaxpr(self.jaxpr, self.fun_name, self._backend,
                               self._result.params["in_shardings"], **options)
        return Lowered(lowering, self.args_info, self.out_tree, self._result.arg_names)


class _BackendStage(Stage):
    """A stage that wraps a backend's program object (a lowering or an executable)."""

    def __init__(self, program, args_info, out_tree, arg_names):
        self._program = program
        self.args_info = args_info
        self.out_tree = out_tree
        self._arg_names = arg_names

    @property
    def out_info(self):
        return self.out_tree.unflatten([_shape_dtype(a, False)
                                        for a in self._program.out_avals])

    def cost_analysis(self) -> dict | None:
        try:
            return self._program.cost_analysis()
        except NotImplementedError:
            return None


class Lowered(_BackendStage):
    """A program translated for a backend, ready to compile."""

    @property
    def _lowering(self):
        return self._program

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The backend's program (for the interpreter: the printed jaxpr)."""
        return self._lowering.as_text()

    def compiler_ir(self, dialect: str | None = None):
        return self._lowering

    def compile(self, compiler_options: dict | None = None) -> "Compiled":
        executable = compile_lowering(self._lowering, **(compiler_options or {}))
        return Compiled(executable, self.args_info, self.out_tree, self._arg_names)


class Compiled(_BackendStage):
    """A compiled program for fixed argument types: call it like the function."""

    @property
    def _executable(self):
        return self._program

    def as_text(self, *, assembly: bool = False, emitted: bool = False) -> str | None:
        """The compiled program's text: for the CPU backend the optimized LLVM IR
        (``emitted=True``: the IR as minijax's translator emitted it, before LLVM
        optimized it), or with ``assembly=True`` the machine code (JAX prints
        XLA's optimized HLO)."""
        try:
            if assembly:
                return self._executable.as_text(assembly=True)
            if emitted:
                return self._executable.as_text(emitted=True)
            return self._executable.as_text()
        except NotImplementedError:
            return None

    def memory_analysis(self):
        return None

    def __call__(self, *args, **kwargs):
        flat, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(_pytree_mismatch_message(in_tree, self.in_tree))
        for x in flat:
            if isinstance(x, Tracer):
                raise TypeError(
                    "Cannot apply JAX transformations to a function lowered and compiled "
                    "for a particular signature. Detected argument of Tracer type "
                    f"{type(x)}.")
        ref_avals = tree_util.tree_leaves(self.in_avals)
        check_arg_avals_for_call(ref_avals, [get_aval(x) for x in flat], self._arg_names)
        return self.out_tree.unflatten(wrap_outputs(self._executable(*flat)))


#: Functions a later chapter registers to give its own results their own class: each
#: maps an output ``Array`` of a compiled call to the array to return (chapter 13:
#: key-typed results become ``PRNGKeyArray``, as they are when computed eagerly).
#: They concern results of extended dtypes only (a dtype that is not a NumPy dtype):
#: ``jit``'s fast path does not call them for a program without such results.
output_wrappers: list = []


def wrap_outputs(outs: list) -> list:
    """``outs`` through every registered :data:`output_wrappers`."""
    for wrap in output_wrappers:
        outs = [wrap(o) for o in outs]
    return outs


def _pytree_mismatch_message(given, expected) -> str:
    errs = list(tree_util.equality_errors_pytreedef(given, expected))
    msg = ["Function compiled with input pytree does not match the input pytree it was "
           f"called with. There are {len(errs)} mismatches, including:"]
    for path, thing1, thing2, explanation in errs:
        first, *rest = path
        base = ["args", "kwargs"][first.idx]
        msg.append(f"    * at {base}{tree_util.keystr(tuple(rest))}, seen {thing2} but now "
                   f"given {thing1}, so {explanation}")
    return "\n".join(msg)


def check_arg_avals_for_call(ref_avals, arg_avals, arg_names) -> None:
    """JAX's TypeError when a compiled program is called on other shapes or dtypes."""
    if len(ref_avals) != len(arg_avals):
        raise TypeError(f"Computation compiled for {len(ref_avals)} inputs "
                        f"but called with {len(arg_avals)}")
    errors = [f"Argument '{name}' compiled with {ref.str_short()} and called with "
              f"{arg.str_short()}"
              for ref, arg, name in zip(ref_avals, arg_avals, arg_names)
              if (ref.shape, ref.dtype) != (arg.shape, arg.dtype)]
    if errors:
        num = (f"The first 5 of {len(errors)}" if len(errors) >= 5 else "The")
        raise TypeError(
            "Argument types differ from the types for which this computation was "
            "compiled. Perhaps you are calling the compiled executable with a different "
            f"enable_x64 mode than when it was AOT compiled? {num} mismatches are:\n"
            + "\n".join(errors[:5]))
