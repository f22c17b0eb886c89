"""Chapter 05 — recording a jaxpr: a trace that writes primitives down.

The traces of chapters 01–04 *do* something with each primitive (print it,
differentiate it, batch it) and then compute it. The trace here only
*records* it: :class:`DynamicJaxprTrace` gives the function abstract tracers
(shape and dtype, no values) and turns every ``bind`` into a
:class:`~minijax.jaxpr.JaxprEqn`, using the primitive's abstract evaluation
rule for the output types. When the function returns, the equations, the
inputs, the outputs and the constants it captured make a jaxpr.

What the function sees is a :class:`DynamicJaxprTracer` whose value is an
*atom* of the jaxpr being built: a :class:`~minijax.jaxpr.Var` (an input or
an equation's output) or a :class:`~minijax.jaxpr.Literal`. Values that are
not this trace's tracers are *constants*, and become:

- a ``Literal`` (written inline, ``2.0:f32[]``) when they are scalars:
  Python and NumPy scalars, 0-d NumPy arrays, and (in minijax) 0-d ``Array``s;
- a *constvar* otherwise (array constants and other traces' tracers): a
  leading binder of the jaxpr, ``{ lambda a:f32[3]; b:f32[]. ...``, whose
  value is kept in the ``ClosedJaxpr``'s ``consts``.

Nothing is evaluated: ``jnp.log(2.0)`` is recorded as ``log 2.0:f32[]``. And
everything Python does *around* the primitives — ``print``, ``if x.ndim``,
loops — happens once, now, and leaves no trace in the jaxpr. (To print at run
time, chapter 12's ``debug.print`` binds a primitive, which *is* recorded, with
its *effect*: each equation records its effects, and the jaxpr the union.)

``make_jaxpr(f)(*args)`` is the user's door; :func:`trace_to_jaxpr_dynamic`
is the one ``jit`` (chapter 06) uses.

JAX names: "partial evaluation" is the general technique (evaluate what is
known, stage out what is not); with nothing known, it stages out everything,
which is what building a jaxpr is.
"""
from __future__ import annotations

import inspect
import itertools
import os
import sys
import sysconfig
import threading
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minijax import tree_util
from minijax.abstract_arrays import ShapedArray
from minijax.array import Array
from minijax.core import Trace, Tracer, eval_trace, find_cur_trace, get_aval, set_current_trace
from minijax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprPpContext, JaxprPpSettings,
                           Literal, Var, eqn_effects, pp_eqn, source_info_ctx)
from minijax.primitives import abstract_eval_rules

__all__ = ["DynamicJaxprTrace", "DynamicJaxprTracer", "JaxprBuilder", "DebugInfo",
           "ShapeDtypeStruct", "make_jaxpr", "trace_to_jaxpr_dynamic", "debug_info",
           "fun_sourceinfo", "ensure_compile_time_eval"]


# =============================================================================
# Which function is being traced (for error messages)
# =============================================================================
class DebugInfo:
    """What a trace knows about the function it traces, to explain errors.

    ``traced_for`` names the transformation ("jit"; JAX's ``make_jaxpr`` is
    built on ``jit`` and says "jit" too), ``func_src_info`` is
    ``"f at file.py:12"`` and ``arg_names`` names each flat input
    (``x``, ``params['w']``, ``args[1]``). ``result_paths``, set once the
    function has returned, is a thunk giving each flat output's key path.
    """
    __slots__ = ("traced_for", "func_src_info", "arg_names", "result_paths")

    def __init__(self, traced_for: str, func_src_info: str, arg_names: Sequence[str] | None):
        self.traced_for = traced_for
        self.func_src_info = func_src_info
        self.arg_names = None if arg_names is None else tuple(arg_names)
        self.result_paths: Callable[[], list[str]] | None = None

    def __repr__(self):
        return (f"DebugInfo({self.traced_for!r}, {self.func_src_info!r}, "
                f"{self.arg_names!r})")


