"""Chapter 00 — the rest of ``jax.numpy``: editing, polynomials, windows, bits...

Every function here is a short composition of the ``jnp`` functions of the
other modules (and a handful of lax calls), written the way JAX writes
them. The ones that would *mutate* in NumPy (``put``, ``place``,
``fill_diagonal``) insist on ``inplace=False``: JAX arrays are immutable,
so they return a modified copy made with ``x.at[...].set(...)``.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from minijax import dtypes, lax
from minijax.numpy import creation as _c, reductions as _r, shapes as _s, ufuncs as _u
from minijax.numpy import sorting as _so
from minijax.numpy.indexing import take, take_along_axis
from minijax.numpy.set_ops import nonzero
from minijax.numpy.tensor_contractions import matmul
from minijax.lax import _convert_element_type
from minijax.numpy.util import (check_arraylike, jnp_custom_jvp, jnp_jit, promote_args,
                                promote_args_inexact, promote_dtypes, promote_dtypes_inexact)

__all__ = [
    "cross", "rot90", "append", "insert", "delete", "resize", "gcd", "lcm", "ldexp",
    "frexp", "modf", "logaddexp2", "nextafter", "spacing", "iscomplex", "isreal",
    "iscomplexobj", "isrealobj", "isscalar", "unstack", "vecdot", "matvec", "vecmat",
    "bitwise_count", "bitwise_invert", "get_printoptions", "printoptions",
    "set_printoptions", "array_repr", "array_str", "frombuffer", "fromstring", "from_dlpack",
    "load", "save", "savez",
    "fromiter", "iterable", "polyval", "polyadd", "polysub", "polymul", "polydiv", "polyder",
    "polyint", "vander", "bartlett", "blackman", "hamming", "hanning", "kaiser",
    "trim_zeros", "packbits", "unpackbits", "put", "put_along_axis", "choose",
    "compress", "place", "block",
]

_int = dtypes.default_int_dtype


# --- editing arrays ----------------------------------------------------------

def append(arr, values, axis=None):
    """``arr`` and ``values`` concatenated (flattened first when ``axis`` is None)."""
    if axis is None:
        return _s.concatenate([_s.ravel(arr), _s.ravel(values)], 0)
    return _s.concatenate([arr, values], axis=axis)


def _delete_unique(arr, obj, axis):
    """``delete`` of distinct (maybe traced) indices: the kept positions by counting.

    With the dropped indices sorted and each lowered by its rank, output
    position ``i`` reads input ``i + (how many of them are <= i)``.
    """
    n = arr.shape[axis]
    obj = _s.ravel(obj)
    obj = _u.clip(_u.where(obj < 0, obj + n, obj), 0, n)
    obj = _so.sort(obj) - _c.arange(obj.shape[0], dtype=obj.dtype)
    i = _c.arange(n - obj.shape[0], dtype=obj.dtype)
    i = i + _r.sum(i[None, :] >= obj[:, None], axis=0, dtype=i.dtype)
    return arr[(slice(None),) * axis + (i,)]


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an int, slice or concrete index array)."""
    arr = _c.asarray(arr)
    if axis is None:
        arr, axis = _s.ravel(arr), 0
    axis = operator.index(axis) % arr.ndim
    n = arr.shape[axis]
    if (assume_unique_indices and not isinstance(obj, (slice, int, np.integer))
            and dtypes.issubdtype(_c.asarray(obj).dtype, np.integer)):
        return _delete_unique(arr, _c.asarray(obj), axis)
    if isinstance(obj, slice):
        drop = np.arange(n)[obj]
    else:
        # must be concrete, as in JAX without assume_unique_indices: a tracer's
        # ``tolist`` raises JAX's ConcretizationTypeError
        drop = np.asarray(obj.tolist() if hasattr(obj, "aval") else obj)
        if drop.dtype == np.bool_:
            drop = np.flatnonzero(drop)
        drop = np.where(drop < 0, drop + n, drop)
        if np.any((drop < 0) | (drop >= n)):
            raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    keep = np.setdiff1d(np.arange(n), drop).astype(np.int32)
    return take(arr, _c.asarray(keep), axis=axis)


