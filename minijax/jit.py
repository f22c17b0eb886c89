"""Chapter 06 — ``jit``: trace once per signature, compile once, run many times.

``jit(f)`` returns a function that, when called,

1. **abstracts** its arguments: each array becomes its aval (shape, dtype,
   weak type); arguments marked static stay Python values;
2. **looks up a cache** keyed on those avals, the pytree structure of the
   arguments (keyword names included) and the static values. On a miss it
   *traces* ``f`` to a jaxpr (chapter 05's ``trace_to_jaxpr_dynamic``) —
   this is the only time Python runs ``f``'s body — and stores the result;
3. **compiles** the jaxpr with a backend (:mod:`minijax.backends`), once per
   jaxpr, and **runs** the compiled program on the flat arguments.

So a side effect in ``f`` (a ``print``, a counter) happens once per new
signature, not once per call; a Python ``if`` on a traced value is an error
(it has no value at trace time: use ``static_argnums`` or ``jnp.where``); and
``jit(lambda x: ...)`` written inside a loop traces every time, because each
lambda is a new function and the cache is keyed on the function.

Under a transformation ``jit`` is a primitive, ``jit_p``, whose one
parameter that matters is the traced ``jaxpr``: ``make_jaxpr`` records a
``jit[name=f jaxpr={...}]`` equation, ``jvp`` differentiates the inner jaxpr
into a new ``jit`` equation, ``vmap`` batches it, and the eval trace runs it
(its *impl* is "compile and call"). That is why ``jvp(jit(f))`` and
``jit(jvp(f))`` both work, and why jits nest.

The AOT stages (``jit(f).trace(x).lower().compile()``) are in
:mod:`minijax.stages`; the configuration options (``jax_disable_jit``,
``jax_log_compiles``, ``jax_check_tracer_leaks``) in :mod:`minijax.config`.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import operator
import types
import warnings
import weakref
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import numpy as np

from minijax import dtypes, tree_util
from minijax.abstract_arrays import ShapedArray
from minijax.array import Array
from minijax.backends import interpreter as _interpreter  # (the default backend)
from minijax.backends.registry import execute, get_backend
from minijax.config import check_tracer_leaks as _check_tracer_leaks
from minijax.config import disable_jit as _disable_jit
from minijax.core import Tracer, eval_trace, find_cur_trace, get_aval, set_current_trace
from minijax.devices import default_platform, devices, other_platforms_present
from minijax.dispatch import to_numpy
from minijax.errors import JaxprTypeError, escaped_tracer_error
from minijax.interpreters import ad, batching
from minijax.interpreters.partial_eval import (DynamicJaxprTrace, ShapeDtypeStruct,
                                               _abstractify, debug_info, fun_sourceinfo,
                                               trace_to_jaxpr_dynamic)
from minijax.jaxpr import (ClosedJaxpr, JaxprEqn, _pp_eqn, custom_typechecks, eval_jaxpr,
                           pp_eqn_rules)
from minijax.numpy.util import set_jnp_jit
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.stages import (TraceResult, Traced, compile_lowering, log_elapsed_time,
                            lower_jaxpr, wrap_outputs)

__all__ = ["jit", "jit_p", "JitWrapped", "disable_jit", "eval_shape", "clear_caches",
           "jit_params", "bind_jit", "jvp_jaxpr", "batch_jaxpr",
           "get_executable", "UnspecifiedValue", "UNSPECIFIED", "register_cache"]


# =============================================================================
# 1. The primitive and its parameters
# =============================================================================
#: ``outs = jit[name=f jaxpr={...}] *args``: call a closed jaxpr as one unit.
jit_p = Primitive("jit", multiple_results=True, kind="call")


class UnspecifiedValue:
    """"No sharding asked for" (minijax has one device, so it is always this)."""
    __slots__ = ()

    def __repr__(self):
        return "UnspecifiedValue"


UNSPECIFIED = UnspecifiedValue()


class _EmptyMesh:
    """The device mesh of the context: none (JAX's ``ctx_mesh`` parameter)."""
    __slots__ = ()
    empty = True

    def __repr__(self):
        return "Mesh(axis_sizes=(), axis_names=())"


_EMPTY_MESH = _EmptyMesh()


def jit_params(closed_jaxpr: ClosedJaxpr, name: str, *, donated_invars=None,
               keep_unused: bool = False, inline: bool = False,
               compiler_options_kvs: tuple = ()) -> dict:
    """The params of a ``jit`` equation calling ``closed_jaxpr``: JAX's eleven keys.

    Only ``jaxpr`` and ``name`` matter to minijax; the others (shardings,
    layouts, mesh) keep JAX's names and default values, and the printer
    hides them when they are defaults, as JAX does.
    """
    n_in, n_out = len(closed_jaxpr.in_avals), len(closed_jaxpr.out_avals)
    return dict(jaxpr=closed_jaxpr,
                in_shardings=(UNSPECIFIED,) * n_in, out_shardings=(UNSPECIFIED,) * n_out,
                in_layouts=(None,) * n_in, out_layouts=(None,) * n_out,
                donated_invars=tuple(donated_invars or (False,) * n_in),
                ctx_mesh=_EMPTY_MESH, name=name, keep_unused=keep_unused,
                inline=inline, compiler_options_kvs=compiler_options_kvs)


def _replace_jaxpr(params: dict, closed_jaxpr: ClosedJaxpr, donated_invars=None) -> dict:
    """``params`` for a new inner jaxpr (other arity): same name and options."""
    return jit_params(closed_jaxpr, params["name"], donated_invars=donated_invars,
                      keep_unused=params["keep_unused"], inline=params["inline"],
                      compiler_options_kvs=params["compiler_options_kvs"])


def bind_jit(*args, **params) -> list:
    """``jit_p.bind(*args, **params)``, except that ``inline=True`` inlines into a jaxpr.

    With ``jit(f, inline=True)``, recording a jaxpr copies ``f``'s equations
    into the outer jaxpr instead of adding a ``jit`` equation.
    """
    if params["inline"] and isinstance(find_cur_trace(), DynamicJaxprTrace):
        closed = params["jaxpr"]
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)
    return jit_p.bind(*args, **params)


