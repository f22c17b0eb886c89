"""Chapter 00 — abstract values: what is known about an array before it exists.

A ``ShapedArray`` is an array with the numbers taken out: a shape, a dtype and
the weak-type flag. Every primitive has an *abstract evaluation rule* that maps
input ShapedArrays to output ShapedArrays; that is how minijax checks shapes,
raises JAX's errors, and (from chapter 01 on) traces functions without running
them. It prints the way JAX prints types in a jaxpr: ``f32[3,4]``.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes

_short_names = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16",
    "complex64": "c64", "complex128": "c128", "float0": "float0",
}


def _is_extended(dt) -> bool:
    """Chapter 13: an "extended" dtype (``key<fry>``) is not a NumPy dtype; it says so."""
    return getattr(dt, "extended", False) is True


def short_dtype_name(dt) -> str:
    """``float32`` -> ``f32``, as in JAX's printed types."""
    if _is_extended(dt):  # chapter 13: key<fry> prints as its name
        return dt.name
    dt = np.dtype(dt)
    if dt == dtypes.float0:  # NumPy calls it "void"; JAX prints float0
        return "float0"
    name = _short_names.get(dt.name)
    if name is None:  # the float8/6/4 types: float8_e4m3fn -> f8_e4m3fn, as JAX
        name = dt.name.replace("float", "f") if dtypes.is_narrow_float(dt) else dt.name
    return name


def _long_dtype_name(dt) -> str:
    return "float0" if dt == dtypes.float0 else dt.name


class ShapedArray:
    """The abstract value of an array: shape, dtype and weak type.

    Two ShapedArrays are equal when all three agree. ``str`` gives the short
    form JAX uses in jaxprs (``f32[3]``); ``str_short()`` the form JAX uses in
    error messages (``float32[3]``); ``repr`` the long one
    (``ShapedArray(float32[3])``).
    """
    __slots__ = ("shape", "dtype", "weak_type")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type: bool = False):
        self.shape = tuple(int(d) for d in shape)
        # chapter 13: an extended dtype (key<fry>) is kept as it is
        self.dtype = dtype if _is_extended(dtype) else np.dtype(dtype)
        self.weak_type = bool(weak_type)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def update(self, shape=None, dtype=None, weak_type=None) -> "ShapedArray":
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self) -> "ShapedArray":
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes: bool = False) -> str:
        name = short_dtype_name(self.dtype) if short_dtypes else _long_dtype_name(self.dtype)
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __str__(self):  # as JAX's: float32[3], and ~float32[] when weakly typed
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


class HasAval:
    """Array metadata read from ``self.aval``: the base of ``Array`` and ``Tracer``.

    Everything here is known without the numbers, so it never waits for a
    computation and works the same on a traced value.
    """
    __slots__ = ()

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    weak_type = property(lambda self: self.aval.weak_type)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    def __setitem__(self, idx, value):
        raise TypeError(
            "JAX arrays are immutable and do not support in-place item assignment. "
            "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


#: Chapter 13: extended dtypes (``key<fry>``) by the NumPy dtype that stores their
#: elements, so that a bare NumPy array of keys (as a jitted computation passes
#: them around) gets its key type back. Filled by ``minijax.prng``.
extended_dtypes_by_storage: dict = {}


def get_aval(x) -> ShapedArray:
    """The abstract value of a concrete value: an Array, a NumPy array or a Python scalar.

    Python scalars are weakly typed; NumPy inputs are canonicalized (float64
    becomes float32), exactly as they are when they enter a computation.
    """
    aval = getattr(x, "aval", None)
    if aval is not None and not isinstance(x, type):
        return aval
    if dtypes.is_python_scalar(x):
        return ShapedArray((), dtypes.canonicalize_dtype(dtypes.dtype(x)),
                           weak_type=type(x) is not bool)
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype in dtypes._jax_types:
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
    if isinstance(x, np.ndarray) and x.dtype in extended_dtypes_by_storage:  # chapter 13
        return ShapedArray(x.shape, extended_dtypes_by_storage[x.dtype])
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")