def fun_sourceinfo(fun: Callable) -> str:
    """``"name at file:line"`` for a Python function (``functools.partial`` unwrapped)."""
    while isinstance(fun, partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    try:
        code = fun.__code__
        return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"
    except AttributeError:
        return "<unknown>"


def debug_info(traced_for: str, fun: Callable, args: Sequence, kwargs: dict, *,
               static_argnums: Sequence[int] = ()) -> DebugInfo:
    """The :class:`DebugInfo` for tracing ``fun(*args, **kwargs)``.

    Each flat input is named by its parameter in ``fun``'s signature plus its
    key path in that argument: ``x``, ``params['w'][1]``, ``args[1]`` (for
    ``*args``), ``kw['z']`` (for ``**kw``). Positional arguments come first,
    then keyword arguments sorted by name, as the inputs are ordered; static
    arguments have no input and no name. Without a signature: ``args[i]``.
    """
    static = object()  # a leaf standing for a static argument, then skipped
    args = [static if i in static_argnums else a for i, a in enumerate(args)]
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError):
        named = [("args", args)] + [(f"kwargs['{k}']", kwargs[k]) for k in sorted(kwargs)]
    else:
        var_kw = next((n for n, p in inspect.signature(fun).parameters.items()
                       if p.kind == p.VAR_KEYWORD), None)
        named = [(n, x) for n, x in bound.arguments.items() if n not in kwargs and n != var_kw]
        named += [(k if k in bound.arguments else f"{var_kw}['{k}']", kwargs[k])
                  for k in sorted(kwargs)]
    names = [name + tree_util.keystr(path) for name, x in named
             for path, leaf in tree_util.tree_flatten_with_path(x)[0] if leaf is not static]
    return DebugInfo(traced_for, fun_sourceinfo(fun), names)


# Frames in these directories are minijax's or Python's own, not the user's.
_EXCLUDED_PATHS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,  # minijax/
    sysconfig.get_path("stdlib"),
)


def user_source_info() -> str | None:
    """``"file.py:12:8 (f)"``: where in the *user's* code the current primitive is bound.

    The innermost frame outside minijax and the standard library; the column
    is the start of the expression being evaluated, as in JAX's messages.
    While a jaxpr is being evaluated (and so traced again), it is the source
    of the equation being evaluated.
    """
    if source_info_ctx.current is not None:
        return source_info_ctx.current
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_EXCLUDED_PATHS):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    pos = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None), None)
    line, col = (pos[0], pos[2]) if pos and pos[0] is not None else (frame.f_lineno, 0)
    where = f"{code.co_filename}:{line}" + (f":{col}" if col else "")
    return f"{where} ({code.co_qualname})"


# =============================================================================
# The tracer and the trace
# =============================================================================
class DynamicJaxprTracer(Tracer):
    """A value of the function being recorded: an aval and a jaxpr atom (``val``)."""
    __slots__ = ("_aval", "val")

    def __init__(self, trace: "DynamicJaxprTrace", aval: ShapedArray, val):
        super().__init__(trace)
        self._aval = aval
        self.val = val  # a Var or a Literal of the jaxpr being built

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def to_concrete_value(self):
        """The value of a literal or constant; ``None`` for inputs and equation outputs."""
        val = self._trace.builder.get_const(self)
        if isinstance(val, Tracer):
            return val.to_concrete_value()
        return val

    def _origin_msg(self) -> str:
        return self._trace.builder.origin_msg(self)

    @property
    def _debug_info(self):
        """The function being traced (for the leaked-tracer message)."""
        return self._trace.builder.debug_info

    @property
    def _line_info(self) -> list:
        """Where this value was created: its equation's source line (none for inputs)."""
        for eqn in reversed(self._trace.builder.eqns):
            if self.val in eqn.outvars:
                return [eqn.source_info] if eqn.source_info else []
        return []

    def _short_repr(self) -> str:
        return f"JitTracer({self.aval})"

    def __repr__(self):
        weak = "~" if self.aval.weak_type else ""
        return f"JitTracer({weak}{self.aval.str_short()})"

    __str__ = __repr__


def _is_literalable(x) -> bool:
    """Scalars that are not tracers are written inline as literals.

    JAX 0.10 inlines Python scalars, NumPy scalars and 0-d NumPy arrays.
    minijax also inlines 0-d ``Array``s, because its jnp functions turn
    Python scalars into such arrays before binding (JAX keeps them as typed
    NumPy values); JAX makes a closed-over 0-d ``jax.Array`` a constvar.
    A PRNG key (chapter 13: an extended dtype) is never a literal: it has no
    literal syntax, and JAX makes a closed-over key a constvar too.
    """
    if isinstance(x, Tracer):
        return False
    if isinstance(x, (bool, int, float, complex)):
        return True
    dtype = getattr(x, "dtype", None)
    if getattr(dtype, "extended", False) or getattr(dtype, "names", None):
        return False  # a key (or a key's structured storage)
    return isinstance(x, np.generic) or (isinstance(x, (np.ndarray, Array)) and x.shape == ())


