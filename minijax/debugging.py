"""Chapter 12 — ``debug.print`` and ``debug.callback``: looking inside a running program.

Python's ``print`` inside a jitted function runs once, at trace time, and
shows tracers::

    @jit
    def f(x):
        print(x)                        # JitTracer(~float32[]), once
        debug.print("x = {}", x)        # x = 1.0, at every call
        return x * 2

``debug.print`` binds a primitive (``debug_print``) that stays in the jaxpr;
when the program *runs*, it formats its operands' concrete values with
``fmt.format`` and writes the line to ``sys.stdout``. ``debug.callback(fn,
*args)`` (primitive ``debug_callback``) is the general form: it calls ``fn``
with the values, for whatever a debugger needs.

Both carry the ``Debug`` effect, so they are never removed as dead code,
although they have no outputs; with ``ordered=True`` the ``OrderedDebug``
effect, so they happen in program order across dispatches and devices (see
:mod:`minijax.runtime.tokens`). Unordered, two prints of one jitted program
run in program order in minijax (the interpreter and the kernels run
equations in order), but two *dispatches* may print in either order when they
run on two devices.

They are made to be innocuous under transformations, as JAX's are:

- ``jvp``/``grad``/``linearize`` print the *primal* values (the callback is
  applied to primals only, and has no tangent);
- ``vmap`` calls it once per example, in order (the batching rule unrolls);
- in ``cond``/``while_loop``/``scan`` bodies it runs each time the body runs.

Errors: eagerly, an exception of ``fn`` is raised as it is; inside a running
program (a jitted call, a queued loop) it is that program's
``JaxRuntimeError``, raised from the original, where the program's outputs
are read or at ``effects_barrier()``.
"""
from __future__ import annotations

import copy
import functools
import logging
import os
import string
import sys
from typing import Any, Callable

import numpy as np

from minijax import lax, numpy as jnp
from minijax.backends.cpu import rules as _cpu_rules
from minijax.backends.cuda import rules as _cuda_rules
from minijax.callback import call_python, callback_error
from minijax.core import get_aval
from minijax.effects import effect_kinds
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batching_rules, not_mapped
from minijax.jaxpr import effect_rules
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.runtime.streams import in_runtime
from minijax.tree_util import tree_flatten, tree_unflatten

__all__ = ["DebugEffect", "OrderedDebugEffect", "debug_effect", "ordered_debug_effect",
           "debug_callback_p", "debug_print_p", "debug_callback", "debug_print", "debug_log"]

#: Where a failing callback is reported (JAX's ``jax._src.debugging`` logger), and
#: where ``debug.log`` writes.
logger = logging.getLogger(__name__)


DebugEffect, OrderedDebugEffect = effect_kinds("Debug", __name__,
                                               "``debug.print``/``debug.callback``")
debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()


def _call_debug(fn: Callable, np_args) -> None:
    """Call ``fn`` on the values; inside a running program, a failure is the program's.

    A failure is logged first (``jax.debug.callback failed`` and its traceback,
    on stderr unless logging is configured otherwise), as JAX logs it. Any
    exception counts, ``SystemExit`` too (the debugger's ``q``): inside a
    program it becomes the program's error, as in JAX.
    """
    try:
        call_python(fn, np_args)
    except BaseException as e:
        logger.exception("jax.debug.callback failed")
        if in_runtime():  # (a queued or jitted program: JAX's runtime error)
            raise callback_error(e) from e
        raise  # eager: the function's own error, as JAX's eager debug callback


# =============================================================================
# Rules shared by both primitives
# =============================================================================
def _no_outputs(*avals, **params):
    return []


def _debug_jvp(primitive, primals, tangents, **params):
    """Show the primal values; there is nothing to differentiate (no outputs)."""
    return primitive.bind(*primals, **params), []