# =============================================================================
# 2. Its rules: evaluation, types, printing, jvp, vmap
# =============================================================================
#: ClosedJaxpr -> {backend name: Executable}. Weak keys: the program lives as
#: long as the jaxpr (held by a jit cache entry or an outer jaxpr's equation).
_executables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def get_executable(closed_jaxpr: ClosedJaxpr, name: str, backend, in_shardings=()):
    """The compiled program for ``closed_jaxpr``: lowered and compiled on first use."""
    per_backend = _executables.get(closed_jaxpr)
    if per_backend is None:
        per_backend = _executables[closed_jaxpr] = {}
    executable = per_backend.get(backend.name)
    if executable is None:
        lowering = lower_jaxpr(closed_jaxpr, name, backend, in_shardings)
        executable = per_backend[backend.name] = compile_lowering(lowering)
    return executable


def backend_for(backend: str | None, device=None, flat_args=()):
    """The backend that runs a call: the one named, else the one of ``device``'s
    platform, else that of the first argument living on another platform than
    the default one (a GPU Array keeps its computations on the GPU, chapter 10),
    else the default backend."""
    if backend is not None:
        return get_backend(backend)
    chosen = get_backend(None)
    if not other_platforms_present():
        return chosen
    if device is None:
        default = default_platform()
        device = next((x.device for x in flat_args
                       if isinstance(x, Array) and x.device.platform != default), None)
    if device is None or device.platform == chosen.platform:
        return chosen
    return get_backend(device.platform)


def device_of_backend(backend):
    """Where a call on ``backend`` runs when no device is named: ``None`` (where the
    inputs live) for the default platform, else that platform's first device
    (``jit(f, backend="cuda")`` on host inputs runs on the GPU)."""
    if backend.platform in ("cpu", default_platform()):
        return None
    return devices(backend.platform)[0]


def _jit_impl(*args, jaxpr, name, in_shardings, **_):
    """Evaluating a ``jit`` equation: compile its jaxpr (once) and run it."""
    backend = backend_for(None, None, args)
    outs = execute(get_executable(jaxpr, name, backend, in_shardings), args,
                   device_of_backend(backend))
    return [to_numpy(o) for o in outs]


def _jit_abstract_eval(*in_avals, jaxpr, **_):
    return list(jaxpr.out_avals)


def _jit_typecheck(*in_avals, jaxpr, **_):
    """``check_jaxpr``: the operands must have the inner jaxpr's input types."""
    if len(in_avals) != len(jaxpr.in_avals):
        raise JaxprTypeError(f"jit: the inner jaxpr takes {len(jaxpr.in_avals)} "
                             f"arguments but the equation passes {len(in_avals)}")
    for i, (got, want) in enumerate(zip(in_avals, jaxpr.in_avals)):
        if (got.shape, got.dtype) != (want.shape, want.dtype):
            raise JaxprTypeError(f"jit: argument {i} has type {got.str_short()} but the "
                                 f"inner jaxpr expects {want.str_short()}")
    return list(jaxpr.out_avals)


def _pp_jit(eqn, context, settings):
    """``jit[name=f jaxpr={ ... }]``: name first, default-valued params hidden.

    The inner jaxpr's variables are named like the equation's operands and
    results where possible, so ``b = jit[...] a`` reads ``{ lambda ; a. ... in (b,) }``.
    """
    p = eqn.params
    hidden = {"inline", "name"}
    hidden |= {k for k in ("in_shardings", "out_shardings")
               if all(isinstance(s, UnspecifiedValue) for s in p[k])}
    hidden |= {k for k in ("in_layouts", "out_layouts") if all(x is None for x in p[k])}
    hidden |= {k for k, default in (("donated_invars", not any(p["donated_invars"])),
                                    ("keep_unused", not p["keep_unused"]),
                                    ("ctx_mesh", p["ctx_mesh"].empty),
                                    ("compiler_options_kvs", not p["compiler_options_kvs"]))
               if default}
    inner = p["jaxpr"].jaxpr
    if inner not in context.shared_jaxprs:
        context.suggest_same_var_names(inner.invars, eqn.invars)
        context.suggest_same_var_names(inner.outvars, eqn.outvars)
    shown = ["name"] + sorted(k for k in p if k not in hidden)
    return _pp_eqn(eqn, context, settings, params=shown)


