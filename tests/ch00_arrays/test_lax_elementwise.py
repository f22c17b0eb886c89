"""Elementwise ``lax`` primitives: values, dtypes, weak types and errors.

Values are checked against NumPy/SciPy, or against hard-coded results where
XLA's semantics differ from NumPy's (integer division, NaN in max/min, shifts
past the bit width, rounding, saturating conversions). Those hard-coded
values and every error message were taken from JAX 0.10.2 (x64 disabled).
"""
import re

import numpy as np
import pytest
import scipy.special
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import abstract_eval_rules

f32, i32, u32, u8, i8 = np.float32, np.int32, np.uint32, np.uint8, np.int8


def check(out, expected, dtype, weak=False, rtol=1e-6, atol=0.0):
    """``out`` has ``expected``'s values (NaN == NaN), ``dtype`` and weak type."""
    assert out.dtype == np.dtype(dtype), out.dtype
    assert out.weak_type == weak
    expected = np.asarray(expected)
    assert out.shape == expected.shape
    np.testing.assert_allclose(np.asarray(out), expected.astype(out.dtype), rtol=rtol,
                               atol=atol, equal_nan=True)


def check_exact(out, expected, dtype, weak=False):
    """Like ``check`` but bit-for-bit, signed zeros included."""
    assert out.dtype == np.dtype(dtype) and out.weak_type == weak
    expected = np.asarray(expected, dtype)
    assert out.shape == expected.shape
    got = np.asarray(out)
    assert got.tobytes() == expected.tobytes(), (got, expected)


def raises(cls, message):
    return pytest.raises(cls, match=re.escape(message))


# --------------------------------------------------------------------------------
# Unary floating-point functions against NumPy / SciPy
# --------------------------------------------------------------------------------
X = np.array([[-2.5, -1.0, -0.3], [0.0, 0.4, 3.0]], f32)
POS = np.array([[0.1, 0.5, 1.0], [1.5, 2.0, 7.5]], f32)
UNIT = np.array([[-0.9, -0.5, -0.1], [0.0, 0.3, 0.8]], f32)
GE1 = np.array([[1.0, 1.5, 2.0], [3.0, 10.0, 100.0]], f32)

UNARY_FLOAT = [
    # (lax function, reference, input)
    (lax.neg, np.negative, X), (lax.sign, np.sign, X), (lax.abs, np.abs, X),
    (lax.floor, np.floor, X), (lax.ceil, np.ceil, X), (lax.square, np.square, X),
    (lax.exp, np.exp, X), (lax.exp2, np.exp2, X), (lax.expm1, np.expm1, X),
    (lax.log, np.log, POS), (lax.log1p, np.log1p, POS),
    (lax.logistic, scipy.special.expit, X), (lax.tanh, np.tanh, X),
    (lax.sqrt, np.sqrt, POS), (lax.rsqrt, lambda x: 1 / np.sqrt(x), POS),
    (lax.cbrt, np.cbrt, X),
    (lax.sin, np.sin, X), (lax.cos, np.cos, X), (lax.tan, np.tan, X),
    (lax.asin, np.arcsin, UNIT), (lax.acos, np.arccos, UNIT), (lax.atan, np.arctan, X),
    (lax.sinh, np.sinh, X), (lax.cosh, np.cosh, X), (lax.asinh, np.arcsinh, X),
    (lax.acosh, np.arccosh, GE1), (lax.atanh, np.arctanh, UNIT),
    (lax.erf, scipy.special.erf, X), (lax.erfc, scipy.special.erfc, X),
    (lax.erf_inv, scipy.special.erfinv, UNIT), (lax.lgamma, scipy.special.gammaln, POS),
    (lax.digamma, scipy.special.psi, POS), (lax.reciprocal, np.reciprocal, POS),
]


@pytest.mark.parametrize("fn, ref, x", UNARY_FLOAT, ids=[f[0].__name__ for f in UNARY_FLOAT])
def test_unary_float_matches_numpy(fn, ref, x):
    check(fn(x), ref(x.astype(np.float64)), f32, rtol=2e-6, atol=1e-6)
    # a Python scalar is weakly typed, and so is the result
    check(fn(float(x[1, 2])), ref(np.float64(x[1, 2])), f32, weak=True, rtol=2e-6)


@pytest.mark.parametrize("fn", [lax.sin, lax.exp, lax.sqrt, lax.tanh, lax.log1p],
                         ids=lambda f: f.__name__)
def test_complex_inputs_are_accepted(fn):
    z = np.array([1 + 2j, -0.5 + 0.25j], np.complex64)
    ref = {"sin": np.sin, "exp": np.exp, "sqrt": np.sqrt, "tanh": np.tanh,
           "log1p": np.log1p}[fn.__name__]
    check(fn(z), ref(z.astype(np.complex128)), np.complex64, rtol=1e-5)


def test_float16_keeps_its_dtype():
    x = np.array([0.5, 2.0], np.float16)
    check(lax.exp(x), np.exp(x), np.float16, rtol=1e-3)
    check(lax.lgamma(x), scipy.special.gammaln(x.astype(f32)), np.float16, rtol=1e-3)


@pytest.mark.parametrize("fn", [lax.sin, lax.exp, lax.log, lax.tanh, lax.sqrt, lax.cbrt])
def test_accuracy_keyword_is_accepted(fn):
    check(fn(np.float32(2.0), accuracy=None), fn(np.float32(2.0)), f32)


