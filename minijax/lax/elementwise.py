"""Chapter 00 — elementwise primitives: math, comparisons, logic, conversions.

Each primitive is one line built by :func:`unop` or :func:`naryop` (thin
versions of :func:`minijax.lax.base.standard_primitive` that raise JAX's exact
dtype errors) plus its NumPy impl, followed by its ``lax`` wrapper with JAX's
signature. Semantics follow XLA, not NumPy, where they differ, and the impl
rules say so where it matters:

- integer ``div`` truncates toward zero and ``rem`` takes the dividend's sign
  (C's ``/`` and ``fmod``); dividing an integer by zero gives ``-1`` (all bits
  set) and its remainder is the dividend;
- ``max``/``min`` propagate NaN, and compare complex numbers lexicographically;
- shifts by at least the bit width give ``0`` (or the sign, for an arithmetic
  right shift) instead of being undefined;
- ``round`` rounds halves away from zero unless told otherwise;
- float -> int conversion truncates and saturates (NaN becomes ``0``).

``lax`` does no implicit type promotion: ``lax.add(int32, float32)`` is an
error (``jnp.add`` is the function that promotes). Python scalars are accepted
and are weakly typed, but their dtype must still match. A result is weakly
typed when every operand is (``lax.add(1., 2.)`` is a weak float32, and so is
``lax.lt(1., 2.)`` a weak bool, exactly as in JAX).

The ``accuracy`` keyword of the transcendental functions and ``out_dtype`` of
``mul`` become primitive params only when given, so that an equation prints as
JAX prints it (JAX hides them when they are ``None``).
"""
from __future__ import annotations

import builtins
import enum
import operator

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray, get_aval
from minijax.array import Array, array_from_numpy
from minijax.lax import xla_math32
from minijax.lax.base import (ANY, BOOL_OR_INT, COMPLEX, COMPLEX_OR_PARTS, COMPLEX_PARTS,
                              FLOAT, INEXACT, INT, INT_OR_FLOAT, NUM, ORDERED,
                              SIGNED_OR_INEXACT, check_family, check_same_dtypes, naryop, numpy_impl,
                              same_shape, standard_primitive, unop)

__all__ = [
    # arithmetic
    "neg", "sign", "add", "sub", "mul", "div", "rem", "max", "min", "abs",
    "square", "integer_pow", "reciprocal", "pow", "nextafter",
    # rounding and classification
    "floor", "ceil", "round", "RoundingMethod", "is_finite",
    # exponentials, logarithms, roots
    "exp", "exp2", "log", "log1p", "expm1", "logistic", "sqrt", "rsqrt", "cbrt",
    # trigonometric and hyperbolic
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    # special functions
    "erf", "erfc", "erf_inv", "lgamma", "digamma",
    # complex numbers
    "real", "imag", "complex", "conj",
    # bits
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "population_count", "clz",
    "shift_left", "shift_right_logical", "shift_right_arithmetic",
    # comparisons
    "eq", "ne", "lt", "le", "gt", "ge",
    # selection
    "select_n", "select", "clamp",
    # conversions
    "convert_element_type", "bitcast_convert_type", "reduce_precision",
    # differentiation
    "stop_gradient",
]


def _accuracy(accuracy) -> dict:
    """The ``accuracy`` param, present only when given (NumPy has one implementation)."""
    return {} if accuracy is None else {"accuracy": accuracy}


def _canonical(dtype) -> np.dtype:
    """The stored dtype for a user's dtype-like (``np.float64`` -> float32)."""
    return dtypes.canonicalize_dtype(dtypes.dtype(dtype))


def _all_ones(dtype) -> np.ndarray:
    """``-1`` in ``dtype``: every bit set (the largest value of an unsigned type)."""
    return np.array(-1).astype(dtype)


def _as_unsigned(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _as_signed(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"i{x.dtype.itemsize}"))


def _jax_str(aval: ShapedArray) -> str:
    """An aval as JAX writes it in messages: ``int32[2,3]``, ``~int32[]`` when weak."""
    return (f"{'~' if aval.weak_type else ''}{aval.dtype.name}"
            f"[{','.join(str(d) for d in aval.shape)}]")


def _real_dtype(dtype) -> np.dtype:
    """complex64 -> float32; any other dtype is its own "real" dtype."""
    return np.abs(np.zeros((), dtype)).dtype


def _complex_dtype(dtype) -> np.dtype:
    """float32 -> complex64 (complex dtypes are their own)."""
    return np.result_type(dtype, np.complex64)


def _bool_dtype(*avals) -> np.dtype:
    return dtypes.bool_


def _in_float64(fn):
    """``fn`` computed in double precision and rounded back to the input's dtype.

    NumPy's float32 transcendental loops may be off by an ulp (``sin(1)`` gives
    ``0.841471``); XLA's are closer to correctly rounded (``0.84147096``).
    Computing in float64 and rounding once gives JAX's float32 results in
    nearly every case.
    """
    def impl(x):
        wide = np.complex128 if np.iscomplexobj(x) else np.float64
        return fn(x.astype(wide)).astype(x.dtype)
    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl


# --- arithmetic -----------------------------------------------------------------------
def _sign_impl(x):
    if np.issubdtype(x.dtype, np.complexfloating):  # the phase x / |x|, 0 at 0
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))
    if dtypes.issubdtype(x.dtype, np.floating):
        return np.where(x == 0, x, np.sign(x))  # keeps the zero's sign: sign(-0.) is -0.
    return np.sign(x)


def _mul_impl(x, y, out_dtype=None):
    if out_dtype is not None:  # multiply in the output dtype
        x, y = x.astype(_canonical(out_dtype)), y.astype(_canonical(out_dtype))
    return np.multiply(x, y)


