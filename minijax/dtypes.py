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

Two additions follow JAX further:

4. **Narrow floats.** bfloat16 and the 8-, 6- and 4-bit floats of ``ml_dtypes``
   (see ``narrow_floats``) are NumPy dtypes of kind ``'V'`` whose scalar types
   do not subclass ``np.floating``: so "is it a float?" is asked of
   :func:`issubdtype` here, which knows them. bfloat16 joins the lattice beside
   float16; the float8 types only meet weak Python scalars.
5. **Promotion modes.** ``jax_numpy_dtype_promotion='strict'`` swaps the
   lattice for one with no edge between two strong types: ``int8 + int32``
   raises ``TypePromotionError`` and asks for an explicit cast. The option
   lives in chapter 06's ``config``, which hands its reader to this module.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from minijax import narrow_floats

__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128",
    "canonicalize_dtype", "promote_types", "result_type", "is_weakly_typed",
    "dtype", "issubdtype", "finfo", "iinfo", "TypePromotionError",
    "default_float_dtype", "default_int_dtype", "dtype_and_weak_type",
    "check_and_canonicalize_user_dtype", "isdtype", "scalar_type_of",
    "is_narrow_float", "supports_inf",
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
# bfloat16 and the float8/6/4 formats (when ``ml_dtypes`` is installed: see
# ``narrow_floats``), JAX's order: the small floats first, then bfloat16.
_narrow_float_types = list(narrow_floats.DTYPES.values())
_narrow_float_set = frozenset(_narrow_float_types)
_narrow_float_scalar_types = frozenset(t.type for t in _narrow_float_types)
_float_types = [*_narrow_float_types, float16, float32, float64]
_complex_types = [complex64, complex128]
_jax_types = _bool_types + _int_types + _float_types + _complex_types
_jax_types_set = frozenset(_jax_types)  # the same, for a fast ``in`` on every op

# The three "weak" nodes of the lattice are the Python types themselves.
_weak_types = [int, float, complex]

#: The tangent dtype of integers and booleans (chapter 02): a dtype with no bytes
#: per element, so an array of it holds nothing but a shape, as JAX's ``float0``.
float0 = np.dtype([("float0", np.void, 0)])

default_int_dtype = int32
default_float_dtype = float32
default_complex_dtype = complex64

# 64-bit types are disabled: each maps to its 32-bit sibling.
_canonical = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


class TypePromotionError(ValueError):
    """Raised when two dtypes have no implicit promotion path."""


def canonicalize_dtype(dt) -> np.dtype:
    """The dtype minijax actually stores for ``dt`` (64-bit types become 32-bit)."""
    if not isinstance(dt, np.dtype):  # (already a dtype: the common case)
        dt = np.dtype(dt)
    return _canonical.get(dt, dt)


def _invalid_dtype_error(x, dt) -> TypeError:
    return TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array type. "
                     "Only arrays of numeric types are supported by JAX.")


def _is_explicit_dtype(x) -> bool:
    """Is ``x`` a dtype spelled out by the user (``'float64'``, ``np.float64``...)?"""
    return isinstance(x, (str, np.dtype)) or (isinstance(x, type) and issubclass(x, np.generic))


def dtype(x, *, canonicalize: bool = False) -> np.dtype:
    """The dtype of a value or dtype-like ``x`` (JAX's internal ``dtypes.dtype``).

    Python scalars and Python scalar types map to the 64-bit NumPy dtypes unless
    ``canonicalize`` is true (``dtype(1.0)`` is float64; it is only *stored* as
    float32). Non-numeric dtypes (strings, objects) raise JAX's ``TypeError``.
    The public ``jnp.dtype`` is simply ``np.dtype``, as in JAX.
    """
    aval = getattr(x, "aval", None)
    if aval is not None:  # the common case: an Array or a tracer
        return canonicalize_dtype(aval.dtype) if canonicalize else aval.dtype
    if isinstance(x, np.dtype) and x in _jax_types_set:  # the next most common
        return canonicalize_dtype(x) if canonicalize else x
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type) and x in _python_scalar_dtypes:
        dt = _python_scalar_dtypes[x]
    elif type(x) in _python_scalar_dtypes:
        dt = _python_scalar_dtypes[type(x)]
    elif _is_explicit_dtype(x):
        dt = np.dtype(x)
    elif isinstance(getattr(x, "dtype", None), np.dtype):
        dt = x.dtype  # arrays, NumPy scalars, tracers, jnp.float32 & co.
    else:
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if dt not in _jax_types_set:
        raise _invalid_dtype_error(x, dt)
    return canonicalize_dtype(dt) if canonicalize else dt