def test_special_function_edge_values():
    # expected values from JAX 0.10.2
    check(lax.erf_inv(np.array([-1.0, 1.0, 1.5], f32)), [-np.inf, np.inf, np.nan], f32)
    check(lax.digamma(np.array([0.0, -0.0, -2.0, 0.5], f32)),
          [np.nan, np.nan, np.nan, -1.96351], f32, rtol=1e-5)
    check(lax.lgamma(np.array([-0.5, 0.0, -2.0], f32)), [1.2655118, np.inf, np.inf], f32,
          rtol=1e-5)
    check(lax.cbrt(np.float32(-27.0)), -3.0, f32)
    check(lax.logistic(np.array([-100.0, 100.0], f32)), [0.0, 1.0], f32)


# --------------------------------------------------------------------------------
# Rounding, sign and classification
# --------------------------------------------------------------------------------
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], f32)


def test_round_halves_away_from_zero_by_default():
    # expected values from JAX 0.10.2
    check_exact(lax.round(HALVES), [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], f32)
    check_exact(lax.round(HALVES, lax.RoundingMethod.AWAY_FROM_ZERO),
                [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], f32)


def test_round_to_nearest_even():
    # expected values from JAX 0.10.2 (the method may be given as its int value)
    expected = [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]
    check_exact(lax.round(HALVES, lax.RoundingMethod.TO_NEAREST_EVEN), expected, f32)
    check_exact(lax.round(HALVES, rounding_method=1), expected, f32)


def test_round_edge_values():
    # 0.49999997 + 0.5 rounds up to 1.0 in float32: a naive floor(x + 0.5) is wrong
    x = np.array([0.49999997, -0.49999997, -0.2, 8388609.0, np.nan, -np.inf], f32)
    check_exact(lax.round(x), [0.0, -0.0, -0.0, 8388609.0, np.nan, -np.inf], f32)
    check_exact(lax.round(2.5), 3.0, f32, weak=True)


def test_rounding_method_enum():
    assert int(lax.RoundingMethod.AWAY_FROM_ZERO) == 0
    assert int(lax.RoundingMethod.TO_NEAREST_EVEN) == 1
    with raises(ValueError, "3 is not a valid RoundingMethod"):
        lax.round(np.float32(1.5), 3)


def test_sign():
    # expected values from JAX 0.10.2
    check_exact(lax.sign(np.array([-2.0, -0.0, 0.0, np.nan, 3.0], f32)),
                [-1.0, -0.0, 0.0, np.nan, 1.0], f32)
    check_exact(lax.sign(np.array([-2, 0, 3], i32)), [-1, 0, 1], i32)
    check_exact(lax.sign(np.array([0, 7], u32)), [0, 1], u32)
    check(lax.sign(np.complex64(3 + 4j)), 0.6 + 0.8j, np.complex64)
    check(lax.sign(np.complex64(0)), 0j, np.complex64)


def test_is_finite():
    out = lax.is_finite(np.array([1.0, np.inf, -np.inf, np.nan], f32))
    check_exact(out, [True, False, False, False], np.bool_)
    check_exact(lax.is_finite(1.0), True, np.bool_, weak=True)  # as in JAX 0.10.2


def test_abs():
    check_exact(lax.abs(np.array([-3, 0, 4], i8)), [3, 0, 4], i8)
    check_exact(lax.abs(np.int32(-2147483648)), -2147483648, i32)  # wraps, as in XLA
    check(lax.abs(np.complex64(3 + 4j)), 5.0, f32)
    check(lax.abs(1 + 2j), np.sqrt(5.0), f32, weak=True)


# --------------------------------------------------------------------------------
# Binary arithmetic against NumPy, with broadcasting
# --------------------------------------------------------------------------------
A = np.array([[1.5, -2.0, 3.25]], f32)           # (1, 3)
B = np.array([[0.5], [-4.0]], f32)               # (2, 1)
IA = np.array([[7, -7, 12]], i32)
IB = np.array([[2], [-5]], i32)

BINARY = [
    (lax.add, np.add), (lax.sub, np.subtract), (lax.mul, np.multiply),
    (lax.max, np.maximum), (lax.min, np.minimum),
]
BINARY_FLOAT = BINARY + [(lax.div, np.divide), (lax.rem, np.fmod),
                         (lax.atan2, np.arctan2), (lax.nextafter, np.nextafter),
                         (lax.pow, lambda x, y: np.power(np.abs(x), y))]


@pytest.mark.parametrize("fn, ref", BINARY_FLOAT, ids=[f[0].__name__ for f in BINARY_FLOAT])
def test_binary_float_broadcasts_size_1_and_rank_0(fn, ref):
    a = np.abs(A) if fn is lax.pow else A
    check(fn(a, B), ref(a, B), f32, rtol=1e-6)                # (1,3) with (2,1) -> (2,3)
    check(fn(a, np.float32(0.75)), ref(a, np.float32(0.75)), f32, rtol=1e-6)  # rank 0
    check(fn(a, 0.75), ref(a, np.float32(0.75)), f32, rtol=1e-6)   # weak scalar: strong out
    check(fn(2.0, 0.75), ref(np.float32(2.0), np.float32(0.75)), f32, weak=True, rtol=1e-6)


