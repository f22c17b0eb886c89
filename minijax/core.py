"""Chapter 01 — tracing: how one function can be *interpreted* in many ways.

``Primitive.bind`` (chapter 00) hands every primitive application to a
dispatcher. This module installs the dispatcher that makes transformations
possible: it sends the application to the **current trace**.

A ``Trace`` is an interpreter. It receives ``(primitive, arguments, params)``
and decides what they mean: the :class:`EvalTrace` computes the result (the
eager path of chapter 00), a printing trace writes the equation down, a JVP
trace (chapter 02) computes a derivative alongside, a batching trace
(chapter 04) adds a batch dimension, a jaxpr trace (chapter 05) records the
equation into a program.

A ``Tracer`` is a value *of* a particular trace. It carries an abstract value
(shape and dtype) and whatever else its trace needs, and it behaves like an
array: ``x + 1`` on a tracer calls ``bind`` again, and so the trace sees it.

Design: this is the **stackless** design of modern JAX (and autodidax2). There
is one *current* trace, held in a thread-local context and changed with
:func:`set_current_trace`. A trace that processes a primitive usually runs its
rule under its *parent* trace (the one that was current when it was
created), which is how transformations nest: ``jvp(vmap(f))`` runs ``f`` under
a batching trace whose rules run under a JVP trace whose rules run under the
eval trace. A tracer always knows its own trace, so a trace can tell its own
tracers from its parents' (which it treats as constants). The older design,
an explicit stack of interpreters with levels, is explained in the notebook.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from minijax.abstract_arrays import HasAval, ShapedArray, get_aval as _concrete_aval
from minijax.dispatch import apply_primitive
from minijax.errors import (ConcretizationTypeError, TracerArrayConversionError,
                            TracerBoolConversionError, TracerIntegerConversionError,
                            escaped_tracer_error)
from minijax.primitives import Primitive, set_bind_dispatcher
from minijax.numpy.array_methods import install_array_methods

__all__ = ["Trace", "Tracer", "EvalTrace", "ShapedArray", "Primitive",
           "set_current_trace", "find_cur_trace", "take_current_trace", "get_aval",
           "bind", "eval_trace", "typeof"]


class Trace:
    """An interpreter of primitives. Subclasses implement :meth:`process_primitive`."""

    def process_primitive(self, primitive: Primitive, args, params):
        raise NotImplementedError

    def invalidate(self):
        """Called when the transformation that owns this trace returns."""
        self._invalidated = True

    def is_valid(self) -> bool:
        return not getattr(self, "_invalidated", False)

    def __repr__(self):
        return f"{type(self).__name__}"


class EvalTrace(Trace):
    """The outermost interpreter: evaluate each primitive now, on concrete values.

    Every argument it sees must be concrete (an ``Array``, a NumPy array or a
    Python scalar). A tracer here has escaped the transformation that made it.
    """

    def process_primitive(self, primitive, args, params):
        for x in args:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
        return apply_primitive(primitive, args, params)


eval_trace = EvalTrace()


class _TraceContext(threading.local):
    def __init__(self):
        self.trace: Trace = eval_trace


trace_ctx = _TraceContext()


def find_cur_trace() -> Trace:
    """The trace that the next ``bind`` will hand its primitive to."""
    return trace_ctx.trace


@contextmanager
def set_current_trace(trace: Trace):
    """Make ``trace`` current inside the ``with`` block (per thread)."""
    prev = trace_ctx.trace
    trace_ctx.trace = trace
    try:
        yield trace
    finally:
        trace_ctx.trace = prev


@contextmanager
def take_current_trace():
    """Yield the current trace and make the eval trace current meanwhile.

    A trace's rules use this to run "one level up": whatever they bind is
    interpreted by the parent, not by the trace itself (which would loop).
    """
    prev = trace_ctx.trace
    try:
        trace_ctx.trace = eval_trace
        yield prev
    finally:
        trace_ctx.trace = prev


def bind(primitive: Primitive, args, params):
    """The dispatcher ``Primitive.bind`` calls from now on: ask the current trace."""
    return trace_ctx.trace.process_primitive(primitive, args, params)


set_bind_dispatcher(bind)


class Tracer(HasAval):
    """A value being traced: it has an aval and belongs to one trace.

    Subclasses add their payload (a primal and a tangent, a value and a batch
    dimension...) and implement ``aval``. Operators and NumPy-style methods are
    the same as ``Array``'s, so user code cannot tell the difference — except
    where Python needs a *concrete* value, where the errors of
    :mod:`minijax.errors` explain why it cannot have one.
    """
    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, trace: Trace):
        self._trace = trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError


    def to_concrete_value(self):
        """The concrete value behind this tracer, if its trace knows one, else None."""
        return None

    def _short_repr(self) -> str:
        return f"{type(self).__name__}<{self.aval.str_short()}>"

    def __repr__(self):
        return f"Traced<{self.aval.str_short()}>with<{self._trace}>"

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __bool__(self):
        if self.aval.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        value = self.to_concrete_value()
        if value is None:
            raise TracerBoolConversionError(self)
        return bool(value)

    def __index__(self):
        if self.aval.shape or not np.issubdtype(self.aval.dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        value = self.to_concrete_value()
        if value is None:
            raise TracerIntegerConversionError(self)
        return int(value)

    def _concrete_scalar(self, kind: str):
        value = self.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(self, _conversion_context(kind))
        return value

    def __int__(self):
        return int(self._concrete_scalar("int"))

    def item(self, *args):
        return np.asarray(self._concrete_scalar("item")).item(*args)

    # JAX refuses these on *every* tracer, even one whose value is known
    # (``float(x)`` inside ``jvp`` raises while ``int(x)`` works): a float
    # made of a tracer would silently drop its tangent or batch.
    def __float__(self):
        raise ConcretizationTypeError(self, _conversion_context("float"))

    def __complex__(self):
        raise ConcretizationTypeError(self, _conversion_context("complex"))

    def tolist(self):
        raise ConcretizationTypeError(
            self, f"The tolist() method was called on traced array with shape "
                  f"{self.aval.str_short()}.")

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(self)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")


install_array_methods(Tracer)


def _conversion_context(kind: str) -> str:
    return (f"The problem arose with the `{kind}` function. If trying to convert the data "
            f"type of a value, try using `x.astype({kind})` or `jnp.array(x, {kind})` "
            "instead.")


def get_aval(x) -> ShapedArray:
    """The abstract value of anything: a tracer, an Array, a NumPy array, a scalar."""
    if isinstance(x, Tracer):
        return x.aval
    return _concrete_aval(x)


def typeof(x) -> ShapedArray:
    """The type of a value as JAX sees it (``jax.typeof``): its abstract value.

    ``typeof(jnp.ones(3))`` is ``float32[3]``, ``typeof(1.0)`` is ``~float32[]``
    (weakly typed), and inside a transformation it is the tracer's aval: the
    type of one example under ``vmap``.
    """
    if isinstance(x, Tracer):
        return x.aval
    try:
        return _concrete_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def is_concrete(x) -> bool:
    return not isinstance(x, Tracer) or x.to_concrete_value() is not None


def concrete_or_error(x, context: str = ""):
    """The concrete value of ``x`` or JAX's ``ConcretizationTypeError``."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, context)
        return value
    return x