def _safe_divisor(x, y):
    """``y`` with 1 where XLA defines integer division specially.

    Those are division by zero and, for signed types, ``INT_MIN / -1`` (whose
    quotient overflows back to ``INT_MIN`` and whose remainder is ``0``: just
    what dividing by 1 gives).
    """
    special = y == 0
    if np.issubdtype(y.dtype, np.signedinteger):
        special = special | ((x == np.iinfo(x.dtype).min) & (y == -1))
    return np.where(special, np.ones((), y.dtype), y)


#: The dtypes whose division by a constant or a broadcast value XLA computes as
#: a product with the reciprocal (its algebraic simplifier's rewrite):
#: bfloat16 and float8 are divided in float32 and rounded once instead.
RECIPROCAL_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _div_impl(x, y):
    if x.dtype in RECIPROCAL_DTYPES and np.shape(y) != np.broadcast_shapes(
            np.shape(x), np.shape(y)):
        # XLA divides by a broadcast divisor as ``x * (1 / y)`` (its algebraic
        # simplifier's rewrite; see ``backends/plan/passes.divide_by_reciprocal``):
        # JAX's eager ``x / 3.0`` on an array gives those bits, so we do too.
        return np.multiply(x, np.true_divide(np.ones((), y.dtype), y))
    if not np.issubdtype(x.dtype, np.integer):
        return np.true_divide(x, y)
    # XLA truncates toward zero (C's ``/``); NumPy's ``//`` floors.
    d = _safe_divisor(x, y)
    q = np.floor_divide(x, d)
    q = q + ((np.remainder(x, d) != 0) & ((x < 0) != (d < 0))).astype(q.dtype)
    return np.where(y == 0, _all_ones(x.dtype), q)  # x / 0 is -1: all bits set


def _rem_impl(x, y):
    # C's fmod: the result has the sign of the dividend (NumPy's ``%`` uses the divisor's)
    if np.issubdtype(x.dtype, np.integer):
        return np.where(y == 0, x, np.fmod(x, _safe_divisor(x, y)))
    return np.fmod(x, y)


def _minmax_impl(take_max: bool):
    """XLA's max/min: NaN propagates, -0 < +0, complex numbers compare as (re, im) pairs."""
    def impl(x, y):
        if np.issubdtype(x.dtype, np.complexfloating):
            cmp = np.greater if take_max else np.less
            x_wins = np.where(x.real == y.real, cmp(x.imag, y.imag), cmp(x.real, y.real))
            return np.where(x_wins, x, y)
        out = np.maximum(x, y) if take_max else np.minimum(x, y)
        if dtypes.issubdtype(x.dtype, np.floating):
            # NumPy returns either zero when both are; x + y is -0 only if both are -0
            zeros = (x + y) if take_max else -((-x) + (-y))
            out = np.where((x == 0) & (y == 0), zeros, out)
        return out
    return impl


def _integer_pow_impl(x, *, y):
    # XLA's algorithm (square-and-multiply), so float results round the same way
    if y == 0:
        return np.ones_like(x)
    acc, base, n = None, x, builtins.abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else acc * base
        n >>= 1
        if n:
            base = base * base
    return np.ones((), x.dtype) / acc if y < 0 else acc


def _integer_pow_dtype_rule(x, *, y):
    check_family("integer_pow", x, NUM)
    if y < 0 and np.issubdtype(x.dtype, np.integer):
        raise TypeError("Integers cannot be raised to negative powers, got "
                        f"integer_pow({_jax_str(x)}, {y})")
    return x.dtype


def _pow_dtype_rule(x, y):
    if dtypes.issubdtype(x.dtype, np.inexact) and np.issubdtype(y.dtype, np.integer):
        return x.dtype
    if x.dtype == y.dtype:
        return x.dtype
    raise TypeError("the first argument to pow must have an inexact dtype (float "
                    "or complex), and the second argument must have an inexact or"
                    " integer dtype, and two inexact dtypes must match, but got "
                    f"{x.dtype} and {y.dtype} respectively.")


neg_p = unop("neg", np.negative, NUM, linear_in=(0,))
sign_p = unop("sign", _sign_impl, NUM)
add_p = naryop("add", np.add, [NUM, NUM], linear_in=(0, 1))
sub_p = naryop("sub", np.subtract, [NUM, NUM], linear_in=(0, 1))
mul_p = naryop("mul", _mul_impl, [NUM, NUM], params=("out_dtype",), bilinear=True)
div_p = naryop("div", _div_impl, [NUM, NUM], linear_in=(0,))
rem_p = naryop("rem", _rem_impl, [INT_OR_FLOAT, INT_OR_FLOAT])
max_p = naryop("max", _minmax_impl(take_max=True), [ANY, ANY])
min_p = naryop("min", _minmax_impl(take_max=False), [ANY, ANY])
abs_p = unop("abs", np.abs, SIGNED_OR_INEXACT, result_dtype=_real_dtype)
square_p = unop("square", np.square, NUM)
integer_pow_p = standard_primitive(
    "integer_pow", same_shape, _integer_pow_dtype_rule,
    numpy_impl(_integer_pow_impl, ("y",)), weak_type_rule=lambda x, **_: x.weak_type,
    kind="elementwise")
pow_p = naryop("pow", lambda x, y: np.power(x, y.astype(x.dtype)), [INEXACT, NUM],
                result_dtype=_pow_dtype_rule, same_dtypes=False, transcendental=True)
nextafter_p = naryop("nextafter", np.nextafter, [FLOAT, FLOAT])


def neg(x):
    r"""Elementwise negation: :math:`-x` (wraps around for ``INT_MIN``)."""
    return neg_p.bind(x)