def _warn_if_truncated(dt: np.dtype, fun_name: str) -> np.dtype:
    """Canonicalize an explicitly requested dtype, warning as JAX does if it shrinks."""
    canonical = canonicalize_dtype(dt)
    if canonical != dt:
        where = f" requested in {fun_name}" if fun_name else ""
        warnings.warn(
            f"Explicitly requested dtype {dt}{where} is not available, and will be "
            f"truncated to dtype {canonical.name}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
            "environment variable. See https://github.com/jax-ml/jax#current-gotchas "
            "for more.", stacklevel=4)
    return canonical


def check_and_canonicalize_user_dtype(dt, fun_name: str | None = None) -> np.dtype:
    """The canonical form of a ``dtype=`` argument given to a jnp function.

    Python types give the default dtypes (``float`` -> float32); 64-bit dtypes are
    truncated with JAX's warning; non-numeric dtypes raise JAX's ``TypeError``.
    """
    if dt is None:
        raise ValueError("dtype must be specified.")
    if hasattr(dt, "aval") and not isinstance(dt, type):
        raise ValueError("Passing an array as a dtype argument is no longer "
                         "supported; instead of dtype=arr use dtype=arr.dtype.")
    if isinstance(dt, type) and dt in _python_scalar_dtypes:
        return canonicalize_dtype(_python_scalar_dtypes[dt])
    np_dtype = np.dtype(dt)
    if np_dtype not in _jax_types_set:
        where = f" in {fun_name}" if fun_name else ""
        raise TypeError(f"JAX only supports number, bool, and string dtypes, "
                        f"got dtype {dt}{where}")
    return _warn_if_truncated(np_dtype, fun_name or "")


_python_scalar_dtypes = {bool: bool_, int: int64, float: float64, complex: complex128}
_default_of_kind = {"b": bool_, "i": int32, "u": uint32, "f": float32, "c": complex64,
                    "V": float32}  # (a weak bfloat16 or float8 result: float32, as JAX)


def is_python_scalar(x) -> bool:
    return type(x) in _python_scalar_dtypes


def is_weakly_typed(x) -> bool:
    """Python int/float/complex are weak; so is any array whose aval says so."""
    if type(x) in _weak_types:
        return True
    return bool(getattr(getattr(x, "aval", None), "weak_type", False))


def weak_scalar_const(example, value):
    """``value`` as a Python scalar, if ``example`` is a weakly typed scalar (a Python
    scalar, or a weak 0-d array or tracer) of the dtype Python scalars of its kind
    take; else ``None``.

    This is how JAX's ``lax._const`` makes the constants of a formula: in the
    derivative of ``x ** 2`` at a weak ``x``, the ``2`` stays weak, so the
    gradient does too, and a jaxpr prints the Python value (``3.141592653589793``
    rather than the float32 ``3.1415927410125732``).
    """
    if type(example) in _weak_types:
        return type(example)(value)
    aval = getattr(example, "aval", None)
    if aval is None or not aval.weak_type or aval.shape != ():
        return None
    scalar = scalar_type_of(aval.dtype)(value)
    return scalar if dtype(scalar, canonicalize=True) == aval.dtype else None


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
    bfloat16 sits beside float16: both go up to float32, so bfloat16 with
    float16 is float32. The 8-, 6- and 4-bit floats sit on their own, with
    nothing above them: combined with any other strong type they raise
    (a weak Python scalar still joins them: ``f8 * 2.0`` stays float8).
    """
    b1 = bool_
    u8, u16, u32, u64 = _unsigned_types
    i8, i16, i32, i64 = _signed_types
    f16, f32, f64 = float16, float32, float64
    c64, c128 = _complex_types
    i_, f_, c_ = _weak_types
    bf16 = narrow_floats.DTYPES.get("bfloat16")
    small = [t for t in _narrow_float_types if t != bf16]
    lattice = {
        b1: [i_],
        i_: [u8, i8],
        u8: [i16, u16], u16: [i32, u32],
        # with x64 off, u32 x i32 must not form i64: it promotes to i32 instead
        u32: [i32, u64], u64: [f_],
        i8: [i16], i16: [i32], i32: [i64], i64: [f_],
        f_: [*small, f16, c_],
        **{t: [] for t in small},
        f16: [f32], f32: [f64, c64], f64: [c128],
        c_: [c64], c64: [c128], c128: [],
    }
    if bf16 is not None:
        lattice[f_].append(bf16)
        lattice[bf16] = [f32]
    return lattice


def _strict_lattice():
    """The 'strict' mode's lattice: no edge between two strong types at all.

    A weak Python scalar still joins any type of its kind or above
    (``int8_array + 1`` and ``float32_array * 2.0`` work), but two
    different dtypes (``int8 + int16``, ``float32 + int32``) have no common
    upper bound: the user must cast explicitly.
    """
    i_, f_, c_ = _weak_types
    return {
        i_: [f_, *_int_types],
        f_: [c_, *_float_types],
        c_: list(_complex_types),
        **{t: [] for t in _jax_types},
    }


def _upper_bounds(lattice):
    """node -> every node reachable from it (itself included)."""
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


_UB = {"standard": _upper_bounds(_lattice()), "strict": _upper_bounds(_strict_lattice())}


def _standard_mode() -> str:
    return "standard"


# The ``jax_numpy_dtype_promotion`` option lives in chapter 06 (``config``),
# which installs its reader here. Reading a per-thread option costs about a
# microsecond, on every op; so until some code asks for 'strict' (the option's
# hook says so), the mode is known to be 'standard' without reading it.
_read_mode = _standard_mode
_strict_requested = False


def set_promotion_mode_reader(reader) -> None:
    """Chapter 06 hands the option's reader to this chapter (see ``config``)."""
    global _read_mode
    _read_mode = reader