# --- jvp: differentiate the inner jaxpr, call the result as a new jit ----------------------
_jvp_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of a jaxpr, as a jaxpr: ``(*primals, *nonzero tangents)`` to
    ``(*outputs, *nonzero output tangents)``.

    ``nonzeros[i]`` says whether input ``i`` has a tangent (inputs without
    one take none). Returns the new jaxpr and, for each output, whether its
    tangent is nonzero (only those are outputs). Cached per jaxpr.
    """
    per_jaxpr = _jvp_jaxprs.setdefault(closed, {})
    key = tuple(nonzeros)
    if key not in per_jaxpr:
        per_jaxpr[key] = _trace_jvp_jaxpr(closed, key)
    return per_jaxpr[key]


def _trace_jvp_jaxpr(closed: ClosedJaxpr, nonzeros: tuple):
    n = len(nonzeros)
    out_nonzeros: list[bool] = []

    def jvp_fun(*args):
        tangents = iter(args[n:])
        trace = ad.JVPTrace(find_cur_trace())
        ins = [ad.maybe_jvp_tracer(trace, p, next(tangents)) if nz else p
               for p, nz in zip(args[:n], nonzeros)]
        with set_current_trace(trace):
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        pairs = [trace.to_primal_tangent_pair(x) for x in outs]
        out_nonzeros[:] = [type(t) is not ad.Zero for _, t in pairs]
        return [p for p, _ in pairs] + [t for _, t in pairs if type(t) is not ad.Zero]

    in_avals = list(closed.in_avals) + [ad.tangent_aval(a) for a, nz
                                        in zip(closed.in_avals, nonzeros) if nz]
    jaxpr, _, consts = trace_to_jaxpr_dynamic(jvp_fun, in_avals)
    return ClosedJaxpr(jaxpr, consts), out_nonzeros


def _jit_jvp(primals, tangents, *, jaxpr, **params):
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jaxpr_jvp, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    donated = params["donated_invars"]
    new_params = _replace_jaxpr(
        params, jaxpr_jvp,
        donated_invars=(*donated, *(d for d, nz in zip(donated, nonzeros) if nz)))
    outs = bind_jit(*primals, *(t for t in tangents if type(t) is not ad.Zero), **new_params)
    n = len(jaxpr.out_avals)
    tangents_out = iter(outs[n:])
    return outs[:n], [next(tangents_out) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


# --- vmap: batch the inner jaxpr, call the result as a new jit --------------------------------
_batched_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def batch_jaxpr(closed: ClosedJaxpr, axis_size: int, dims: Sequence) -> tuple[ClosedJaxpr, list]:
    """The jaxpr on batched inputs (batch axis ``dims[i]``, or None) and its outputs' batch axes."""
    per_jaxpr = _batched_jaxprs.setdefault(closed, {})
    key = (axis_size, tuple(dims))
    if key not in per_jaxpr:
        per_jaxpr[key] = _trace_batch_jaxpr(closed, axis_size, tuple(dims))
    return per_jaxpr[key]


def _trace_batch_jaxpr(closed: ClosedJaxpr, axis_size: int, dims: tuple):
    out_dims: list = []

    def batched_fun(*args):
        trace = batching.BatchTrace(find_cur_trace(), axis_size)
        ins = [trace.wrap(x, d) for x, d in zip(args, dims)]
        with set_current_trace(trace):
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *ins)
        vals_dims = [trace.to_batch_info(x) for x in outs]
        out_dims[:] = [d for _, d in vals_dims]
        return [v for v, _ in vals_dims]

    in_avals = [batching.batched_aval(a, axis_size, d) for a, d in zip(closed.in_avals, dims)]
    jaxpr, _, consts = trace_to_jaxpr_dynamic(batched_fun, in_avals)
    return ClosedJaxpr(jaxpr, consts), out_dims


def _jit_batching(args, dims, *, jaxpr, **params):
    new_jaxpr, out_dims = batch_jaxpr(jaxpr, batching.batch_size(args, dims), dims)
    new_params = _replace_jaxpr(params, new_jaxpr, donated_invars=params["donated_invars"])
    return bind_jit(*args, **new_params), out_dims


impl_rules[jit_p] = _jit_impl
abstract_eval_rules[jit_p] = _jit_abstract_eval
custom_typechecks[jit_p] = _jit_typecheck
pp_eqn_rules[jit_p] = _pp_jit
ad.jvp_rules[jit_p] = _jit_jvp
batching.batching_rules[jit_p] = _jit_batching
_interpreter.inline_call_primitives.add(jit_p)


# =============================================================================
# 3. jit(): checking the options
# =============================================================================
class _NotSpecified:
    def __repr__(self):
        return "<not-specified>"


_NOT_SPECIFIED = _NotSpecified()


class JitInfo(NamedTuple):
    """The options of one ``jit(f, ...)``, resolved; part of the trace cache key."""
    static_argnums: tuple[int, ...]
    static_argnames: tuple[str, ...]
    donate_argnums: tuple[int, ...]
    donate_argnames: tuple[str, ...]
    keep_unused: bool
    inline: bool
    backend: str | None
    device: Any
    compiler_options_kvs: tuple


def _check_callable(fun) -> None:
    if isinstance(fun, staticmethod):
        raise TypeError(f"staticmethod arguments are not supported, got {fun}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def _ensure_index_tuple(x) -> tuple[int, ...]:
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _ensure_str_tuple(x) -> tuple[str, ...]:
    if isinstance(x, str):
        return (x,)
    for s in x:
        if not isinstance(s, str):
            raise TypeError(f"argument is not a string: {s}")
    return tuple(x)


def _fun_signature(fun) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (ValueError, TypeError):
        return None


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _infer_argnums_and_argnames(sig, argnums, argnames):
    """Complete ``static_argnums`` from ``static_argnames`` or vice versa, by the signature.

    ``jit(f, static_argnames="n")`` makes ``n`` static also when passed
    positionally, and ``static_argnums=1`` also when passed by keyword.
    """
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None:
        return _ensure_index_tuple(argnums), _ensure_str_tuple(argnames)
    params = list(sig.parameters.items())
    by_keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    if argnums is None:
        argnames = _ensure_str_tuple(argnames)
        argnums = tuple(i for i, (k, p) in enumerate(params)
                        if p.kind == by_keyword and k in argnames)
    else:
        argnums = _ensure_index_tuple(argnums)
        argnames = tuple(k for i, (k, p) in enumerate(params)
                         if p.kind == by_keyword and i in argnums)
    return argnums, argnames


def _validate_argnums(sig, argnums, what: str) -> None:
    kinds = [p.kind for p in sig.parameters.values()]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return  # f(*args) takes any number of positional arguments
    n = sum(k in _POSITIONAL for k in kinds)
    if argnums and (-min(argnums) > n or max(argnums) >= n):
        raise ValueError(f"Jitted function has {what}={argnums}, "
                         f"but only accepts {n} positional arguments.")


def _validate_argnames(sig, argnames, what: str) -> None:
    by_name = {inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY}
    params = sig.parameters
    positional_only = {k for k, p in params.items()
                       if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                     inspect.Parameter.VAR_POSITIONAL)}
    if bad := positional_only & set(argnames):
        raise ValueError(f"Jitted function has invalid argnames {bad} in {what}. "
                         "These are positional-only")
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    if bad := set(argnames) - {k for k, p in params.items() if p.kind in by_name}:
        raise ValueError(f"Jitted function has invalid argnames {bad} in {what}. "
                         "Function does not take these args.")