def sign(x):
    r"""Elementwise sign: -1, 0 or 1 (``-0.`` and NaN are kept; ``x/|x|`` for complex)."""
    return sign_p.bind(x)


def add(x, y):
    r"""Elementwise addition: :math:`x + y`."""
    return add_p.bind(x, y)


def sub(x, y):
    r"""Elementwise subtraction: :math:`x - y`."""
    return sub_p.bind(x, y)


def mul(x, y, *, out_dtype=None):
    r"""Elementwise multiplication: :math:`x \times y`.

    With ``out_dtype``, both operands are cast to it first (they may then have
    different dtypes).
    """
    if out_dtype is None:
        return mul_p.bind(x, y)
    return mul_p.bind(x, y, out_dtype=out_dtype)


def div(x, y):
    r"""Elementwise division: :math:`x \over y`; integer division truncates toward zero."""
    return div_p.bind(x, y)


def rem(x, y):
    r"""Elementwise remainder: :math:`x \bmod y`, with the sign of the dividend ``x``."""
    return rem_p.bind(x, y)


def max(x, y):
    r"""Elementwise maximum: :math:`\mathrm{max}(x, y)`; NaN propagates."""
    return max_p.bind(x, y)


def min(x, y):
    r"""Elementwise minimum: :math:`\mathrm{min}(x, y)`; NaN propagates."""
    return min_p.bind(x, y)


def abs(x):
    r"""Elementwise absolute value: :math:`|x|` (a real dtype for complex ``x``)."""
    return abs_p.bind(x)


def square(x):
    r"""Elementwise square: :math:`x^2`."""
    return square_p.bind(x)


def integer_pow(x, y: int):
    r"""Elementwise power: :math:`x^y`, where :math:`y` is a static integer."""
    return integer_pow_p.bind(x, y=y)


def reciprocal(x):
    r"""Elementwise reciprocal: :math:`1 \over x`."""
    return integer_pow(x, -1)


def pow(x, y):
    r"""Elementwise power: :math:`x^y`; ``x`` inexact, ``y`` of ``x``'s dtype or integer."""
    return pow_p.bind(x, y)


def nextafter(x1, x2):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(x1, x2)


# --- rounding and classification ---------------------------------------------------
class RoundingMethod(enum.IntEnum):
    """How :func:`round` treats halfway values such as ``0.5``."""

    AWAY_FROM_ZERO = 0
    """Halves round away from zero: 0.5 -> 1, -0.5 -> -1."""

    TO_NEAREST_EVEN = 1
    """Halves round to the even neighbour ("banker's rounding"): 0.5 -> 0, 1.5 -> 2."""


def _round_impl(x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    t = np.trunc(x)  # x - t is exact, unlike x + 0.5
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


floor_p = unop("floor", np.floor, FLOAT)
ceil_p = unop("ceil", np.ceil, FLOAT)
round_p = unop("round", _round_impl, FLOAT, params=("rounding_method",))
is_finite_p = unop("is_finite", np.isfinite, FLOAT, result_dtype=_bool_dtype)


def floor(x):
    r"""Elementwise floor: :math:`\left\lfloor x \right\rfloor`."""
    return floor_p.bind(x)


def ceil(x):
    r"""Elementwise ceiling: :math:`\left\lceil x \right\rceil`."""
    return ceil_p.bind(x)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    r"""Elementwise round to the nearest integer; halves as ``rounding_method`` says."""
    rounding_method = RoundingMethod(rounding_method)
    return round_p.bind(x, rounding_method=rounding_method)


def is_finite(x):
    r"""Elementwise :math:`\mathrm{isfinite}`: False for :math:`\pm\infty` and NaN."""
    return is_finite_p.bind(x)


def _scipy_special(name: str):
    """``scipy.special.<name>``, imported at first use: SciPy's import costs a
    quarter of a second, which only programs using these functions should pay."""
    def f(*args):
        from scipy import special
        return getattr(special, name)(*args)
    f.__name__ = name
    return f


_expit, _psi, _erfinv = (_scipy_special(n) for n in ("expit", "psi", "erfinv"))


# --- exponentials, logarithms, roots ---------------------------------------------------
def _logistic_impl(x):
    if dtypes.issubdtype(x.dtype, np.floating):
        return _expit(x)  # no overflow for large negative x
    return 1 / (1 + np.exp(-x))


def _xla_float32(recipe, other):
    """The impl rule: XLA's float32 algorithm (:mod:`.xla_math32`, JAX's bits)
    for a float32 ``x``, ``other(x)`` for every other dtype."""
    on_float32 = xla_math32.on_float32(recipe)

    def impl(x):
        return on_float32(x) if x.dtype == np.float32 else other(x)
    impl.__name__ = f"{recipe.__name__}_impl"
    return impl


exp_p = unop("exp", _xla_float32(xla_math32.exp32, _in_float64(np.exp)), INEXACT,
             transcendental=True)
exp2_p = unop("exp2", _in_float64(np.exp2), INEXACT, transcendental=True)
log_p = unop("log", _xla_float32(xla_math32.log32, _in_float64(np.log)), INEXACT,
             transcendental=True)
log1p_p = unop("log1p", _xla_float32(xla_math32.log1p32, _in_float64(np.log1p)), INEXACT,
               transcendental=True)
expm1_p = unop("expm1", _xla_float32(xla_math32.expm1_whole, _in_float64(np.expm1)), INEXACT,
               transcendental=True)
logistic_p = unop("logistic", _xla_float32(xla_math32.logistic32, _logistic_impl), INEXACT,
                  transcendental=True)
sqrt_p = unop("sqrt", np.sqrt, INEXACT, transcendental=True)
rsqrt_p = unop("rsqrt", _in_float64(lambda x: 1 / np.sqrt(x)), INEXACT, transcendental=True)
# NumPy's float32 cbrt is off by an ulp even for cubes (cbrt(-27.) = -2.9999998);
# computing in float64 gives the correctly rounded result, as XLA does.
cbrt_p = unop("cbrt", _in_float64(np.cbrt), FLOAT, transcendental=True)


def exp(x, *, accuracy=None):
    r"""Elementwise exponential: :math:`e^x`."""
    return exp_p.bind(x, **_accuracy(accuracy))


def exp2(x, *, accuracy=None):
    r"""Elementwise base-2 exponential: :math:`2^x`."""
    return exp2_p.bind(x, **_accuracy(accuracy))


def log(x, *, accuracy=None):
    r"""Elementwise natural logarithm: :math:`\log x`."""
    return log_p.bind(x, **_accuracy(accuracy))


def log1p(x, *, accuracy=None):
    r"""Elementwise :math:`\log(1 + x)`, accurate for small ``x``."""
    return log1p_p.bind(x, **_accuracy(accuracy))


def expm1(x, *, accuracy=None):
    r"""Elementwise :math:`e^x - 1`, accurate for small ``x``."""
    return expm1_p.bind(x, **_accuracy(accuracy))


def logistic(x, *, accuracy=None):
    r"""Elementwise logistic (sigmoid) function: :math:`\frac{1}{1 + e^{-x}}`."""
    return logistic_p.bind(x, **_accuracy(accuracy))


def sqrt(x, *, accuracy=None):
    r"""Elementwise square root: :math:`\sqrt{x}`."""
    return sqrt_p.bind(x, **_accuracy(accuracy))


def rsqrt(x, *, accuracy=None):
    r"""Elementwise reciprocal square root: :math:`1 \over \sqrt{x}`."""
    return rsqrt_p.bind(x, **_accuracy(accuracy))


def cbrt(x, *, accuracy=None):
    r"""Elementwise cube root: :math:`\sqrt[3]{x}` (real: ``cbrt(-8.)`` is ``-2.``)."""
    return cbrt_p.bind(x, **_accuracy(accuracy))


# --- trigonometric and hyperbolic --------------------------------------------------------
def _atan2_impl(x, y):
    if np.issubdtype(x.dtype, np.complexfloating):  # NumPy's arctan2 is real only
        return -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y))
    return np.arctan2(x, y)


