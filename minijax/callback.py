"""Chapter 12 — calling Python from a staged program: ``pure_callback`` and ``io_callback``.

A jitted function is traced once and then runs without Python: the compiled
program has no way to call ``np.linalg.svd`` or to write a log file. A
*callback* is a primitive whose meaning is "call this Python function here, at
run time, with the concrete values": ``pure_callback(fn, result_shape_dtypes,
*args)``. Its abstract evaluation cannot run ``fn``, so the caller states the
result's shapes and dtypes, and the run-time result is checked against them.

The two kinds differ in what minijax may assume about ``fn``:

- ``pure_callback``: ``fn`` is a *pure* function. It has no effect, so an
  unused result is dropped (``fn`` is never called), and ``vmap`` may call it
  once per example or once on the whole batch (``vmap_method``). It has no
  derivative: wrap it in ``custom_jvp``/``custom_vjp`` to differentiate.
- ``io_callback``: ``fn`` may do anything (read a sensor, write a file). It
  carries the ``IO`` effect (``OrderedIO`` with ``ordered=True``), so it is
  never dropped, and, when ordered, runs in program order across dispatches.

A callback is always given minijax ``Array`` s (on the CPU) and may return
anything NumPy can convert; the result is canonicalized (``float64`` becomes
``float32``) and must then have exactly the stated shapes and dtypes. A
callback that fails, or returns the wrong thing, is an error *of the running
program*: ``JaxRuntimeError("INTERNAL: CpuCallback error calling callback:
<the traceback>")``, raised from the original exception, as JAX raises it.

The impl rules take and return NumPy arrays, like every impl rule, so a
compiled backend calls them as they are (``impl_rules[pure_callback_p](*arrays,
**params)`` from inside a kernel).
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import traceback
from typing import Any, Callable, Sequence

import numpy as np

from minijax import lax
from minijax.backends.cpu import rules as _cpu_rules
from minijax.backends.cuda import rules as _cuda_rules
from minijax.abstract_arrays import ShapedArray
from minijax.array import array_from_numpy
from minijax.control_flow import scan
from minijax.dtypes import canonicalize_dtype
from minijax.effects import effect_kinds
from minijax.errors import JaxRuntimeError
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batch_size, batching_rules, moveaxis, not_mapped
from minijax.jaxpr import effect_rules
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["pure_callback", "io_callback", "pure_callback_p", "io_callback_p", "IOEffect",
           "OrderedIOEffect", "callback_error", "call_python", "check_results"]


# =============================================================================
# The Python function, as the primitive holds it
# =============================================================================
@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class _FlatCallback:
    """The user's function, called with flat arguments, returning flat results.

    The primitive sees only flat lists of arrays; ``in_tree`` rebuilds the
    user's ``(args, kwargs)``. A dataclass (not a closure) so that the same
    function with the same argument structure gives equal params, as in JAX
    (which prints it: ``callback=_FlatCallback(callback_func=<ufunc 'sin'>,
    in_tree=PyTreeDef(((*,), {})))``).
    """
    callback_func: Callable[..., Any]
    in_tree: PyTreeDef  # (args, kwargs) pytree for `callback_func`.

    def __call__(self, *flat_args) -> list:
        args, kwargs = tree_unflatten(self.in_tree, flat_args)
        return tree_leaves(self.callback_func(*args, **kwargs))


def callback_error(error: BaseException) -> JaxRuntimeError:
    """The error of a program whose callback raised ``error`` (JAX's message, with the
    callback's traceback); raise it ``from error``."""
    text = "".join(traceback.format_exception(error)).rstrip("\n")
    return JaxRuntimeError(f"INTERNAL: CpuCallback error calling callback: {text}")


def call_python(fn: Callable, np_args: Sequence):
    """``fn(*arrays)``: the NumPy inputs of an impl rule handed to Python as minijax Arrays."""
    return fn(*(array_from_numpy(x) for x in np_args))


def check_results(out_vals, result_avals: Sequence[ShapedArray]) -> list[np.ndarray]:
    """A callback's results as NumPy arrays of exactly ``result_avals``' types.

    Each is converted (``np.asarray``) and canonicalized (a Python ``1.0``
    is float64, then float32); a wrong count, shape or dtype raises JAX's
    ``RuntimeError``.
    """
    out_vals = list(out_vals)
    if len(out_vals) != len(result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. "
                           f"Expected: {len(result_avals)}, Actual: {len(out_vals)}")
    results = []
    for i, (val, aval) in enumerate(zip(out_vals, result_avals)):
        val = np.asarray(val)
        dt = canonicalize_dtype(val.dtype)
        if dt != val.dtype:
            val = val.astype(dt)
        if val.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                               f"Expected: {aval.shape}, Actual: {val.shape}")
        if val.dtype != aval.dtype:
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                               f"Expected: {aval.dtype}, Actual: {val.dtype}")
        results.append(val)
    return results