def _resolve_argnums(fun, sig, static_argnums, static_argnames, donate_argnums,
                     donate_argnames):
    """JAX's checks and completion of static/donated argument numbers and names."""
    if sig is None:  # some builtins have no signature: no checks
        if donate_argnames is not None:
            raise ValueError(f"Getting the signature of function {fun} failed. "
                             "Pass donate_argnums instead of donate_argnames.")
        return (() if static_argnums is None else _ensure_index_tuple(static_argnums),
                () if static_argnames is None else _ensure_str_tuple(static_argnames),
                () if donate_argnums is None else _ensure_index_tuple(donate_argnums), ())
    static_argnums, static_argnames = _infer_argnums_and_argnames(
        sig, static_argnums, static_argnames)
    donate_argnums, donate_argnames = _infer_argnums_and_argnames(
        sig, donate_argnums, donate_argnames)
    _validate_argnums(sig, static_argnums, "static_argnums")
    _validate_argnames(sig, static_argnames, "static_argnames")
    _validate_argnums(sig, donate_argnums, "donate_argnums")
    _validate_argnames(sig, donate_argnames, "donate_argnames")
    if both := set(static_argnames) & set(donate_argnames):
        raise ValueError("static_argnames and donate_argnames cannot intersect. Argument "
                         f"names {both} appear in both static_argnames and donate_argnames")
    return static_argnums, static_argnames, donate_argnums, donate_argnames


def _check_sharding_option(name: str, value) -> None:
    if value is not None and not isinstance(value, UnspecifiedValue):
        raise NotImplementedError(f"minijax runs on one device: jit's {name} can only "
                                  f"be left unspecified (or None), got {value!r}")


def jit(fun: Callable = _NOT_SPECIFIED, /, *, in_shardings=UNSPECIFIED,
        out_shardings=UNSPECIFIED, static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Iterable[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Iterable[str] | None = None, keep_unused: bool = False,
        device=None, backend: str | None = None, inline: bool = False,
        compiler_options: dict[str, Any] | None = None):
    """Compile ``fun``: trace it once per argument signature, then run the compiled program.

    - ``static_argnums`` / ``static_argnames``: arguments passed to ``fun``
      as Python values (they must be hashable; each new value traces again);
      either one determines the other through ``fun``'s signature.
    - ``donate_argnums`` / ``donate_argnames``: arrays the call may consume
      (deleted after the call, as JAX does on CPU).
    - ``inline=True``: inside another traced function, copy ``fun``'s
      equations instead of adding a ``jit`` equation.
    - ``backend``: a backend name (``"interpreter"``) or platform (``"cpu"``).
    - ``in_shardings``, ``out_shardings``, ``device``, ``keep_unused``,
      ``compiler_options``: JAX's, accepted for compatibility (one device).

    Without ``fun`` it returns a decorator: ``@jit(static_argnames="n")``.

    >>> import minijax.numpy as jnp
    >>> jit(lambda x: jnp.sin(x) * 2)(1.0)
    Array(1.682942, dtype=float32, weak_type=True)
    """
    if fun is _NOT_SPECIFIED:
        return functools.partial(
            jit, in_shardings=in_shardings, out_shardings=out_shardings,
            static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, device=device, backend=backend, inline=inline,
            compiler_options=compiler_options)
    return JitWrapped(fun, _jit_info(
        fun, in_shardings=in_shardings, out_shardings=out_shardings,
        static_argnums=static_argnums, static_argnames=static_argnames,
        donate_argnums=donate_argnums, donate_argnames=donate_argnames,
        keep_unused=keep_unused, device=device, backend=backend, inline=inline,
        compiler_options=compiler_options))


def _jit_info(fun, *, in_shardings=UNSPECIFIED, out_shardings=UNSPECIFIED,
              static_argnums=None, static_argnames=None, donate_argnums=None,
              donate_argnames=None, keep_unused=False, device=None, backend=None,
              inline=False, compiler_options=None) -> JitInfo:
    """Check ``jit``'s options as JAX does, and resolve them against ``fun``'s signature."""
    _check_callable(fun)
    if backend is not None or device is not None:
        warnings.warn("backend and device argument on jit is deprecated. You can use "
                      '`jax.device_put(..., jax.local_devices(backend="cpu")[0])` on the '
                      "inputs to the jitted function to get the same behavior.",
                      DeprecationWarning, stacklevel=3)
        if device is not None and backend is not None:
            raise ValueError("can't specify both a device and a backend for jit, "
                             f"got {device=} and {backend=}")
    _check_sharding_option("in_shardings", in_shardings)
    _check_sharding_option("out_shardings", out_shardings)
    sig = _fun_signature(fun)
    static_argnums, static_argnames, donate_argnums, donate_argnames = _resolve_argnums(
        fun, sig, static_argnums, static_argnames, donate_argnums, donate_argnames)
    return JitInfo(static_argnums, static_argnames, donate_argnums, donate_argnames,
                   bool(keep_unused), bool(inline), backend, device,
                   tuple((compiler_options or {}).items()))


# =============================================================================
# 4. The jitted function: cache, trace, run
# =============================================================================
#: fun -> {JitInfo -> {signature -> TraceResult}}. Weak keys: the cache lives
#: as long as the function, so ``jit(f)`` twice shares it, and a lambda
#: created in a loop gets a fresh (empty) one each time.
_trace_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_private_caches: weakref.WeakSet = weakref.WeakSet()  # wrappers of unweakrefable callables


def _fun_name(fun) -> str:
    name = getattr(fun, "__name__", None)
    if name is not None:
        return name
    if isinstance(fun, functools.partial):
        return _fun_name(fun.func)
    return "<unnamed function>"


def _static_key(x):
    """A static argument as a cache key: hashable, and ``1``, ``1.0``, ``True`` differ."""
    try:
        hash(x)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while "
            f"trying to hash an object of type {type(x)}, {x}. The error was:\n"
            f"{type(e).__name__}: {e}\n") from None
    return (type(x), x)