sin_p = unop("sin", _in_float64(np.sin), INEXACT, transcendental=True)
cos_p = unop("cos", _in_float64(np.cos), INEXACT, transcendental=True)
tan_p = unop("tan", _in_float64(np.tan), INEXACT, transcendental=True)
asin_p = unop("asin", _in_float64(np.arcsin), INEXACT, transcendental=True)
acos_p = unop("acos", _in_float64(np.arccos), INEXACT, transcendental=True)
atan_p = unop("atan", _in_float64(np.arctan), INEXACT, transcendental=True)
atan2_p = naryop("atan2", _atan2_impl, [INEXACT, INEXACT], transcendental=True)
sinh_p = unop("sinh", _in_float64(np.sinh), INEXACT, transcendental=True)
cosh_p = unop("cosh", _in_float64(np.cosh), INEXACT, transcendental=True)
tanh_p = unop("tanh", _xla_float32(xla_math32.tanh32, _in_float64(np.tanh)), INEXACT,
              transcendental=True)
asinh_p = unop("asinh", _in_float64(np.arcsinh), INEXACT, transcendental=True)
acosh_p = unop("acosh", _in_float64(np.arccosh), INEXACT, transcendental=True)
atanh_p = unop("atanh", _in_float64(np.arctanh), INEXACT, transcendental=True)


def sin(x, *, accuracy=None):
    r"""Elementwise sine: :math:`\sin x`."""
    return sin_p.bind(x, **_accuracy(accuracy))


def cos(x, *, accuracy=None):
    r"""Elementwise cosine: :math:`\cos x`."""
    return cos_p.bind(x, **_accuracy(accuracy))


def tan(x, *, accuracy=None):
    r"""Elementwise tangent: :math:`\tan x`."""
    return tan_p.bind(x, **_accuracy(accuracy))


def asin(x):
    r"""Elementwise arc sine: :math:`\mathrm{asin}(x)`."""
    return asin_p.bind(x)


def acos(x):
    r"""Elementwise arc cosine: :math:`\mathrm{acos}(x)`."""
    return acos_p.bind(x)


def atan(x):
    r"""Elementwise arc tangent: :math:`\mathrm{atan}(x)`."""
    return atan_p.bind(x)


def atan2(x, y):
    r"""Elementwise two-argument arc tangent: :math:`\mathrm{atan}({x \over y})`, by quadrant."""
    return atan2_p.bind(x, y)


def sinh(x):
    r"""Elementwise hyperbolic sine: :math:`\mathrm{sinh}(x)`."""
    return sinh_p.bind(x)


def cosh(x):
    r"""Elementwise hyperbolic cosine: :math:`\mathrm{cosh}(x)`."""
    return cosh_p.bind(x)


def tanh(x, *, accuracy=None):
    r"""Elementwise hyperbolic tangent: :math:`\mathrm{tanh}(x)`."""
    return tanh_p.bind(x, **_accuracy(accuracy))


def asinh(x):
    r"""Elementwise inverse hyperbolic sine: :math:`\mathrm{asinh}(x)`."""
    return asinh_p.bind(x)


def acosh(x):
    r"""Elementwise inverse hyperbolic cosine: :math:`\mathrm{acosh}(x)`."""
    return acosh_p.bind(x)