#: Where a failing callback is reported (JAX's ``jax._src.callback`` logger).
logger = logging.getLogger(__name__)


def _run_callback(callback: _FlatCallback, np_args, result_avals,
                  api_name: str) -> list[np.ndarray]:
    """Call, check, and turn any failure into the program's ``JaxRuntimeError``.

    The callback's own failure (any exception, ``SystemExit`` too) is first
    logged as JAX logs it: ``jax.pure_callback failed`` (``jax.io_callback
    failed``) and the traceback, on stderr unless logging is configured.
    """
    try:
        out = call_python(callback, np_args)
    except BaseException as e:
        logger.exception(f"{api_name} failed")
        raise callback_error(e) from e
    try:
        return check_results(out, result_avals)
    except Exception as e:
        raise callback_error(e) from e


# =============================================================================
# Shared by both: checking result_shape_dtypes, vmap one example at a time
# =============================================================================
def _check_shape_dtype(shape_dtype) -> None:
    dt = np.dtype(shape_dtype.dtype)
    if canonicalize_dtype(dt) != dt:
        raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                         "`jax_enable_x64` is disabled")


def _result_avals(result_shape_dtypes):
    """The flat result avals of a pytree of ``ShapeDtypeStruct`` -like leaves, and its tree."""
    tree_map(_check_shape_dtype, result_shape_dtypes)
    flat, out_tree = tree_flatten(result_shape_dtypes)
    return tuple(ShapedArray(x.shape, x.dtype) for x in flat), out_tree


def _sequential(prim, args, dims, unroll: bool = False, **params):
    """vmap as a loop: ``lax.scan`` over the batched arguments, one call per example
    (the unbatched ones are closed over, so they enter the loop as constants)."""
    new_args = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    batched = [d is not not_mapped for d in dims]
    unbatched_args = [x for x, b in zip(new_args, batched) if not b]
    batched_args = [x for x, b in zip(new_args, batched) if b]

    def one_example(_, xs):
        it, un = iter(xs), iter(unbatched_args)
        merged = [next(it) if b else next(un) for b in batched]
        return (), prim.bind(*merged, **params)
    _, outs = scan(one_example, (), batched_args, unroll=unroll)
    return list(outs), [0] * len(outs)


# =============================================================================
# pure_callback
# =============================================================================
pure_callback_p = Primitive("pure_callback", multiple_results=True, kind="other")


def _callback_impl(*args, callback, result_avals, api_name, **_):
    """pure_callback's and io_callback's impl: call back, check the results."""
    return _run_callback(callback, args, result_avals, api_name)


def _callback_abstract_eval(*avals, result_avals, **_):
    """pure_callback's and io_callback's abstract eval: the declared results."""
    return list(result_avals)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. "
                     "Please use `jax.custom_jvp` to use callbacks while taking gradients.")


_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None]


def _pure_callback_batching(args, dims, *, vmap_method, result_avals, **params):
    """How a pure callback is vectorized is the caller's choice (``vmap_method``):

    - ``sequential`` / ``sequential_unrolled``: a ``scan``, one call per example;
    - ``expand_dims``: one call on the whole batch, each unbatched argument
      given a leading axis of size 1 (the callback must broadcast);
    - ``broadcast_all``: one call, unbatched arguments tiled to the batch size;
    - ``legacy_vectorized``: one call, unbatched arguments as they are;
    - ``None``: JAX's error (no silent guess).
    """
    size = batch_size(args, dims)
    new_args = [x if d is not_mapped else moveaxis(x, d, 0) for x, d in zip(args, dims)]
    batched_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in result_avals)
    if vmap_method == "legacy_vectorized":
        outs = pure_callback_p.bind(*new_args, vmap_method=vmap_method,
                                    result_avals=batched_avals, **params)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        args = [lax.broadcast(x, (n,)) if d is not_mapped else x
                for x, d in zip(new_args, dims)]
        outs = pure_callback_p.bind(*args, vmap_method=vmap_method,
                                    result_avals=batched_avals, **params)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential(pure_callback_p, args, dims,
                           unroll=vmap_method == "sequential_unrolled",
                           vmap_method=vmap_method, result_avals=result_avals, **params)
    else:
        raise NotImplementedError(
            f"vmap is only supported for the {pure_callback_p.name} primitive when "
            "vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
            f"'broadcast_all', or 'legacy_vectorized'. Got {vmap_method=}.")
    return list(outs), [0] * len(outs)