class JaxprBuilder:
    """The jaxpr under construction: inputs, equations and captured constants.

    (JAX calls it the trace's *frame*.)
    """

    def __init__(self, debug_info: DebugInfo | None = None):
        self.debug_info = debug_info
        self.invars: list[Var] = []
        self.eqns: list[JaxprEqn] = []
        self.constvar_to_val: dict[Var, Any] = {}  # in order of capture
        self.const_tracers: dict[int, DynamicJaxprTracer] = {}  # id(value) -> tracer

    def get_const(self, tracer: DynamicJaxprTracer):
        atom = tracer.val
        if isinstance(atom, Literal):
            return atom.val
        return self.constvar_to_val.get(atom)

    def to_jaxpr(self, out_tracers: Sequence[DynamicJaxprTracer]) -> tuple[Jaxpr, list]:
        constvars, consts = list(self.constvar_to_val), list(self.constvar_to_val.values())
        outvars = [t.val for t in out_tracers]
        jaxpr = Jaxpr(constvars, self.invars, outvars, self.eqns,  # effects: the eqns'
                      debug_info=self.debug_info)
        return jaxpr, consts

    # --- explaining where an abstract value came from ------------------------
    def find_progenitors(self, tracer: DynamicJaxprTracer):
        """The inputs ``tracer`` depends on, and the equations that read constants.

        Walk the equations backwards from the tracer's variable, collecting the
        variables it was computed from.
        """
        var = tracer.val
        if isinstance(var, Literal):
            return [], []
        active = {var}
        for eqn in reversed(self.eqns):
            if active & set(eqn.outvars):
                active.difference_update(eqn.outvars)
                active.update(v for v in eqn.invars if isinstance(v, Var))
        invar_positions = [i for i, v in enumerate(self.invars) if v in active]
        constvars = active & set(self.constvar_to_val)
        const_eqns = [e for e in self.eqns
                      if any(v in constvars if isinstance(v, Var) else True
                             for v in e.invars)]
        return invar_positions, const_eqns

    def origin_msg(self, tracer: DynamicJaxprTracer) -> str:
        """JAX's explanation: which function, and which arguments the value depends on."""
        dbg = self.debug_info
        if dbg is None:
            return ""
        invar_pos, const_eqns = self.find_progenitors(tracer)
        origin = (f"The error occurred while tracing the function {dbg.func_src_info} "
                  f"for {dbg.traced_for}. ")
        if invar_pos:
            names = [dbg.arg_names[i] if dbg.arg_names is not None else "unknown"
                     for i in invar_pos]
            if len(names) == 1:
                what = f"the argument {names[0]}"
            elif len(names) == 2:
                what = f"the arguments {names[0]} and {names[1]}"
            else:
                what = f"the arguments {', '.join(names[:-1])}, and {names[-1]}"
            origin += ("This concrete value was not available in Python because it "
                       f"depends on the value{'s' if len(names) > 1 else ''} of {what}.")
        elif const_eqns:
            ops = [f"  operation {pp_eqn(e, JaxprPpContext(), JaxprPpSettings())}\n"
                   f"    from line {e.source_info or 'unknown'}" for e in const_eqns[:5]]
            origin += ("This value became a tracer due to JAX operations on these lines:"
                       "\n\n" + "\n\n".join(ops))
            if len(const_eqns) > 5:
                origin += "\n\n(Additional originating lines are not shown.)"
        return "\n" + origin