def atanh(x):
    r"""Elementwise inverse hyperbolic tangent: :math:`\mathrm{atanh}(x)`."""
    return atanh_p.bind(x)


# --- special functions ------------------------------------------------------------------
def _digamma_impl(x):
    pole = (x <= 0) & (x == np.floor(x))  # XLA gives NaN at 0 and the negative integers
    return np.where(pole, np.nan, _psi(x))


erf_p = unop("erf", _xla_float32(xla_math32.erf32, _in_float64(_scipy_special("erf"))), FLOAT,
             transcendental=True)
erfc_p = unop("erfc", _in_float64(_scipy_special("erfc")), FLOAT, transcendental=True)
# XLA computes float32 erf_inv with Giles' single-precision polynomials
# ("Approximating the erfinv function", 2010) in w = -log1p(-x*x), evaluated with
# fused multiply-adds and XLA's own float32 log1p (:mod:`.xla_math32`). Doing the
# same gives XLA's bits for every input we tried, against ~34% for a correctly
# rounded erfinv; random.normal is built on it, so this is what makes its samples
# JAX's.
_ERF_INV_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERF_INV_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                  0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _fma_horner(coeffs, w: np.ndarray) -> np.ndarray:
    """Horner's rule in float32 with each step a fused multiply-add."""
    p = np.full(w.shape, coeffs[0], np.float32)
    for c in coeffs[1:]:
        p = xla_math32.fma(p, w, np.float32(c))
    return p


def _erf_inv_impl(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float64:
        return _erfinv(x)
    x32 = x.astype(np.float32)
    with np.errstate(all="ignore"):
        w = -xla_math32.log1p32(-(x32 * x32))  # XLA's float32 log1p
        small = _fma_horner(_ERF_INV_SMALL, (w - np.float32(2.5)).astype(np.float32))
        large = _fma_horner(_ERF_INV_LARGE, (np.sqrt(w) - np.float32(3)).astype(np.float32))
        p = np.where(w < np.float32(5), small, large)
        out = (p * xla_math32.flush(x32)).astype(np.float32)  # XLA flushes a subnormal x
    out = np.where(np.abs(x32) == 1, np.copysign(np.float32(np.inf), x32), out)
    out = np.where(np.abs(x32) > 1, np.float32(np.nan), out)
    return out.astype(x.dtype)


erf_inv_p = unop("erf_inv", _erf_inv_impl, FLOAT, transcendental=True)
lgamma_p = unop("lgamma", _in_float64(_scipy_special("gammaln")), FLOAT,
                transcendental=True)
digamma_p = unop("digamma", _digamma_impl, FLOAT, transcendental=True)


def erf(x):
    r"""Elementwise error function: :math:`\mathrm{erf}(x)`."""
    return erf_p.bind(x)


def erfc(x):
    r"""Elementwise complementary error function: :math:`1 - \mathrm{erf}(x)`."""
    return erfc_p.bind(x)


def erf_inv(x):
    r"""Elementwise inverse error function: :math:`\mathrm{erf}^{-1}(x)`."""
    return erf_inv_p.bind(x)


def lgamma(x):
    r"""Elementwise log gamma: :math:`\mathrm{log}(|\Gamma(x)|)`."""
    return lgamma_p.bind(x)


def digamma(x):
    r"""Elementwise digamma: :math:`\psi(x)`, the derivative of :math:`\log \Gamma(x)`."""
    return digamma_p.bind(x)


# --- complex numbers -----------------------------------------------------------------
def _complex_impl(x, y):
    # built part by part: x + 1j * y would turn inf * 1j into nan + inf j
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), _complex_dtype(x.dtype))
    out.real, out.imag = x, y
    return out


real_p = unop("real", np.real, COMPLEX, result_dtype=_real_dtype, linear_in=(0,))
imag_p = unop("imag", np.imag, COMPLEX, result_dtype=_real_dtype, linear_in=(0,))
complex_p = naryop("complex", _complex_impl, [COMPLEX_PARTS, COMPLEX_PARTS],
                    result_dtype=lambda x, y: _complex_dtype(x.dtype), linear_in=(0, 1))
conj_p = unop("conj", lambda x: np.conj(x).astype(_complex_dtype(x.dtype)),
               COMPLEX_OR_PARTS, result_dtype=_complex_dtype, linear_in=(0,))


def real(x):
    r"""Elementwise real part: :math:`\mathrm{Re}(x)` (complex64 -> float32)."""
    return real_p.bind(x)


def imag(x):
    r"""Elementwise imaginary part: :math:`\mathrm{Im}(x)` (complex64 -> float32)."""
    return imag_p.bind(x)


def complex(x, y):
    r"""Elementwise complex number :math:`x + jy` from two float32 arrays."""
    return complex_p.bind(x, y)


def conj(x):
    r"""Elementwise complex conjugate :math:`\overline{x}` (a float ``x`` becomes complex)."""
    return conj_p.bind(x, input_dtype=get_aval(x).dtype)


# --- bits ----------------------------------------------------------------------------
def _population_count_impl(x):
    return np.bitwise_count(_as_unsigned(x)).astype(x.dtype)  # bits of the pattern, not |x|


def _clz_impl(x):
    u, nbits = _as_unsigned(x), 8 * x.dtype.itemsize
    bit_length = np.zeros(x.shape, np.int32)
    for k in range(nbits):
        bit_length += (u >> k) != 0
    return (nbits - bit_length).astype(x.dtype)


def _shift_amount(x, y):
    """The shift as an unsigned count clipped to the bit width, and where it was clipped.

    XLA reads the count as unsigned, so a negative count is a huge one.
    """
    nbits = 8 * x.dtype.itemsize
    count = _as_unsigned(y)
    return np.minimum(count, nbits - 1), count >= nbits


