"""Chapter 00 — ``jnp.float32`` and friends: dtype names that are also constructors.

In JAX, ``jnp.float32`` is not NumPy's scalar type: calling it returns a
zero-dimensional ``Array`` (``jnp.float32(1.0)`` is ``Array(1., dtype=float32)``),
while it still works wherever a dtype is expected (``x.astype(jnp.float32)``,
``jnp.zeros(3, jnp.float32)``) and compares equal to ``np.float32``.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes as _dtypes
from minijax import narrow_floats as _narrow_floats

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "float16", "float32", "float64", "complex64", "complex128",
           "int_", "uint", "float_", "complex_", "single", "double", "csingle", "cdouble",
           "dtype", "promote_types", "result_type", "issubdtype", "isdtype", "can_cast",
           "finfo", "iinfo", "generic", "number", "integer", "signedinteger",
           "unsignedinteger", "inexact", "floating", "complexfloating", "character",
           "flexible", "bool"]


class _ScalarMeta(type):
    """Metaclass of the scalar types: equal to the NumPy type, callable to make arrays."""
    dtype: np.dtype

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        from minijax.numpy.creation import asarray
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    @property
    def __numpy_dtype__(cls):
        return cls.dtype


def _make_scalar_type(np_type) -> _ScalarMeta:
    t = _ScalarMeta(np_type.__name__, (object,), {"dtype": np.dtype(np_type)})
    t.__module__ = "minijax.numpy"
    t.__doc__ = (f"A minijax scalar constructor of type {np_type.__name__}.\n\n"
                 "While NumPy defines scalar types for each data type, minijax (like "
                 "JAX) represents scalars as zero-dimensional arrays.")
    return t


bool_ = _make_scalar_type(np.bool_)
int8, int16, int32, int64 = map(_make_scalar_type, (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = map(_make_scalar_type,
                                    (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = map(_make_scalar_type, (np.float16, np.float32, np.float64))
complex64, complex128 = map(_make_scalar_type, (np.complex64, np.complex128))
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double, csingle, cdouble = float32, float64, complex64, complex128
bool = bool_  # noqa: A001  (jnp.bool exists, as in NumPy 2)

# bfloat16 and the float8/6/4 types, when ml_dtypes is installed (``narrow_floats``).
_narrow = {name: _make_scalar_type(t) for name, t in _narrow_floats.scalar_types().items()}
globals().update(_narrow)
__all__ += list(_narrow)

generic, number, integer = np.generic, np.number, np.integer
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
inexact, floating, complexfloating = np.inexact, np.floating, np.complexfloating
character, flexible = np.character, np.flexible

dtype = np.dtype  # as in JAX: jnp.dtype is numpy.dtype itself
promote_types = _dtypes.promote_types
issubdtype = _dtypes.issubdtype
isdtype = _dtypes.isdtype
can_cast = np.can_cast
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo


def result_type(*args):
    """Return the result of applying JAX promotion rules to the inputs.

    ``jnp.result_type``: arguments may be arrays, Python scalars, dtypes or
    scalar types; the result is canonical (``result_type('float64')`` is
    float32, with a warning) and Python scalars are weak
    (``result_type(jnp.int8, 3)`` is int8).
    """
    return _dtypes.result_type(*args)