def _debug_batching(primitive, args, dims, **params):
    """One call per example, in order: ``f(x[0]); f(x[1]); ...`` (unbatched operands
    are passed whole to every call)."""
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims) if d is not not_mapped)
    outs = []
    for i in range(size):
        example = [x if d is not_mapped else lax.index_in_dim(x, i, axis=d, keepdims=False)
                   for x, d in zip(args, dims)]
        outs.append(primitive.bind(*example, **params))
    outs = [jnp.stack(xs) for xs in zip(*outs)]
    return outs, [0] * len(outs)


def _register(primitive: Primitive, impl: Callable, effects: Callable) -> None:
    impl_rules[primitive] = impl
    abstract_eval_rules[primitive] = _no_outputs
    effect_rules[primitive] = effects
    jvp_rules[primitive] = functools.partial(_debug_jvp, primitive)
    batching_rules[primitive] = functools.partial(_debug_batching, primitive)


# =============================================================================
# debug_callback
# =============================================================================
debug_callback_p = Primitive("debug_callback", multiple_results=True, kind="other")


def _debug_callback_impl(*args, callback, effect, partitioned):
    del effect, partitioned
    _call_debug(callback, args)
    return []


_register(debug_callback_p, _debug_callback_impl, lambda *, effect, **_: {effect})


def _split_callback_args(args, kwargs):
    """The flat leaves of ``(args, kwargs)``: arrays become operands, anything else
    (strings, Python objects) is kept aside as a static value (position -> value)."""
    flat_args, in_tree = tree_flatten((args, kwargs))
    static_args, dyn_args = {}, []
    for i, a in enumerate(flat_args):
        try:
            get_aval(a)
            dyn_args.append(a)
        except TypeError:
            static_args[i] = a
    return in_tree, dyn_args, static_args


def _merge_callback_args(in_tree, dyn_args, static_args):
    """``(args, kwargs)`` again, from the operands and the static values."""
    static = dict(static_args)
    dyn = iter(dyn_args)
    leaves = [static[i] if i in static else next(dyn)
              for i in range(len(static) + len(dyn_args))]
    return tree_unflatten(in_tree, leaves)


def debug_callback(callback: Callable[..., None] | None = None, *args: Any,
                   ordered: bool = False, partitioned: bool = False, **kwargs: Any):
    """Call ``callback(*args, **kwargs)`` with the concrete values, when the program runs.

    Works eagerly (at once) and inside ``jit``, ``vmap`` (once per example),
    ``jvp``/``grad`` (primal values) and control flow. ``ordered=True`` keeps
    the calls in program order across dispatches. The two-call form
    ``debug.callback(ordered=True)(fn, *args)`` is accepted too. Returns ``None``.
    """
    def _debug_callback(callback: Callable[..., None], *c_args: Any, **c_kwargs: Any):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, "
                            f"but got an object of type {type(callback)}")
        in_tree, dyn_args, static_args = _split_callback_args(c_args, c_kwargs)

        def _flat_callback(*dyn_args_flat):
            args_, kwargs_ = _merge_callback_args(in_tree, dyn_args_flat, static_args)
            callback(*args_, **kwargs_)
            return ()

        effect = ordered_debug_effect if ordered else debug_effect
        debug_callback_p.bind(*dyn_args, callback=_flat_callback, effect=effect,
                              partitioned=partitioned)

    return _now_or_later("debug_callback", _debug_callback, callback, args, kwargs)


# =============================================================================
# debug_print
# =============================================================================
debug_print_p = Primitive("debug_print", multiple_results=True, kind="other")


def _format_print_callback(fmt: str, np_printoptions, has_placeholders: bool,
                           logging_record, *args, **kwargs):
    """Write one line: ``fmt.format(*args, **kwargs)``, arrays as NumPy prints them (with
    the print options of the moment ``debug.print`` was called); for ``debug.log``, log
    it instead, as a copy of the record made at trace time."""
    if has_placeholders:
        with np.printoptions(**np_printoptions):
            msg = fmt.format(*args, **kwargs)
    else:
        msg = " ".join((fmt, *(str(a) for a in args)))
    if logging_record is not None:
        record = copy.copy(logging_record)
        record.msg = msg
        logger.handle(record)
    else:
        sys.stdout.write(msg + "\n")