def insert(arr, obj, values, axis=None):
    """``values`` inserted into ``arr`` before the (concrete) indices ``obj``."""
    arr = _c.asarray(arr)
    if axis is None:
        arr, axis = _s.ravel(arr), 0
    axis = operator.index(axis) % arr.ndim
    n = arr.shape[axis]
    idx = np.arange(n)[obj] if isinstance(obj, slice) else np.asarray(obj)  # concrete
    values = _c.asarray(values).astype(arr.dtype)
    values = values.reshape((1,) * (arr.ndim - values.ndim) + values.shape)
    if idx.ndim == 0:  # one slab, as thick as ``values`` is along its first axis
        values = _s.moveaxis(values, 0, axis)
        idx = np.full(values.shape[axis], idx)
    idx = np.where(idx < 0, idx + n, idx)
    shape = list(arr.shape)
    shape[axis] = idx.shape[0]
    values = _s.broadcast_to(values, tuple(shape))
    # sort keys: old element i -> 2i + 1, an insert before i -> 2i (stable among inserts)
    order = np.argsort(np.concatenate([2 * np.arange(n) + 1, 2 * idx]), kind="stable")
    both = _s.concatenate([arr, values], axis)
    return take(both, _c.asarray(order.astype(np.int32)), axis=axis)


