"""Chapter 00 — JAX's dtype rules, with 64-bit types disabled.

JAX (with ``jax_enable_x64`` off, the default) differs from NumPy in three ways
that every later chapter relies on:

1. **32-bit defaults.** ``float`` means float32 and ``int`` means int32. A
   64-bit input (a NumPy float64 array, say) is *canonicalized* to its 32-bit
   sibling when it enters the system.
2. **Weak types.** A Python scalar (``2``, ``2.0``, ``2j``) has no precision of
   its own. It is "weakly typed": in ``x * 2.0`` the result takes ``x``'s
   dtype, whatever its width. A weak type is a flag on the abstract value
   (``ShapedArray.weak_type``), not a different dtype.
3. **A promotion lattice, not a table.** ``promote_types(a, b)`` is the least
   upper bound of ``a`` and ``b`` in a small directed graph (below). The graph
   is chosen so that promotion never silently jumps to 64 bits and is
   associative, which NumPy's value-based table is not.

Everything here is plain NumPy dtype objects: ``np.dtype('float32')`` is the
dtype of a minijax float32 array.
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128",
    "canonicalize_dtype", "promote_types", "result_type", "is_weakly_typed",
    "dtype", "issubdtype", "finfo", "iinfo", "TypePromotionError",
    "default_float_dtype", "default_int_dtype", "dtype_and_weak_type",
]

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

_bool_types = [bool_]
_signed_types = [int8, int16, int32, int64]
_unsigned_types = [uint8, uint16, uint32, uint64]
_int_types = _unsigned_types + _signed_types
_float_types = [float16, float32, float64]
_complex_types = [complex64, complex128]
_jax_types = _bool_types + _int_types + _float_types + _complex_types

# The three "weak" nodes of the lattice are the Python types themselves.
_weak_types = [int, float, complex]

default_int_dtype = int32
default_float_dtype = float32
default_complex_dtype = complex64

# 64-bit types are disabled: each maps to its 32-bit sibling.
_canonical = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


class TypePromotionError(ValueError):
    """Raised when two dtypes have no implicit promotion path."""


def canonicalize_dtype(dt) -> np.dtype:
    """The dtype minijax actually stores for ``dt`` (64-bit types become 32-bit)."""
    dt = np.dtype(dt)
    return _canonical.get(dt, dt)


def dtype(x, *, canonicalize: bool = False) -> np.dtype:
    """The dtype of a value or dtype-like ``x`` (``jnp.dtype``).

    Python scalars map to the 64-bit NumPy dtypes unless ``canonicalize`` is
    true, exactly as ``jax.numpy.dtype`` does (``jnp.dtype(1.0)`` is float64 in
    NumPy terms; it is only *stored* as float32).
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type) and x in _python_scalar_dtypes:
        dt = _python_scalar_dtypes[x]
    elif type(x) in _python_scalar_dtypes:
        dt = _python_scalar_dtypes[type(x)]
    elif hasattr(x, "dtype"):
        dt = np.dtype(x.dtype)
    else:
        try:
            dt = np.dtype(x)
        except TypeError as e:
            raise TypeError(f"Cannot determine dtype of {x!r}") from e
    if dt not in _jax_types:
        raise TypeError(f"JAX only supports number and bool dtypes, got dtype {dt}")
    return canonicalize_dtype(dt) if canonicalize else dt


_python_scalar_dtypes = {bool: bool_, int: int64, float: float64, complex: complex128}


def is_python_scalar(x) -> bool:
    return type(x) in _python_scalar_dtypes


def is_weakly_typed(x) -> bool:
    """Python int/float/complex are weak; so is any array whose aval says so."""
    if type(x) in _weak_types:
        return True
    return bool(getattr(getattr(x, "aval", None), "weak_type", False))


def dtype_and_weak_type(x) -> tuple[np.dtype, bool]:
    """The canonical (stored) dtype of ``x`` and whether it is weakly typed."""
    return dtype(x, canonicalize=True), is_weakly_typed(x)


# --------------------------------------------------------------------------
# The promotion lattice
# --------------------------------------------------------------------------