@pytest.mark.parametrize("fn, ref", BINARY, ids=[f[0].__name__ for f in BINARY])
def test_binary_int(fn, ref):
    check_exact(fn(IA, IB), ref(IA, IB), i32)
    check_exact(fn(IA, 3), ref(IA, i32(3)), i32)
    check_exact(fn(2, 3), ref(i32(2), i32(3)), i32, weak=True)


def test_add_wraps_around_like_xla():
    check_exact(lax.add(np.int8(127), np.int8(1)), -128, i8)
    check_exact(lax.mul(np.uint8(200), np.uint8(2)), 144, u8)


def test_mul_out_dtype():
    # expected values from JAX 0.10.2: operands are cast to out_dtype first
    check_exact(lax.mul(np.int8(100), np.int8(3), out_dtype=np.int32), 300, i32)
    check_exact(lax.mul(np.float32(1.5), np.int32(3), out_dtype=np.float32), 4.5, f32)
    check_exact(lax.mul(1, 2, out_dtype=np.float32), 2.0, f32, weak=True)


# --------------------------------------------------------------------------------
# XLA semantics that differ from NumPy
# --------------------------------------------------------------------------------
def test_integer_div_and_rem_truncate_toward_zero():
    # expected values from JAX 0.10.2
    x = np.array([7, -7, 7, -7, 0, 5, -5, -2147483648, -2147483648], i32)
    y = np.array([2, 2, -2, -2, 0, 0, 0, -1, 0], i32)
    check_exact(lax.div(x, y), [3, -3, -3, 3, -1, -1, -1, -2147483648, -1], i32)
    check_exact(lax.rem(x, y), [1, -1, 1, -1, 0, 5, -5, 0, -2147483648], i32)
    check_exact(lax.div(7, -2), -3, i32, weak=True)
    check_exact(lax.rem(7, -2), 1, i32, weak=True)


def test_unsigned_and_int8_division_edge_cases():
    # expected values from JAX 0.10.2: x / 0 has every bit set, x % 0 is x
    u = np.array([7, 0, 0xFFFFFFFF, 5], u32)
    v = np.array([2, 0, 0, 0], u32)
    check_exact(lax.div(u, v), [3, 4294967295, 4294967295, 4294967295], u32)
    check_exact(lax.rem(u, v), [1, 0, 4294967295, 5], u32)
    check_exact(lax.div(np.int8(-128), np.int8(-1)), -128, i8)
    check_exact(lax.rem(np.int8(-128), np.int8(-1)), 0, i8)
    check_exact(lax.div(np.uint8(0), np.uint8(0)), 255, u8)


def test_float_div_and_rem():
    # expected values from JAX 0.10.2
    x = np.array([7.0, -7.0, 7.0, -7.0, 1.0, -1.0, 0.0, np.inf, 5.0], f32)
    y = np.array([2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 2.0, np.inf], f32)
    check(lax.div(x, y), [3.5, -3.5, -3.5, 3.5, np.inf, -np.inf, np.nan, np.inf, 0.0], f32)
    check(lax.rem(x, y), [1.0, -1.0, 1.0, -1.0, np.nan, np.nan, np.nan, np.nan, 5.0], f32)


def test_max_min_propagate_nan_and_order_signed_zeros():
    # expected values from JAX 0.10.2
    x = np.array([1.0, np.nan, 2.0, 0.0, -0.0], f32)
    y = np.array([np.nan, 1.0, 3.0, -0.0, 0.0], f32)
    check_exact(lax.max(x, y), [np.nan, np.nan, 3.0, 0.0, 0.0], f32)
    check_exact(lax.min(x, y), [np.nan, np.nan, 2.0, -0.0, -0.0], f32)


def test_max_min_bool_and_complex():
    # expected values from JAX 0.10.2: complex numbers compare as (real, imag)
    check_exact(lax.max(np.array([True, False]), np.array([False, False])),
                [True, False], np.bool_)
    c = np.complex64
    check_exact(lax.max(c(1 + 2j), c(1 + 3j)), 1 + 3j, c)
    check_exact(lax.min(c(2 + 0j), c(1 + 3j)), 1 + 3j, c)
    check_exact(lax.max(c(complex(np.nan, 0)), c(1 + 3j)), 1 + 3j, c)


SHIFTS = np.array([0, 1, 31, 32, 33, -1], i32)


def test_shifts_past_the_bit_width():
    # expected values from JAX 0.10.2 (a negative count is a huge unsigned one)
    check_exact(lax.shift_left(np.int32(1), SHIFTS), [1, 2, -2147483648, 0, 0, 0], i32)
    check_exact(lax.shift_right_logical(np.int32(-8), SHIFTS),
                [-8, 2147483644, 1, 0, 0, 0], i32)
    check_exact(lax.shift_right_arithmetic(np.int32(-8), SHIFTS), [-8, -4, -1, -1, -1, -1], i32)
    check_exact(lax.shift_right_arithmetic(np.int32(8), SHIFTS), [8, 4, 0, 0, 0, 0], i32)


