"""Chapter 00 — making arrays: ``jnp.array``, ``jnp.zeros``, ``jnp.arange`` and friends.

``jnp.array`` is where NumPy data enters minijax, and where JAX's dtype rules
first apply: a Python scalar becomes a *weakly typed* 0-d array, 64-bit NumPy
data is canonicalized to 32 bits, and a nested list takes the promoted type of
its elements.

The other constructors are small programs of lax primitives, exactly as in
JAX, so that they can be traced: ``jnp.zeros((2, 3))`` is a
``broadcast_in_dim`` of the scalar constant ``0.0``, ``jnp.arange(3)`` is an
``iota``, ``jnp.eye(3)`` compares two ``iota``\\ s. Shapes, sizes and the
arguments of ``arange`` must be *concrete* (known while tracing); a traced
value there raises the tracer's own error.
"""
from __future__ import annotations

import math
import operator
import types
import warnings

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.array import Array
from minijax.lax import _convert_element_type
from minijax.lax.base import canonicalize_axis, canonicalize_shape
from minijax.numpy.util import check_arraylike, is_arraylike
from minijax.numpy.util import is_traced as _is_traced
from minijax.numpy.util import jnp_jit

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "meshgrid", "copy", "astype"]


# --------------------------------------------------------------------------
# Helpers: dtypes and shapes given by the user
# --------------------------------------------------------------------------

_supported_dtypes = frozenset(dtypes._jax_types)


def _user_dtype(dtype, fun_name: str) -> np.dtype:
    """JAX's ``check_and_canonicalize_user_dtype``: a supported dtype, made 32-bit."""
    dt = np.dtype(dtype)  # NumPy's TypeError for names it does not know
    if dt not in _supported_dtypes:
        raise TypeError("JAX only supports number, bool, and string dtypes, got "
                        f"dtype {dtype} in {fun_name}")
    return dtypes.canonicalize_dtype(dt)


def _is_array(x) -> bool:
    """An ``Array`` or a tracer (both stand for ``jax.Array``)."""
    return hasattr(x, "aval")


def _canonicalize_dim(d, context: str = "") -> int:
    return canonicalize_shape((d,), context)[0]


def _check_shape_arg(name: str, shape, dtype) -> None:
    if isinstance(shape, types.GeneratorType):
        raise TypeError("expected sequence object with len >= 0 or a single integer")
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(
            f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally write "
            f"`jax.numpy.{name}({shape}, {dtype})` when you meant "
            f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple "
            "argument for the shape?")


def _concrete_index(x) -> int:
    """``operator.index(x)``; a tracer must be concrete (else its ConcretizationTypeError)."""
    return operator.index(x.item() if _is_traced(x) else x)


def _const(value, dtype):
    """``value`` as a (non-weak) constant or cast of dtype ``dtype``."""
    return _convert_element_type(value, dtype, False)


# --------------------------------------------------------------------------
# array / asarray
# --------------------------------------------------------------------------

def _leaves_of_nested(obj):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _leaves_of_nested(o)
    else:
        yield obj


def _check_leaf(leaf):
    """A leaf ``result_type`` understands, or JAX's TypeError for non-numeric data."""
    if leaf is None:
        raise ValueError("None is not a valid value for jnp.array")
    if hasattr(leaf, "__jax_array__"):
        leaf = leaf.__jax_array__()
    if (_is_array(leaf) or dtypes.is_python_scalar(leaf)
            or isinstance(leaf, (np.ndarray, np.generic))):
        value = leaf
    else:  # a range, a memoryview, a string...
        value = np.asarray(leaf)
    dt = getattr(value, "dtype", None)
    if dt is not None and np.dtype(dt) not in _supported_dtypes:
        raise TypeError(f"Value {leaf!r} with dtype {dt} is not a valid JAX array type. "
                        "Only arrays of numeric types are supported by JAX.")
    return value


def _check_int_overflow(obj, dtype):
    if type(obj) is int and dtype is None:
        info = np.iinfo(dtypes.default_int_dtype)
        if not info.min <= obj <= info.max:
            raise OverflowError(
                f"Python int {obj} too large to convert to {dtypes.default_int_dtype}")


