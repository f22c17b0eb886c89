"""Chapter 00 — dtypes: JAX's promotion lattice, weak types and canonicalization.

Every expected value here was produced by JAX 0.10.2 (with ``jax_enable_x64``
off, the default) and is written down literally: the tests never compare
minijax with itself.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax import dtypes

# --------------------------------------------------------------------------
# The promotion tables
# --------------------------------------------------------------------------
# Short names, as in the table of JAX's "Type promotion semantics" page.
_SHORT = {
    "b1": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "f16": "float16",
    "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128",
}
# The weak (Python) types: as arguments of promote_types, and as values.
_WEAK_TYPES = {"i*": int, "f*": float, "c*": complex}
_WEAK_VALUES = {"i*": 1, "f*": 1.0, "c*": 1j}


def _parse(table: str):
    """``{(row, col): cell}`` from a table whose first line names the columns."""
    header, *rows = table.strip().splitlines()
    cols = header.split()
    cells = {}
    for line in rows:
        row, *entries = line.split()
        assert len(entries) == len(cols), line
        cells.update({(row, col): cell for col, cell in zip(cols, entries)})
    return cells


# expected values from JAX 0.10.2: jnp.promote_types(a, b), where i*/f*/c* are
# the Python types int/float/complex. It is the lattice of JAX's "Type
# promotion semantics" doc page, with two differences that come from
# jax_enable_x64=False: u32 x i8/i16/i32 gives i32 (not i64), and a weak
# result is reported as the Python type's NumPy dtype (i64, f64, c128).
# promote_types does NOT canonicalize: 'uint64' x 'int8' is float64.
PROMOTE_TYPES_TABLE = """
        b1   u8  u16  u32  u64   i8  i16  i32  i64  f16  f32  f64  c64   i*   f*   c*
b1      b1   u8  u16  u32  u64   i8  i16  i32  i64  f16  f32  f64  c64  i64  f64 c128
u8      u8   u8  u16  u32  u64  i16  i16  i32  i64  f16  f32  f64  c64   u8  f64 c128
u16    u16  u16  u16  u32  u64  i32  i32  i32  i64  f16  f32  f64  c64  u16  f64 c128
u32    u32  u32  u32  u32  u64  i32  i32  i32  i64  f16  f32  f64  c64  u32  f64 c128
u64    u64  u64  u64  u64  u64  f64  f64  f64  f64  f16  f32  f64  c64  u64  f64 c128
i8      i8  i16  i32  i32  f64   i8  i16  i32  i64  f16  f32  f64  c64   i8  f64 c128
i16    i16  i16  i32  i32  f64  i16  i16  i32  i64  f16  f32  f64  c64  i16  f64 c128
i32    i32  i32  i32  i32  f64  i32  i32  i32  i64  f16  f32  f64  c64  i32  f64 c128
i64    i64  i64  i64  i64  f64  i64  i64  i64  i64  f16  f32  f64  c64  i64  f64 c128
f16    f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f64  c64  f16  f16  c64
f32    f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64  c64  f32  f32  c64
f64    f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64 c128  f64  f64 c128
c64    c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64 c128  c64  c64  c64  c64
i*     i64   u8  u16  u32  u64   i8  i16  i32  i64  f16  f32  f64  c64  i64  f64 c128
f*     f64  f64  f64  f64  f64  f64  f64  f64  f64  f16  f32  f64  c64  f64  f64 c128
c*    c128 c128 c128 c128 c128 c128 c128 c128 c128  c64  c64 c128  c64 c128 c128 c128
"""

# expected values from JAX 0.10.2: jax.dtypes.result_type(a, b,
# return_weak_type_flag=True) where a, b are np.zeros((), dtype) or the Python
# scalars 1, 1.0, 1j (i*, f*, c*). A trailing * marks a weakly typed result.
# This is the same lattice after canonicalization (x64 disabled): 64-bit
# inputs become 32-bit first (so u64 x i8 is i32), results never exceed 32 bits.
# The same table holds for ``jnp.asarray(a) + b``.
RESULT_TYPE_TABLE = """
        b1   u8  u16  u32  u64   i8  i16  i32  i64  f16  f32  f64  c64   i*   f*   c*