impl_rules[pure_callback_p] = functools.partial(_callback_impl, api_name="jax.pure_callback")
abstract_eval_rules[pure_callback_p] = _callback_abstract_eval
jvp_rules[pure_callback_p] = _pure_callback_jvp
batching_rules[pure_callback_p] = _pure_callback_batching
# (no effect rule: a pure callback has no effects, and is dropped when unused)


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
    """Call the *pure* Python function ``callback(*args, **kwargs)`` at run time.

    ``result_shape_dtypes`` is a pytree of objects with ``shape`` and ``dtype``
    (:class:`~minijax.ShapeDtypeStruct`, arrays) matching ``callback``'s
    result; the result is a pytree of Arrays of that structure. Works eagerly
    and under ``jit``; under ``vmap`` according to ``vmap_method`` (one of
    ``"sequential"``, ``"sequential_unrolled"``, ``"expand_dims"``,
    ``"broadcast_all"``, ``"legacy_vectorized"``; ``None`` cannot be vmapped);
    not differentiable (use ``custom_jvp``/``custom_vjp``).

    >>> pure_callback(np.sin, ShapeDtypeStruct((3,), jnp.float32), x)  # doctest: +SKIP
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, "
                         f"but got: {vmap_method}")
    return _bind_callback(pure_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, vmap_method=vmap_method)


def _bind_callback(prim, callback, result_shape_dtypes, args, kwargs, **params):
    """Bind ``prim`` on the flattened ``(args, kwargs)``; the results as a pytree."""
    flat_args, in_tree = tree_flatten((args, kwargs))
    result_avals, out_tree = _result_avals(result_shape_dtypes)
    out_flat = prim.bind(*flat_args, callback=_FlatCallback(callback, in_tree),
                         result_avals=result_avals, **params)
    return tree_unflatten(out_tree, out_flat)


# =============================================================================
# io_callback
# =============================================================================
IOEffect, OrderedIOEffect = effect_kinds("IO", __name__, "``io_callback``")
_IOEffect = IOEffect()
_OrderedIOEffect = OrderedIOEffect()

io_callback_p = Primitive("io_callback", multiple_results=True, kind="other")


def _io_callback_effects(*, ordered, **_):
    return {_OrderedIOEffect if ordered else _IOEffect}


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_batching(args, dims, *, callback, result_avals, sharding, ordered):
    """One call per example, in order (``lax.map``); an ordered one cannot be vmapped."""
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _sequential(io_callback_p, args, dims, callback=callback, sharding=sharding,
                       result_avals=result_avals, ordered=False)


impl_rules[io_callback_p] = functools.partial(_callback_impl, api_name="jax.io_callback")
# Compiled kernels call back into Python through chapter 09's trampoline, which
# runs the impl rules above (minijax/backends/cpu/rules.py: _host_callback).
_cpu_rules.register_host_call_lowerings(pure_callback_p, io_callback_p)
_cuda_rules.register_host_call_lowerings(pure_callback_p, io_callback_p)  # chapter 10: from its host driver
abstract_eval_rules[io_callback_p] = _callback_abstract_eval
effect_rules[io_callback_p] = _io_callback_effects
jvp_rules[io_callback_p] = _io_callback_jvp
batching_rules[io_callback_p] = _io_callback_batching


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                sharding=None, ordered: bool = False, **kwargs: Any):
    """Call the *impure* Python function ``callback(*args, **kwargs)`` at run time.

    As :func:`pure_callback`, but ``callback`` may have side effects: the call
    carries the ``IO`` effect (never dropped), or with ``ordered=True`` the
    ``OrderedIO`` effect (calls happen in program order, across dispatches
    and devices; such a call cannot be vmapped). Not differentiable.
    """
    return _bind_callback(io_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, ordered=ordered)