def array(object, dtype=None, *args, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, device=None, out_sharding=None):
    """Create an ``Array`` from array-like data (``numpy.array`` with JAX's dtypes).

    Only Python scalars (and arrays that are already weak) give a weakly typed
    result; a list takes the promoted, strong type of its elements.

    >>> array([1, 2, 3])
    Array([1, 2, 3], dtype=int32)
    >>> array(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    if args:
        if len(args) > 3:
            raise TypeError(f"array() takes at most 5 positional arguments but "
                            f"{len(args) + 2} were given")
        warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array "
                      "positionally is deprecated. Use keyword arguments instead.",
                      DeprecationWarning, stacklevel=2)
        copy, order, ndmin = (list(args) + [copy, order, ndmin][len(args):])[:3]
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if dtype is not None:
        dtype = _user_dtype(dtype, "array")
    if dtype is None and ndmin == 0 and _is_traced(object):
        return lax._array_copy(object) if copy else object

    weak_type = dtype is None and dtypes.is_weakly_typed(object)
    _check_int_overflow(object, dtype)
    if hasattr(object, "__jax_array__") and not _is_array(object):
        object = object.__jax_array__()
    leaves = [_check_leaf(leaf) for leaf in _leaves_of_nested(object)]
    if dtype is None:
        dtype = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype

    if _is_array(object):
        out = lax._array_copy(object) if copy else object
    elif not any(_is_array(leaf) for leaf in leaves):
        if not isinstance(object, (list, tuple)):
            object = leaves[0]
        out = np.asarray(object, dtype=dtype)
    else:  # a nested list holding Arrays or tracers: concatenate its rows
        out = _concatenate_rows([array(elt, dtype=dtype, copy=False) for elt in object])
    out = _convert_element_type(out, dtype, weak_type)
    ndim = get_aval(out).ndim
    if ndmin > ndim:
        out = lax.expand_dims(out, tuple(range(ndmin - ndim)))
    return out


def _concatenate_rows(rows):
    """Stack ``rows`` along a new leading axis (in groups of 16, as JAX does)."""
    rows = [lax.expand_dims(r, (0,)) for r in rows]
    while len(rows) > 16:
        rows = [lax.concatenate(rows[i:i + 16], 0) for i in range(0, len(rows), 16)]
    return lax.concatenate(rows, 0)


def asarray(a, dtype=None, order: str | None = None, *, copy: bool | None = None,
            device=None, out_sharding=None):
    """Like :func:`array`, but copies only when asked to (``copy=True``).

    >>> x = asarray([1., 2.])
    >>> asarray(x) is x
    True
    """
    if dtype is not None:
        dtype = _user_dtype(dtype, "asarray")
    return array(a, dtype=dtype, copy=bool(copy), order=order, device=device)


def copy(a, order: str | None = None):
    """A copy of ``a`` (``jnp.array(a, copy=True)``)."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """``x`` converted to ``dtype`` (float32 when ``dtype`` is None); never weakly typed.

    >>> astype(asarray([1.5, -1.5]), 'int32')
    Array([ 1, -1], dtype=int32)
    """
    check_arraylike("astype", x)
    x = asarray(x)
    dtype = (dtypes.default_float_dtype if dtype is None
             else _user_dtype(dtype, "astype"))
    if dtypes.is_complex(get_aval(x).dtype) and dtype == dtypes.bool_:
        result = lax.ne(x, _const(0, get_aval(x).dtype))  # nonzero, not real part
    else:
        result = _convert_element_type(x, dtype, False)
    return lax._array_copy(result) if copy else result


# --------------------------------------------------------------------------
# zeros, ones, full, empty and their *_like versions
# --------------------------------------------------------------------------

def _filled(name: str, shape, fill_value, dtype):
    _check_shape_arg(name, shape, dtype)
    dtype = _user_dtype(float if dtype is None else dtype, name)
    return lax.full(canonicalize_shape(shape), fill_value, dtype)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of zeros of ``shape`` (float32 unless ``dtype`` says otherwise).

    >>> zeros(2)
    Array([0., 0.], dtype=float32)
    """
    return _filled("zeros", shape, 0, dtype)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ones of ``shape`` (float32 unless ``dtype`` says otherwise)."""
    return _filled("ones", shape, 1, dtype)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """Like :func:`zeros`: XLA has no uninitialized memory, so "empty" is zeros."""
    return _filled("empty", shape, 0, dtype)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (which may be an array that broadcasts).

    The dtype and weak type are ``fill_value``'s unless ``dtype`` is given:

    >>> full(2, 7)
    Array([7, 7], dtype=int32, weak_type=True)
    """
    if dtype is not None:
        dtype = _user_dtype(dtype, "full")
    check_arraylike("full", fill_value)
    if np.ndim(fill_value) == 0:
        return lax.full(canonicalize_shape(shape), fill_value, dtype)
    from minijax.numpy.shapes import broadcast_to
    return broadcast_to(asarray(fill_value, dtype=dtype), shape)