class DynamicJaxprTrace(Trace):
    """Record every primitive bound on its tracers as an equation of a jaxpr."""

    def __init__(self, debug_info: DebugInfo | None = None, parent: Trace | None = None):
        self.builder = JaxprBuilder(debug_info)
        self.parent = find_cur_trace() if parent is None else parent

    def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
        """A new input of the jaxpr."""
        var = Var(aval)
        self.builder.invars.append(var)
        return DynamicJaxprTracer(self, aval, var)

    def to_jaxpr_tracer(self, x) -> DynamicJaxprTracer:
        """Our own tracer as it is; anything else becomes a literal or a constvar."""
        if isinstance(x, DynamicJaxprTracer) and x._trace is self:
            return x
        return self.new_const(x)  # (a leaked tracer too, as in JAX: it fails when run)

    def new_const(self, x) -> DynamicJaxprTracer:
        aval = get_aval(x)
        if _is_literalable(x):
            return DynamicJaxprTracer(self, aval, Literal(x, aval))
        tracer = self.builder.const_tracers.get(id(x))
        if tracer is None:  # the same constant captured twice is one constvar
            var = Var(aval)
            self.builder.constvar_to_val[var] = x
            tracer = DynamicJaxprTracer(self, aval, var)
            self.builder.const_tracers[id(x)] = tracer
        return tracer

    def process_primitive(self, primitive, args, params):
        if _compile_time_eval.active and not any(isinstance(x, Tracer) for x in args):
            with set_current_trace(eval_trace):  # constants only: fold them now
                return primitive.bind(*args, **params)
        tracers = [self.to_jaxpr_tracer(x) for x in args]
        out_avals = abstract_eval_rules[primitive](*(t.aval for t in tracers), **params)
        out_avals = out_avals if primitive.multiple_results else [out_avals]
        outvars = [Var(aval) for aval in out_avals]
        self.builder.eqns.append(JaxprEqn([t.val for t in tracers], outvars, primitive,
                                          params, eqn_effects(primitive, params),
                                          user_source_info()))
        outs = [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        return outs if primitive.multiple_results else outs[0]


# =============================================================================
# Evaluating at trace time
# =============================================================================
class _CompileTimeEval(threading.local):
    active = False


_compile_time_eval = _CompileTimeEval()


@contextmanager
def ensure_compile_time_eval():
    """Evaluate now, while tracing, whatever can be evaluated (``jax.ensure_compile_time_eval``).

    Inside ``jit``, a primitive whose inputs are all constants is normally
    staged like any other; within this block it runs at once instead, so its
    result is a concrete ``Array`` that Python control flow can use::

        @jit
        def f(x):
            with ensure_compile_time_eval():
                positive = jnp.sin(3.0) > 0   # an Array, not a tracer
            return jnp.sin(x) if positive else jnp.cos(x)

    Operations on the traced arguments are still staged.
    """
    prev = _compile_time_eval.active
    _compile_time_eval.active = True
    try:
        yield
    finally:
        _compile_time_eval.active = prev


def compile_time_eval_active() -> bool:
    """Is an :func:`ensure_compile_time_eval` block open (in this thread)?"""
    return _compile_time_eval.active


# =============================================================================
# Entry points
# =============================================================================
def trace_to_jaxpr_dynamic(fun: Callable, in_avals: Sequence[ShapedArray],
                           debug_info: DebugInfo | None = None
                           ) -> tuple[Jaxpr, list[ShapedArray], list]:
    """Trace ``fun(*flat_inputs) -> flat outputs`` on abstract inputs.

    Returns ``(jaxpr, out_avals, consts)``: the jaxpr's constvars stand for
    ``consts``. This is the internal door ``jit`` (chapter 06) uses;
    flattening pytrees is the caller's job.
    """
    trace = DynamicJaxprTrace(debug_info)
    in_tracers = [trace.new_arg(aval) for aval in in_avals]
    try:
        with set_current_trace(trace):
            outs = fun(*in_tracers)
        _check_returned_jaxtypes(debug_info, outs)
        out_tracers = [trace.to_jaxpr_tracer(x) for x in outs]
        jaxpr, consts = trace.builder.to_jaxpr(out_tracers)
    finally:
        trace.invalidate()  # a tracer that escapes is now recognisably stale
    return jaxpr, [v.aval for v in jaxpr.outvars], consts


def _check_returned_jaxtypes(dbg: DebugInfo | None, outs) -> None:
    for i, x in enumerate(outs):
        try:
            get_aval(x)
        except TypeError:
            where = f"{dbg.func_src_info} traced for {dbg.traced_for}" if dbg else "<unknown>"
            paths = dbg.result_paths() if dbg and dbg.result_paths else []
            extra = f" at output component {paths[i]}" if i < len(paths) and paths[i] else ""
            raise TypeError(f"function {where} returned a value of type {type(x)}{extra}, "
                            "which is not a valid JAX type") from None


class ShapeDtypeStruct:
    """The shape and dtype (and weak type) of an array, without its values.

    What ``eval_shape`` and ``jit(f).trace(...).out_info`` return, what AOT
    tracing accepts in place of an array, and how a callback (chapter 12)
    states the type of its result: ``ShapeDtypeStruct((3,), jnp.float32)``, or
    ``ShapeDtypeStruct.like(x)`` for "the type of ``x``". Immutable, hashable,
    printed as JAX prints it. (``sharding`` is kept and shown, never used:
    minijax has one device per computation.)
    """
    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False):
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        if not isinstance(dtype, np.dtype):
            dtype = np.dtype(dtype)
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "sharding", sharding)
        object.__setattr__(self, "weak_type", bool(weak_type))

    def __setattr__(self, name, value):
        raise RuntimeError(f"Cannot reassign attributes ({name}) of immutable "
                           "ShapeDtypeStruct objects")

    @classmethod
    def like(cls, x) -> "ShapeDtypeStruct":
        """The shape, dtype and weak type of ``x`` (an array, a scalar, a tracer, or a
        ``ShapeDtypeStruct``)."""
        if isinstance(x, ShapeDtypeStruct):
            return cls(x.shape, x.dtype, sharding=x.sharding, weak_type=x.weak_type)
        aval = get_aval(x)
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

    def update(self, **kwargs) -> "ShapeDtypeStruct":
        """A copy with some of ``shape``, ``dtype``, ``sharding``, ``weak_type`` replaced."""
        return ShapeDtypeStruct(kwargs.pop("shape", self.shape), kwargs.pop("dtype", self.dtype),
                                sharding=kwargs.pop("sharding", self.sharding),
                                weak_type=kwargs.pop("weak_type", self.weak_type))

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __len__(self):
        try:
            return self.shape[0]
        except IndexError as e:
            raise TypeError("len() of unsized object") from e  # same as numpy error

    def __repr__(self):
        sharding = f", sharding={self.sharding}" if self.sharding is not None else ""
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"

    __str__ = __repr__

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and
                (self.shape, self.dtype, self.sharding, self.weak_type) ==
                (other.shape, other.dtype, other.sharding, other.weak_type))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.sharding, self.weak_type))

    def __reduce__(self):
        return (_make_shape_dtype_struct, (self.shape, self.dtype, self.sharding, self.weak_type))