b1      b1   u8  u16  u32  u32   i8  i16  i32  i32  f16  f32  f32  c64 i32* f32* c64*
u8      u8   u8  u16  u32  u32  i16  i16  i32  i32  f16  f32  f32  c64   u8 f32* c64*
u16    u16  u16  u16  u32  u32  i32  i32  i32  i32  f16  f32  f32  c64  u16 f32* c64*
u32    u32  u32  u32  u32  u32  i32  i32  i32  i32  f16  f32  f32  c64  u32 f32* c64*
u64    u32  u32  u32  u32  u32  i32  i32  i32  i32  f16  f32  f32  c64  u32 f32* c64*
i8      i8  i16  i32  i32  i32   i8  i16  i32  i32  f16  f32  f32  c64   i8 f32* c64*
i16    i16  i16  i32  i32  i32  i16  i16  i32  i32  f16  f32  f32  c64  i16 f32* c64*
i32    i32  i32  i32  i32  i32  i32  i32  i32  i32  f16  f32  f32  c64  i32 f32* c64*
i64    i32  i32  i32  i32  i32  i32  i32  i32  i32  f16  f32  f32  c64  i32 f32* c64*
f16    f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f32  c64  f16  f16  c64
f32    f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  c64  f32  f32  c64
f64    f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  c64  f32  f32  c64
c64    c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64  c64
i*    i32*   u8  u16  u32  u32   i8  i16  i32  i32  f16  f32  f32  c64 i32* f32* c64*
f*    f32* f32* f32* f32* f32* f32* f32* f32* f32*  f16  f32  f32  c64 f32* f32* c64*
c*    c64* c64* c64* c64* c64* c64* c64* c64* c64*  c64  c64  c64  c64 c64* c64* c64*
"""

_PROMOTE = _parse(PROMOTE_TYPES_TABLE)
_RESULT = _parse(RESULT_TYPE_TABLE)


def _type_arg(name):
    return _WEAK_TYPES.get(name) or _SHORT[name]


def _value_arg(name):
    if name in _WEAK_VALUES:
        return _WEAK_VALUES[name]
    return np.zeros((), _SHORT[name])


def _expected(cell):
    return np.dtype(_SHORT[cell.rstrip("*")]), cell.endswith("*")


@pytest.mark.parametrize("row,col", sorted(_PROMOTE), ids=lambda x: x)
def test_promote_types_cell(row, col):
    out = jnp.promote_types(_type_arg(row), _type_arg(col))
    assert type(out) is type(np.dtype(_SHORT[_PROMOTE[row, col]]))
    assert out == np.dtype(_SHORT[_PROMOTE[row, col]])


@pytest.mark.parametrize("row,col", sorted(_RESULT), ids=lambda x: x)
def test_result_type_cell(row, col):
    expected = _expected(_RESULT[row, col])
    assert dtypes.result_type(_value_arg(row), _value_arg(col),
                              return_weak_type_flag=True) == expected
    assert jnp.result_type(_value_arg(row), _value_arg(col)) == expected[0]


@pytest.mark.parametrize("row", [r for r in sorted({r for r, _ in _RESULT})])
def test_add_follows_result_type_table(row):
    # One row per test: the operator ``+`` promotes exactly as result_type.
    x = jnp.asarray(_value_arg(row))
    for col in sorted({c for _, c in _RESULT}):
        expected = _expected(_RESULT[row, col])
        for other in (_value_arg(col), jnp.asarray(_value_arg(col))):
            out = x + other
            assert (out.dtype, out.weak_type) == expected, (row, col, type(other))


_LABELS = sorted({r for r, _ in _RESULT})
_NODE_OF_WEAK_RESULT = {"i32*": "i*", "f32*": "f*", "c64*": "c*"}


@given(st.lists(st.sampled_from(_LABELS), min_size=2, max_size=5))
def test_result_type_of_many_arguments_folds_the_table(labels):
    # The join is associative: folding the JAX table pairwise (a weak result is
    # the weak node again) predicts result_type of any number of arguments.
    node = labels[0]
    for label in labels[1:]:
        cell = _RESULT[node, label]
        node = _NODE_OF_WEAK_RESULT.get(cell, cell)
    cell = _RESULT[node, node]  # the canonical spelling of the final node
    expected = _expected(cell)
    args = [_value_arg(label) for label in labels]
    assert dtypes.result_type(*args, return_weak_type_flag=True) == expected


def test_strong_result_type_of_dtype_names_is_the_canonical_table():
    # Dtype names (strings) are strong, and the result is canonicalized.
    strong = [n for n in _SHORT if n != "c128"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 64-bit names warn
        for a in strong:
            for b in strong:
                assert jnp.result_type(_SHORT[a], _SHORT[b]) == _expected(_RESULT[a, b])[0]


# --------------------------------------------------------------------------
# promote_types details
# --------------------------------------------------------------------------
def test_promote_types_examples():
    # expected values from JAX 0.10.2
    assert jnp.promote_types("int32", "float32") == np.float32
    assert jnp.promote_types(jnp.int32, jnp.float32) == np.float32
    assert jnp.promote_types(np.dtype("int32"), np.dtype("float32")) == np.float32
    assert jnp.promote_types("uint8", int) == np.uint8
    assert jnp.promote_types("float16", float) == np.float16
    assert jnp.promote_types("int64", "float32") == np.float32  # i64 -> f* -> f32
    assert jnp.promote_types(jnp.float64, jnp.int8) == np.float64
    assert jnp.promote_types("float64", "complex64") == np.complex128
    assert jnp.promote_types(None, "int32") == np.float64  # np.dtype(None)
    assert jnp.promote_types(bool, bool) == np.bool_
    assert jnp.promote_types(bool, int) == np.int64


@pytest.mark.parametrize("bad,shown", [("S1", "dtype('S1')"), (np.str_, "dtype('<U')"),
                                       (object, "dtype('O')")])
def test_promote_types_rejects_non_numeric_dtypes(bad, shown):
    # expected values from JAX 0.10.2
    with pytest.raises(ValueError) as e:
        jnp.promote_types(bad, "int32")
    assert str(e.value) == f"dtype={shown} is not a valid dtype for JAX type promotion."


def test_type_promotion_error_class():
    # expected values from JAX 0.10.2: jax.dtypes.TypePromotionError is a
    # ValueError, public in jax.dtypes but not in jax.numpy.
    assert issubclass(dtypes.TypePromotionError, ValueError)
    assert minijax.dtypes.TypePromotionError is dtypes.TypePromotionError
    assert not hasattr(jnp, "TypePromotionError")


# --------------------------------------------------------------------------
# result_type with mixtures of arrays, scalars and dtypes
# --------------------------------------------------------------------------
RESULT_TYPE_EXAMPLES = [
    # (args, expected dtype, expected weak flag) -- expected values from JAX 0.10.2
    ((None,), "float32", False),
    ((None, 1), "float32", False),
    ((None, jnp.int8), "float32", False),
    ((1,), "int32", True),
    ((1, 1.0), "float32", True),
    ((1, 1j), "complex64", True),
    ((True,), "bool", False),
    ((True, False), "bool", False),
    ((True, 1), "int32", True),
    ((int,), "int32", True),
    ((float,), "float32", True),
    ((complex,), "complex64", True),
    ((bool,), "bool", False),
    ((bool, int), "int32", True),
    (("bool", int), "int32", True),
    ((int, float, complex), "complex64", True),
    ((float, "int8"), "float32", True),
    ((jnp.bool_,), "bool", False),
    ((jnp.int8, 3), "int8", False),
    ((jnp.int8, 3.0), "float32", True),
    ((jnp.float64,), "float32", False),
    ((np.float64(1),), "float32", False),
    ((np.int8(3), 3.0), "float32", True),
    ((np.bool_(True), 3), "int32", True),
    ((np.uint64(1), np.int8(3)), "int32", False),
    ((np.float16(1), 2.0, 3), "float16", False),
    (("int8", "uint8", "float16"), "float16", False),
    ((np.dtype("uint8"), np.dtype("int8")), "int16", False),
    ((np.array(1, "uint16"), np.array(1, "int16")), "int32", False),
    ((np.zeros(2, np.int8), np.zeros(2, np.uint8), 2.0), "float32", True),
    ((np.zeros(1, "uint64"), np.zeros(1, "int8")), "int32", False),
]


@pytest.mark.parametrize("args,dt,weak", RESULT_TYPE_EXAMPLES)
def test_result_type_examples(args, dt, weak):
    assert dtypes.result_type(*args, return_weak_type_flag=True) == (np.dtype(dt), weak)
    assert jnp.result_type(*args) == np.dtype(dt)


def test_result_type_with_minijax_arrays():
    # expected values from JAX 0.10.2
    i8, u32 = jnp.zeros(2, "int8"), jnp.zeros(2, "uint32")
    assert jnp.result_type(i8, u32) == np.int32
    assert jnp.result_type(jnp.asarray(2.0), jnp.float16) == np.float16
    assert jnp.result_type(jnp.asarray(2.0), jnp.asarray(3)) == np.float32
    assert dtypes.result_type(jnp.asarray(2.0), jnp.asarray(3),
                              return_weak_type_flag=True) == (np.float32, True)
    assert dtypes.result_type(jnp.asarray(2), jnp.asarray(3j),
                              return_weak_type_flag=True) == (np.complex64, True)
    assert jnp.result_type(jnp.asarray(1), jnp.uint8) == np.uint8
    assert jnp.result_type(jnp.asarray(1), np.uint8(1)) == np.uint8
    assert jnp.result_type(jnp.asarray(1.0), 1) == np.float32
    assert jnp.result_type(jnp.float32(2), 1) == np.float32
    assert jnp.result_type(jnp.asarray(1.0, "float16"), jnp.asarray(1, "int8")) == np.float16


def test_jnp_result_type_has_no_weak_type_flag():
    # expected values from JAX 0.10.2: only jax.dtypes.result_type takes the flag
    with pytest.raises(TypeError, match="unexpected keyword argument 'return_weak_type_flag'"):
        jnp.result_type(1, return_weak_type_flag=True)


@pytest.mark.parametrize("args,exc,msg", [
    # expected values from JAX 0.10.2
    ((), ValueError, "at least one array or dtype is required"),
    (([1, 2],), TypeError, "Cannot determine dtype of [1, 2]"),
    (((1, 2),), TypeError, "Cannot determine dtype of (1, 2)"),
    (("S1",), TypeError, "Value 'S1' with dtype |S1 is not a valid JAX array type. "
                         "Only arrays of numeric types are supported by JAX."),
    ((np.array(["a"]),), TypeError, "Value '['a']' with dtype <U1 is not a valid JAX array "
                                    "type. Only arrays of numeric types are supported by JAX."),
    ((object,), TypeError, "Value '<class 'object'>' with dtype object is not a valid JAX "
                           "array type. Only arrays of numeric types are supported by JAX."),
])
def test_result_type_errors(args, exc, msg):
    with pytest.raises(exc) as e:
        jnp.result_type(*args)
    assert str(e.value) == msg


_TRUNCATION_WARNING = (
    "Explicitly requested dtype {} requested in dtype is not available, and will be "
    "truncated to dtype {}. To enable more dtypes, set the jax_enable_x64 configuration "
    "option or the JAX_ENABLE_X64 shell environment variable. See "
    "https://github.com/jax-ml/jax#current-gotchas for more.")


@pytest.mark.parametrize("arg,wide,narrow", [("float64", "float64", "float32"),
                                             (np.float64, "float64", "float32"),
                                             (np.dtype("uint64"), "uint64", "uint32")])
def test_result_type_warns_on_explicit_64_bit_dtypes(arg, wide, narrow):
    # expected values from JAX 0.10.2
    with pytest.warns(UserWarning) as record:
        assert jnp.result_type(arg) == np.dtype(narrow)
    assert str(record[0].message) == _TRUNCATION_WARNING.format(wide, narrow)


@pytest.mark.parametrize("arg", [jnp.float64, np.zeros(3), np.float64(1), 1.0])
def test_result_type_does_not_warn_for_data_or_jnp_types(arg):
    # expected values from JAX 0.10.2: only dtype names / NumPy types warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.result_type(arg) == np.float32


# --------------------------------------------------------------------------
# Canonicalization: 64-bit data becomes 32-bit when it enters minijax
# --------------------------------------------------------------------------
@pytest.mark.parametrize("wide,narrow", [("float64", "float32"), ("int64", "int32"),
                                         ("uint64", "uint32"), ("complex128", "complex64")])
def test_canonicalization_of_numpy_data(wide, narrow):
    # expected values from JAX 0.10.2
    assert dtypes.canonicalize_dtype(wide) == np.dtype(narrow)
    x = jnp.asarray(np.zeros(3, wide))
    assert x.dtype == np.dtype(narrow) and not x.weak_type
    s = jnp.asarray(np.zeros((), wide)[()])  # a NumPy scalar is not weak
    assert s.dtype == np.dtype(narrow) and not s.weak_type


def test_canonicalize_dtype_examples():
    # expected values from JAX 0.10.2 (jax.dtypes.canonicalize_dtype)
    assert dtypes.canonicalize_dtype(np.int64) == np.int32
    assert dtypes.canonicalize_dtype(jnp.float64) == np.float32
    assert dtypes.canonicalize_dtype(float) == np.float32
    assert dtypes.canonicalize_dtype("int8") == np.int8
    assert dtypes.canonicalize_dtype("S1") == np.dtype("S1")


def test_python_scalars_and_lists_become_default_dtypes():
    # expected values from JAX 0.10.2
    cases = [(1, "int32", True), (2.5, "float32", True), (1j, "complex64", True),
             (True, "bool", False), ([1, 2], "int32", False), ([1, 2.5], "float32", False),
             ([True, 2], "int32", False), ([1j, 2], "complex64", False)]
    for value, dt, weak in cases:
        x = jnp.asarray(value)
        assert (x.dtype, x.weak_type) == (np.dtype(dt), weak), value


@pytest.mark.parametrize("dt,expected", [(float, "float32"), (int, "int32"),
                                         (bool, "bool"), (complex, "complex64"),
                                         (jnp.float32, "float32")])
def test_python_types_as_dtype_arguments(dt, expected):
    # expected values from JAX 0.10.2
    assert jnp.zeros(3, dt).dtype == np.dtype(expected)


# --------------------------------------------------------------------------
# Weak types through arithmetic
# --------------------------------------------------------------------------
WEAK_ARITHMETIC = [
    # (function, dtype, weak) -- expected values from JAX 0.10.2
    (lambda: jnp.ones(3, "int8") + 3, "int8", False),
    (lambda: jnp.ones(3, "int8") + 3.0, "float32", True),
    (lambda: jnp.ones(3, "int8") + 3j, "complex64", True),
    (lambda: jnp.asarray(2.0) * jnp.float16(3), "float16", False),
    (lambda: jnp.asarray(2.0) + 1, "float32", True),
    (lambda: jnp.asarray(2) * 1.5, "float32", True),
    (lambda: jnp.asarray(2) + jnp.asarray(2.5), "float32", True),
    (lambda: jnp.asarray(2.5) + 1j, "complex64", True),
    (lambda: jnp.asarray(True) + 1, "int32", True),
    (lambda: jnp.asarray(True) + True, "bool", False),
    (lambda: jnp.asarray(2) + 300, "int32", True),
    (lambda: jnp.ones(3, "uint8") + 300, "uint8", False),
    (lambda: jnp.ones(3, "int8") + jnp.ones(3, "uint8"), "int16", False),
    (lambda: jnp.ones(3, "float16") * 2, "float16", False),
    (lambda: jnp.ones(3, "float16") * jnp.ones(3, "float32"), "float32", False),
    (lambda: jnp.ones(3, "float16") * np.float32(2), "float32", False),
    (lambda: jnp.ones(3, "float16") + jnp.asarray(2.0), "float16", False),
    (lambda: jnp.ones(3, "uint8") + np.zeros(3, "int8"), "int16", False),
    (lambda: jnp.asarray(np.int64(3)) + 2.0, "float32", True),
    (lambda: jnp.float32(2) + 1, "float32", False),
    (lambda: jnp.int32(1) + 2, "int32", False),
]


@pytest.mark.parametrize("i", range(len(WEAK_ARITHMETIC)))
def test_weak_type_propagation(i):
    fn, dt, weak = WEAK_ARITHMETIC[i]
    out = fn()
    assert (out.dtype, out.weak_type) == (np.dtype(dt), weak)


def test_uint8_wraps_around_with_a_weak_int():
    # expected values from JAX 0.10.2: 1 + 300 in uint8 is 45, 1 - 1 is 0
    np.testing.assert_array_equal(np.asarray(jnp.ones(3, "uint8") + 300), [45, 45, 45])
    np.testing.assert_array_equal(np.asarray(jnp.ones(3, "uint8") - 1), [0, 0, 0])


# --------------------------------------------------------------------------
# jnp.dtype, issubdtype, isdtype, finfo, iinfo
# --------------------------------------------------------------------------
def test_jnp_dtype_is_numpy_dtype():
    # expected values from JAX 0.10.2: jnp.dtype is np.dtype itself
    assert jnp.dtype is np.dtype
    assert jnp.dtype(jnp.float32) == np.float32
    assert jnp.dtype(float) == np.float64
    assert jnp.dtype("float64") == np.float64  # not canonicalized
    assert jnp.dtype(None) == np.float64
    assert np.dtype(jnp.int8) == np.int8


ISSUBDTYPE = [
    # expected values from JAX 0.10.2
    (jnp.float32, jnp.floating, True), (jnp.float32, np.floating, True),
    (np.float32, jnp.floating, True), (jnp.int32, jnp.integer, True),
    (jnp.uint8, jnp.signedinteger, False), (jnp.uint8, jnp.unsignedinteger, True),
    (jnp.bool_, jnp.integer, False), (jnp.bool_, jnp.number, False),
    (jnp.complex64, jnp.inexact, True), (jnp.complex64, jnp.floating, False),
    (jnp.float32, jnp.float32, True), (jnp.float32, jnp.float64, False),
    (jnp.float32, float, False), (jnp.int32, int, False),
    (np.dtype("int8"), jnp.int8, True), (jnp.float32, jnp.generic, True),
    (None, jnp.floating, True), ("uint32", jnp.unsignedinteger, True),
    (np.dtype("complex64"), jnp.complexfloating, True), ("complex64", jnp.integer, False),
]


@pytest.mark.parametrize("a,b,expected", ISSUBDTYPE)
def test_issubdtype(a, b, expected):
    assert jnp.issubdtype(a, b) is expected


def test_issubdtype_of_an_array_dtype():
    assert jnp.issubdtype(jnp.zeros(3).dtype, jnp.floating)
    assert not jnp.issubdtype(jnp.zeros(3, "int8").dtype, jnp.floating)


def test_issubdtype_rejects_abstract_names_as_strings():
    # expected values from JAX 0.10.2
    with pytest.raises(TypeError, match="data type 'floating' not understood"):
        jnp.issubdtype("float32", "floating")


def test_isdtype():
    # expected values from JAX 0.10.2
    assert jnp.isdtype(jnp.int32, "integral")
    assert jnp.isdtype(jnp.float32, ("integral", "real floating"))
    assert jnp.isdtype(jnp.bool_, "bool")
    assert jnp.isdtype(jnp.complex64, "numeric")
    assert not jnp.isdtype(jnp.uint8, "signed integer")
    assert jnp.isdtype(jnp.float32, jnp.float32)
    with pytest.raises(ValueError) as e:
        jnp.isdtype(jnp.float32, "foo")
    assert str(e.value) == (
        "Unrecognized kind='foo' expected one of ['bool', 'signed integer', "
        "'unsigned integer', 'integral', 'real floating', 'complex floating', "
        "'numeric'], or a compatible input for jnp.dtype()")


def test_can_cast():
    # expected values from JAX 0.10.2 (jnp.can_cast is np.can_cast)
    assert jnp.can_cast(jnp.int8, jnp.int32)
    assert not jnp.can_cast(jnp.float32, jnp.int32)


def test_finfo():
    # expected values from JAX 0.10.2
    f32 = jnp.finfo(jnp.float32)
    assert repr(f32) == ("finfo(resolution=1e-06, min=-3.4028235e+38, "
                         "max=3.4028235e+38, dtype=float32)")
    assert f32.eps == np.float32(1.1920929e-07) and f32.eps.dtype == np.float32
    assert f32.max == np.float32(3.4028235e+38)
    assert f32.dtype == np.float32
    f16 = jnp.finfo("float16")
    assert repr(f16) == "finfo(resolution=0.001, min=-6.55040e+04, max=6.55040e+04, dtype=float16)"
    assert f16.tiny == np.float16(6.104e-05) and f16.bits == 16
    assert jnp.finfo(jnp.complex64).dtype == np.float32
    assert jnp.finfo(jnp.zeros(3)).dtype == np.float32
    assert jnp.finfo(float).dtype == np.float64
    with pytest.raises(ValueError, match="data type <class 'numpy.int32'> not inexact"):
        jnp.finfo(jnp.int32)


def test_iinfo():
    # expected values from JAX 0.10.2
    assert repr(jnp.iinfo(jnp.int32)) == "iinfo(min=-2147483648, max=2147483647, dtype=int32)"
    assert jnp.iinfo(jnp.int32).max == 2147483647
    assert jnp.iinfo("uint8").min == 0
    assert jnp.iinfo(jnp.int8).bits == 8
    assert repr(jnp.iinfo(jnp.zeros(3, "int16"))) == "iinfo(min=-32768, max=32767, dtype=int16)"
    assert jnp.iinfo(int).max == 9223372036854775807
    with pytest.raises(ValueError, match="Invalid integer data type 'f'."):
        jnp.iinfo(jnp.float32)
    with pytest.raises(ValueError, match="Invalid integer data type 'b'."):
        jnp.iinfo(jnp.bool_)


def test_scalar_type_of():
    # expected values from JAX 0.10.2 (jax.dtypes.scalar_type_of)
    assert dtypes.scalar_type_of(1.0) is float
    assert dtypes.scalar_type_of(jnp.zeros(2, "int8")) is int
    assert dtypes.scalar_type_of(True) is bool


# --------------------------------------------------------------------------
# Scalar types: jnp.float32 is a dtype and a constructor of 0-d arrays
# --------------------------------------------------------------------------
def test_scalar_type_call_returns_a_zero_d_strong_array():
    # expected values from JAX 0.10.2
    x = jnp.float32(1.0)
    assert isinstance(x, minijax.Array)
    assert x.shape == () and x.dtype == np.float32 and x.weak_type is False
    assert repr(x) == "Array(1., dtype=float32)"


@pytest.mark.parametrize("fn,expected", [
    # expected values from JAX 0.10.2
    (lambda: jnp.float32([1, 2]), "Array([1., 2.], dtype=float32)"),
    (lambda: jnp.int8(3.7), "Array(3, dtype=int8)"),
    (lambda: jnp.bool_(1), "Array(True, dtype=bool)"),
    (lambda: jnp.bool_(0), "Array(False, dtype=bool)"),
    (lambda: jnp.complex64(1), "Array(1.+0.j, dtype=complex64)"),
    (lambda: jnp.float32(np.float64(1.5)), "Array(1.5, dtype=float32)"),
    (lambda: jnp.float32(jnp.asarray(1)), "Array(1., dtype=float32)"),
    (lambda: jnp.int64(1), "Array(1, dtype=int32)"),
    (lambda: jnp.float64(1.0), "Array(1., dtype=float32)"),
])
def test_scalar_type_constructors(fn, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # jnp.float64 warns in JAX
        assert repr(fn()) == expected


def test_scalar_type_constructor_needs_an_argument():
    # expected values from JAX 0.10.2
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        jnp.float32()


def test_scalar_types_compare_with_numpy_types():
    # expected values from JAX 0.10.2
    assert jnp.float32 == np.float32 and np.float32 == jnp.float32
    assert jnp.float32 is not np.float32
    assert jnp.float32 != np.float64
    assert hash(jnp.float32) == hash(np.float32)
    assert jnp.float32.dtype == np.dtype("float32")
    assert jnp.dtype(jnp.float32) == jnp.float32
    assert jnp.float32.__name__ == "float32" and jnp.bool_.__name__ == "bool"
    assert jnp.zeros(3, jnp.float32).dtype == np.float32
    assert jnp.zeros(3, jnp.float32).tolist() == [0.0, 0.0, 0.0]


def test_scalar_types_isinstance():
    # expected values from JAX 0.10.2: isinstance checks the NumPy scalar type
    assert isinstance(np.float32(1), jnp.float32)
    assert not isinstance(jnp.float32(1), jnp.float32)
    assert not isinstance(1.0, jnp.float32)
    assert not isinstance(np.float64(1), jnp.float32)
    assert isinstance(np.float32(1), jnp.floating)


def test_scalar_type_aliases():
    # expected values from JAX 0.10.2
    assert jnp.int_ is jnp.int64 and jnp.uint is jnp.uint64
    assert jnp.float_ is jnp.float64 and jnp.complex_ is jnp.complex128
    assert jnp.single is jnp.float32 and jnp.double is jnp.float64
    assert jnp.csingle is jnp.complex64 and jnp.cdouble is jnp.complex128
    assert jnp.bool is jnp.bool_
    assert jnp.floating is np.floating and jnp.generic is np.generic
    assert jnp.number is np.number and jnp.integer is np.integer


def test_astype_with_a_scalar_type():
    assert jnp.array([1, 2]).astype(jnp.float16).dtype == np.float16


# --------------------------------------------------------------------------
# Unsupported dtypes
# --------------------------------------------------------------------------
@pytest.mark.parametrize("value,shown", [("a", "'a' with dtype <U1"),
                                         (["a", "b"], "'a' with dtype <U1"),
                                         (object(), None)])
def test_array_of_non_numeric_data_is_a_type_error(value, shown):
    # expected values from JAX 0.10.2
    with pytest.raises(TypeError) as e:
        jnp.array(value)
    assert "is not a valid JAX array type. Only arrays of numeric types are " \
           "supported by JAX." in str(e.value)
    if shown is not None:
        assert str(e.value).startswith(f"Value {shown}")


def test_array_of_none_is_a_value_error():
    # expected values from JAX 0.10.2
    with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
        jnp.array(None)


@pytest.mark.parametrize("bad,shown", [("S1", "S1"), (object, "<class 'object'>")])
def test_zeros_rejects_non_numeric_dtypes(bad, shown):
    # expected values from JAX 0.10.2
    with pytest.raises(TypeError) as e:
        jnp.zeros(3, bad)
    assert str(e.value) == f"JAX only supports number, bool, and string dtypes, got dtype {shown} in zeros"


def test_check_and_canonicalize_user_dtype():
    # the helper behind ``dtype=`` arguments (jax._src.dtypes of JAX 0.10.2)
    assert dtypes.check_and_canonicalize_user_dtype(float) == np.float32
    assert dtypes.check_and_canonicalize_user_dtype("int8", "zeros") == np.int8
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested "
                                         "in zeros is not available"):
        assert dtypes.check_and_canonicalize_user_dtype("float64", "zeros") == np.float32
    with pytest.raises(TypeError, match="got dtype S1 in zeros"):
        dtypes.check_and_canonicalize_user_dtype("S1", "zeros")
