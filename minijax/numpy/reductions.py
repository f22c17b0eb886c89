"""Chapter 00 — ``jnp`` reductions: ``sum``, ``mean``, ``argmax``, ``cumsum`` and friends.

All the plain reductions share one recipe (:func:`_reduction`), JAX's:

1. check the arguments, turn ``axis`` into a tuple of non-negative axes
   (JAX's errors for out-of-range and duplicate axes);
2. pick the result dtype: ``sum``/``prod`` of small integers or bools
   accumulate in int32 (NumPy's rule), ``mean`` of integers is float32,
   and a Python scalar input loses its weak type;
3. cast the input once (``convert_element_type``), apply a ``where`` mask by
   replacing masked entries with the operation's identity, and call one lax
   reduction primitive (``reduce_sum``, ``reduce_max``...);
4. fold in ``initial`` and restore reduced axes for ``keepdims``.

Everything else here (``mean``, ``var``, ``average``, the ``nan*`` family)
is built from these reductions and the elementwise ufuncs.
"""
from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax, narrow_floats
from minijax.abstract_arrays import get_aval
from minijax.array import Array
from minijax.lax.base import canonicalize_axis
from minijax.lax.elementwise import RECIPROCAL_DTYPES
from minijax.numpy import ufuncs
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact, promote_dtypes_numeric
from minijax.numpy.util import jnp_jit

__all__ = [
    "sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "var",
    "std", "ptp", "count_nonzero", "average", "median", "argmax", "argmin",
    "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nansum",
    "nanprod", "nanmax", "nanmin", "nanmean", "allclose", "array_equal",
    "array_equiv",
]

_builtin_all, _builtin_max = all, max


# --- shared pieces --------------------------------------------------------------------

def _aval(x):
    return get_aval(x)


def _ensure_array(name: str, a):
    check_arraylike(name, a)
    return asarray(a)


def _static_axis(axis):
    """``axis`` as None, an int or a tuple of ints (it must be known statically)."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list, np.ndarray)):
        return tuple(operator.index(i) for i in axis)
    return operator.index(axis)


def _reduction_axes(ndim: int, axis) -> tuple[int, ...]:
    """The non-negative axes a reduction over ``axis`` removes (JAX's errors)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    canon = tuple(canonicalize_axis(i, ndim) for i in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canon


def _check_where(name: str, where):
    if where is None:
        return None
    where = asarray(where)
    if _aval(where).dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; "
                         f"got where.dtype={_aval(where).dtype!r}.")
    return where


def _no_out(name: str, out) -> None:
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")


def _promote_integer_dtype(dt: np.dtype) -> np.dtype:
    """NumPy's accumulator for sums: bool and small ints widen to (u)int32."""
    if dt == np.bool_:
        return dtypes.default_int_dtype
    if np.issubdtype(dt, np.unsignedinteger) and dt.itemsize < 4:
        return dtypes.uint32
    if np.issubdtype(dt, np.signedinteger) and dt.itemsize < 4:
        return dtypes.int32
    return dt


_BFLOAT16 = narrow_floats.DTYPES.get("bfloat16")


def _upcast_f16(dt: np.dtype) -> np.dtype:
    """float16 and bfloat16 sums and means accumulate in float32, as in JAX."""
    return dtypes.float32 if dt == dtypes.float16 or dt == _BFLOAT16 else dt


def _user_dtype(dtype) -> np.dtype:
    return dtypes.canonicalize_dtype(dtypes.dtype(dtype))


def _identity(dt: np.dtype, value) -> np.ndarray:
    """The reduction's identity as a constant of dtype ``dt`` (±inf clipped for ints)."""
    if dt == np.bool_:
        return np.asarray(value > 0, dt)
    if np.issubdtype(dt, np.integer) and np.isinf(value):
        info = np.iinfo(dt)
        return np.asarray(info.min if value < 0 else info.max, dt)
    if np.issubdtype(dt, np.unsignedinteger) and value == -1:  # all bits set
        return np.asarray(np.iinfo(dt).max, dt)
    return np.asarray(value, dt)