def test_shifts_on_unsigned_and_int8():
    # expected values from JAX 0.10.2: the arithmetic shift copies the top bit even
    # for unsigned types
    s = np.array([0, 1, 7, 8, 9, 255], u8)
    check_exact(lax.shift_right_arithmetic(np.uint8(200), s), [200, 228, 255, 255, 255, 255], u8)
    check_exact(lax.shift_right_logical(np.uint8(200), s), [200, 100, 1, 0, 0, 0], u8)
    check_exact(lax.shift_left(np.uint8(200), s), [200, 144, 0, 0, 0, 0], u8)
    check_exact(lax.shift_left(np.int8(-1), np.array([0, 1, 7, 8, 9, -1], i8)),
                [-1, -2, -128, 0, 0, 0], i8)
    check_exact(lax.shift_left(1, 3), 8, i32, weak=True)


def test_convert_element_type_truncates_and_saturates():
    # expected values from JAX 0.10.2
    x = np.array([1e10, -1e10, np.nan, np.inf, -np.inf, -1.7, 2.7], f32)
    check_exact(lax.convert_element_type(x, np.int32),
                [2147483647, -2147483648, 0, 2147483647, -2147483648, -1, 2], i32)
    check_exact(lax.convert_element_type(x, np.uint8), [255, 0, 0, 255, 0, 0, 2], u8)
    check_exact(lax.convert_element_type(x, np.uint32),
                [4294967295, 0, 0, 4294967295, 0, 0, 2], u32)
    check_exact(lax.convert_element_type(np.array([-1, 256, 300], i32), np.uint8),
                [255, 0, 44], u8)
    check_exact(lax.convert_element_type(np.array([0.5, 0.0, np.nan], f32), np.bool_),
                [True, False, True], np.bool_)
    check_exact(lax.convert_element_type(np.array([2.5], np.float64), np.float64), [2.5], f32)


# --------------------------------------------------------------------------------
# Powers
# --------------------------------------------------------------------------------
def test_integer_pow():
    # expected values from JAX 0.10.2
    check(lax.integer_pow(np.array([2.0, -3.0, 0.0], f32), -1), [0.5, -1 / 3, np.inf], f32)
    check_exact(lax.integer_pow(np.array([2, -3, 0], i32), 0), [1, 1, 1], i32)
    check_exact(lax.integer_pow(np.int32(3), 25), 1180052131, i32)  # wraps around
    check_exact(lax.integer_pow(np.int8(3), 5), -13, i8)
    check_exact(lax.integer_pow(np.float32(1.1), 7), np.float32(1.9487174), f32)
    check(lax.integer_pow(np.float32(1.1), -7), 0.5131580233573914, f32)
    check_exact(lax.integer_pow(2.0, 3), 8.0, f32, weak=True)
    check_exact(lax.integer_pow(np.complex64(1 + 1j), 3), -2 + 2j, np.complex64)


def test_integer_pow_rejects_negative_integer_powers():
    with raises(TypeError, "Integers cannot be raised to negative powers, got "
                           "integer_pow(int32[2,3], -2)"):
        lax.integer_pow(np.ones((2, 3), i32), -2)
    with raises(TypeError, "got integer_pow(~int32[], -1)"):
        lax.reciprocal(2)


def test_pow_dtype_rules():
    # expected values from JAX 0.10.2: the exponent may be any integer dtype
    x = np.array([2.0, -2.0, 0.0, 0.0], f32)
    check(lax.pow(x, np.array([3, 3, 0, -1], i32)), [8.0, -8.0, 1.0, np.inf], f32)
    check(lax.pow(np.float32(1.5), np.uint32(3)), 3.375, f32)
    check(lax.pow(np.float32(1.5), np.int8(2)), 2.25, f32)
    check(lax.pow(2.0, 3), 8.0, f32, weak=True)
    check(lax.pow(2.0, np.int32(3)), 8.0, f32)
    check(lax.pow(np.float32(-8.0), np.float32(1 / 3)), np.nan, f32)
    with raises(TypeError, "the first argument to pow must have an inexact dtype (float or "
                           "complex), and the second argument must have an inexact or integer "
                           "dtype, and two inexact dtypes must match, but got float32 and "
                           "float16 respectively."):
        lax.pow(np.float32(1), np.float16(1))
    with raises(TypeError, "pow does not accept dtype int32 at position 0. Accepted dtypes "
                           "at position 0 are subtypes of floating, complexfloating."):
        lax.pow(np.int32(2), np.int32(2))


# --------------------------------------------------------------------------------
# Bits
# --------------------------------------------------------------------------------
def test_bitwise_ops_on_ints_and_bools():
    x, y = np.array([12, -7, 0], i32), np.array([10, 3, -1], i32)
    check_exact(lax.bitwise_and(x, y), x & y, i32)
    check_exact(lax.bitwise_or(x, y), x | y, i32)
    check_exact(lax.bitwise_xor(x, y), x ^ y, i32)
    check_exact(lax.bitwise_not(x), ~x, i32)
    p, q = np.array([True, True, False]), np.array([True, False, False])
    check_exact(lax.bitwise_and(p, q), p & q, np.bool_)
    check_exact(lax.bitwise_or(p, q), p | q, np.bool_)
    check_exact(lax.bitwise_xor(p, q), p ^ q, np.bool_)
    check_exact(lax.bitwise_not(p), ~p, np.bool_)  # logical not on bool
    check_exact(lax.bitwise_not(np.uint8(5)), 250, u8)
    check_exact(lax.bitwise_not(5), -6, i32, weak=True)


