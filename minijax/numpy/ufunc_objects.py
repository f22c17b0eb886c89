"""Chapter 08 — ``jnp.ufunc``: ``jnp.add`` is an object, with ``reduce``, ``accumulate``...

In NumPy (and JAX) a *universal function* is more than a function: besides
being called elementwise, a binary ufunc such as ``add`` knows its identity
(0) and can reduce an axis (``add.reduce`` is ``sum``), accumulate along one
(``add.accumulate`` is ``cumsum``), update chosen entries (``add.at``),
reduce between given indices (``add.reduceat``) and apply to all pairs
(``add.outer``).

Every method has a generic form, written once for any binary function with
the transformations of earlier chapters: ``reduce`` is a ``fori_loop`` that
folds one slice at a time, ``accumulate`` and ``at`` are ``scan`` s,
``outer`` is two nested ``vmap`` s. Where a faster primitive exists the ufunc
is given it instead (``add.reduce`` is ``reduce_sum``, ``add.at`` a
``scatter-add``), which is what the optional ``reduce=``, ``accumulate=``,
``at=`` arguments of :class:`ufunc` are for. Each method is jitted, so
``make_jaxpr`` shows ``jit[name=reduce ...]`` as JAX's does.

Chapter 00's ``jnp.add`` is a plain function (it needs none of this);
importing this module turns the fourteen functions that are ufuncs in JAX
into :class:`ufunc` objects in ``minijax.numpy``, calling the same functions,
so their jaxprs do not change. :func:`frompyfunc` makes a ufunc of any
scalar function, vectorized with ``jnp.vectorize``.
"""
from __future__ import annotations

import math
import operator

import numpy as np

import minijax.numpy as _jnp
from minijax import dtypes, lax
from minijax.control_flow.loops import fori_loop, scan
from minijax.interpreters.batching import vmap
from minijax.jit import eval_shape, jit
from minijax.lax.base import canonicalize_axis
from minijax.numpy import misc as _misc, reductions as _r, ufuncs as _u
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact
from minijax.numpy.vectorization import vectorize

__all__ = ["ufunc", "frompyfunc"]

_AT_INPLACE_WARNING = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