class JitWrapped:
    """What ``jit(f)`` returns: call it, or ``.trace``/``.lower`` it ahead of time."""

    def __init__(self, fun: Callable, info: JitInfo, name: str | None = None):
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._info = info
        self._name = _fun_name(fun) if name is None else name
        self._sourceinfo = fun_sourceinfo(fun)
        self._own_cache: dict = {}
        self._fast: dict = {}  # avals -> _FastCall (see "The fast path" below)
        self._fast_generation = _cache_generation
        self._fast_trees = False  # does _fast hold calls on pytrees (keyed by treedef too)?

    def __repr__(self):
        return f"<PjitFunction of {self._fun!r}>"

    def __get__(self, obj, objtype=None):
        """``@jit`` on a method: ``obj.method(x)`` passes ``obj`` as the first argument."""
        return self if obj is None else types.MethodType(self, obj)

    # --- the cache ------------------------------------------------------------------------
    def _cache(self) -> dict:
        try:
            per_fun = _trace_cache.get(self._fun)
            if per_fun is None:
                per_fun = _trace_cache[self._fun] = {}
        except TypeError:  # not weakly referenceable: cache on this wrapper only
            per_fun = self._own_cache
            _private_caches.add(self)
        return per_fun.setdefault(self._info, {})

    def _cache_size(self) -> int:
        """How many signatures have been traced (and are cached) for this function."""
        return len(self._cache())

    def clear_cache(self) -> None:
        """Forget this function's traces (and so its compiled programs)."""
        self._cache().clear()
        _forget_fast_calls()

    # --- from arguments to a trace -----------------------------------------------------------
    def _static_positions(self, nargs: int) -> tuple[int, ...]:
        """The static positions among ``nargs`` positional arguments (negative ones resolved)."""
        return tuple(sorted({i + nargs if i < 0 else i for i in self._info.static_argnums
                             if -nargs <= i < nargs}))

    def _infer_params(self, args: tuple, kwargs: dict) -> tuple[TraceResult, list]:
        """The cached trace for these arguments (tracing on a miss), and the flat arguments."""
        if not kwargs and not self._info.static_argnums and all(type(a) is Array for a in args):
            # the common call, f(x, y) on arrays: no pytree to walk, no static argument
            static_pos, static_key = (), ((), ())
            flat, in_tree = list(args), _arrays_tree(len(args))
            avals = tuple(a.aval for a in args)
        else:
            static_pos = self._static_positions(len(args))
            static_names = self._info.static_argnames
            dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
            static_key = (tuple(_static_key(args[i]) for i in static_pos),
                          tuple((k, _static_key(kwargs[k])) for k in sorted(kwargs)
                                if k in static_names))
            flat, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
            avals = tuple(self._abstractify(flat, args, kwargs, static_pos))
        # the promotion mode changes what a trace computes (or whether it raises)
        key = (in_tree, avals, static_key, dtypes.numpy_dtype_promotion_mode())
        cache = self._cache()
        result = cache.get(key)
        if result is None:
            result = self._trace(args, kwargs, static_pos, in_tree, avals)
            if not result.const_args and not _check_tracer_leaks.value:
                cache[key] = result
        return result, flat

    def _abstractify(self, flat, args, kwargs, static_pos) -> Iterable[ShapedArray]:
        for i, x in enumerate(flat):
            if isinstance(x, ShapeDtypeStruct):
                yield ShapedArray(x.shape, x.dtype, x.weak_type)
                continue
            try:
                yield get_aval(x)
            except TypeError:
                names = self._debug_info(args, kwargs, static_pos).arg_names
                _abstractify(self._fun, x, names[i])  # raises JAX's message

    def _debug_info(self, args, kwargs, static_pos):
        """Names of the flat dynamic arguments, for messages (static kwargs give none)."""
        kwargs = {k: None if k in self._info.static_argnames else v for k, v in kwargs.items()}
        return debug_info("jit", self._fun, args, kwargs, static_argnums=static_pos)

    def _trace(self, args, kwargs, static_pos, in_tree, avals) -> TraceResult:
        """Run ``fun`` once on tracers: the jaxpr, and how to call it."""
        dbg = self._debug_info(args, kwargs, static_pos)
        static_kwargs = {k: v for k, v in kwargs.items() if k in self._info.static_argnames}
        out_trees, traces = [], []

        def flat_fun(*flat_in):
            traces.append(weakref.ref(find_cur_trace()))  # for the leak checker
            dyn_args, dyn_kwargs = in_tree.unflatten(flat_in)
            dyn = iter(dyn_args)
            full_args = [a if i in static_pos else next(dyn) for i, a in enumerate(args)]
            out = self._fun(*full_args, **dyn_kwargs, **static_kwargs)
            leaves, out_tree = tree_util.tree_flatten_with_path(out)
            out_trees.append(out_tree)
            paths = [tree_util.keystr(path) for path, _ in leaves]
            dbg.result_paths = lambda: paths
            return [leaf for _, leaf in leaves]

        timer = (log_elapsed_time("Finished tracing {fun_name} for jit in "
                                  "{elapsed_time:.9f} sec", self._name)
                 if find_cur_trace() is eval_trace else contextlib.nullcontext())
        with timer:
            jaxpr, _, consts = trace_to_jaxpr_dynamic(flat_fun, avals, dbg)
        if _check_tracer_leaks.value:
            _check_no_leaks(traces[0])
        jaxpr, consts, const_args = _separate_tracer_consts(jaxpr, consts)
        closed = ClosedJaxpr(jaxpr, consts)
        donated = (False,) * len(const_args) + self._donation_vector(args, kwargs, static_pos)
        info = self._info
        params = jit_params(closed, self._name, donated_invars=donated,
                            keep_unused=info.keep_unused, inline=info.inline,
                            compiler_options_kvs=info.compiler_options_kvs)
        return TraceResult(closed, params, in_tree, out_trees[0], const_args,
                           tuple(dbg.arg_names))

    def _donation_vector(self, args, kwargs, static_pos) -> tuple[bool, ...]:
        """Per flat dynamic argument: is it donated?"""
        nums, names = self._info.donate_argnums, self._info.donate_argnames
        n = len(args)
        out = []
        for i, a in enumerate(args):
            if i not in static_pos:
                out += [i in nums or i - n in nums] * len(tree_util.tree_leaves(a))
        for k in sorted(kwargs):
            if k not in self._info.static_argnames:
                out += [k in names] * len(tree_util.tree_leaves(kwargs[k]))
        return tuple(out)

    # --- calling -------------------------------------------------------------------------
    def _backend(self, flat=()):
        return backend_for(self._info.backend, self._info.device, flat)

    def __call__(self, *args, **kwargs):
        if not kwargs:  # the fast path: a signature called before, on Arrays only
            fast = self._fast.get(tuple([a.aval if type(a) is Array else None for a in args]))
            flat = args
            if fast is None and self._fast_trees:  # pytrees of Arrays (a training step's)
                flat, tree = tree_util.tree_flatten(args)
                fast = self._fast.get((tree, *[x.aval if type(x) is Array else None
                                               for x in flat]))
            if fast is not None and self._fast_generation == _cache_generation:
                outs = fast(flat)
                if outs is not None:
                    return outs
        if _disable_jit.value:
            return self._fun(*args, **kwargs)
        result, flat = self._infer_params(args, kwargs)
        if find_cur_trace() is eval_trace:
            outs = self._run(result, flat)
            self._remember_fast_call(args, kwargs, result, flat)
        else:  # under a transformation: a jit equation for it to interpret
            outs = bind_jit(*result.const_args, *flat, **result.params)
        return result.out_tree.unflatten(outs)

    def _remember_fast_call(self, args, kwargs, result: TraceResult, flat: list) -> None:
        """After a top-level call on Arrays only (``flat``: the leaves of ``args``),
        remember what the next such call needs (:class:`_FastCall`)."""
        info = self._info
        if (kwargs or info.static_argnums or result.const_args or _check_tracer_leaks.value
                or info.backend is not None or info.device is not None
                or other_platforms_present() or any(result.params["donated_invars"])
                or not all(type(x) is Array for x in flat)):
            return
        is_tree = len(flat) != len(args) or not all(type(a) is Array for a in args)
        if not is_tree:
            key = tuple(a.aval for a in args)
        else:  # a pytree of Arrays: the key starts with its structure
            tree = tree_util.tree_structure(args)
            key = (tree, *(x.aval for x in flat))
        if self._fast_generation != _cache_generation:
            self._fast, self._fast_generation = {}, _cache_generation
            self._fast_trees = False
        self._fast_trees = self._fast_trees or is_tree
        backend = get_backend(None)
        params = result.params
        executable = get_executable(result.closed_jaxpr, params["name"], backend,
                                    params["in_shardings"])
        self._fast[key] = _FastCall(
            executable, backend, device_of_backend(backend), result.out_tree,
            dtypes.numpy_dtype_promotion_mode())

    def _run(self, result: TraceResult, flat: list) -> list:
        """Top level: run the compiled program (compiling it the first time)."""
        for x in result.const_args:  # a closed-over tracer of a finished trace
            raise escaped_tracer_error(x)
        for x, name, aval in zip(flat, result.arg_names, result.closed_jaxpr.in_avals):
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
            if isinstance(x, ShapeDtypeStruct):
                raise TypeError(f"Argument '{name}' of shape {aval.str_short()} of type "
                                f"{type(x)} is not a valid JAX type.")
        params = result.params
        backend = self._backend(flat)
        executable = get_executable(result.closed_jaxpr, params["name"], backend,
                                    params["in_shardings"])
        outs = execute(executable, flat, self._info.device or device_of_backend(backend))
        outs = wrap_outputs(outs)  # a later chapter's own result classes (typed keys)
        if any(params["donated_invars"]):
            _delete_donated(flat, params["donated_invars"], outs)
        return outs

    # --- ahead of time ----------------------------------------------------------------------
    def trace(self, *args, **kwargs) -> Traced:
        """Trace for these arguments (arrays or ``ShapeDtypeStruct`` s): a :class:`Traced`."""
        result, _ = self._infer_params(args, kwargs)
        return Traced(result, self._backend(), self._sourceinfo)

    def lower(self, *args, **kwargs):
        """``self.trace(*args, **kwargs).lower()``: a :class:`~minijax.stages.Lowered`."""
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        """The output's shapes and dtypes (``ShapeDtypeStruct`` s), without running anything."""
        return self.trace(*args, **kwargs).out_info