def test_population_count_and_clz():
    # expected values from JAX 0.10.2: both count bits of the pattern
    check_exact(lax.population_count(np.array([-1, 0, 7, -2147483648], i32)), [32, 0, 3, 1], i32)
    check_exact(lax.population_count(np.int8(-128)), 1, i8)
    check_exact(lax.population_count(np.uint32(0xFFFFFFFF)), 32, u32)
    check_exact(lax.clz(np.array([1, 0, -1, 256], i32)), [31, 32, 0, 23], i32)
    check_exact(lax.clz(np.uint8(1)), 7, u8)
    check_exact(lax.clz(np.int8(-128)), 0, i8)


# --------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------
COMPARISONS = [(lax.eq, np.equal), (lax.ne, np.not_equal), (lax.lt, np.less),
               (lax.le, np.less_equal), (lax.gt, np.greater), (lax.ge, np.greater_equal)]


@pytest.mark.parametrize("fn, ref", COMPARISONS, ids=[f[0].__name__ for f in COMPARISONS])
def test_comparisons(fn, ref):
    fa = np.array([[1.0, np.nan, 3.0]], f32)
    fb = np.array([[1.0], [3.0]], f32)
    check_exact(fn(fa, fb), ref(fa, fb), np.bool_)
    check_exact(fn(IA, IB), ref(IA, IB), np.bool_)
    p = np.array([True, False])
    check_exact(fn(p, True), ref(p, True), np.bool_)
    check_exact(fn(np.array([3, 200], u8), np.uint8(100)),
                ref(np.array([3, 200], u8), 100), np.bool_)
    # JAX 0.10.2: the bool result is weak exactly when both operands are
    check_exact(fn(1.0, 2.0), ref(1.0, 2.0), np.bool_, weak=True)
    check_exact(fn(np.float32(1.0), 2.0), ref(1.0, 2.0), np.bool_, weak=False)


def test_complex_comparisons_only_for_equality():
    z = np.array([1 + 1j, 2 + 0j], np.complex64)
    check_exact(lax.eq(z, np.complex64(1 + 1j)), [True, False], np.bool_)
    check_exact(lax.ne(z, np.complex64(1 + 1j)), [False, True], np.bool_)
    with raises(TypeError, "lt does not accept dtype complex64 at position 0. Accepted dtypes "
                           "at position 0 are subtypes of integer, floating, bool."):
        lax.lt(z, z)


# --------------------------------------------------------------------------------
# Complex numbers
# --------------------------------------------------------------------------------
def test_real_imag_complex_conj():
    z = np.array([1 + 2j, -3 - 0.5j], np.complex64)
    check_exact(lax.real(z), z.real, f32)
    check_exact(lax.imag(z), z.imag, f32)
    check_exact(lax.conj(z), np.conj(z), np.complex64)
    check_exact(lax.conj(np.float32(2.0)), 2 + 0j, np.complex64)
    check_exact(lax.complex(np.array([1.0, np.inf], f32), np.float32(2.0)),
                np.array([1 + 2j, complex(np.inf, 2)]), np.complex64)
    check_exact(lax.complex(1.0, 2.0), 1 + 2j, np.complex64, weak=True)
    check_exact(lax.real(1 + 2j), 1.0, f32, weak=True)
    with raises(TypeError, "complex does not accept dtype float16 at position 0. Accepted "
                           "dtypes at position 0 are subtypes of float32, float64."):
        lax.complex(np.float16(1), np.float16(1))
    with raises(TypeError, "conj does not accept dtype int32. Accepted dtypes are subtypes "
                           "of float32, complexfloating, float64."):
        lax.conj(np.int32(1))
    with raises(TypeError, "real does not accept dtype float32. Accepted dtypes are subtypes "
                           "of complexfloating."):
        lax.real(np.float32(1))


def test_complex_atan2():
    # expected value from JAX 0.10.2
    out = lax.atan2(np.complex64(1 + 2j), np.complex64(3 - 1j))
    check(out, 0.19025322794914246 + 0.8418238759040833j, np.complex64, rtol=1e-6)


# --------------------------------------------------------------------------------
# select_n, select, clamp
# --------------------------------------------------------------------------------
def test_select_and_select_n():
    pred = np.array([True, False, True])
    t, f = np.array([1.0, 2.0, 3.0], f32), np.array([-1.0, -2.0, -3.0], f32)
    check_exact(lax.select(pred, t, f), np.where(pred, t, f), f32)
    check_exact(lax.select_n(pred, f, t), np.where(pred, t, f), f32)
    check_exact(lax.select_n(np.True_, t, f), f, f32)       # scalar `which`
    which = np.array([0, 1, 2, 1], i32)
    cases = [np.full(4, v, f32) for v in (10.0, 11.0, 12.0)]
    check_exact(lax.select_n(which, *cases), [10.0, 11.0, 12.0, 11.0], f32)
    check_exact(lax.select_n(np.int32(0), np.float32(5.0)), 5.0, f32)   # one case


def test_select_n_weak_type_follows_the_cases():
    # expected values from JAX 0.10.2
    check_exact(lax.select_n(np.True_, 1.0, 2.0), 2.0, f32, weak=True)
    check_exact(lax.select_n(np.True_, np.float32(1.5), 2.0), 2.0, f32)
    check_exact(lax.select(np.True_, 1.0, 2.0), 1.0, f32, weak=True)


