"""Chapter 00 — making arrays: ``jnp.array``, ``jnp.asarray`` and friends.

``jnp.array`` is where NumPy data enters minijax, and where JAX's dtype rules
first apply: a Python scalar becomes a *weakly typed* 0-d array, 64-bit NumPy
data is canonicalized to 32 bits, and a nested list takes the promoted type of
its elements.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.array import Array, array_from_numpy
from minijax.lax import _convert_element_type

__all__ = ["array", "asarray"]


def _is_traced(x) -> bool:
    return hasattr(x, "aval") and not isinstance(x, Array)


def _leaves_of_nested(obj):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _leaves_of_nested(o)
    else:
        yield obj


def array(object, dtype=None, copy: bool = True, order: str | None = "K", ndmin: int = 0,
          *, device=None):
    """Create an ``Array`` from array-like data (NumPy's ``array`` with JAX's dtypes).

    >>> array([1, 2, 3])
    Array([1, 2, 3], dtype=int32)
    >>> array(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    if order is not None and order not in ("K", "C", "A"):
        raise NotImplementedError("Only implemented for order='K'")
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtypes.dtype(dtype))
    weak = dtype is None and dtypes.is_python_scalar(object) and type(object) is not bool
    if isinstance(object, (list, tuple)):
        leaves = list(_leaves_of_nested(object))
        if any(hasattr(x, "aval") for x in leaves):
            out = _array_from_nested_arrays(object, dtype)
            return _ndmin(out, ndmin)
        if not leaves:
            object = np.array(object, dtype=dtype or dtypes.float32)
        else:
            # A list of Python scalars takes their promoted (non-weak) type.
            dt = dtype or dtypes.result_type(*leaves)
            object = np.array(object, dtype=dt)
    if isinstance(object, Array) or _is_traced(object):
        out = object if dtype is None else _convert_element_type(object, dtype, False)
        return _ndmin(out, ndmin)
    if hasattr(object, "__jax_array__"):
        return array(object.__jax_array__(), dtype=dtype, copy=copy, ndmin=ndmin)
    if object is None:
        raise TypeError("None is not a valid value for jnp.array")
    value = np.array(object, dtype=dtype, copy=True)
    if value.dtype == object_dtype:
        raise TypeError(f"Unexpected input type for array: {type(object)}")
    if dtype is None:
        dtypes.dtype(value)  # raises JAX's TypeError for unsupported dtypes (str...)
    return _ndmin(array_from_numpy(value, weak_type=weak, device=device), ndmin)


object_dtype = np.dtype(object)


def _array_from_nested_arrays(obj, dtype):
    """``jnp.array([x, y])`` where some elements are Arrays or tracers: stack them."""
    from minijax.numpy.shapes import stack  # the data-movement half of jnp
    if isinstance(obj, (list, tuple)):
        parts = [_array_from_nested_arrays(o, dtype) for o in obj]
        return stack(parts) if parts else array(np.zeros((0,)), dtype)
    return asarray(obj, dtype=dtype)


def _ndmin(x, ndmin: int):
    nd = getattr(x, "ndim", 0)
    if ndmin > nd:
        from minijax import lax
        return lax.broadcast_to_rank(x, ndmin)
    return x


def asarray(a, dtype=None, order: str | None = None, *, copy: bool | None = None,
            device=None):
    """Like :func:`array`, but never copies an existing ``Array``."""
    if isinstance(a, Array) or _is_traced(a):
        if dtype is None:
            return a
        return _convert_element_type(a, dtypes.canonicalize_dtype(dtypes.dtype(dtype)), False)
    return array(a, dtype=dtype, copy=False if copy is None else copy, order=order,
                 device=device)