# --- the fast path --------------------------------------------------------------------------
#: Bumped whenever a trace cache is emptied (``clear_cache``, ``clear_caches``):
#: every remembered fast call made before is forgotten.
_cache_generation = 0


def _forget_fast_calls() -> None:
    global _cache_generation
    _cache_generation += 1


class _FastCall:
    """What a repeated call ``f(x, y)`` on Arrays needs, found once by the full path.

    The full path of a call (``__call__``: the options, the pytree of the
    arguments, the cache key, the trace cache, the checks for tracers, the
    backend, the compiled program) costs several microseconds of Python, and
    for a tiny program that is most of the call. When a call had no keyword
    arguments, only plain Arrays or pytrees of them (no tracer, no NumPy data,
    no Python scalar), no static or donated argument and no backend or device
    option, everything that path computed depends only on the arguments'
    avals (and the structure of the pytrees) and on four things that may
    change between calls: whether ``jit`` is disabled, the current trace (a
    transformation), the dtype promotion mode and the default backend. So the
    wrapper keeps, per tuple of avals (led by the treedef, for pytrees), the
    compiled program and the output tree, and a later call with the same key
    checks those four things and runs the program directly; if one of them
    changed, the call takes the full path (which gives the same answer it
    always did). A cleared cache (``clear_cache``, ``clear_caches``) forgets
    every fast call, so the next call traces again, as it would have.
    """
    __slots__ = ("executable", "backend", "device", "out_tree", "single", "mode", "wrap")

    def __init__(self, executable, backend, device, out_tree, mode: str):
        self.executable = executable
        self.backend = backend
        self.device = device
        self.out_tree = out_tree
        self.single = tree_util.treedef_is_strict_leaf(out_tree)  # f returns one array
        self.mode = mode
        # output wrappers only touch results of extended dtypes (chapter 13's keys)
        self.wrap = any(not isinstance(a.dtype, np.dtype) for a in executable.out_avals)

    def __call__(self, args: tuple):
        """The call's result, or ``None`` when the full path must decide."""
        if (_disable_jit.value or find_cur_trace() is not eval_trace
                or dtypes.numpy_dtype_promotion_mode() != self.mode
                or get_backend(None) is not self.backend):
            return None
        outs = execute(self.executable, args, self.device)
        if self.wrap:
            outs = wrap_outputs(outs)
        return outs[0] if self.single else self.out_tree.unflatten(outs)