def resize(a, new_shape):
    """``ravel(a)`` repeated to fill ``new_shape``."""
    a = _s.ravel(_c.asarray(a))
    new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    size = int(np.prod(new_shape))
    reps = -(-size // a.shape[0]) if a.shape[0] else 0
    return _s.tile(a, reps)[:size].reshape(new_shape)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    m = _c.asarray(m)
    if m.ndim < 2:
        raise ValueError(f"rot90 requires its first argument to have ndim at least two, "
                         f"but got first argument of shape {m.shape}, which has ndim {m.ndim}")
    ax1, ax2 = axes[0] % m.ndim, axes[1] % m.ndim
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return _s.flip(_s.flip(m, ax1), ax2)
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return _s.transpose(_s.flip(m, ax2), perm)
    return _s.flip(_s.transpose(m, perm), ax2)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = _c.asarray(x)
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array "
                         "was passed.")
    x = _s.moveaxis(x, axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


def block(arrays):
    """Assemble an array from nested lists of blocks (innermost lists join last axis)."""
    def depth(a):
        return 1 + depth(a[0]) if isinstance(a, list) and a else (1 if isinstance(a, list) else 0)

    levels = depth(arrays)

    def build(a, level):
        if not isinstance(a, list):
            return _c.asarray(a)
        parts = [build(p, level + 1) for p in a]
        ndim = builtins.max(levels, *(p.ndim for p in parts))
        parts = [p.reshape((1,) * (ndim - p.ndim) + p.shape) for p in parts]
        return _s.concatenate(parts, axis=level - levels)

    if not isinstance(arrays, list):
        return _c.asarray(arrays)
    return build(arrays, 0)


# --- selection ---------------------------------------------------------------

def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every ``i`` (``mode``: raise, wrap, clip)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    a = _c.asarray(a)
    if mode == "raise":
        v = np.asarray(a)  # must be concrete, as in JAX
        if np.any((v < 0) | (v >= len(choices))):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = a % len(choices)
    elif mode == "clip":
        a = _u.clip(a, 0, len(choices) - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    stacked = _s.stack(_s.broadcast_arrays(a, *promote_dtypes(*choices))[1:])
    return take_along_axis(stacked, _s.broadcast_to(a, stacked.shape[1:])[None], 0)[0]


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true."""
    condition = _s.ravel(_c.asarray(condition))
    a = _c.asarray(a)
    if axis is None:
        a, axis = _s.ravel(a), 0
    axis = operator.index(axis) % a.ndim
    condition = condition[:a.shape[axis]]
    (idx,) = nonzero(condition, size=size, fill_value=a.shape[axis])
    return take(a, idx, axis=axis, mode="fill", fill_value=fill_value)


def put(a, ind, v, mode=None, *, inplace=True):
    """A copy of ``a`` with ``ravel(a)[ind] = v`` (``inplace=False`` required)."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Pass inplace=False to instead return an updated "
                         "array.")
    a = _c.asarray(a)
    ind, v = _s.ravel(_c.asarray(ind)), _s.ravel(_c.asarray(v)).astype(a.dtype)
    if ind.shape[0] == 0 or v.shape[0] == 0:
        return a
    v = _s.tile(v, -(-ind.shape[0] // v.shape[0]))[:ind.shape[0]]
    n = a.size
    if mode == "wrap":
        ind = ind % n
    elif mode in (None, "fill", "clip"):
        ind = _u.clip(_u.where(ind < 0, ind + n, ind), 0, n - 1) if mode == "clip" else ind
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return _s.ravel(a).at[ind].set(v, mode="drop").reshape(a.shape)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """A copy of ``arr`` with ``values`` written at ``indices`` along ``axis``."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because "
                         "JAX arrays are immutable. Pass inplace=False to instead return an "
                         "updated array.")
    arr, indices = _c.asarray(arr), _c.asarray(indices)
    if axis is None:
        arr, indices, axis = _s.ravel(arr), _s.ravel(indices), 0
    axis = axis % arr.ndim
    index = []
    for i, d in enumerate(arr.shape):
        if i == axis:
            index.append(_u.where(indices < 0, indices + d, indices))
        else:
            shape = tuple(-1 if j == i else 1 for j in range(arr.ndim))
            index.append(_c.arange(builtins.min(d, indices.shape[i])).reshape(shape))
    values = _s.broadcast_to(_c.asarray(values).astype(arr.dtype), indices.shape)
    return arr.at[tuple(index)].set(values)


def place(arr, mask, vals, *, inplace=True):
    """A copy of ``arr`` with the ``mask`` entries set to ``vals`` in order (repeated)."""
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Pass inplace=False to instead return an updated "
                         "array.")
    arr = _c.asarray(arr)
    mask = _s.ravel(_c.asarray(mask)).astype(bool)
    vals = _s.ravel(_c.asarray(vals)).astype(arr.dtype)
    k = _r.cumsum(mask.astype(_int)) - 1  # the k-th masked entry takes vals[k % len]
    new = take(vals, k % vals.shape[0])
    return _u.where(mask, new, _s.ravel(arr)).reshape(arr.shape)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without leading (``'f'``) and/or trailing (``'b'``) zeros (concrete).

    Along each axis in ``axis`` (default: all), a slice is dropped when it is
    zero everywhere; an all-zero input gives an empty result.
    """
    check_arraylike("trim_zeros", filt)
    filt = _c.asarray(filt)
    values = np.asarray(filt)  # needs concrete values: the result's shape depends on them
    if axis is None:
        axes = set(range(filt.ndim))
    else:
        axes = {operator.index(a) % filt.ndim for a in np.atleast_1d(axis).tolist()}
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return filt
    index = []
    for ax in range(filt.ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        nonzero_at = np.flatnonzero(values.any(axis=tuple(i for i in range(filt.ndim) if i != ax)))
        if nonzero_at.size == 0:
            index.append(slice(0, 0))
            continue
        start = int(nonzero_at[0]) if "f" in trim else None
        stop = int(nonzero_at[-1]) + 1 if "b" in trim else None
        index.append(slice(start, stop))
    return filt[tuple(index)]


# --- products ----------------------------------------------------------------

def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or the z component of 2-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes(_c.asarray(a), _c.asarray(b))
    a, b = _s.moveaxis(a, axisa, -1), _s.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2] if a.shape[-1] == 3 else _c.zeros_like(a[..., 0])
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2] if b.shape[-1] == 3 else _c.zeros_like(b[..., 0])
    c = _s.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return _s.moveaxis(c, -1, axisc)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``sum(conj(x1) * x2, axis)`` with broadcasting."""
    x1, x2 = promote_args("vecdot", x1, x2)
    x1, x2 = _s.moveaxis(x1, axis, -1), _s.moveaxis(x2, axis, -1)
    if x1.shape[-1] != x2.shape[-1]:
        raise ValueError("x1 and x2 must have the same size along the reduction axis")
    return matmul(_u.conj(x1)[..., None, :], x2[..., :, None])[..., 0, 0]


def matvec(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Batched matrix-vector product ``x1 @ x2``."""
    return matmul(x1, _c.asarray(x2)[..., None])[..., 0]


def vecmat(x1, x2, /, *, precision=None, preferred_element_type=None):
    """Batched vector-matrix product ``conj(x1) @ x2``."""
    return matmul(_u.conj(_c.asarray(x1))[..., None, :], x2)[..., 0, :]


# --- number-theoretic and floating-point ufuncs ------------------------------

@jnp_jit("gcd")
def gcd(x1, x2):
    """Greatest common divisor by Euclid's algorithm, ``(a, b) -> (b, a % b)``.

    As JAX does, the steps run in a ``while_loop`` until every ``b`` is 0;
    ``lax.while_loop`` arrives with chapter 08. Before that a fixed number of
    steps does: Euclid needs fewer steps than the index of the first
    Fibonacci number above the largest integer, under ``1.5 * bits``. (That
    unrolled chain, 750 equations for int32, is also what a compiler would
    have to digest: Numba took a minute over it.) As in JAX 0.10.2, the loop
    never ends for INT_MIN beside a nonzero value: ``abs(INT_MIN)`` is INT_MIN.
    """
    x1, x2 = promote_args("gcd", x1, x2)
    dtype = dtypes.result_type(x1)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = _s.broadcast_arrays(x1, x2)
    while_loop = getattr(lax, "while_loop", None)
    if while_loop is not None:
        out, _ = while_loop(_gcd_cond_fn, _gcd_body_fn, (_u.abs(x1), _u.abs(x2)))
        return out
    a, b = _u.abs(x1), _u.abs(x2)
    for _ in range(3 * np.iinfo(dtype).bits // 2):
        zero = b == 0
        a, b = _u.where(zero, a, b), _u.where(zero, b, a % _u.where(zero, _c.ones_like(b), b))
    return a


def _gcd_cond_fn(xs):
    return _r.any(xs[1] != 0)


def _gcd_body_fn(xs):
    """One Euclid step where ``b != 0``, then the larger value first."""
    x1, x2 = xs
    x1, x2 = (_u.where(x2 != 0, x2, x1),
              _u.where(x2 != 0, lax.rem(x1, x2), _u._const(x2, 0)))
    return _u.where(x1 < x2, x2, x1), _u.where(x1 < x2, x1, x2)


@jnp_jit("lcm")
def lcm(x1, x2):
    """Least common multiple ``|x1| * (|x2| // gcd)`` (wrapping, as JAX's, where it overflows)."""
    x1, x2 = promote_args("lcm", x1, x2)
    x1, x2 = _u.abs(x1), _u.abs(x2)
    if not dtypes.issubdtype(dtypes.result_type(x1), np.integer):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _u.where(d == 0, _u._const(d, 0), _u.multiply(x1, _u.floor_divide(x2, d)))


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` (``x2`` an integer)."""
    check_arraylike("ldexp", x1, x2)
    if not dtypes.issubdtype(dtypes.result_type(x2), np.integer):
        raise ValueError(f"x2 argument to ldexp must be integer; got {dtypes.result_type(x2)}")
    x1, = promote_args_inexact("ldexp", x1)
    dtype = dtypes.result_type(x1)
    if np.dtype(dtype).kind != "f" or np.dtype(dtype).itemsize not in (2, 4):
        return x1 * _u.exp2(_c.asarray(x2).astype(dtype))
    # 2**x2 itself overflows where x1 * 2**x2 need not (0 * inf is NaN), so the
    # power goes in three exact factors 2**e, each within the normal exponents
    limit = dtypes.finfo(dtype).maxexp - 2
    n = lax.clamp(np.int32(-3 * limit), _c.asarray(x2).astype(np.int32), np.int32(3 * limit))
    e1 = _u.floor_divide(n, 3)
    e2 = _u.floor_divide(n - e1, 2)
    return x1 * _pow2(e1, dtype) * _pow2(e2, dtype) * _pow2(n - e1 - e2, dtype)


def _pow2(e, dtype):
    """``2**e`` exactly, built from its bits, for integers ``e`` within ``dtype``'s normal
    exponents (``_u.exp2`` need not be exact in a compiled kernel)."""
    info = dtypes.finfo(dtype)
    int_type = np.int32 if np.dtype(dtype).itemsize == 4 else np.int16
    biased = lax.convert_element_type(e + (info.maxexp - 1), int_type)
    return lax.bitcast_convert_type(lax.shift_left(biased, int_type(info.nmant)), dtype)


@jnp_jit("frexp")
def frexp(x, /):
    """Mantissa in ``[0.5, 1)`` and int32 exponent with ``x = m * 2**e``.

    Read off the bits, as JAX does: the exponent field, less its bias, is
    ``e - 1``; the mantissa keeps its sign and fraction bits and gets the
    exponent of 0.5. A subnormal is first scaled by ``2**nmant`` (into the
    normal range), its exponent lowered by as much. 0, inf and NaN are
    returned with exponent 0. The derivative is a rule of its own
    (``custom_jvp``): the bit operations have none.
    """
    x, = promote_args_inexact("frexp", x)
    if dtypes.issubdtype(dtypes.result_type(x), np.complexfloating):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


def _frexp_bits(x):
    dtype = dtypes.result_type(x)
    info = dtypes.finfo(dtype)
    int_type = {16: np.int16, 32: np.int32, 64: np.int64}[info.bits]
    mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
    tiny = _u.abs(x) < info.tiny  # a subnormal: scaled into the normal range first
    scaled = _u._where(tiny, x * np.asarray(1 << info.nmant, dtype), x)
    e = _u._where(tiny, int_type(-info.nmant), int_type(0))
    bits = lax.bitcast_convert_type(scaled, int_type)
    e = e + (((bits >> info.nmant) & mask) - bias + 1)
    bits = (bits & ~(mask << info.nmant)) | ((bias - 1) << info.nmant)
    m = lax.bitcast_convert_type(bits, dtype)
    special = _u.isinf(x) | _u.isnan(x) | (x == 0)
    e = _u._where(special, lax.full_like(e, 0), e)
    return _u._where(special, x, m), lax.convert_element_type(e, np.int32)


_frexp = jnp_custom_jvp(_frexp_bits, name="_frexp")


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    return (m, e), (t * _u.exp2(-e.astype(t.dtype)), np.zeros(np.shape(e), dtypes.float0))


@jnp_jit("modf")
def modf(x, /, out=None):
    """Fractional and integral parts, both with the sign of ``x``."""
    x, = promote_args_inexact("modf", x)
    whole = _u.where(_u.greater_equal(x, 0), _u.floor(x), _u.ceil(x))
    return x - whole, whole


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` computed stably."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _u._logaddexp2(x1, x2)


def nextafter(x, y, /):
    """The next representable float after ``x`` towards ``y``."""
    x, y = promote_args_inexact("nextafter", x, y)
    x, y = _s.broadcast_arrays(x, y)
    return lax.nextafter(x, y)


def spacing(x, /):
    """The distance from ``x`` to the next float away from zero."""
    x, = promote_args_inexact("spacing", x)
    x = _c.asarray(x)
    big = _c.full_like(x, np.inf)
    out = _u.where(_u.isinf(x), np.nan, nextafter(x, _u.where(x < 0, -big, big)) - x)
    return _convert_element_type(out, out.dtype, False)  # never weak, as in JAX


@jnp_jit("bitwise_count")
def bitwise_count(x, /):
    """Number of set bits of ``|x|``, as uint8."""
    x = _c.asarray(x)
    return lax.population_count(_u.abs(x)).astype(np.uint8)


def bitwise_invert(x, /):
    """Bitwise NOT (Array API name for ``invert``)."""
    return _u.invert(x)


# --- predicates --------------------------------------------------------------

def iscomplexobj(x):
    """Whether ``x`` has a complex dtype."""
    if x is None:
        return False
    typ = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return dtypes.issubdtype(typ, np.complexfloating)


def isrealobj(x):
    """Whether ``x`` has a non-complex dtype."""
    return not iscomplexobj(x)


def iscomplex(x):
    """Elementwise: a nonzero imaginary part."""
    i = _u.imag(x)
    return lax.ne(i, lax.full_like(i, 0))


def isreal(x):
    """Elementwise: a zero imaginary part."""
    i = _u.imag(x)
    return lax.eq(i, lax.full_like(i, 0))


def isscalar(element):
    """Whether ``element`` is a scalar: a Python/NumPy scalar or a 0-d array."""
    if hasattr(element, "__jax_array__"):
        element = element.__jax_array__()
    if isinstance(element, (np.generic, builtins.bool, int, float, complex)):
        return True
    if isinstance(element, np.ndarray):  # unlike np.isscalar, a 0-d NumPy array counts
        return element.ndim == 0
    return hasattr(element, "aval") and element.ndim == 0


def iterable(y):
    """Whether ``iter(y)`` works."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


# --- printing, and building arrays from Python objects -----------------------

get_printoptions = np.get_printoptions
printoptions = np.printoptions
set_printoptions = np.set_printoptions


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``repr`` of an array (``Array([...], dtype=...)``)."""
    return repr(_c.asarray(arr))


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """NumPy's ``array_str`` of the array's values."""
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """An array from the bytes of ``buffer`` (NumPy decodes them)."""
    return _c.asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """An array of the numbers written in ``string``, separated by ``sep``
    (NumPy parses them)."""
    return _c.asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def from_dlpack(x, /, *, device=None, copy=None):
    """An array sharing (or copying) the memory of any object with ``__dlpack__``.

    DLPack is the common protocol by which array libraries hand each other
    buffers; minijax's arrays live in NumPy memory, so NumPy reads the
    capsule and ``asarray`` wraps the result.
    """
    return _c.asarray(np.from_dlpack(x, copy=copy) if copy is not None else np.from_dlpack(x))


save = np.save    # writing needs no JAX: NumPy writes the array's values
savez = np.savez


def load(file, *args, **kwargs):
    """:func:`numpy.load`, returning a minijax array for ``.npy`` files.

    NumPy does not know ``bfloat16``, so such arrays come back as two-byte
    ``void`` records (``V2``); they are viewed as ``bfloat16`` again.
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = _c.asarray(out)
        except (TypeError, AssertionError):  # a dtype minijax cannot hold: keep NumPy's
            pass
    return out


def fromiter(iterable, dtype, count=-1, *, like=None):
    """An array from an iterable of scalars (NumPy collects them)."""
    return _c.asarray(np.fromiter(iterable, dtype=dtype, count=count))


# --- polynomials (highest power first, as NumPy) -----------------------------

def polyval(p, x, *, unroll=16):
    """``p[0] * x**(n-1) + ... + p[-1]`` by Horner's rule."""
    check_arraylike("polyval", p, x)
    weak = dtypes.is_weakly_typed(p) and dtypes.is_weakly_typed(x)
    p, x = promote_dtypes(_c.asarray(p), _c.asarray(x))
    y = _c.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y if weak else _convert_element_type(y, y.dtype, False)


def polyadd(a1, a2):
    """Sum of two polynomials: the shorter one is added into the end of the longer.

    The first axis holds the coefficients, so 2-D inputs add row-polynomials
    stacked along the last axis, as JAX does (trailing axes broadcast).
    """
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(_c.asarray(a1), _c.asarray(a2))
    if a2.shape[0] > a1.shape[0]:
        a1, a2 = a2, a1
    return a1.at[-a2.shape[0]:].add(a2)


def polysub(a1, a2):
    """Difference of two polynomials: ``polyadd(a1, -a2)``."""
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(_c.asarray(a1), _c.asarray(a2))
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """Product of two polynomials: the full convolution of their coefficients.

    With ``trim_leading_zeros`` the inputs first lose their leading zeros
    (which needs concrete values).
    """
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes_inexact(_s.atleast_1d(a1), _s.atleast_1d(a2))
    if trim_leading_zeros and (a1.shape[0] > 1 or a2.shape[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if a1.shape[0] == 0:
        a1 = _c.zeros((1,), a1.dtype)
    if a2.shape[0] == 0:
        a2 = _c.zeros((1,), a2.dtype)
    out = _c.zeros(a1.shape[0] + a2.shape[0] - 1, a1.dtype)  # a shifted sum of a2 copies
    for i in range(a1.shape[0]):
        out = out.at[i:i + a2.shape[0]].add(a1[i] * a2)
    return out


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of polynomial long division ``u / v``.

    Each step divides the leading remaining coefficient by ``v[0]`` and
    subtracts that multiple of ``v`` shifted into place; the remainder keeps
    ``u``'s length (leading zeros included) unless ``trim_leading_zeros``,
    which drops leading entries smaller than ``sqrt(eps)`` (concrete values).
    """
    check_arraylike("polydiv", u, v)
    u, v = promote_dtypes_inexact(_c.asarray(u), _c.asarray(v))
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1. / v[0]
    q = _c.zeros(builtins.max(m - n + 1, 1), u.dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        tol = float(np.sqrt(dtypes.finfo(u.dtype).eps))
        small = np.abs(np.asarray(u)) < tol
        if small.all():
            return q, u[:0]
        u = u[int(np.argmin(small)):]
    return q, u


def polyder(p, m=1):
    """The ``m``-th derivative of polynomial ``p``."""
    p, = promote_dtypes_inexact(_c.asarray(p))
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = p.shape[0]
    # d^m/dx^m x^j = j (j-1) ... (j-m+1) x^(j-m), for the powers j = n-1 ... m
    factors = [int(np.prod(np.arange(j - m + 1, j + 1))) for j in range(n - 1, m - 1, -1)]
    return p[:builtins.max(n - m, 0)] * _c.asarray(factors, _int).astype(p.dtype)


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p`` (integration constants ``k``, default 0)."""
    p = _c.asarray(p)
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"Order of integral must be positive (see polyder) {m=}")
    if m == 0:
        return p
    ks = np.zeros(m) if k is None else np.atleast_1d(k)
    if ks.shape[0] == 1 and m > 1:
        ks = np.repeat(ks, m)
    p, = promote_args_inexact("polyint", p)
    for i in range(m):
        n = p.shape[0]
        p = _s.concatenate([p / _c.arange(n, 0, -1).astype(p.dtype),
                            _c.asarray([ks[i]], p.dtype)])
    return p


def vander(x, N=None, increasing=False):
    """Columns are powers of ``x`` (decreasing unless ``increasing``)."""
    x = _c.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else operator.index(N)
    powers = _c.arange(N)
    if not increasing:
        powers = powers[::-1]
    return _u.power(x[:, None], powers.astype(x.dtype if dtypes.issubdtype(
        x.dtype, np.integer) else _int))


# --- windows -----------------------------------------------------------------

def _window(name, M, formula):
    M = operator.index(M)
    if M <= 1:
        return _c.ones(builtins.max(M, 0), dtypes.default_float_dtype)
    n = _c.arange(M, dtype=dtypes.default_float_dtype)
    return formula(n, M)


def bartlett(M):
    """Triangular window."""
    return _window("bartlett", M, lambda n, M: 1 - _u.abs(2 * n - M + 1) / (M - 1))


def hanning(M):
    """Hann window ``0.5 - 0.5 cos(2 pi n / (M-1))``."""
    return _window("hanning", M, lambda n, M: 0.5 - 0.5 * _u.cos(2 * np.pi * n / (M - 1)))


def hamming(M):
    """Hamming window ``0.54 - 0.46 cos(2 pi n / (M-1))``."""
    return _window("hamming", M, lambda n, M: 0.54 - 0.46 * _u.cos(2 * np.pi * n / (M - 1)))


def blackman(M):
    """Blackman window."""
    return _window("blackman", M, lambda n, M: 0.42 - 0.5 * _u.cos(2 * np.pi * n / (M - 1))
                   + 0.08 * _u.cos(4 * np.pi * n / (M - 1)))


def _i0(x):
    """Modified Bessel function of order 0 by its power series (enough for windows)."""
    term, total = _c.ones_like(x), _c.ones_like(x)
    for k in range(1, 60):
        term = term * (x / (2 * k)) ** 2
        total = total + term
    return total


def kaiser(M, beta):
    """Kaiser window ``I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)``."""
    beta = _c.asarray(beta, dtypes.default_float_dtype)
    return _window("kaiser", M, lambda n, M: _i0(beta * _u.sqrt(
        _u.clip(1 - (2 * n / (M - 1) - 1) ** 2, 0, None))) / _i0(beta))


# --- bits --------------------------------------------------------------------

def packbits(a, axis=None, bitorder="big"):
    """Pack a binary-valued array into uint8, eight elements per byte."""
    a = _c.asarray(a)
    if not (dtypes.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = (a > 0).astype(np.uint8)
    if axis is None:
        bits, axis = _s.ravel(bits), 0
    bits = _s.moveaxis(bits, axis, -1)
    rem = -bits.shape[-1] % 8
    bits = _s.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, rem)])
    bits = bits.reshape(bits.shape[:-1] + (-1, 8))
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1] if bitorder == "big" else shifts
    packed = _r.sum(_u.left_shift(bits, _c.asarray(shifts)), axis=-1, dtype=np.uint8)
    return _s.moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Unpack each uint8 into its eight bits."""
    a = _c.asarray(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1] if bitorder == "big" else shifts
    bits = _u.right_shift(a[..., None], _c.asarray(shifts)) & np.uint8(1)
    if axis is None:
        bits, axis = _s.ravel(bits), 0
    else:
        bits = _s.moveaxis(bits, -1, axis + 1 if axis >= 0 else axis)
        bits = bits.reshape(a.shape[:axis % a.ndim] + (-1,) + a.shape[axis % a.ndim + 1:])
    if count is not None:
        bits = _s.moveaxis(_s.moveaxis(bits, axis, -1)[..., :count], -1, axis)
    return bits