def _filled_like(name: str, a, fill_value, dtype, shape):
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
        check_arraylike(name, a)
    if fill_value is not None:
        check_arraylike(name, fill_value)
    if dtype is not None:
        dtype = _user_dtype(dtype, name)
    if shape is not None:
        shape = canonicalize_shape(shape)
    fill_value = 0 if fill_value is None else fill_value
    if np.ndim(fill_value) != 0:
        from minijax.numpy.shapes import broadcast_to
        target_shape = np.shape(a) if shape is None else shape
        target_dtype = dtypes.result_type(a) if dtype is None else dtype
        return broadcast_to(asarray(fill_value, dtype=target_dtype), target_shape)
    weak = dtype is None and dtypes.is_weakly_typed(a)
    dtype = dtypes.dtype(a, canonicalize=True) if dtype is None else dtype
    shape = tuple(np.shape(a)) if shape is None else shape
    return lax.full(shape, _convert_element_type(fill_value, dtype, weak))


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Zeros with the shape, dtype and weak type of ``a`` (each can be overridden)."""
    return _filled_like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Ones with the shape, dtype and weak type of ``a`` (each can be overridden)."""
    return _filled_like("ones_like", a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    """Like :func:`zeros_like` (JAX arrays are never uninitialized)."""
    return _filled_like("empty_like", prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``fill_value`` broadcast to the shape of ``a``, in the dtype (and weak type) of ``a``."""
    return _filled_like("full_like", a, fill_value, dtype, shape)


# --------------------------------------------------------------------------
# arange, linspace, logspace, geomspace
# --------------------------------------------------------------------------

def _concrete_scalar(x, name: str):
    """The value of ``x`` as a NumPy/Python scalar; a tracer raises its own error.

    Returns ``(value, x)``: the value for arithmetic on sizes, the original for
    dtype inference (an Array keeps its dtype and weak type).
    """
    if x is None:
        return None
    if _is_traced(x):  # ``item`` raises ConcretizationTypeError for an abstract tracer
        value = np.asarray(x.item(), dtype=x.dtype)
    elif isinstance(x, Array):
        value = np.asarray(x)
    else:
        value = x
    if np.ndim(value) != 0:
        raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={x}")
    return value[()] if isinstance(value, np.ndarray) else value


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in ``[start, stop)``: an ``iota``, scaled and shifted.

    The arguments must be concrete. Without ``dtype`` the result has the
    (strong) promoted type of the arguments:

    >>> arange(3)
    Array([0, 1, 2], dtype=int32)
    >>> arange(0., 1., 0.25)
    Array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
    """
    if dtype is not None:
        dtype = _user_dtype(dtype, "arange")
    if start is None:
        raise TypeError("must be real number, not NoneType")
    for pos, x in enumerate((start, stop, step)):
        if x is not None and not is_arraylike(x):
            raise TypeError("arange requires ndarray, scalar, or None arguments, got "
                            f"{type(x)} at position {pos}.")
    start_name = "stop" if stop is None and step is None else "start"
    args = [(start, start_name), (stop, "stop"), (step, "step")]
    start_v, stop_v, step_v = (_concrete_scalar(x, name) for x, name in args)
    if dtype is None:
        dtype = dtypes.result_type(*(x for x in (start, stop, step) if x is not None))
    if any(np.iscomplexobj(v) for v in (start_v, stop_v, step_v) if v is not None):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer "
                         "supported starting in JAX v0.10.0.")
    if stop_v is None:
        start_v, stop_v = 0, start_v
    if step_v is not None:
        work = (dtypes.float32 if dtypes.is_float(dtype) and dtype.itemsize < 4
                else dtype)
        size = max(0, int(np.ceil((stop_v - start_v) / step_v)))
        out = lax.add(_const(start_v, work),
                      lax.mul(_const(step_v, work), lax.broadcasted_iota(work, (size,), 0)))
        return _convert_element_type(out, dtype, False)
    size = max(0, int(np.ceil(stop_v - start_v)))
    if start_v == 0:
        return lax.broadcasted_iota(dtype, (size,), 0)
    return lax.add(_const(start_v, dtype), lax.broadcasted_iota(dtype, (size,), 0))


def _inexact_dtype(dt) -> np.dtype:
    return np.dtype(dt) if dtypes.is_inexact(dt) else dtypes.default_float_dtype


def _spaced_dtypes(name: str, start, stop, dtype):
    """(output dtype, computation dtype) of linspace/logspace/geomspace."""
    if dtype is None:
        dtype = _inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = _user_dtype(dtype, name)
    return dtype, _inexact_dtype(dtype)


@jnp_jit("_linspace", static_argnames=("num", "endpoint", "retstep", "dtype", "axis", "device"))
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive if ``endpoint``).

    ``start`` and ``stop`` may be arrays (and traced); the new axis is ``axis``.

    >>> linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num, axis = _concrete_index(num), _concrete_index(axis)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    start, stop = asarray(start), asarray(stop)
    dtype, comp = _spaced_dtypes("linspace", start, stop, dtype)
    start, stop = _const(start, comp), _const(stop, comp)
    from minijax.numpy.shapes import broadcast_shapes, broadcast_to
    bounds = list(broadcast_shapes(get_aval(start).shape, get_aval(stop).shape))
    start, stop = broadcast_to(start, bounds), broadcast_to(stop, bounds)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    shape = bounds[:axis] + [1] + bounds[axis:]
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(stop, start), _const(div, comp))
        real = dtypes.finfo(comp).dtype
        iota_shape = [1] * len(shape)
        iota_shape[axis] = div
        frac = lax.div(lax.reshape(lax.iota(real, div), iota_shape), _const(div, real))
        frac = _const(frac, comp)
        out = lax.add(lax.mul(lax.reshape(start, shape), lax.sub(_const(1, comp), frac)),
                      lax.mul(lax.reshape(stop, shape), frac))
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop, (axis,))], axis)
    elif num == 1:
        delta = _const(np.nan, comp) if endpoint else lax.sub(stop, start)
        out = lax.reshape(start, shape)
    else:
        delta = _const(np.nan, comp)
        out = zeros(bounds[:axis] + [0] + bounds[axis:], dtype)
    if dtypes.is_int(dtype) and not dtypes.is_int(get_aval(out).dtype):
        out = lax.floor(out)
    result = _convert_element_type(out, dtype, False)
    return (result, delta) if retstep else result