def test_select_n_out_of_range_which():
    # implementation-defined in XLA; these are JAX 0.10.2's CPU results
    cases = [np.full(5, v, f32) for v in (10.0, 11.0, 12.0)]
    check_exact(lax.select_n(np.array([0, 1, 2, 3, -1], i32), *cases),
                [10.0, 11.0, 12.0, 12.0, 10.0], f32)
    check_exact(lax.select_n(np.array([0, 1, 2, 3, 255], u8), *cases),
                [10.0, 11.0, 12.0, 12.0, 12.0], f32)


@pytest.mark.parametrize("args, cls, message", [
    ((np.True_,), ValueError, "select_n() must have at least one case"),
    ((np.True_, np.float32(1), np.int32(1)), TypeError,
     "lax.select requires arguments to have the same dtypes, got float32, int32. (Tip: "
     "jnp.where is a similar function that does automatic type promotion on inputs)."),
    ((np.float32(1), np.float32(1), np.float32(1)), TypeError,
     "select `which` must be boolean or integer type, got float32."),
    ((np.True_, np.float32(1), np.float32(1), np.float32(1)), TypeError,
     "select with boolean `which` cannot have > 2 cases."),
    ((np.ones(3, bool), np.float32(1), np.float32(1)), TypeError,
     "select `which` must be scalar or have the same shape as cases, got `which` shape (3,) "
     "but case shape ()."),
    ((np.True_, np.ones(3, f32), np.ones(2, f32)), TypeError,
     "select cases must have the same shapes, got [(3,), (2,)]."),
])
def test_select_n_errors(args, cls, message):
    with raises(cls, message):
        lax.select_n(*args)


def test_clamp():
    # expected values from JAX 0.10.2
    x = np.array([0.0, 2.0, np.nan, 5.0], f32)
    check_exact(lax.clamp(np.float32(1.0), x, np.float32(3.0)), [1.0, 2.0, np.nan, 3.0], f32)
    check_exact(lax.clamp(np.float32(3.0), x[[0, 1, 3]], np.float32(1.0)), [1.0, 1.0, 1.0], f32)
    check_exact(lax.clamp(np.zeros(3, f32), np.array([-1.0, 0.5, 2.0], f32), 1.0),
                [0.0, 0.5, 1.0], f32)
    check_exact(lax.clamp(0.0, np.float32(1.5), 1.0), 1.0, f32)
    check_exact(lax.clamp(0.0, 5.0, 1.0), 1.0, f32, weak=True)
    check_exact(lax.clamp(np.int32(0), np.array([-5, 3, 9], i32), np.int32(4)), [0, 3, 4], i32)


@pytest.mark.parametrize("args, message", [
    ((0, np.float32(1.5), 1),
     "lax.clamp requires arguments to have the same dtypes, got int32, float32, int32."),
    ((np.zeros(2, f32), np.ones(3, f32), np.float32(2)),
     "clamp requires min.shape == operand.shape or min.shape == (), got min.shape=(2,), "
     "operand.shape=(3,)."),
    ((np.float32(0), np.ones(3, f32), np.ones(2, f32)),
     "clamp requires max.shape == operand.shape or max.shape == (), got max.shape=(2,), "
     "operand.shape=(3,)."),
    ((np.zeros(3, f32), np.float32(1), np.float32(2)),
     "clamp requires min.shape == operand.shape or min.shape == (), got min.shape=(3,), "
     "operand.shape=()."),
])
def test_clamp_errors(args, message):
    with raises(TypeError, message):
        lax.clamp(*args)


# --------------------------------------------------------------------------------
# bitcast_convert_type and reduce_precision
# --------------------------------------------------------------------------------
def test_bitcast_convert_type():
    # expected values from JAX 0.10.2
    check_exact(lax.bitcast_convert_type(np.float32(1.5), np.int32), 1069547520, i32)
    check_exact(lax.bitcast_convert_type(1.0, np.int32), 1065353216, i32)  # never weak
    check_exact(lax.bitcast_convert_type(np.float32(1.5), np.int8), [0, 0, -64, 63], i8)
    check_exact(lax.bitcast_convert_type(np.float32(1.5), np.uint16), [0, 16320], np.uint16)
    check_exact(lax.bitcast_convert_type(np.ones(4, i8), np.int32), 16843009, i32)
    x = np.arange(8, dtype=u8).reshape(2, 4)
    check_exact(lax.bitcast_convert_type(x, np.float32), x.view(f32)[:, 0], f32)
    # 64-bit dtypes are canonicalized to 32-bit ones
    check_exact(lax.bitcast_convert_type(np.float32(1.5), np.float64), 1.5, f32)


def test_bitcast_convert_type_errors():
    with raises(ValueError, "Attempting to convert array of shape (3,) from int8 of size 8 "
                            "bits to int32 of size 32, bits but 3 * 8 != 32"):
        lax.bitcast_convert_type(np.ones(3, i8), np.int32)
    with raises(TypeError, "lax.bitcast_convert_type does not support bool or complex values "
                           "unless the operand and destination types match. Got operand "
                           "dtype=float32, new_dtype=dtype('bool'). Consider using the "
                           "arr.view() method instead."):
        lax.bitcast_convert_type(np.float32(1), np.bool_)