class ufunc:
    """A universal function: called elementwise, with ``reduce``, ``accumulate``,
    ``at``, ``reduceat`` and ``outer`` methods (``jnp.ufunc``).

    ``func`` takes ``nin`` arrays and returns ``nout``; ``call``, ``reduce``,
    ``accumulate``, ``at`` and ``reduceat`` optionally replace the generic
    implementations with faster ones. A ufunc is hashable and compares by its
    function, name, identity and arity, so it can be a static argument of ``jit``.
    """
    __module__ = "minijax.numpy"

    def __init__(self, func, /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity=None, call=None, reduce=None,
                 accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # read-only: a ufunc used as a static jit argument must not change
        self._props = {
            "func": func, "nin": operator.index(nin), "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin), "identity": identity, "call": call,
            "reduce": reduce, "accumulate": accumulate, "at": at, "reduceat": reduceat,
        }

    _func = property(lambda self: self._props["func"])
    nin = property(lambda self: self._props["nin"])
    nout = property(lambda self: self._props["nout"])
    nargs = property(lambda self: self._props["nargs"])
    identity = property(lambda self: self._props["identity"])

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._props["call"]
        if call is None:  # a frompyfunc ufunc: vectorize the scalar function
            check_arraylike(self.__name__, *args)
            return _call_vectorized(self, *args)
        return call(*args)

    def _require_binary(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims: bool = False,
               initial=None, where=None):
        """Fold ``a`` along ``axis`` with this binary function (``add.reduce`` is ``sum``)."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._require_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify "
                                 "'initial'.")
            if dtypes.dtype(where) != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got "
                                 f"dtype={dtypes.dtype(where)}")
        return _reduce(self, a, axis, dtype, keepdims, initial, where)

    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        """The running fold along ``axis`` (``add.accumulate`` is ``cumsum``)."""
        self._require_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        return _accumulate(self, a, axis, dtype)

    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        """``a`` with ``a[indices]`` replaced by ``func(a[indices], b)``, repeated indices
        applied one after another; JAX needs ``inplace=False`` (arrays are immutable)."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE_WARNING)
        return _at(self, a, indices, b)

    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        """``reduce`` over each segment ``a[indices[i]:indices[i+1]]`` along ``axis``."""
        self._require_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        return _reduceat(self, a, indices, axis, dtype)

    def outer(self, A, B, /):
        """``func`` on every pair: the result has shape ``A.shape + B.shape``."""
        self._require_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        return _outer(self, A, B)


def _named(name: str, fun):
    """``fun`` renamed ``name`` (the name its ``jit`` equation prints), a method of ufunc."""
    fun.__name__, fun.__qualname__ = name, f"ufunc.{name}"
    return fun


# --- __call__ of a frompyfunc ufunc: vectorize (vmap) the scalar function -------------

_call_vectorized = jit(_named("_call_vectorized", lambda self, *args:
                              vectorize(self._func)(*args)), static_argnums=(0,))


# --- reduce -----------------------------------------------------------------------

def _result_dtype(self, *args):
    """The dtype ``func`` returns for scalars of ``args``' dtypes (traced, not run);
    a Python scalar stays weak, so ``maximum.at(int8_array, i, 4)`` stays int8."""
    ones = [lax._convert_element_type(1, dtypes.dtype(x, canonicalize=True),
                                      dtypes.is_weakly_typed(x)) for x in args]
    return eval_shape(self._func, *ones).dtype


def _reduce_impl(self, a, axis, dtype, keepdims, initial, where):
    fast = self._props["reduce"]
    if fast is not None:
        return fast(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    return _reduce_by_loop(self, a, axis, dtype, keepdims, initial, where)


_reduce = jit(_named("reduce", _reduce_impl), static_argnums=(0, 2, 3, 4))


def _reduce_by_loop(self, a, axis, dtype, keepdims, initial, where):
    """Fold the slices ``a[i]`` along ``axis`` into a carry, one ``fori_loop`` step each."""
    a = _jnp.asarray(a)
    initial = self.identity if initial is None else initial
    dtype = _result_dtype(self, a, a) if dtype is None else dtype
    if where is not None:
        where = _jnp.broadcast_to(where, a.shape)
    if isinstance(axis, tuple):
        raise NotImplementedError("tuple of axes")
    if axis is None:
        final_shape = (1,) * a.ndim if keepdims else ()
        a, axis = a.ravel(), 0
        where = None if where is None else where.ravel()
    else:
        axis = canonicalize_axis(axis, a.ndim)
        final_shape = a.shape[:axis] + ((1,) if keepdims else ()) + a.shape[axis + 1:]
    if axis != 0:
        a = _jnp.moveaxis(a, axis, 0)
        where = None if where is None else _jnp.moveaxis(where, axis, 0)
    if a.shape[0] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                             "which has no identity")
        return _jnp.full(final_shape, initial, dtype)

    def step(i, acc):
        combined = self(acc, a[i].astype(dtype))
        return combined if where is None else _jnp.where(where[i], combined, acc)

    start, first = (1, a[0]) if initial is None else (0, initial)
    first = _jnp.broadcast_to(_jnp.asarray(first).astype(dtype), a.shape[1:])
    out = fori_loop(start, a.shape[0], step, first)
    return out.reshape(final_shape) if keepdims else out


# --- accumulate ---------------------------------------------------------------------

def _accumulate_impl(self, a, axis, dtype):
    fast = self._props["accumulate"]
    if fast is not None:
        return fast(a, axis=axis, dtype=dtype)
    return _accumulate_by_scan(self, a, axis, dtype)


_accumulate = jit(_named("accumulate", _accumulate_impl), static_argnums=(0, 2, 3))


def _accumulate_by_scan(self, a, axis, dtype):
    """A ``scan`` whose carry is the fold so far, and whose outputs are every carry."""
    check_arraylike(f"{self.__name__}.accumulate", a)
    a = _jnp.asarray(a)
    dtype = _result_dtype(self, a, a) if dtype is None else dtype
    if axis is None or isinstance(axis, tuple):
        raise ValueError("accumulate does not allow multiple axes")
    axis = canonicalize_axis(axis, a.ndim)
    if a.size == 0:
        return _jnp.full(a.shape, 0, dtype)
    a = _jnp.moveaxis(a, axis, 0)

    def step(carry, _):
        i, acc = carry
        new = _jnp.where(i == 0, a[0].astype(dtype), self(acc.astype(dtype), a[i].astype(dtype)))
        return (i + 1, new), new

    _, out = scan(step, (0, a[0].astype(dtype)), None, length=a.shape[0])
    return _jnp.moveaxis(out, 0, axis)


# --- at -------------------------------------------------------------------------------

def _at_impl(self, a, indices, b):
    fast = self._props["at"]
    if fast is not None:
        return fast(a, indices) if b is None else fast(a, indices, b)
    return _at_by_scan(self, a, indices, *(() if b is None else (b,)))


_at = jit(_named("at", _at_impl), static_argnums=(0,))


def _at_by_scan(self, a, indices, *args):
    """Apply ``func`` at one index at a time (a ``scan``), so repeated indices add up."""
    check_arraylike(f"{self.__name__}.at", a, *args)
    dtype = _result_dtype(self, a, *args)
    a = _jnp.asarray(a).astype(dtype)
    args = tuple(_jnp.asarray(x).astype(dtype) for x in args)
    indices = indices if isinstance(indices, tuple) else (indices,)
    if not indices:
        return a
    shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
    shape = np.broadcast_shapes(*shapes) if shapes else ()
    if not shape:  # one position: no loop needed
        return a.at[indices].set(self(a.at[indices].get(), *args))
    n = math.prod(shape)
    if args:
        value = _jnp.broadcast_to(args[0], (*shape, *args[0].shape[len(shape):]))
        args = (value.reshape(n, *args[0].shape[len(shape):]),)
    indices = [i if isinstance(i, slice) else _jnp.broadcast_to(i, shape).ravel()
               for i in indices]

    def step(carry, _):
        k, out = carry
        where = tuple(i if isinstance(i, slice) else i[k] for i in indices)
        out = out.at[where].set(self(out.at[where].get(), *(x[k] for x in args)))
        return (k + 1, out), None

    (_, out), _ = scan(step, (0, a), None, length=n)
    return out


def _bool_as_int(update):
    """An ``at`` rule for bool arrays: compute in int32, then back to bool (as JAX)."""
    def at(a, indices, b):
        if dtypes.dtype(a) == np.bool_:
            a = a.astype(np.int32)
            b = lax._convert_element_type(b, np.bool_, False).astype(np.int32)
            return update(a.at[indices], b).astype(np.bool_)
        return update(_jnp.asarray(a).at[indices], b)
    return at


_add_at = _bool_as_int(lambda ref, b: ref.add(b))
_multiply_at = _bool_as_int(lambda ref, b: ref.mul(b))


def _subtract_at(a, indices, b):
    return _jnp.asarray(a).at[indices].subtract(b)


# --- reduceat ------------------------------------------------------------------------

def _reduceat_impl(self, a, indices, axis, dtype):
    fast = self._props["reduceat"]
    if fast is not None:
        return fast(a, indices, axis=axis, dtype=dtype)
    return _reduceat_by_loop(self, a, indices, axis, dtype)


_reduceat = jit(_named("reduceat", _reduceat_impl), static_argnums=(0, 3, 4))


def _reduceat_by_loop(self, a, indices, axis, dtype):
    """Start each segment at ``a[indices[k]]``, then loop over every position ``i``
    along ``axis`` and fold ``a[i]`` into the segments with ``start < i < end``."""
    check_arraylike(f"{self.__name__}.reduceat", a, indices)
    a, indices = _jnp.asarray(a), _jnp.asarray(indices)
    if a.ndim == 0:
        raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
    if indices.ndim != 1:
        raise ValueError("reduceat: indices must be one-dimensional, got "
                         f"indices.shape={indices.shape}")
    dtype = a.dtype if dtype is None else dtype
    if axis is None or isinstance(axis, (tuple, list)):
        raise ValueError("reduceat requires a single integer axis.")
    axis = canonicalize_axis(axis, a.ndim)
    out = _jnp.take(a, indices, axis=axis)
    bounds = _jnp.concatenate([indices, _jnp.full((1,), a.shape[axis], indices.dtype)])
    other_dims = [d for d in range(out.ndim) if d != axis]
    bounds = _jnp.expand_dims(bounds, other_dims)
    starts = lax.slice_in_dim(bounds, 0, bounds.shape[axis] - 1, axis=axis)
    ends = lax.slice_in_dim(bounds, 1, bounds.shape[axis], axis=axis)

    def step(i, acc):
        inside = (i > starts) & (i < ends)
        return _jnp.where(inside, self(acc, _jnp.take(a, _jnp.expand_dims(i, (0,)), axis=axis)),
                          acc)
    return fori_loop(0, a.shape[axis], step, out)


# --- outer ---------------------------------------------------------------------------

def _outer_impl(self, A, B):
    """Two ``vmap`` s over the flattened arguments, then ``A.shape + B.shape``."""
    flat = lambda x: lax.reshape(_jnp.asarray(x), (np.size(x),))
    out = vmap(vmap(self, (None, 0)), (0, None))(flat(A), flat(B))
    return out.reshape(*np.shape(A), *np.shape(B))


_outer = jit(_named("outer", _outer_impl), static_argnums=(0,))


def frompyfunc(func, /, nin: int, nout: int, *, identity=None) -> ufunc:
    """A :class:`ufunc` made from a scalar function of ``nin`` arguments (``jnp.frompyfunc``);
    calls are vectorized with ``jnp.vectorize``, the methods use the generic loops."""
    return ufunc(func, nin, nout, identity=identity)


# --- the fourteen jnp functions that JAX makes ufuncs ------------------------------

def _reduce_with(reduction):
    """Adapt ``jnp.sum``-like ``reduction`` to the ``reduce=`` hook's arguments."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        return reduction(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                         where=where)
    return reduce


def _reduce_extremum(reduction):
    """``jnp.max``/``jnp.min`` take no ``dtype``: cast first."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        a = _jnp.asarray(a) if dtype is None else _jnp.asarray(a).astype(dtype)
        return reduction(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _logsumexp(a, *, axis, dtype, keepdims, initial, where):
    """``logaddexp.reduce``: ``log(sum(exp(a - m))) + m`` with ``m`` the largest finite
    maximum (held constant for derivatives), not a loop of pairwise logaddexps.
    ``dtype`` is accepted and, as in JAX 0.10.2, not used."""
    (a,) = promote_dtypes_inexact(_jnp.asarray(a))
    dims = tuple(range(a.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    dims = tuple(canonicalize_axis(d, a.ndim) for d in dims)
    amax = _jnp.max(_jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(_jnp.where(_jnp.isfinite(amax), amax, 0))
    amax_full = amax if keepdims else _jnp.expand_dims(amax, dims)
    total = _jnp.sum(_jnp.exp(a - amax_full.astype(a.dtype)), axis=dims, keepdims=keepdims,
                     where=where)
    out = _jnp.log(total) + amax.astype(total.dtype)
    return out if initial is None else _u.logaddexp(initial, out)


def _logsumexp2(a, *, axis, dtype, keepdims, initial, where):
    """``logaddexp2.reduce``: :func:`_logsumexp` in base 2 (scale by ln 2 and back)."""
    ln2 = float(np.log(2))
    initial = None if initial is None else initial * ln2
    return _logsumexp(_jnp.asarray(a) * ln2, axis=axis, dtype=dtype, keepdims=keepdims,
                      initial=initial, where=where) / ln2


def _binary(func, identity, **methods) -> ufunc:
    return ufunc(func, 2, 1, name=func.__name__, call=func, identity=identity, **methods)


_BUILTIN = [
    _binary(_u.add, 0, reduce=_reduce_with(_r.sum),
            accumulate=lambda a, *, axis, dtype: _r.cumsum(a, axis, dtype), at=_add_at),
    _binary(_u.multiply, 1, reduce=_reduce_with(_r.prod),
            accumulate=lambda a, *, axis, dtype: _r.cumprod(a, axis, dtype), at=_multiply_at),
    _binary(_u.subtract, None, at=_subtract_at),
    _binary(_u.maximum, None, reduce=_reduce_extremum(_r.max)),
    _binary(_u.minimum, None, reduce=_reduce_extremum(_r.min)),
    _binary(_u.bitwise_and, -1, reduce=_reduce_with(_r._reduce_bitwise_and)),
    _binary(_u.bitwise_or, 0, reduce=_reduce_with(_r._reduce_bitwise_or)),
    _binary(_u.bitwise_xor, 0, reduce=_reduce_with(_r._reduce_bitwise_xor)),
    _binary(_u.logical_and, True, reduce=_reduce_with(_r._reduce_logical_and)),
    _binary(_u.logical_or, False, reduce=_reduce_with(_r._reduce_logical_or)),
    _binary(_u.logical_xor, False, reduce=_reduce_with(_r._reduce_logical_xor)),
    _binary(_u.logaddexp, -np.inf, reduce=_logsumexp),
    _binary(_misc.logaddexp2, -np.inf, reduce=_logsumexp2),
    ufunc(_u.negative, 1, 1, name="negative", call=_u.negative),
]

for _uf in _BUILTIN:
    setattr(_jnp, _uf.__name__, _uf)
_jnp.ufunc, _jnp.frompyfunc = ufunc, frompyfunc