def note_promotion_mode(mode: str) -> None:
    """The option's hook: called with each value it is set to (globally or in a ``with``)."""
    global _strict_requested
    if mode == "strict":
        _strict_requested = True


def numpy_dtype_promotion_mode() -> str:
    """'standard' or 'strict': the ``jax_numpy_dtype_promotion`` in force in this thread."""
    return _read_mode() if _strict_requested else "standard"


def supports_inf(dt) -> bool:
    """Can ``dt`` hold infinity? (Not float8_e4m3fn and the other ``fn`` types.)"""
    return not is_narrow_float(dt) or narrow_floats.supports_inf(dt)


def is_narrow_float(dt) -> bool:
    """bfloat16 or a float8/6/4 type (from ``ml_dtypes``)?"""
    return dt in _narrow_float_set


def _jax_type(dt: np.dtype, weak: bool):
    """The lattice node of a (dtype, weak_type) pair."""
    if weak and dt != bool_:
        if dt in _narrow_float_set:  # a weak bfloat16 is a weak float
            return float
        return type(dt.type(0).item())  # int, float or complex
    return dt


def _least_upper_bound(*nodes):
    """The least upper bound of ``nodes`` on the lattice of the current mode."""
    return _least_upper_bound_in(numpy_dtype_promotion_mode(), *nodes)


def _bits_of_unpromotable(nodes) -> str | None:
    """'8-bit' if a float8 is among ``nodes`` (6-bit, 4-bit likewise), else None."""
    for bits, names in (("8", narrow_floats.FLOAT8_NAMES), ("6", narrow_floats.FLOAT6_NAMES),
                        ("4", narrow_floats.FLOAT4_NAMES)):
        if any(isinstance(n, np.dtype) and n.name in names for n in nodes):
            return bits
    return None


@functools.lru_cache(maxsize=512)
def _least_upper_bound_in(mode: str, *nodes):
    """The least upper bound of ``nodes`` in the lattice (JAX's algorithm).

    The upper bounds common to all nodes, ``CUB``; the least of them is the
    one whose own upper bounds contain all of ``CUB``. None: the nodes have
    no implicit promotion, a ``TypePromotionError`` saying why.
    """
    UB = _UB[mode]
    N = set(nodes)
    for n in N:
        if n not in UB:
            raise ValueError(f"dtype={n!r} is not a valid dtype for JAX type promotion.")
    common = set.intersection(*(UB[n] for n in N))
    lub = (common & N) or {c for c in common if common <= UB[c]}
    if len(lub) == 1:
        return lub.pop()
    names = tuple(str(n) for n in nodes)
    if mode == "strict":
        raise TypePromotionError(
            f"Input dtypes {names} have no available implicit dtype promotion path "
            "when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
            "the desired output type, or set jax_numpy_dtype_promotion=standard.")
    bits = _bits_of_unpromotable(nodes)
    if bits is not None:
        raise TypePromotionError(
            f"Input dtypes {names} have no available implicit dtype promotion path. "
            f"To avoid unintended promotion, {bits}-bit floats do not support implicit "
            "promotion. If you'd like your inputs to be promoted to another type, you "
            "can do so explicitly using e.g. x.astype('float32')")
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. "
        "Try explicitly casting inputs to the desired output type.")