def _shift_left_impl(x, y):
    count, too_far = _shift_amount(x, y)
    out = np.left_shift(_as_unsigned(x), count)
    return np.where(too_far, 0, out).view(x.dtype)  # everything shifted out


def _shift_right_logical_impl(x, y):
    count, too_far = _shift_amount(x, y)
    out = np.right_shift(_as_unsigned(x), count)  # zeros come in, even for signed x
    return np.where(too_far, 0, out).view(x.dtype)


def _shift_right_arithmetic_impl(x, y):
    count, _ = _shift_amount(x, y)  # shifting by width - 1 already fills with the sign
    out = np.right_shift(_as_signed(x), _as_signed(count))
    return np.asarray(out).view(x.dtype)  # copies of the top bit come in, even for unsigned x


not_p = unop("not", np.invert, BOOL_OR_INT)
and_p = naryop("and", np.bitwise_and, [BOOL_OR_INT, BOOL_OR_INT])
or_p = naryop("or", np.bitwise_or, [BOOL_OR_INT, BOOL_OR_INT])
xor_p = naryop("xor", np.bitwise_xor, [BOOL_OR_INT, BOOL_OR_INT])
population_count_p = unop("population_count", _population_count_impl, INT)
clz_p = unop("clz", _clz_impl, INT)
shift_left_p = naryop("shift_left", _shift_left_impl, [INT, INT])
shift_right_logical_p = naryop("shift_right_logical", _shift_right_logical_impl,
                                [INT, INT])
shift_right_arithmetic_p = naryop("shift_right_arithmetic", _shift_right_arithmetic_impl,
                                   [INT, INT])


def bitwise_not(x):
    r"""Elementwise NOT: :math:`\neg x` (logical not for bool)."""
    return not_p.bind(x)


def bitwise_and(x, y):
    r"""Elementwise AND: :math:`x \wedge y`."""
    return and_p.bind(x, y)


def bitwise_or(x, y):
    r"""Elementwise OR: :math:`x \vee y`."""
    return or_p.bind(x, y)


def bitwise_xor(x, y):
    r"""Elementwise exclusive OR: :math:`x \oplus y`."""
    return xor_p.bind(x, y)


def population_count(x):
    r"""Elementwise popcount: the number of set bits in each element."""
    return population_count_p.bind(x)


def clz(x):
    r"""Elementwise count-leading-zeros."""
    return clz_p.bind(x)


def shift_left(x, y):
    r"""Elementwise left shift: :math:`x \ll y` (0 when ``y`` >= the bit width)."""
    return shift_left_p.bind(x, y)


def shift_right_logical(x, y):
    r"""Elementwise logical right shift: :math:`x \gg y`, filling with zeros."""
    return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x, y):
    r"""Elementwise arithmetic right shift: :math:`x \gg y`, filling with the sign bit."""
    return shift_right_arithmetic_p.bind(x, y)


# --- comparisons -------------------------------------------------------------------------
eq_p = naryop("eq", np.equal, [ANY, ANY], result_dtype=_bool_dtype)
ne_p = naryop("ne", np.not_equal, [ANY, ANY], result_dtype=_bool_dtype)
lt_p = naryop("lt", np.less, [ORDERED, ORDERED], result_dtype=_bool_dtype)
le_p = naryop("le", np.less_equal, [ORDERED, ORDERED], result_dtype=_bool_dtype)
gt_p = naryop("gt", np.greater, [ORDERED, ORDERED], result_dtype=_bool_dtype)
ge_p = naryop("ge", np.greater_equal, [ORDERED, ORDERED], result_dtype=_bool_dtype)


def eq(x, y):
    r"""Elementwise equals: :math:`x = y`."""
    return eq_p.bind(x, y)


def ne(x, y):
    r"""Elementwise not-equals: :math:`x \neq y`."""
    return ne_p.bind(x, y)


def lt(x, y):
    r"""Elementwise less-than: :math:`x < y`."""
    return lt_p.bind(x, y)


def le(x, y):
    r"""Elementwise less-than-or-equals: :math:`x \leq y`."""
    return le_p.bind(x, y)


def gt(x, y):
    r"""Elementwise greater-than: :math:`x > y`."""
    return gt_p.bind(x, y)


def ge(x, y):
    r"""Elementwise greater-than-or-equals: :math:`x \geq y`."""
    return ge_p.bind(x, y)


# --- selection ------------------------------------------------------------------------
def _select_n_shape_rule(which, *cases):
    if len(cases) == 0:
        raise TypeError("select must have at least one case")
    if any(case.shape != cases[0].shape for case in cases[1:]):
        raise TypeError("select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, "
                        f"got `which` shape {which.shape} but case shape {cases[0].shape}.")
    return cases[0].shape


def _select_n_dtype_rule(which, *cases):
    check_same_dtypes("select", *cases)
    if not (which.dtype == dtypes.bool_ or np.issubdtype(which.dtype, np.integer)):
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return cases[0].dtype


def _select_n_impl(which, *cases):
    # Out-of-range ``which`` is implementation-defined; like XLA's tree of
    # selects, below range picks the first case and above range the last.
    out = cases[0]
    for k, case in enumerate(cases[1:], start=1):
        out = np.where(which >= k, case, out)
    return out


def _clamp_shape_rule(min, operand, max):
    for name, bound in (("min", min), ("max", max)):
        if bound.shape and bound.shape != operand.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or "
                            f"{name}.shape == (), got {name}.shape={bound.shape}, "
                            f"operand.shape={operand.shape}.")
    return operand.shape