def _make_shape_dtype_struct(shape, dtype, sharding, weak_type) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(shape, dtype, sharding=sharding, weak_type=weak_type)


def _abstractify(fun: Callable, x, name: str) -> ShapedArray:
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(
            f"Error interpreting argument to {fun!r} as an abstract array. The problematic "
            f"value is of type {type(x)} and was passed to the function at path {name}.\n"
            "This typically means that a jit-wrapped function was called with a "
            "non-array argument, and this argument was not marked as static using the "
            "static_argnums or static_argnames parameters of jax.jit.") from None


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (),
               axis_env: Sequence[tuple[Any, int]] | None = None,
               return_shape: bool = False) -> Callable:
    """Return a function that traces ``fun`` on example arguments and returns its jaxpr.

    ``make_jaxpr(f)(*args, **kwargs)`` is a :class:`~minijax.jaxpr.ClosedJaxpr`.
    Only the shapes and dtypes of the (pytree) arguments matter; arguments
    listed in ``static_argnums`` are passed to ``fun`` as they are (Python
    values, not inputs of the jaxpr). With ``return_shape=True`` it returns
    ``(closed_jaxpr, out_shapes)``, a pytree of :class:`ShapeDtypeStruct` like
    the output. ``axis_env`` (for named-axis collectives) is accepted and unused.

    >>> import minijax.numpy as jnp
    >>> print(make_jaxpr(lambda x: jnp.sin(jnp.cos(x)))(3.0))  # doctest: +SKIP
    { lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }
    """
    del axis_env

    def make_jaxpr_f(*args, **kwargs):
        static = _normalize_argnums(static_argnums, len(args))
        dbg = debug_info("jit", fun, args, kwargs, static_argnums=static)
        dynamic = [a for i, a in enumerate(args) if i not in static]
        kw_keys = sorted(kwargs)
        flat_in, in_tree = tree_util.tree_flatten((dynamic, [kwargs[k] for k in kw_keys]))
        in_avals = [_abstractify(fun, x, n) for x, n in zip(flat_in, dbg.arg_names)]
        out_tree = []

        def flat_fun(*flat_tracers):
            dyn, kws = tree_util.tree_unflatten(in_tree, flat_tracers)
            dyn_iter = iter(dyn)
            full_args = [a if i in static else next(dyn_iter) for i, a in enumerate(args)]
            out = fun(*full_args, **dict(zip(kw_keys, kws)))
            flat_out, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            dbg.result_paths = lambda: [tree_util.keystr(path) for path, _ in
                                        tree_util.tree_flatten_with_path(out)[0]]
            return flat_out

        jaxpr, out_avals, consts = trace_to_jaxpr_dynamic(flat_fun, in_avals, dbg)
        closed = ClosedJaxpr(jaxpr, consts)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                      for a in out_avals]
            return closed, tree_util.tree_unflatten(out_tree[0], shapes)
        return closed

    name = getattr(fun, "__name__", None)
    if name is not None:
        make_jaxpr_f.__name__ = f"make_jaxpr({name})"
        make_jaxpr_f.__qualname__ = f"make_jaxpr({getattr(fun, '__qualname__', name)})"
    make_jaxpr_f.__doc__ = getattr(fun, "__doc__", None)
    make_jaxpr_f.__wrapped__ = fun
    return make_jaxpr_f


def _normalize_argnums(argnums, n: int) -> set[int]:
    argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return {i + n if i < 0 else i for i in argnums}