def test_reduce_precision():
    # expected values from JAX 0.10.2: rounds to nearest even, overflows to inf,
    # flushes values below the smallest normal of the narrow format to (signed) zero
    x = np.array([1.1, 1e10, -1e-10, np.nan, -np.inf, 65504.0, 65520.0, 1.00048828125,
                  1.00146484375, 3e-5, -0.0], f32)
    check_exact(lax.reduce_precision(x, 5, 10),
                [1.099609375, np.inf, -0.0, np.nan, -np.inf, 65504.0, np.inf, 1.0,
                 1.001953125, 0.0, -0.0], f32)
    check_exact(lax.reduce_precision(np.array([1.1, 1.5, 1.75, 2.5, np.nan], f32), 8, 0),
                [1.0, 2.0, 2.0, 2.0, np.nan], f32)
    check_exact(lax.reduce_precision(np.array([1.1, 3.3], f32), 8, 7), [1.1015625, 3.296875], f32)
    check_exact(lax.reduce_precision(np.array([1.1, 3.3, 1e4], np.float16), 3, 2),
                [1.0, 3.5, np.inf], np.float16)
    check(lax.reduce_precision(1.1, 5, 10), 1.0996094, f32, weak=True)
    with raises(ValueError, "reduce_precision: exponent_bits must be positive; got 0"):
        lax.reduce_precision(np.float32(1), 0, 10)
    with raises(ValueError, "reduce_precision: mantissa_bits must be non-negative; got -1"):
        lax.reduce_precision(np.float32(1), 5, -1)
    with raises(TypeError, "reduce_precision does not accept dtype int32. Accepted dtypes are "
                           "subtypes of floating."):
        lax.reduce_precision(np.int32(1), 5, 10)


# --------------------------------------------------------------------------------
# Weak types, dtype families and shape errors
# --------------------------------------------------------------------------------
def test_weak_type_rules():
    check_exact(lax.add(1.0, 2.0), 3.0, f32, weak=True)
    check_exact(lax.add(np.float32(1.5), 1.0), 2.5, f32, weak=False)
    check_exact(lax.add(1, 2), 3, i32, weak=True)
    check_exact(lax.sin(0.0), 0.0, f32, weak=True)
    check_exact(lax.neg(1), -1, i32, weak=True)
    check_exact(lax.lt(1.0, 2.0), True, np.bool_, weak=True)  # as in JAX 0.10.2
    check_exact(lax.eq(1, 2), False, np.bool_, weak=True)
    check_exact(lax.lt(np.float32(1.0), 2.0), True, np.bool_, weak=False)


@pytest.mark.parametrize("call, message", [
    (lambda: lax.sin(np.int32(1)),
     "sin does not accept dtype int32. Accepted dtypes are subtypes of floating, "
     "complexfloating."),
    (lambda: lax.sin(1),
     "sin does not accept dtype int32. Accepted dtypes are subtypes of floating, "
     "complexfloating."),
    (lambda: lax.floor(np.int32(1)),
     "floor does not accept dtype int32. Accepted dtypes are subtypes of floating."),
    (lambda: lax.cbrt(np.complex64(1)),
     "cbrt does not accept dtype complex64. Accepted dtypes are subtypes of floating."),
    (lambda: lax.erf(np.complex64(1)),
     "erf does not accept dtype complex64. Accepted dtypes are subtypes of floating."),
    (lambda: lax.is_finite(np.int32(1)),
     "is_finite does not accept dtype int32. Accepted dtypes are subtypes of floating."),
    (lambda: lax.abs(np.uint32(3)),
     "abs does not accept dtype uint32. Accepted dtypes are subtypes of floating, "
     "complexfloating, signedinteger."),
    (lambda: lax.sign(np.True_),
     "sign does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
     "complexfloating."),
    (lambda: lax.square(np.True_),
     "square does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
     "complexfloating."),
    (lambda: lax.bitwise_not(np.float32(1)),
     "not does not accept dtype float32. Accepted dtypes are subtypes of integer, bool."),
    (lambda: lax.population_count(np.True_),
     "population_count does not accept dtype bool. Accepted dtypes are subtypes of integer."),
    (lambda: lax.clz(np.float32(1)),
     "clz does not accept dtype float32. Accepted dtypes are subtypes of integer."),
    (lambda: lax.add(True, False),
     "add does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, floating, complexfloating."),
    (lambda: lax.div(np.True_, np.True_),
     "div does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, floating, complexfloating."),
    (lambda: lax.rem(np.complex64(1), np.complex64(1)),
     "rem does not accept dtype complex64 at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, floating."),
    (lambda: lax.atan2(np.int32(1), np.int32(1)),
     "atan2 does not accept dtype int32 at position 0. Accepted dtypes at position 0 are "
     "subtypes of floating, complexfloating."),
    (lambda: lax.nextafter(np.complex64(1), np.complex64(1)),
     "nextafter does not accept dtype complex64 at position 0. Accepted dtypes at position 0 "
     "are subtypes of floating."),
    (lambda: lax.bitwise_and(np.float32(1), np.float32(1)),
     "and does not accept dtype float32 at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool."),
    (lambda: lax.shift_left(np.float32(1), np.float32(1)),
     "shift_left does not accept dtype float32 at position 0. Accepted dtypes at position 0 "
     "are subtypes of integer."),
    (lambda: lax.add(np.float32(1), 1),
     "lax.add requires arguments to have the same dtypes, got float32, int32. (Tip: jnp.add "
     "is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.mul(np.float32(1), np.int32(1)),
     "lax.mul requires arguments to have the same dtypes, got float32, int32. (Tip: "
     "jnp.multiply is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.max(np.float32(1), np.True_),
     "lax.max requires arguments to have the same dtypes, got float32, bool. (Tip: "
     "jnp.maximum is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.lt(np.float32(1), np.int32(1)),
     "lax.lt requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.add(np.ones((2, 3), f32), np.ones(3, f32)),
     "add: arrays must have the same number of dimensions, got {1, 2}"),
    (lambda: lax.add(np.ones((2, 3), f32), np.ones((3, 2), f32)),
     "add got incompatible shapes for broadcasting: (2, 3), (3, 2)."),
    (lambda: lax.lt(np.ones(2, f32), np.ones(3, f32)),
     "lt got incompatible shapes for broadcasting: (2,), (3,)."),
])
def test_errors_match_jax(call, message):
    # messages from JAX 0.10.2
    with raises(TypeError, message):
        call()