@functools.lru_cache(maxsize=None)
def _arrays_tree(n: int):
    """The tree of the dynamic arguments ``((x1, ..., xn), {})`` when every ``x`` is an Array."""
    return tree_util.tree_flatten((tuple(range(n)), {}))[1]


def _separate_tracer_consts(jaxpr, consts):
    """Constants that are tracers (values of an enclosing transformation) become inputs.

    ``jvp(lambda x: jit(lambda y: y * x)(1.))``: ``x`` is a JVP tracer that
    the inner function closed over. Hidden in the jaxpr's constants it would
    escape the JVP; as an explicit (leading) argument of the ``jit``
    equation, the JVP trace sees it and differentiates through it.
    """
    if not any(isinstance(c, Tracer) for c in consts):
        return jaxpr, consts, []
    keep = [(v, c) for v, c in zip(jaxpr.constvars, consts) if not isinstance(c, Tracer)]
    moved = [(v, c) for v, c in zip(jaxpr.constvars, consts) if isinstance(c, Tracer)]
    jaxpr = jaxpr.replace(constvars=[v for v, _ in keep],
                          invars=[v for v, _ in moved] + list(jaxpr.invars))
    return jaxpr, [c for _, c in keep], [c for _, c in moved]


def _delete_donated(flat, donated, outs) -> None:
    """Donated input arrays are consumed by the call (unless returned as they are)."""
    for x, d in zip(flat, donated[-len(flat):] if flat else ()):
        if d and isinstance(x, Array) and not any(o is x for o in outs):
            x.delete()


# =============================================================================
# 5. Leaked tracers: ``jax_check_tracer_leaks``
# =============================================================================
def _check_no_leaks(trace_ref) -> None:
    """After a trace ends, nothing but its own constants may still hold its tracers."""
    gc.collect()
    trace = trace_ref()
    if trace is None:
        return
    own = {id(t) for t in trace.builder.const_tracers.values()}
    leaked = []
    for r in gc.get_referrers(trace):
        if isinstance(r, Tracer) and id(r) not in own:
            leaked.append(r)
    if leaked:
        raise _leaked_tracer_error(trace, leaked)


def _leaked_tracer_error(trace, tracers: list) -> Exception:
    """JAX's message: each leaked tracer, where it came from, and who holds it."""
    ignore = {id(tracers)}
    msgs = []
    for t in tracers:
        origin = t._origin_msg() if hasattr(t, "_origin_msg") else ""
        msgs.append(f"{t}{origin}{_why_alive(t, ignore)}")
    return Exception(f"Leaked trace {trace}. Leaked tracer(s):\n\n" + "\n\n".join(msgs) + "\n")


def _referrers(x, ignore: set) -> list:
    out = []
    for r in gc.get_referrers(x):
        if id(r) not in ignore and not isinstance(r, types.FrameType):
            out.append(r)
    return out