def _node_to_dtype(node) -> np.dtype:
    """A lattice node as a dtype: weak nodes give their (64-bit) NumPy dtype."""
    return _python_scalar_dtypes[node] if _is_weak_node(node) else node


def _is_weak_node(node) -> bool:
    # Identity, not ``in``: ``np.dtype('int64') == int`` is true in NumPy.
    return any(node is t for t in _weak_types)


def _as_node(x):
    """A ``promote_types`` argument as a lattice node (Python types stay weak)."""
    return x if _is_weak_node(x) else np.dtype(x)


def promote_types(a, b) -> np.dtype:
    """Returns the type to which a binary operation should cast its arguments.

    ``jnp.promote_types``: the least upper bound of ``a`` and ``b`` on JAX's
    lattice. Dtype arguments are strong; the Python types ``int``, ``float`` and
    ``complex`` are weak (``promote_types('uint8', int)`` is uint8). The result
    is *not* canonicalized: ``promote_types('uint64', 'int8')`` is float64, and
    a weak result is the Python type's NumPy dtype (``promote_types(int, float)``
    is float64).
    """
    return np.dtype(_node_to_dtype(_least_upper_bound(_as_node(a), _as_node(b))))


def _dtype_and_weak_for_promotion(x) -> tuple[np.dtype, bool]:
    """(canonical dtype, weak?) of one ``result_type`` argument, warning as JAX does."""
    aval = getattr(x, "aval", None)
    if aval is not None:  # Arrays and tracers: already canonical
        return aval.dtype, aval.weak_type
    if type(x) in _python_scalar_dtypes:  # Python scalars: weak, except bool
        return canonicalize_dtype(_python_scalar_dtypes[type(x)]), type(x) is not bool
    dt = dtype(x)
    weak = _is_weak_node(x) or is_weakly_typed(x)
    if _is_explicit_dtype(x):
        return _warn_if_truncated(dt, "dtype"), weak
    return canonicalize_dtype(dt), weak


def _result_type_and_weak(*args) -> tuple[np.dtype, bool]:
    if not args:
        raise ValueError("at least one array or dtype is required")
    avals = [getattr(a, "aval", None) for a in args]
    if None not in avals:  # only Arrays and tracers (the common case): read their avals
        return _join(tuple(a.dtype for a in avals), tuple(a.weak_type for a in avals))
    args = [default_float_dtype if a is None else a for a in args]
    dts, weaks = zip(*(_dtype_and_weak_for_promotion(a) for a in args))
    return _join(dts, weaks)


def _join(dts: tuple, weaks: tuple) -> tuple[np.dtype, bool]:
    """The result type of (canonical dtype, weak) pairs, in the current promotion mode."""
    return _join_in(_read_mode() if _strict_requested else "standard", dts, weaks)


@functools.lru_cache(maxsize=1024)
def _join_in(mode: str, dts: tuple, weaks: tuple) -> tuple[np.dtype, bool]:
    """:func:`_join` in ``mode``; cached, as it runs on every op."""
    if len(dts) == 1:
        out, weak = dts[0], weaks[0]
    elif len(set(dts)) == 1 and not all(weaks):
        out, weak = dts[0], False
    elif all(weaks) and mode != "strict":
        # Join the strong counterparts, then mark the result weak. (Strict mode
        # joins the weak nodes themselves: int with float is a weak float.)
        out, weak = canonicalize_dtype(_least_upper_bound_in(mode, *set(dts))), True
    else:
        node = _least_upper_bound_in(mode, *{_jax_type(d, w) for d, w in zip(dts, weaks)})
        out = canonicalize_dtype(_node_to_dtype(node))
        weak = _is_weak_node(node)
    weak = weak and out != bool_
    if weak:
        out = _default_of_kind[out.kind]
    return out, weak