# name -> (lax reduction, lax binary op, identity, bool reduction)
_REDUCERS = {
    "sum": ("reduce_sum", "add", 0, "reduce_or"),
    "prod": ("reduce_prod", "mul", 1, "reduce_and"),
    "max": ("reduce_max", "max", -np.inf, "reduce_max"),
    "min": ("reduce_min", "min", np.inf, "reduce_min"),
    "all": ("reduce_and", "bitwise_and", True, "reduce_and"),
    "any": ("reduce_or", "bitwise_or", False, "reduce_or"),
    # the reductions of the ufuncs jnp.bitwise_and/or/xor and jnp.logical_xor
    "bitwise_and": ("reduce_and", "bitwise_and", -1, "reduce_and"),
    "bitwise_or": ("reduce_or", "bitwise_or", 0, "reduce_or"),
    "bitwise_xor": ("reduce_xor", "bitwise_xor", 0, "reduce_xor"),
}
_BOOL_OPS = {"add": "bitwise_or", "mul": "bitwise_and"}


def _reduction(a, name: str, kind: str, *, axis=None, dtype=None, out=None,
               keepdims=False, initial=None, where=None, has_identity=True,
               preproc=None, promote_integers=False, upcast_f16=False):
    """JAX's generic reduction (see the module docstring)."""
    _no_out(name, out)
    a = _ensure_array(name, a)
    where = _check_where(name, where)
    axis = _static_axis(axis)
    if initial is None and not has_identity and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to "
                         "use a where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    shape = _aval(a).shape
    axes = _reduction_axes(len(shape), axis)
    if initial is None and not has_identity and not _builtin_all(shape[d] >= 1 for d in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")

    if dtype is None:
        result_dtype = _aval(a).dtype
        if promote_integers:
            result_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = _user_dtype(dtype)
    compute_dtype = result_dtype
    if upcast_f16 and dtypes.is_inexact(result_dtype):
        compute_dtype = _upcast_f16(result_dtype)
    a = lax._convert_element_type(a, compute_dtype, False)

    reduce_name, op_name, identity, bool_reduce = _REDUCERS[kind]
    if compute_dtype == np.bool_:
        reduce_name, op_name = bool_reduce, _BOOL_OPS.get(op_name, op_name)
    init = _identity(compute_dtype, identity)
    if where is not None:
        a = ufuncs._where(where, a, init)
    result = getattr(lax, reduce_name)(a, axes)
    if initial is not None:
        initial = lax._convert_element_type(initial, compute_dtype, False)
        if _aval(initial).shape != ():
            raise ValueError("initial value must be a scalar. "
                             f"Got array of shape {_aval(initial).shape}")
        result = getattr(lax, op_name)(initial, result)
    if keepdims:
        result = lax.expand_dims(result, axes)
    return lax._convert_element_type(result, result_dtype, False)


def _cast_to_numeric(a):
    return promote_dtypes_numeric(a)[0]


def _cast_to_bool(a):
    if dtypes.is_complex(_aval(a).dtype):
        a = ufuncs.real(a)
    return lax._convert_element_type(a, np.bool_, False)


# --- the reductions --------------------------------------------------------------------

def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum of the elements over ``axis``; bools and small integers sum in int32."""
    return _reduction(a, "sum", "sum", axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                      initial=initial, where=where, preproc=_cast_to_numeric,
                      promote_integers=promote_integers, upcast_f16=dtype is None)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product of the elements over ``axis``; bools and small integers multiply in int32."""
    return _reduction(a, "prod", "prod", axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                      initial=initial, where=where, preproc=_cast_to_numeric,
                      promote_integers=promote_integers, upcast_f16=dtype is None)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over ``axis`` (NaN if any element is NaN); empty needs ``initial``."""
    return _reduction(a, "max", "max", axis=axis, out=out, keepdims=keepdims,
                      initial=initial, where=where, has_identity=False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over ``axis`` (NaN if any element is NaN); empty needs ``initial``."""
    return _reduction(a, "min", "min", axis=axis, out=out, keepdims=keepdims,
                      initial=initial, where=where, has_identity=False)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of :func:`max`."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of :func:`min`."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether every element over ``axis`` is true (nonzero)."""
    return _reduction(a, "all", "all", axis=axis, out=out, keepdims=keepdims, where=where,
                      preproc=_cast_to_bool)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether any element over ``axis`` is true (nonzero)."""
    return _reduction(a, "any", "any", axis=axis, out=out, keepdims=keepdims, where=where,
                      preproc=_cast_to_bool)


def _axis_size(shape, axis) -> int:
    """Number of elements a reduction over ``axis`` combines (IndexError for a bad axis)."""
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[d] for d in axes], dtype=np.int64))