def _namespace_owner(d: dict, ignore: set):
    """The module or object whose ``__dict__`` is ``d``, if any."""
    for owner in _referrers(d, ignore):
        if getattr(owner, "__dict__", None) is d:
            return owner
    return d


def _why_alive(x, ignore: set) -> str:
    """A chain "<tracer> is referred to by <list>[1]", "<list> is referred to by mod.name".

    (Written without closures or generator expressions: a closure's cell
    would itself show up as a referrer.)
    """
    lines, child, seen = [], x, set()
    ignore = ignore | {id(lines)}
    while id(child) not in seen and not isinstance(child, types.ModuleType):
        parents = _referrers(child, ignore)
        if not parents:
            break
        parent = parents[0]
        del parents
        if isinstance(parent, dict):  # a module's or object's __dict__: name the owner
            parent = _namespace_owner(parent, ignore)
        lines.append(f"<{type(child).__name__} {id(child)}> is referred to by "
                     f"{_container_info(parent, id(child))}")
        seen.add(id(child))
        child = parent
    return "\n" + "\n".join(lines) if lines else ""


def _container_info(container, obj_id: int) -> str:
    name = (container.__name__ if isinstance(container, types.ModuleType)
            else f"<{type(container).__name__} {id(container)}>")
    if hasattr(container, "__dict__") and not isinstance(container, type):
        keys = [k for k, v in vars(container).items() if id(v) == obj_id]
        if len(keys) == 1:
            return f"{name}.{keys[0]}"
    if isinstance(container, (list, tuple)):
        idxs = [i for i, v in enumerate(container) if id(v) == obj_id]
        if len(idxs) == 1:
            return f"{name}[{idxs[0]}]"
        return f"{name} at indices " + ", ".join(map(str, idxs))
    if isinstance(container, dict):
        keys = [k for k, v in container.items() if id(v) == obj_id]
        if len(keys) == 1:
            return f"{name}[{keys[0]!r}]"
    return name


# =============================================================================
# 6. The inner jit of jnp functions
# =============================================================================
def _static_hashable(x):
    """Lists in a static argument become tuples (JAX's public functions do the same)."""
    if isinstance(x, (list, tuple)):
        return tuple(_static_hashable(e) for e in x)
    return x


def _recording_a_jaxpr() -> bool:
    """Is a jaxpr being recorded, by the current trace or one it runs its rules under?"""
    trace = find_cur_trace()
    while trace is not None and trace is not eval_trace:
        if isinstance(trace, DynamicJaxprTrace):
            return True
        trace = getattr(trace, "parent", None)
    return False


def _jnp_jit(fun: Callable, name: str, static_argnames: tuple) -> Callable:
    """The inner ``jit`` of a ``@jnp_jit`` function (see :func:`minijax.numpy.util.jnp_jit`).

    When a jaxpr is being recorded (``make_jaxpr``, ``jit``, also under
    ``jvp`` or ``vmap`` inside them), the function becomes a ``jit``
    equation named ``name``, exactly as JAX prints it. Otherwise it is
    called directly: the values are the same, and tracing + interpreting
    each call would only add overhead to op-by-op code.
    """
    jitted = JitWrapped(fun, _jit_info(fun, static_argnames=static_argnames), name=name)
    names = jitted._info.static_argnames

    def call(*args, **kwargs):
        if not _recording_a_jaxpr():
            return fun(*args, **kwargs)
        static_pos = jitted._static_positions(len(args))
        args = tuple(_static_hashable(a) if i in static_pos else a for i, a in enumerate(args))
        kwargs = {k: _static_hashable(v) if k in names else v for k, v in kwargs.items()}
        try:
            hash((tuple(args[i] for i in static_pos), tuple(kwargs[k] for k in names
                                                            if k in kwargs)))
        except TypeError:  # an array as a "static" argument: no inner jit
            return fun(*args, **kwargs)
        return jitted(*args, **kwargs)
    return call


set_jnp_jit(_jnp_jit)


# =============================================================================
# 7. The rest of the API
# =============================================================================
@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """In this block (and thread) ``jit`` calls the Python function directly: debug with ``print``.

    The same as ``minijax.config.update("jax_disable_jit", True)`` for the block.
    """
    with _disable_jit(disable):
        yield


def eval_shape(fun: Callable, *args, **kwargs):
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as ``ShapeDtypeStruct`` s.

    Nothing is computed: ``fun`` is traced on the arguments' avals (arrays
    or ``ShapeDtypeStruct`` s).
    """
    if isinstance(fun, JitWrapped):
        return fun.trace(*args, **kwargs).out_info
    try:
        hash(fun)
    except TypeError:
        fun = functools.partial(fun)
    return jit(fun).trace(*args, **kwargs).out_info


#: Functions that empty one cache each; later chapters add theirs.
_cache_clearers: list[Callable[[], None]] = []


def register_cache(clear: Callable[[], None]) -> None:
    """Have :func:`clear_caches` call ``clear()`` (e.g. a backend's compile cache)."""
    _cache_clearers.append(clear)


def clear_caches() -> None:
    """Forget every trace, derived jaxpr and compiled program (``jax.clear_caches``)."""
    for clear in _cache_clearers:
        clear()


def _clear_jit_caches() -> None:
    _forget_fast_calls()
    for per_fun in list(_trace_cache.values()):
        for per_info in per_fun.values():
            per_info.clear()
    for wrapper in list(_private_caches):
        wrapper._own_cache.clear()
    _executables.clear()
    _jvp_jaxprs.clear()
    _batched_jaxprs.clear()


register_cache(_clear_jit_caches)