def test_abstract_eval_gives_shape_dtype_and_weak_type():
    # what tracing sees: no values, only avals
    from minijax.lax.elementwise import add_p, is_finite_p, lt_p, round_p, sin_p
    f = ShapedArray((2, 1), f32)
    w = ShapedArray((), f32, weak_type=True)
    assert abstract_eval_rules[add_p](f, ShapedArray((1, 3), f32)) == ShapedArray((2, 3), f32)
    assert abstract_eval_rules[add_p](w, w) == w
    assert abstract_eval_rules[lt_p](f, w) == ShapedArray((2, 1), np.bool_)
    assert abstract_eval_rules[sin_p](w) == w
    assert abstract_eval_rules[is_finite_p](f) == ShapedArray((2, 1), np.bool_)
    assert abstract_eval_rules[round_p](
        f, rounding_method=lax.RoundingMethod.AWAY_FROM_ZERO) == f


# --------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------
def _floats(lo, hi):
    return st.floats(lo, hi, width=32, allow_nan=False, allow_infinity=False)


PROPERTY_UNARY = [
    (lax.exp, np.exp, _floats(-20, 20)), (lax.log, np.log, _floats(2.0 ** -10, 1e6)),
    (lax.sin, np.sin, _floats(-10, 10)), (lax.tanh, np.tanh, _floats(-10, 10)),
    (lax.sqrt, np.sqrt, _floats(0, 1e6)), (lax.floor, np.floor, _floats(-1e6, 1e6)),
    (lax.abs, np.abs, _floats(-1e6, 1e6)), (lax.expm1, np.expm1, _floats(-5, 5)),
    (lax.logistic, scipy.special.expit, _floats(-50, 50)),
    (lax.round, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), _floats(-1e3, 1e3)),
]


@pytest.mark.parametrize("fn, ref, elements", PROPERTY_UNARY,
                         ids=[p[0].__name__ for p in PROPERTY_UNARY])
@given(data=st.data())
def test_unary_float_property(fn, ref, elements, data):
    x = data.draw(hnp.arrays(f32, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
                             elements=elements))
    out = fn(x)
    assert out.shape == x.shape and out.dtype == f32 and not out.weak_type
    np.testing.assert_allclose(np.asarray(out), ref(x.astype(np.float64)).astype(f32),
                               rtol=2e-6, atol=1e-6)


@st.composite
def _broadcastable_pair(draw, dtype, elements):
    """Two arrays lax can combine: rank 0, or equal ranks whose dims agree or are 1."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))

    def operand_shape():
        if draw(st.booleans()) and draw(st.booleans()):
            return ()
        return tuple(d if draw(st.booleans()) else 1 for d in shape)

    return (draw(hnp.arrays(dtype, operand_shape(), elements=elements)),
            draw(hnp.arrays(dtype, operand_shape(), elements=elements)))


PROPERTY_BINARY = [
    (lax.add, np.add), (lax.sub, np.subtract), (lax.mul, np.multiply),
    (lax.max, np.maximum), (lax.min, np.minimum), (lax.lt, np.less), (lax.eq, np.equal),
]


@pytest.mark.parametrize("fn, ref", PROPERTY_BINARY, ids=[p[0].__name__ for p in PROPERTY_BINARY])
@given(data=st.data())
def test_binary_broadcasting_property(fn, ref, data):
    for dtype, elements in ((f32, _floats(-1e3, 1e3)), (i32, st.integers(-1000, 1000))):
        x, y = data.draw(_broadcastable_pair(dtype, elements))
        out = fn(x, y)
        expected = ref(x, y)
        assert out.shape == np.broadcast_shapes(x.shape, y.shape)
        assert out.dtype == expected.dtype and not out.weak_type
        np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)


@given(data=st.data())
def test_integer_div_rem_property(data):
    x, y = data.draw(_broadcastable_pair(i32, st.integers(-10**6, 10**6)))
    y = np.where(y == 0, 1, y).astype(i32)
    q, r = np.asarray(lax.div(x, y)), np.asarray(lax.rem(x, y))
    np.testing.assert_array_equal(q, np.trunc(x / y).astype(i32))   # toward zero
    np.testing.assert_array_equal(q * y + r, np.broadcast_to(x, q.shape))
    assert np.all((r == 0) | (np.sign(r) == np.sign(np.broadcast_to(x, r.shape))))