def _clamp_dtype_rule(min, operand, max):
    for i, aval in enumerate((min, operand, max)):
        check_family("clamp", aval, ANY, i)
    check_same_dtypes("clamp", min, operand, max)
    return operand.dtype


_max_impl, _min_impl = _minmax_impl(take_max=True), _minmax_impl(take_max=False)

select_n_p = standard_primitive(
    "select_n", _select_n_shape_rule, _select_n_dtype_rule, numpy_impl(_select_n_impl),
    weak_type_rule=lambda which, *cases: builtins.all(c.weak_type for c in cases),
    kind="elementwise", linear_in=(1, ...))
clamp_p = standard_primitive(
    "clamp", _clamp_shape_rule, _clamp_dtype_rule,
    numpy_impl(lambda lo, x, hi: _min_impl(_max_impl(x, lo), hi)), kind="elementwise")


def select_n(which, *cases):
    """Select each element from ``cases[which]``.

    ``which`` is bool (at most two cases) or an integer array, either a scalar
    or of the cases' common shape; all cases share one shape and dtype.
    """
    if len(cases) == 0:
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Select ``on_true`` where ``pred`` is True and ``on_false`` elsewhere.

    Both branches are computed; the primitive is ``select_n`` with the cases
    in the opposite order (``select_n(pred, on_false, on_true)``).
    """
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    r"""Elementwise clamp: :math:`\mathrm{min}(\mathrm{max}(x, min), max)`.

    ``min`` and ``max`` are scalars or have ``x``'s shape.
    """
    return clamp_p.bind(min, x, max)


# --- conversions -----------------------------------------------------------------
def _convert_impl(x, *, new_dtype, weak_type, sharding=None):
    # XLA converts float -> int by truncation and saturates out-of-range values;
    # NaN becomes 0. NumPy's astype leaves those cases undefined. The bounds are
    # compared in float64, where 2**31 and 2**32 are exact (in float32 the
    # int32 maximum rounds up to 2**31, which overflows).
    new_dtype = np.dtype(new_dtype)
    if new_dtype == np.bool_:
        return x != 0
    if np.iscomplexobj(x) and not np.issubdtype(new_dtype, np.complexfloating):
        x = x.real  # XLA keeps the real part (NumPy would too, with a ComplexWarning)
    if np.issubdtype(new_dtype, np.integer) and dtypes.issubdtype(x.dtype, np.floating):
        info = np.iinfo(new_dtype)
        x = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0)
        too_big, too_small = x >= float(info.max) + 1, x < float(info.min)
        out = np.where(too_big | too_small, 0, x).astype(new_dtype)
        return np.where(too_big, info.max, np.where(too_small, info.min, out)).astype(new_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(new_dtype)


convert_element_type_p = standard_primitive(
    "convert_element_type",
    lambda x, **_: x.shape,
    lambda x, *, new_dtype, **_: dtypes.canonicalize_dtype(new_dtype),
    _convert_impl,
    weak_type_rule=lambda x, *, weak_type, **_: weak_type,
    kind="elementwise", moves_data=True, linear_in=(0,))


def convert_element_type(operand, new_dtype):
    """Elementwise cast to ``new_dtype`` (64-bit dtypes become 32-bit)."""
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype=None, weak_type: bool = False):
    """Cast ``operand``; no equation at all when dtype and weak type already match.

    This is the cast ``jax.numpy`` inserts for type promotion. ``weak_type``
    lets it produce a weakly typed result (``int32_array + 2.5`` is a *weak*
    float32, as in JAX). A scalar constant (a Python or NumPy scalar, a 0-d
    array) is converted at once in NumPy, without a primitive: JAX folds such
    conversions, so its jaxprs show ``mul a 2.0:f16[]``.
    """
    aval = get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(
        dtypes.dtype(new_dtype))
    same = aval.dtype == new_dtype and aval.weak_type == bool(weak_type)
    if type(operand) is int:
        _check_python_int_fits(operand, new_dtype)
    if same and (_is_tracer(operand) or isinstance(operand, Array)):
        return operand
    if same:  # NumPy data already of the right (canonical) type: just wrap it
        return array_from_numpy(np.asarray(operand), weak_type=bool(weak_type))
    if _is_tracer(operand) or aval.shape:
        # a traced value, or a constant array: a real conversion (under a jaxpr
        # trace, the array becomes a constant input and this an equation, as in JAX)
        return convert_element_type_p.bind(operand, new_dtype=new_dtype,
                                           weak_type=bool(weak_type), sharding=None)
    # A scalar constant: convert it now, in NumPy, as JAX folds it (``2.0:f16[]``).
    value = _convert_impl(np.asarray(operand), new_dtype=new_dtype, weak_type=weak_type)
    return array_from_numpy(value, weak_type=bool(weak_type))


def _check_python_int_fits(value: int, dtype: np.dtype) -> None:
    """JAX's OverflowError for a Python int that fits neither int32 nor ``dtype``.

    An int that fits int32 is converted and may wrap (``int8_array + 300`` is
    fine, as in JAX); a larger one must fit the target type itself.
    """
    if -2**31 <= value < 2**31 or not np.issubdtype(dtype, np.integer):
        return
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python int {value} too large to convert to {dtype}")


def _is_tracer(x) -> bool:
    """A traced value: it has an aval but is not a concrete Array (see chapter 01)."""
    return hasattr(x, "aval") and not isinstance(x, Array)


def _bitcast_shape_rule(operand, *, new_dtype):
    old_bits, new_bits = 8 * operand.dtype.itemsize, 8 * np.dtype(new_dtype).itemsize
    if old_bits == new_bits:
        return operand.shape
    if old_bits > new_bits:  # each element becomes a trailing axis of narrower ones
        return (*operand.shape, old_bits // new_bits)
    dim_size = operand.shape[-1] if operand.shape else 1  # the trailing axis is consumed
    if dim_size * old_bits != new_bits:
        raise ValueError(
            f"Attempting to convert array of shape {operand.shape} "
            f"from {operand.dtype} of size {old_bits} bits "
            f"to {new_dtype} of size {new_bits}, bits "
            f"but {dim_size} * {old_bits} != {new_bits}")
    return operand.shape[:-1]


def _bitcast_dtype_rule(operand, *, new_dtype):
    old_dtype = operand.dtype
    if any(np.issubdtype(d, t) for d in (old_dtype, new_dtype)
           for t in (np.bool_, np.complexfloating)) and old_dtype != new_dtype:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. "
                        f"Got operand dtype={old_dtype}, {new_dtype=}. "
                        "Consider using the arr.view() method instead.")
    return new_dtype


def _bitcast_impl(x, *, new_dtype):
    x = np.asarray(x, order="C")
    if new_dtype.itemsize < x.dtype.itemsize:
        return x.reshape(x.shape + (1,)).view(new_dtype)
    out = x.view(new_dtype)
    return out.reshape(out.shape[:-1]) if new_dtype.itemsize > x.dtype.itemsize else out


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type", _bitcast_shape_rule, _bitcast_dtype_rule, _bitcast_impl,
    weak_type_rule=lambda x, **_: False, kind="data_movement")


def bitcast_convert_type(operand, new_dtype):
    """Elementwise bitcast: reinterpret the bits of ``operand`` as ``new_dtype``.

    A narrower ``new_dtype`` adds a trailing axis (one float32 is four int8);
    a wider one consumes the trailing axis, which must hold exactly enough.
    """
    return bitcast_convert_type_p.bind(operand, new_dtype=_canonical(new_dtype))


def _reduce_precision_shape_rule(operand, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError("reduce_precision: mantissa_bits must be non-negative; "
                         f"got {mantissa_bits}")
    return operand.shape


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    # XLA's algorithm on the bit pattern: round the mantissa to nearest even,
    # then send exponents out of the smaller range to +-inf or +-0.
    info = dtypes.finfo(x.dtype)
    src_mant, src_exp, nbits = info.nmant, info.nexp, 8 * x.dtype.itemsize
    utype = np.dtype(f"u{x.dtype.itemsize}")
    bits = np.asarray(x, order="C").view(utype).astype(np.uint64)
    if mantissa_bits < src_mant:
        drop = src_mant - mantissa_bits
        last_kept = (bits >> drop) & 1
        bits = (bits + last_kept + ((1 << (drop - 1)) - 1)) & ~np.uint64((1 << drop) - 1)
    if exponent_bits < src_exp:
        sign, exp_mask = bits & (1 << (nbits - 1)), np.uint64(((1 << src_exp) - 1) << src_mant)
        bias, reduced_bias = (1 << (src_exp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflow = exponent > ((bias + reduced_bias) << src_mant)
        underflow = exponent <= ((bias - reduced_bias) << src_mant)
        bits = np.where(overflow, sign | exp_mask, np.where(underflow, sign, bits))
    out = (bits & np.uint64((1 << nbits) - 1)).astype(utype).view(x.dtype)
    return np.where(np.isnan(x), x, out)


def _reduce_precision_dtype_rule(x, **_):
    check_family("reduce_precision", x, FLOAT)
    return x.dtype


reduce_precision_p = standard_primitive(
    "reduce_precision", _reduce_precision_shape_rule, _reduce_precision_dtype_rule,
    numpy_impl(_reduce_precision_impl, ("exponent_bits", "mantissa_bits")),
    weak_type_rule=lambda x, **_: x.weak_type,
    kind="elementwise", moves_data=True, linear_in=(0,))


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round ``operand`` to a float format with fewer exponent and mantissa bits.

    The result keeps ``operand``'s dtype; ``reduce_precision(x, 5, 10)`` gives
    the float32 values nearest to float16 ones (overflowing to inf, flushing
    values below the format's smallest normal number to zero).
    """
    exponent_bits = operator.index(exponent_bits)
    mantissa_bits = operator.index(mantissa_bits)
    return reduce_precision_p.bind(operand, exponent_bits=exponent_bits,
                                   mantissa_bits=mantissa_bits)