@jnp_jit("_logspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0,
             dtype=None, axis: int = 0):
    """``base ** linspace(start, stop, num)``.

    >>> logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    num, axis = _concrete_index(num), _concrete_index(axis)
    check_arraylike("logspace", start, stop)
    dtype, comp = _spaced_dtypes("logspace", start, stop, dtype)
    lin = linspace(_const(start, comp), _const(stop, comp), num, endpoint=endpoint,
                   axis=axis)
    base = _const(base, comp)
    if np.ndim(base):  # an array base broadcasts against the samples (a scalar needs not)
        shape = tuple(np.broadcast_shapes(np.shape(base), np.shape(lin)))
        base, lin = (v if np.shape(v) == shape else lax.broadcast_in_dim(
            v, shape, tuple(range(len(shape) - np.ndim(v), len(shape)))) for v in (base, lin))
    return _convert_element_type(lax.pow(base, lin), dtype, False)


@jnp_jit("_geomspace", static_argnames=("num", "endpoint", "dtype", "axis"))
def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None,
              axis: int = 0):
    """``num`` values spaced evenly on a log scale (a geometric progression).

    >>> geomspace(1, 100, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    num, axis = _concrete_index(num), _concrete_index(axis)
    check_arraylike("geomspace", start, stop)
    dtype, comp = _spaced_dtypes("geomspace", start, stop, dtype)
    start, stop = _const(start, comp), _const(stop, comp)
    sign = lax.sign(start)
    inv_ln10 = _const(1 / math.log(10), comp)
    log10 = lambda x: lax.mul(lax.log(lax.div(x, sign)), inv_ln10)
    res = logspace(log10(start), log10(stop), num, endpoint=endpoint, dtype=comp, axis=0)
    res = lax.mul(lax.broadcast_to_rank(sign, get_aval(res).ndim), res)
    ndim = get_aval(res).ndim
    axis = canonicalize_axis(axis, ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, ndim)))
    return _convert_element_type(res, dtype, False)