def result_type(*args, return_weak_type_flag: bool = False):
    """The canonical dtype of combining ``args`` (``jax.dtypes.result_type``).

    Arguments may be arrays, Python scalars, dtypes or scalar types; ``None``
    means the default float dtype. Python scalars (and weakly typed arrays) take
    part as weak nodes, so ``result_type(int8_array, 3)`` is int8 and
    ``result_type(int8_array, 3.0)`` is a weak float32. 64-bit inputs are
    canonicalized first: ``result_type(uint64_array, int8_array)`` is int32.
    """
    dt, weak = _result_type_and_weak(*args)
    return (dt, weak) if return_weak_type_flag else dt


def issubdtype(arg1, arg2) -> bool:
    """Returns True if ``arg1`` is equal or lower than ``arg2`` in the type hierarchy.

    ``jnp.issubdtype``: NumPy's hierarchy, where dtypes, strings, NumPy and
    minijax scalar types (``jnp.float32``) name concrete types and the abstract
    NumPy classes (``jnp.floating``, ``jnp.integer``...) name families.
    bfloat16 and the float8 types are ``jnp.floating`` (NumPy alone says no).
    """
    try:  # the common case, hashable arguments
        return _issubdtype_cached(arg1, arg2)
    except TypeError:
        return _issubdtype_cached(np.dtype(arg1), np.dtype(arg2))


def _as_scalar_type(x):
    return x if isinstance(x, type) and issubclass(x, np.generic) else np.dtype(x).type


# bfloat16's scalar type does not subclass np.floating (NumPy's hierarchy is
# closed), so its family is spelled out: it is a floating, inexact number.
_families_of_narrow_float = (np.floating, np.inexact, np.number, np.generic)


@functools.lru_cache(maxsize=512)
def _issubdtype_cached(a, b) -> bool:
    a_type, b_type = _as_scalar_type(a), _as_scalar_type(b)
    if a_type in _narrow_float_scalar_types:
        return b_type is a_type or b_type in _families_of_narrow_float
    return bool(np.issubdtype(a_type, b_type))


# jnp.finfo / jnp.iinfo are classes, as in JAX: ml_dtypes' versions know its types.
finfo = narrow_floats.ml_dtypes.finfo if narrow_floats.available else np.finfo
iinfo = narrow_floats.ml_dtypes.iinfo if narrow_floats.available else np.iinfo

_dtype_kinds = {
    "bool": {bool_},
    "signed integer": set(_signed_types),
    "unsigned integer": set(_unsigned_types),
    "integral": set(_int_types),
    "real floating": set(_float_types),
    "complex floating": set(_complex_types),
    "numeric": set(_int_types + _float_types + _complex_types),
}


def isdtype(dtype, kind) -> bool:
    """Is ``dtype`` of the given kind (``jnp.isdtype``, the array-API spelling).

    ``kind`` is a dtype, one of the names ``'bool'``, ``'signed integer'``,
    ``'unsigned integer'``, ``'integral'``, ``'real floating'``,
    ``'complex floating'``, ``'numeric'``, or a tuple of these.
    """
    the_dtype = np.dtype(dtype)
    options = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _dtype_kinds:
            options |= _dtype_kinds[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as e:
            if isinstance(k, str):
                raise ValueError(
                    f"Unrecognized kind={k!r} expected one of {list(_dtype_kinds)}, "
                    "or a compatible input for jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
    return the_dtype in options


def scalar_type_of(x) -> type:
    """The Python scalar type (bool, int, float or complex) of ``x``'s dtype."""
    kind = dtype(x).kind
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex, "V": float}[kind]


def is_float(dt) -> bool:
    return issubdtype(np.dtype(dt), np.floating)


def is_int(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.integer)


def is_complex(dt) -> bool:
    return np.issubdtype(np.dtype(dt), np.complexfloating)


def is_inexact(dt) -> bool:
    dt = np.dtype(dt)
    hit = _is_inexact_memo.get(dt)  # memoized: this runs on every reduction
    if hit is None:
        hit = _is_inexact_memo[dt] = issubdtype(dt, np.inexact)
    return hit


_is_inexact_memo: dict = {}


# --------------------------------------------------------------------------
# ``jax.dtypes.bfloat16`` & co.: the ml_dtypes scalar types, as in JAX
# --------------------------------------------------------------------------
globals().update(narrow_floats.scalar_types())


def __getattr__(name):
    """Without ``ml_dtypes``, ``dtypes.bfloat16`` says what to install."""
    if name in narrow_floats.NAMES:
        raise narrow_floats.missing_error(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