def _lattice():
    """Each node maps to the nodes directly above it (JAX's 'standard' mode).

    ``i*``/``f*``/``c*`` are the weak (Python) int, float and complex types.
    Read an edge ``a -> b`` as "``a`` converts to ``b`` without surprises".
    """
    b1 = bool_
    u8, u16, u32, u64 = _unsigned_types
    i8, i16, i32, i64 = _signed_types
    f16, f32, f64 = _float_types
    c64, c128 = _complex_types
    i_, f_, c_ = _weak_types
    return {
        b1: [i_],
        i_: [u8, i8],
        u8: [i16, u16], u16: [i32, u32],
        # with x64 off, u32 x i32 must not form i64: it promotes to i32 instead
        u32: [i32, u64], u64: [f_],
        i8: [i16], i16: [i32], i32: [i64], i64: [f_],
        f_: [f16, c_],
        f16: [f32], f32: [f64, c64], f64: [c128],
        c_: [c64], c64: [c128], c128: [],
    }


def _upper_bounds():
    lattice = _lattice()
    ubs = {n: {n} for n in lattice}
    changed = True
    while changed:
        changed = False
        for n in lattice:
            new = set().union(*(lattice[m] for m in ubs[n])) - ubs[n]
            if new:
                ubs[n] |= new
                changed = True
    return ubs


_UB = _upper_bounds()


def _jax_type(dt: np.dtype, weak: bool):
    """The lattice node of a (dtype, weak_type) pair."""
    if weak and dt != bool_:
        return type(dt.type(0).item())  # int, float or complex
    return dt


@functools.lru_cache(maxsize=512)
def _least_upper_bound(*nodes):
    N = set(nodes)
    common = set.intersection(*(_UB[n] for n in N))
    lub = (common & N) or {c for c in common if common <= _UB[c]}
    if len(lub) != 1:
        raise TypePromotionError(
            f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit "
            "dtype promotion path. Try explicitly casting inputs to the desired "
            "output type.")
    return lub.pop()


def _node_to_dtype(node) -> np.dtype:
    if node in _python_scalar_dtypes:
        return canonicalize_dtype(_python_scalar_dtypes[node])
    return node


def promote_types(a, b) -> np.dtype:
    """The dtype a binary operation casts ``a`` and ``b`` to (``jnp.promote_types``).

    Both arguments are treated as strong dtypes, except that passing the Python
    types ``int``/``float``/``complex`` asks for the weak node. The result is
    *not* canonicalized: ``promote_types('int64', 'float32')`` is float64, as
    in JAX.
    """
    na = a if a in _weak_types else np.dtype(a)
    nb = b if b in _weak_types else np.dtype(b)
    for n in (na, nb):
        if n not in _UB:
            raise TypeError(f"JAX only supports number and bool dtypes, got dtype {n}")
    return _node_to_dtype(_least_upper_bound(na, nb))


def _result_type_and_weak(*args) -> tuple[np.dtype, bool]:
    if not args:
        raise ValueError("at least one array or dtype is required")
    nodes = []
    for x in args:
        if x is None:
            raise ValueError("None is not a valid value for jnp.result_type")
        if isinstance(x, type) and x in _weak_types:
            nodes.append(x)
            continue
        dt = dtype(x)
        nodes.append(_jax_type(dt, is_weakly_typed(x)))
    node = _least_upper_bound(*nodes)
    weak = node in _weak_types
    return canonicalize_dtype(_node_to_dtype(node)), weak


def result_type(*args, return_weak_type_flag: bool = False):
    """The canonical dtype of combining ``args`` (``jnp.result_type``).

    Arguments may be arrays, Python scalars, dtypes or scalar types. Python
    scalars (and weakly typed arrays) take part as weak nodes, so
    ``result_type(int8_array, 3)`` is int8 and ``result_type(int8_array, 3.0)``
    is float32 (weak float joined with int8 is a weak float).
    """
    dt, weak = _result_type_and_weak(*args)
    return (dt, weak) if return_weak_type_flag else dt


def issubdtype(arg1, arg2) -> bool:
    """``jnp.issubdtype``: NumPy's hierarchy (``jnp.floating``, ``jnp.integer``...)."""
    a = arg1 if isinstance(arg1, type) and issubclass(arg1, np.generic) else _as_np_type(arg1)
    b = arg2 if isinstance(arg2, type) and issubclass(arg2, np.generic) else _as_np_type(arg2)
    return bool(np.issubdtype(a, b))


def _as_np_type(x):
    dt = getattr(x, "dtype", None)
    if isinstance(x, type) and dt is not None and isinstance(dt, np.dtype):
        return dt.type  # a minijax scalar type such as jnp.float32
    return np.dtype(x).type


def finfo(dt):
    return np.finfo(np.dtype(getattr(dt, "dtype", dt)))


def iinfo(dt):
    return np.iinfo(np.dtype(getattr(dt, "dtype", dt)))


def is_float(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.floating)


def is_int(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.integer)


def is_complex(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.complexfloating)


def is_inexact(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.inexact)