# --------------------------------------------------------------------------
# eye, identity, tri, meshgrid
# --------------------------------------------------------------------------

def _offset_mask(shape, offset, compare):
    """``compare(i + offset, j)`` on the row and column indices of a ``shape`` matrix."""
    offset_dtype = get_aval(offset).dtype
    rows = lax.broadcasted_iota(offset_dtype, shape, 0)
    cols = lax.broadcasted_iota(offset_dtype, shape, 1)
    return compare(lax.add(rows, offset), cols)


def _int32_offset(k, name: str):
    if isinstance(k, int):
        info = np.iinfo(np.int32)
        k = _const(min(max(k, info.min), info.max), dtypes.int32)
    offset = asarray(k)
    aval = get_aval(offset)
    if aval.shape != () or not dtypes.is_int(aval.dtype):
        raise ValueError(f"k must be a scalar integer; got {k}")
    return offset


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-d array with ones on the ``k``-th diagonal and zeros elsewhere.

    >>> eye(2, dtype=int)
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    dtype = _user_dtype(float if dtype is None else dtype, "eye")
    offset = _int32_offset(k, "eye")
    n = _canonicalize_dim(N, "argument of 'N' jnp.eye()")
    m = n if M is None else _canonicalize_dim(M, "argument 'M' of jnp.eye()")
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    return _convert_element_type(_offset_mask((n, m), offset, lax.eq), dtype, False)


def identity(n, dtype=None):
    """The ``n`` x ``n`` identity matrix (float32 unless ``dtype`` is given)."""
    if dtype is not None:
        dtype = _user_dtype(dtype, "identity")
    return eye(n, dtype=dtype)


def tri(N, M=None, k: int = 0, dtype=None):
    """A 2-d array with ones at and below the ``k``-th diagonal, zeros above.

    >>> tri(2, 3, dtype=int)
    Array([[1, 0, 0],
           [1, 1, 0]], dtype=int32)
    """
    dtype = dtypes.float32 if dtype is None else _user_dtype(dtype, "tri")
    n = _canonicalize_dim(N, "argument of 'N' jnp.tri()")
    m = n if M is None else _canonicalize_dim(M, "argument 'M' of jnp.tri()")
    offset = _int32_offset(k, "tri")
    return _convert_element_type(_offset_mask((n, m), offset, lax.ge), dtype, False)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate grids from 1-d coordinate arrays (a list of ``broadcast_in_dim``\\ s).

    ``indexing='xy'`` (the default) swaps the first two output axes, as NumPy does.
    """
    check_arraylike("meshgrid", *xi)
    args = [asarray(x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    shapes = [get_aval(a).shape for a in args]
    if any(len(s) != 1 for s in shapes):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes {shapes}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
        shapes[0], shapes[1] = shapes[1], shapes[0]
    full_shape = [1 if sparse else s[0] for s in shapes]

    def out_shape(i):
        if not sparse:
            return full_shape
        return full_shape[:i] + [shapes[i][0]] + full_shape[i + 1:]

    output = [lax.broadcast_in_dim(a, out_shape(i), (i,)) for i, a in enumerate(args)]
    if swap:
        output[0], output[1] = output[1], output[0]
    return output