def _count(a, axis, keepdims, where, dtype):
    """How many elements each output of a reduction over ``axis`` averages."""
    shape = _aval(a).shape
    if where is None:
        return np.asarray(_axis_size(shape, axis), dtype)
    return sum(ufuncs._broadcast_to(where, shape), axis, dtype=dtype, keepdims=keepdims)


def _to_inexact(dt: np.dtype) -> np.dtype:
    return dt if dtypes.is_inexact(dt) else dtypes.default_float_dtype


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis``; integer inputs give float32."""
    _no_out("mean", out)
    a = _ensure_array("mean", a)
    where = _check_where("mean", where)
    axis = _static_axis(axis)
    result_dtype = _to_inexact(_aval(a).dtype) if dtype is None else _user_dtype(dtype)
    compute_dtype = _upcast_f16(result_dtype) if dtype is None else result_dtype
    normalizer = _count(a, axis, keepdims, where, compute_dtype)
    total = sum(a, axis, dtype=compute_dtype, keepdims=keepdims, where=where)
    return lax._convert_element_type(_divide_by_count(total, normalizer), result_dtype, False)


def _divide_by_count(total, count):
    """``total / count`` with JAX's bits.

    JAX's ``mean`` is a ``jit`` in which the count is a compile-time constant,
    and XLA divides by a constant as ``total * (1 / count)``. Traced, we bind
    ``div`` (JAX's jaxpr) and the kernels make XLA's rewrite
    (``backends/plan/passes.divide_by_reciprocal``); on concrete arrays the
    reciprocal is taken here.
    """
    if (isinstance(total, Array) and isinstance(count, np.ndarray)
            and count.dtype in RECIPROCAL_DTYPES):
        return lax.mul(total, np.ones((), count.dtype) / count)
    return lax.div(total, count)


_mean = mean  # ``var`` and ``std`` have an argument called ``mean``


def _var_dtypes(a_dtype, dtype):
    """(computation dtype, result dtype) of ``var``/``std``, as JAX picks them."""
    if dtype is not None:
        if (dtypes.issubdtype(a_dtype, np.complexfloating)
                and not dtypes.issubdtype(dtype, np.complexfloating)):
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing the "
                "variance of an array of complex values. The semantics of numpy.var seem "
                "unclear in this case. Please comment on "
                "https://github.com/jax-ml/jax/issues/2283 if this behavior is important to you.")
        return _upcast_f16(dtype), dtype
    if not dtypes.is_inexact(a_dtype):
        return dtypes.default_float_dtype, dtypes.default_float_dtype
    # a complex array's variance is real: the result dtype is the real part's
    return _upcast_f16(a_dtype), np.zeros((), a_dtype).real.dtype


def _correction(ddof, correction):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Variance over ``axis``: mean squared deviation, divided by ``N - ddof``.

    As in JAX, the work is the inner ``jit`` ``_var``, whose ``correction``
    (``ddof``) is a traced argument: ``jnp.var(x, ddof=1)`` and ``ddof=0``
    share one compiled program.
    """
    correction = _correction(ddof, correction)
    a = _ensure_array("var", a)
    return _var(a, axis=_static_axis(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, a_mean=mean)


@jnp_jit("_var", static_argnames=("axis", "dtype", "keepdims"))
def _var(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         a_mean=None):
    _no_out("var", out)
    where = _check_where("var", where)
    dtype = None if dtype is None else _user_dtype(dtype)
    compute_dtype, dtype = _var_dtypes(_aval(a).dtype, dtype)
    a = lax._convert_element_type(a, compute_dtype, False)
    if a_mean is None:
        a_mean = _mean(a, axis, dtype=compute_dtype, keepdims=True, where=where)
    else:
        a_mean = lax._convert_element_type(_ensure_array("var", a_mean), compute_dtype, False)
    centered = lax.sub(a, a_mean)
    if dtypes.issubdtype(compute_dtype, np.complexfloating):  # |z - mean|^2, real
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        compute_dtype = _aval(centered).dtype
    else:
        centered = lax.square(centered)
    normalizer = _count(a, axis, keepdims, where, compute_dtype)
    normalizer = lax.sub(normalizer, lax._convert_element_type(correction, compute_dtype, False))
    total = sum(centered, axis, dtype=compute_dtype, keepdims=keepdims, where=where)
    result = lax._convert_element_type(lax.div(total, normalizer), dtype, False)
    # a Python NaN, as JAX's: an integer dtype= makes the result float32 (weak)
    return ufuncs._where(lax.gt(normalizer, np.asarray(0, compute_dtype)), result, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Standard deviation over ``axis``: ``sqrt(var(...))`` (the inner ``jit`` ``_std``)."""
    correction = _correction(ddof, correction)
    a = _ensure_array("std", a)
    return _std(a, axis=_static_axis(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, mean=mean)


@jnp_jit("_std", static_argnames=("axis", "dtype", "keepdims"))
def _std(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         mean=None):
    if dtype is not None and not dtypes.is_inexact(_user_dtype(dtype)):
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {_user_dtype(dtype)}")
    _no_out("std", out)
    return lax.sqrt(var(a, axis, dtype, keepdims=keepdims, where=where, mean=mean,
                        correction=correction))


@jnp_jit("_ptp", static_argnames=("axis", "keepdims"))
def ptp(a, axis=None, out=None, keepdims=False):
    """Peak to peak: ``max - min`` over ``axis``."""
    _no_out("ptp", out)
    return lax.sub(amax(a, axis=axis, keepdims=keepdims), amin(a, axis=axis, keepdims=keepdims))


@jnp_jit("count_nonzero", static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims=False):
    """Number of nonzero elements over ``axis`` (int32)."""
    a = _ensure_array("count_nonzero", a)
    return sum(lax.ne(a, ufuncs._const(a, 0)), axis=axis, dtype=dtypes.default_int_dtype,
               keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean over ``axis``; ``returned=True`` also gives the sum of weights."""
    axis = _static_axis(axis)
    if weights is None:
        a = _ensure_array("average", a)
        a, = promote_dtypes_inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        weights_sum = np.asarray(_axis_size(_aval(a).shape, axis), _aval(avg).dtype)
        weights_sum = asarray(weights_sum)
    else:
        check_arraylike("average", a, weights)
        a, weights = promote_dtypes_inexact(asarray(a), asarray(weights))
        a_shape, w_shape = _aval(a).shape, _aval(weights).shape
        if a_shape != w_shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            axes = _reduction_axes(len(a_shape), axis)
            if w_shape != tuple(a_shape[d] for d in axes):
                raise ValueError("Shape of weights must be consistent with shape "
                                 "of a along specified axis.")
            new_shape = tuple(d if i in axes else 1 for i, d in enumerate(a_shape))
            order = tuple(int(i) for i in np.argsort(axes))
            weights = lax.reshape(weights, new_shape,
                                  None if order == tuple(sorted(order)) else order)
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = lax.div(sum(ufuncs.multiply(a, weights), axis=axis, keepdims=keepdims),
                      weights_sum)
    if returned:
        if _aval(avg).shape != _aval(weights_sum).shape:
            weights_sum = ufuncs._broadcast_to(weights_sum, _aval(avg).shape)
        return avg, weights_sum
    return avg


@jnp_jit("median", static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median over ``axis`` (the mean of the two middle values for even sizes)."""
    from minijax.numpy.shapes import moveaxis, reshape
    from minijax.numpy.sorting import sort
    _no_out("median", out)
    a = _ensure_array("median", a)
    a, = promote_dtypes_inexact(a)
    axis = _static_axis(axis)
    shape = _aval(a).shape
    axes = _reduction_axes(len(shape), axis)
    kept = [d for d in range(len(shape)) if d not in axes]
    a = moveaxis(a, axes, tuple(range(-len(axes), 0))) if axes else a
    n = int(np.prod([shape[d] for d in axes], dtype=np.int64))  # (not -1: kept may be empty)
    a = reshape(a, tuple(shape[d] for d in kept) + (n,))
    if n == 0:
        result = ufuncs._full_like(lax.reduce_sum(a, (a.ndim - 1,)), np.nan)
    else:
        s = sort(a, axis=-1)
        lo = lax.slice_in_dim(s, (n - 1) // 2, (n - 1) // 2 + 1, axis=s.ndim - 1)
        hi = lax.slice_in_dim(s, n // 2, n // 2 + 1, axis=s.ndim - 1)
        mid = lax.mul(lax.add(lo, hi), np.asarray(0.5, _aval(s).dtype))
        result = lax.squeeze(mid, (s.ndim - 1,))
        result = ufuncs._where(any(ufuncs.isnan(a), axis=-1), np.asarray(np.nan, _aval(a).dtype),
                               result)
    if keepdims:
        result = lax.expand_dims(result, axes)
    return result


# --- argmax / argmin ---------------------------------------------------------------------

def _arg_reduction(name: str, lax_fn, a, axis, out, keepdims):
    _no_out(name, out)
    a = _ensure_array(name, a)
    shape = _aval(a).shape
    if axis is None:
        a = lax.reshape(a, (int(np.prod(shape, dtype=np.int64)),))
        dims, axis = tuple(range(len(shape))), 0
    else:
        axis = operator.index(axis)
        dims = None
    if _aval(a).shape[axis] == 0:  # an IndexError for a bad axis, as in JAX
        raise ValueError(f"attempt to get {name} of an empty sequence")
    axis = canonicalize_axis(axis, len(_aval(a).shape))
    result = lax_fn(a, axis, dtypes.default_int_dtype)
    if keepdims:
        result = lax.expand_dims(result, dims if dims is not None else (axis,))
    return result


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the (first) maximum along ``axis`` (of the flattened array if None); int32."""
    return _arg_reduction("argmax", lax.argmax, a, axis, out, bool(keepdims))


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the (first) minimum along ``axis`` (of the flattened array if None); int32."""
    return _arg_reduction("argmin", lax.argmin, a, axis, out, bool(keepdims))


# --- cumulative reductions ----------------------------------------------------------------

def _cumulative(name: str, lax_fn, a, axis, dtype, out=None, promote_integers=False):
    """JAX's cumulative reduction: flatten if ``axis`` is None, pick dtypes, one lax call."""
    _no_out(name, out)
    a = _ensure_array(name, a)
    shape = _aval(a).shape
    if axis is None or shape == ():
        a = lax.reshape(a, (int(np.prod(shape, dtype=np.int64)),))
    axis = canonicalize_axis(0 if axis is None else operator.index(axis), len(_aval(a).shape))
    a_dtype = _aval(a).dtype
    if dtype is None:
        result_dtype = (_promote_integer_dtype(a_dtype)
                        if promote_integers or a_dtype == np.bool_ else a_dtype)
        compute_dtype = result_dtype
    elif _user_dtype(dtype) == np.bool_:
        result_dtype = dtypes.bool_
        if a_dtype != np.bool_:
            a = lax.ne(a, ufuncs._const(a, 0))
        compute_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = compute_dtype = _user_dtype(dtype)
    a = lax._convert_element_type(a, compute_dtype, False)
    return lax._convert_element_type(lax_fn(a, axis), result_dtype, False)


@jnp_jit("cumsum", static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (of the flattened array if None)."""
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype, out)


@jnp_jit("cumprod", static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (of the flattened array if None)."""
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype, out)


def _array_api_cumulative(name, lax_fn, identity, promote_integers, x, axis, dtype,
                          include_initial):
    x = _ensure_array(name, x)
    ndim = len(_aval(x).shape)
    what = "sum" if "sum" in name else "product"
    if ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, "
                         "however a scalar value or scalar array was given.")
    if axis is None:
        if ndim > 1:
            raise ValueError(
                f"The input array has rank {ndim}, however axis was not set to an "
                "explicit value. The axis argument is only optional for one-dimensional "
                "arrays.")
        axis = 0
    axis = canonicalize_axis(axis, ndim)
    out = _cumulative(name, lax_fn, x, axis, dtype, promote_integers=promote_integers)
    if include_initial:
        first_shape = list(_aval(out).shape)
        first_shape[axis] = 1
        first = lax.broadcast_in_dim(np.asarray(identity, _aval(out).dtype),
                                     tuple(first_shape), ())
        out = lax.concatenate([first, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative sum; ``include_initial`` prepends a 0. Small ints sum in int32."""
    return _array_api_cumulative("cumulative_sum", lax.cumsum, 0, True, x, axis, dtype,
                                 include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative product; ``include_initial`` prepends a 1."""
    return _array_api_cumulative("cumulative_prod", lax.cumprod, 1, False, x, axis, dtype,
                                 include_initial)


# --- NaN-ignoring reductions ------------------------------------------------------------------

def _nan_reduction(name, reduction, init_val, nan_if_all_nan, a, axis, keepdims, where,
                   **kwargs):
    """``reduction`` with NaNs replaced by ``init_val`` (NaN where everything was NaN)."""
    a = _ensure_array(name, a)
    if not dtypes.is_inexact(_aval(a).dtype):
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    is_nan = ufuncs.isnan(a)
    out = reduction(ufuncs._where(is_nan, _identity(_aval(a).dtype, init_val), a),
                    axis=axis, keepdims=keepdims, where=where, **kwargs)
    if nan_if_all_nan:
        all_nan = all(is_nan, axis=axis, keepdims=keepdims)
        return ufuncs._where(all_nan, np.asarray(np.nan, _aval(a).dtype), out)
    return out


@jnp_jit("nansum", static_argnames=("axis", "dtype", "keepdims"))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`sum` treating NaNs as zero."""
    _no_out("nansum", out)
    return _nan_reduction("nansum", sum, 0, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


@jnp_jit("nanprod", static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`prod` treating NaNs as one."""
    _no_out("nanprod", out)
    return _nan_reduction("nanprod", prod, 1, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


@jnp_jit("nanmax", static_argnames=("axis", "keepdims"))
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`max` ignoring NaNs (NaN only where every element is NaN)."""
    _no_out("nanmax", out)
    return _nan_reduction("nanmax", max, -np.inf, True, a, axis, keepdims, where,
                          initial=initial)


@jnp_jit("nanmin", static_argnames=("axis", "keepdims"))
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`min` ignoring NaNs (NaN only where every element is NaN)."""
    _no_out("nanmin", out)
    return _nan_reduction("nanmin", min, np.inf, True, a, axis, keepdims, where,
                          initial=initial)


@jnp_jit("nanmean", static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """:func:`mean` of the non-NaN elements."""
    _no_out("nanmean", out)
    a = _ensure_array("nanmean", a)
    if not dtypes.is_inexact(_aval(a).dtype):
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    dtype = _aval(a).dtype if dtype is None else _user_dtype(dtype)
    not_nan = ufuncs.logical_not(ufuncs.isnan(a))
    count = sum(not_nan, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, count)


# --- whole-array comparisons ---------------------------------------------------------------

@jnp_jit("allclose", static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every pair of elements is :func:`isclose`."""
    return all(ufuncs.isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have the same shape and elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if _aval(a1).shape != _aval(a2).shape:
        return asarray(False)
    eq = ufuncs.equal(a1, a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs.isnan(a1), ufuncs.isnan(a2)))
    return all(eq)


def array_equiv(a1, a2):
    """Whether the arrays are equal after broadcasting (False if they do not broadcast)."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = ufuncs.equal(a1, a2)
    except ValueError:  # incompatible ranks; equal ranks raise lax's TypeError, as in JAX
        return asarray(False)
    return all(eq)


# --- the reductions behind jnp.bitwise_and.reduce & co (chapter 08's ufunc objects) ------

def _require_integer(a):
    if not dtypes.issubdtype(_aval(a).dtype, np.integer) and _aval(a).dtype != np.bool_:
        raise ValueError(f"integer argument required; got dtype={_aval(a).dtype}")
    return a


def _bitwise_reduction(kind: str, preproc):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        return _reduction(a, f"reduce_{kind}", kind, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where, preproc=preproc)
    reduce.__name__ = reduce.__qualname__ = f"_reduce_{kind}"
    reduce.__doc__ = f"``jnp.{kind}.reduce``: one ``reduce_{kind.split('_')[1]}``."
    return reduce


_reduce_bitwise_and = _bitwise_reduction("bitwise_and", _require_integer)
_reduce_bitwise_or = _bitwise_reduction("bitwise_or", _require_integer)
_reduce_bitwise_xor = _bitwise_reduction("bitwise_xor", _require_integer)
_reduce_logical_xor = _bitwise_reduction("bitwise_xor", _cast_to_bool)
_reduce_logical_and = _bitwise_reduction("bitwise_and", _cast_to_bool)
_reduce_logical_or = _bitwise_reduction("bitwise_or", _cast_to_bool)