def _debug_print_impl(*args, fmt, ordered, partitioned, in_tree, static_args,
                      np_printoptions, has_placeholders, logging_record):
    del ordered, partitioned

    def callback(*dyn_args):
        c_args, c_kwargs = _merge_callback_args(in_tree, dyn_args, static_args)
        _format_print_callback(fmt, dict(np_printoptions), has_placeholders,
                               logging_record, *c_args, **c_kwargs)
    _call_debug(callback, args)
    return []


def _debug_print_effects(*, ordered, **_):
    return {ordered_debug_effect if ordered else debug_effect}


_register(debug_print_p, _debug_print_impl, _debug_print_effects)

# Compiled kernels call back into Python through chapter 09's trampoline, which
# runs the impl rules above (minijax/backends/cpu/rules.py: _host_callback).
_cpu_rules.register_host_call_lowerings(debug_callback_p, debug_print_p)
_cuda_rules.register_host_call_lowerings(debug_callback_p, debug_print_p)  # chapter 10: from its host driver


class _DebugPrintFormatChecker(string.Formatter):
    """Checks, at trace time, that ``fmt`` uses every argument (and formats nothing)."""

    def format_field(self, value, format_spec):
        del value, format_spec
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                "You may be passing an f-string (i.e, `f\"{x}\"`) into "
                "`jax.debug.print` and instead should pass in a regular string.")


_formatter = _DebugPrintFormatChecker()


#: Frames in this directory are minijax's own, not the user's (``debug.log``'s line,
#: ``debug.breakpoint``'s frames).
_MINIJAX_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _make_logging_record(level: int) -> logging.LogRecord:
    """A record at the user's line that binds ``debug.log`` (its message comes later)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_MINIJAX_DIR):
        frame = frame.f_back
    file_name, line_no = ("(unknown file)", 0) if frame is None else (
        frame.f_code.co_filename, frame.f_lineno)
    return logger.makeRecord(logger.name, level, file_name, line_no, "", (), None)


def debug_print(fmt: str | None = None, *args, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False,
                _use_logging: bool = False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with the concrete values, when the program runs.

    Not an f-string (formatting happens later, at run time): write
    ``debug.print("x = {x}", x=x)``, ``"{}"`` or ``"{x:.3f}"``. Arrays are
    formatted as NumPy prints them. Works eagerly (at once), under ``jit``,
    ``vmap`` (one line per example), ``jvp``/``grad`` (primal values) and in
    control flow bodies. ``ordered=True`` keeps the lines in program order
    across dispatches and devices. The two-call form
    ``debug.print(ordered=True)("x = {}", x)`` is accepted too.
    """
    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            _formatter.format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        in_tree, dyn_args, static_args = _split_callback_args(c_args, c_kwargs)
        debug_print_p.bind(*dyn_args, fmt=fmt, ordered=ordered, partitioned=partitioned,
                           in_tree=in_tree, static_args=tuple(static_args.items()),
                           np_printoptions=tuple(np.get_printoptions().items()),
                           has_placeholders=has_placeholders,
                           logging_record=(_make_logging_record(logging.INFO)
                                           if _use_logging else None))

    return _now_or_later("debug_print", _debug_print, fmt, args, kwargs)


#: ``debug.log``: ``debug.print`` through :data:`logger` (at level INFO, at the user's
#: line), not to stdout.
debug_log = functools.partial(debug_print, _use_logging=True)


def _now_or_later(name: str, run: Callable, first, args, kwargs):
    """JAX's two call forms: ``run(first, *args, **kwargs)`` now, or, without
    ``first`` (``debug.print(ordered=True)("x = {}", x)``), ``run`` itself."""
    if first is not None:
        run(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form:"
                        f" {args=} {kwargs=}")
    return run