# --- copy ------------------------------------------------------------------------
copy_p = standard_primitive("copy", lambda x: x.shape, lambda x: x.dtype,
                            lambda x: np.array(x, copy=True),
                            weak_type_rule=lambda x: x.weak_type,
                            kind="elementwise", moves_data=True, linear_in=(0,))


def _array_copy(x):
    """A new array with the contents of ``x`` (the ``copy`` primitive, as ``jnp.array(x)``)."""
    return copy_p.bind(x)


# --- stop_gradient -----------------------------------------------------------------
stop_gradient_p = standard_primitive(
    "stop_gradient", same_shape, lambda x, **_: x.dtype, lambda x: x,
    weak_type_rule=lambda x, **_: x.weak_type, kind="elementwise", moves_data=True)


def stop_gradient(x):
    """The identity function, whose derivative is zero (chapter 02 gives it a zero rule).

    Works on arrays and on tuples, lists and dicts of them; integer and boolean
    arrays, which have no gradient anyway, are returned as they are.
    """
    if isinstance(x, (tuple, list)):
        return type(x)(stop_gradient(v) for v in x)
    if isinstance(x, dict):
        return {k: stop_gradient(v) for k, v in x.items()}
    if not dtypes.issubdtype(get_aval(x).dtype, np.inexact):
        return x
    return stop_gradient_p.bind(x)
