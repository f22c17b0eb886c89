"""Chapter 00 — ``jnp`` elementwise functions: promote, broadcast, call lax.

Every binary function here is the same three steps (:func:`promote_args`):
check the arguments are array-like, promote their dtypes through JAX's
lattice, give them a common rank; then one lax call. Unary functions that are
only defined on floats (``sin``, ``exp``) first promote integers to float32,
as JAX does (``jnp.sin(1)`` is a weak float32).

Where NumPy and XLA disagree, ``jnp`` follows NumPy, built out of XLA's
primitives: ``lax.div`` truncates toward zero but ``jnp.floor_divide``
floors; ``lax.rem`` takes the sign of the dividend but ``jnp.remainder``
takes the divisor's. The jaxprs these functions produce are JAX's, equation
for equation, except that JAX wraps some of them in an inner ``jit``.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.array import Array
from minijax.numpy.creation import asarray
from minijax.numpy.util import (check_arraylike, promote_args, promote_args_inexact,
                                promote_args_numeric, promote_dtypes, promote_dtypes_numeric)
from minijax.numpy.util import jnp_custom_jvp, jnp_jit

__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
    "remainder", "mod", "fmod", "divmod", "power", "pow", "float_power",
    "negative", "positive", "abs", "absolute", "fabs", "sign", "reciprocal",
    "square", "sqrt", "cbrt", "maximum", "minimum", "fmax", "fmin", "clip",
    # rounding
    "floor", "ceil", "round", "around", "trunc", "rint",
    # exponentials and logarithms
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp",
    # trigonometry
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
    "tanh", "arcsinh", "arccosh", "arctanh", "asin", "acos", "atan", "atan2",
    "asinh", "acosh", "atanh", "hypot", "deg2rad", "rad2deg", "degrees",
    "radians", "sinc",
    # selection and predicates
    "where", "select", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "angle",
    "isclose", "nan_to_num", "signbit", "copysign", "heaviside",
    # comparisons and logic
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    # bits
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift",
    # complex parts
    "conj", "conjugate", "real", "imag",
]


# --- helpers ----------------------------------------------------------------------

def _binary(name: str, lax_fn, promote=promote_args):
    def fn(x, y, /):
        return lax_fn(*promote(name, x, y))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` of two arrays, with NumPy broadcasting and JAX "
                  "type promotion.")
    return fn


def _unary(name: str, lax_fn, promote=promote_args):
    def fn(x, /):
        check_arraylike(name, x)
        return lax_fn(*promote(name, x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of an array."
    return fn


def _dtype(x) -> np.dtype:
    return get_aval(x).dtype


def _is(x, kind) -> bool:
    """Whether ``x``'s dtype is a subtype of ``kind`` (``np.integer``, ``np.bool_``...)."""
    return dtypes.issubdtype(_dtype(x), kind)


def _is_int_or_bool(x) -> bool:
    return _is(x, np.integer) or _is(x, np.bool_)


def _const(x, value):
    """A scalar constant of ``x``'s dtype, in the manner of JAX's ``lax._const``.

    It is weakly typed exactly when ``x`` is a weakly typed *scalar*, so
    ``jnp.deg2rad(1)`` stays weak while ``jnp.logical_not(bool_array + 0)``
    does not, as in JAX.
    """
    scalar = dtypes.weak_scalar_const(x, value)
    if scalar is not None:
        return scalar
    aval = get_aval(x)
    return lax._convert_element_type(value, aval.dtype, aval.weak_type and aval.shape == ())


def _strong_const(x, value) -> np.ndarray:
    """A scalar NumPy constant of ``x``'s dtype; results that use it are not weak."""
    return np.asarray(value, dtype=_dtype(x))


def _full_like(x, value, dtype=None):
    """``x``'s shape filled with ``value`` (a ``broadcast_in_dim`` of a constant)."""
    aval = get_aval(x)
    dt = aval.dtype if dtype is None else np.dtype(dtype)
    weak = aval.weak_type if dtype is None else False
    c = lax._convert_element_type(value, dt, weak)
    return lax.broadcast_in_dim(c, aval.shape, ()) if aval.shape else c


def _to_bool(x):
    return x if _dtype(x) == np.bool_ else lax.ne(x, _const(x, 0))


def _broadcast_shapes(*shapes) -> tuple:
    """NumPy's broadcast of ``shapes``, or JAX's ``ValueError`` for jnp functions."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: shapes="
                         f"{[tuple(s) for s in shapes]}") from None


def _broadcast_to(x, shape):
    """Broadcast ``x`` to ``shape`` with one ``broadcast_in_dim`` (none if it fits)."""
    xshape = get_aval(x).shape
    if xshape == tuple(shape):
        return x
    lead = len(shape) - len(xshape)
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(lead, len(shape))))


@jnp_jit("_where")
def _where(condition, x, y):
    """Three-argument ``where``: promote ``x``/``y``, broadcast, one ``lax.select``.

    A scalar ``condition`` is not broadcast: ``select_n`` accepts it as is.
    """
    if _dtype(condition) != np.bool_:
        condition = lax.ne(condition, _const(condition, 0))
    x, y = promote_dtypes(x, y)
    cond_shape = get_aval(condition).shape
    shape = _broadcast_shapes(*(get_aval(a).shape for a in (condition, x, y)))
    x, y = _broadcast_to(x, shape), _broadcast_to(y, shape)
    if cond_shape:
        condition = _broadcast_to(condition, shape)
    if 0 in shape:
        return x
    return lax.select(condition, x, y)


# --- arithmetic ---------------------------------------------------------------------

def _add(x, y):
    return lax.bitwise_or(x, y) if _dtype(x) == np.bool_ else lax.add(x, y)


def _mul(x, y):
    return lax.bitwise_and(x, y) if _dtype(x) == np.bool_ else lax.mul(x, y)


add = _binary("add", _add)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", _mul)
true_divide = _binary("true_divide", lax.div, promote_args_inexact)
divide = _binary("divide", lax.div, promote_args_inexact)
negative = _unary("negative", lax.neg)
positive = _unary("positive", asarray)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
float_power = _binary("float_power", lax.pow, promote_args_inexact)


def _int_floor_divide(x, y):
    """Integer division rounding toward -inf, from ``lax.div`` (which truncates)."""
    if _is(x, np.unsignedinteger):
        return lax.div(x, y)
    zero = _const(x, 0)
    quotient = lax.div(x, y)
    different_signs = lax.ne(lax.sign(x), lax.sign(y))
    inexact = lax.ne(lax.rem(x, y), zero)
    return _where(lax.bitwise_and(different_signs, inexact),
                  subtract(quotient, 1), quotient)


def _float_divmod(x, y):
    """NumPy's float ``divmod``: floor quotient and a remainder with the divisor's sign."""
    zero = _const(x, 0)
    mod = lax.rem(x, y)
    div = lax.div(_where(lax.eq(y, zero), x, lax.sub(x, mod)), y)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(y), lax.sign(mod)))
    mod = lax.select(fix, lax.add(mod, y), mod)
    div = lax.select(fix, subtract(div, 1.0), div)
    return lax.round(div, lax.RoundingMethod.AWAY_FROM_ZERO), mod


@jnp_jit("floor_divide")
def floor_divide(x1, x2, /):
    """Elementwise ``x1 // x2`` rounding toward minus infinity (NumPy's semantics)."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    if _is_int_or_bool(x1):
        return _int_floor_divide(x1, x2)
    return _float_divmod(x1, x2)[0]


def _nonzero_divisor(x2):
    """Replace integer zeros by one, so that ``x % 0`` is 0 rather than XLA's ``x``."""
    return _where(lax.eq(x2, _const(x2, 0)), _full_like(x2, 1), x2)


@jnp_jit("remainder")
def remainder(x1, x2, /):
    """Elementwise remainder of ``x1 / x2`` with the sign of the divisor (NumPy's ``%``)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    if _is(x2, np.integer):
        x2 = _nonzero_divisor(x2)
    mod = lax.rem(x1, x2)
    zero = _const(mod, 0)
    mod_nonzero = lax.ne(mod, zero)
    signs_differ = lax.ne(lax.lt(mod, zero), lax.lt(x2, zero))
    return lax.select(lax.bitwise_and(signs_differ, mod_nonzero), lax.add(mod, x2), mod)


mod = remainder


@jnp_jit("fmod")
def fmod(x1, x2, /):
    """Elementwise remainder with the sign of the dividend (C's ``fmod``, XLA's ``rem``)."""
    check_arraylike("fmod", x1, x2)
    if np.issubdtype(dtypes.result_type(x1, x2), np.integer):  # not for bools, as in JAX
        x2 = _nonzero_divisor(asarray(x2))
    return lax.rem(*promote_args_numeric("fmod", x1, x2))


@jnp_jit("divmod")
def divmod(x1, x2, /):
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _is_int_or_bool(x1):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def _concrete_int(x):
    """``x`` as a Python int if it is a concrete integer scalar, else None."""
    if hasattr(x, "aval") and not isinstance(x, Array):  # a tracer
        x = getattr(x, "to_concrete_value", lambda: None)()
        if x is None:
            return None
    if get_aval(x).shape != () or not hasattr(x, "__index__"):
        return None
    try:
        return int(x.__index__())
    except TypeError:
        return None


def _pow_int_int(x1, x2):
    """Integer power by unrolled binary exponentiation (XLA has no integer ``pow``)."""
    zero, one = _const(x2, 0), _const(x2, 1)
    acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    for _ in range(6):  # 2**6 bits: any larger power of |x1| > 1 overflows
        acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


def power(x1, x2, /):
    """Elementwise ``x1 ** x2``; ``int ** int`` stays an integer, as in JAX.

    A concrete integer exponent (``x ** 2``) becomes ``lax.integer_pow``,
    which is exact for floats.
    """
    check_arraylike("power", x1, x2)
    n = _concrete_int(x2)
    if n is not None:
        x1, = promote_dtypes_numeric(x1)
        return lax.integer_pow(x1, n)
    x1, x2 = promote_args_numeric("power", x1, x2)
    if _is_int_or_bool(x1):
        return _pow_int_int(x1, x2)
    return lax.pow(x1, x2)


def pow(x1, x2, /):
    """Alias of :func:`power` (the array API name)."""
    return power(x1, x2)


def abs(x, /):
    """Elementwise absolute value; unsigned and bool inputs are returned unchanged."""
    x = asarray(*promote_args("abs", x))
    if _is(x, np.unsignedinteger) or _is(x, np.bool_):
        return x
    return lax.abs(x)


absolute = abs
fabs = _unary("fabs", lax.abs, promote_args_inexact)
sign = _unary("sign", lax.sign)
square = _unary("square", lax.square, promote_args_numeric)
sqrt = _unary("sqrt", lax.sqrt, promote_args_inexact)
cbrt = _unary("cbrt", lax.cbrt, promote_args_inexact)
reciprocal = _unary("reciprocal", lambda x: lax.integer_pow(x, -1), promote_args_inexact)


@jnp_jit("fmax")
def fmax(x1, x2, /):
    """Elementwise maximum that ignores NaNs (NaN only when both are NaN)."""
    x1, x2 = promote_args("fmax", x1, x2)
    return _where(lax.bitwise_or(lax.gt(x1, x2), lax.ne(x2, x2)), x1, x2)


@jnp_jit("fmin")
def fmin(x1, x2, /):
    """Elementwise minimum that ignores NaNs (NaN only when both are NaN)."""
    x1, x2 = promote_args("fmin", x1, x2)
    return _where(lax.bitwise_or(lax.lt(x1, x2), lax.ne(x2, x2)), x1, x2)


@jnp_jit("clip")
def clip(arr=None, /, min=None, max=None):
    """Clip ``arr`` to ``[min, max]``; ``None`` leaves that side unbounded."""
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(v is not None and dtypes.is_complex(dtypes.dtype(v)) for v in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max "
            "keywords. Complex values have no ordering and cannot be clipped. "
            "Please convert to a real value or array by taking the real or "
            "imaginary components via jax.numpy.real/imag respectively.")
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


# --- rounding ---------------------------------------------------------------------

def _keep_ints(name, lax_fn):
    """A rounding function: the identity on integers and bools, ``lax_fn`` on floats."""
    def fn(x, /):
        x = asarray(*promote_args(name, x))
        return x if _is_int_or_bool(x) else lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``; integer inputs are returned unchanged."
    return fn


floor = _keep_ints("floor", lax.floor)
ceil = _keep_ints("ceil", lax.ceil)
trunc = _keep_ints("trunc", lambda x: _where(lax.lt(x, _const(x, 0)), lax.ceil(x), lax.floor(x)))


@jnp_jit("round", static_argnames=("decimals",))
def round(a, decimals: int = 0, out=None):
    """Round to ``decimals`` decimal places, halves to even (``jnp.round``)."""
    check_arraylike("round", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    a = asarray(a)
    decimals = int(decimals.__index__())
    if _is(a, np.integer):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if not _is(a, np.inexact):
        raise ValueError(f"data type {_dtype(a).type} not inexact")
    if _is(a, np.complexfloating):  # the real and imaginary parts, each on its own
        return lax.complex(_round_float(lax.real(a), decimals),
                           _round_float(lax.imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(a, decimals: int):
    """Round a float array to ``decimals`` places, halves to even."""
    to_even = lax.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return lax.round(a, to_even)
    if decimals > np.log10(dtypes.finfo(_dtype(a)).max):
        return a
    dtype = _dtype(a)
    if dtype == dtypes.float16:  # rescaling in float16 loses digits; JAX uses float32
        a = lax._convert_element_type(a, dtypes.float32, get_aval(a).weak_type)
    factor = _const(a, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(a, factor), to_even), factor)
    return lax._convert_element_type(out, dtype, get_aval(out).weak_type)


@jnp_jit("around", static_argnames=("decimals",))
def around(a, decimals: int = 0, out=None):
    """Alias of :func:`round`."""
    return round(a, decimals, out)


@jnp_jit("rint")
def rint(x, /):
    """Round to the nearest integer, halves to even; integers become float32."""
    check_arraylike("rint", x)
    x = asarray(x)
    if _is_int_or_bool(x):
        return lax._convert_element_type(x, dtypes.default_float_dtype, False)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


# --- exponentials and logarithms ---------------------------------------------------------

exp = _unary("exp", lax.exp, promote_args_inexact)
exp2 = _unary("exp2", lax.exp2, promote_args_inexact)
expm1 = _unary("expm1", lax.expm1, promote_args_inexact)
log = _unary("log", lax.log, promote_args_inexact)
log1p = _unary("log1p", lax.log1p, promote_args_inexact)
log2 = _unary("log2", lambda x: lax.div(lax.log(x), lax.log(_strong_const(x, 2))),
              promote_args_inexact)
log10 = _unary("log10", lambda x: lax.mul(lax.log(x), _strong_const(x, 1 / np.log(10))),
               promote_args_inexact)


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp(x1, x2)


def _log_add_exp(x1, x2, exp=lax.exp, scale=None):
    """``max + log1p(exp(-|x1 - x2|))`` (times ``scale``: base 2), or ``x1 + x2`` where
    the difference is NaN (a NaN, or infinities of one sign)."""
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    delta_is_nan, naive = lax.ne(delta, delta), lax.add(x1, x2)
    tail = lax.log1p(exp(lax.neg(lax.abs(delta))))
    if scale is not None:
        tail = lax.mul(_const(tail, scale), tail)
    return lax.select(delta_is_nan, naive, lax.add(amax, tail))


def _replace_inf(x):
    """``x`` with +inf replaced by 0 (the derivative rules below subtract infinities)."""
    return lax.select(lax.eq(x, _const(x, np.inf)), lax.full_like(x, 0), x)


def _log_add_exp_jvp(fun, exp, primals, tangents):
    """``t1 * exp(x1 - out) + t2 * exp(x2 - out)``: the weights of the two inputs,
    1/2 each where ``x1 == x2`` (the kink of the formula's ``max`` and ``abs``)."""
    (x1, x2), (t1, t2) = primals, tangents
    out = fun(x1, x2)
    return out, lax.add(lax.mul(t1, exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                        lax.mul(t2, exp(lax.sub(_replace_inf(x2), _replace_inf(out)))))


def _logaddexp_formula(x1, x2):
    return _log_add_exp(x1, x2)


def _logaddexp2_formula(x1, x2):
    return _log_add_exp(x1, x2, lax.exp2, 1 / np.log(2))


_logaddexp = jnp_custom_jvp(_logaddexp_formula, name="logaddexp")
_logaddexp2 = jnp_custom_jvp(_logaddexp2_formula, name="logaddexp2")


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    return _log_add_exp_jvp(_logaddexp, lax.exp, primals, tangents)


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    return _log_add_exp_jvp(_logaddexp2, lax.exp2, primals, tangents)


# --- trigonometry -------------------------------------------------------------------

sin = _unary("sin", lax.sin, promote_args_inexact)
cos = _unary("cos", lax.cos, promote_args_inexact)
tan = _unary("tan", lax.tan, promote_args_inexact)
arcsin = _unary("arcsin", lax.asin, promote_args_inexact)
arccos = _unary("arccos", lax.acos, promote_args_inexact)
arctan = _unary("arctan", lax.atan, promote_args_inexact)
arctan2 = _binary("arctan2", lax.atan2, promote_args_inexact)
sinh = _unary("sinh", lax.sinh, promote_args_inexact)
cosh = _unary("cosh", lax.cosh, promote_args_inexact)
tanh = _unary("tanh", lax.tanh, promote_args_inexact)
arcsinh = _unary("arcsinh", lax.asinh, promote_args_inexact)
arccosh = jnp_jit("arccosh")(_unary("arccosh", lax.acosh, promote_args_inexact))  # as JAX's
arctanh = _unary("arctanh", lax.atanh, promote_args_inexact)
asin, acos, atan, atan2 = arcsin, arccos, arctan, arctan2
asinh, acosh, atanh = arcsinh, arccosh, arctanh
deg2rad = _unary("deg2rad", lambda x: lax.mul(x, _const(x, np.pi / 180)), promote_args_inexact)
rad2deg = _unary("rad2deg", lambda x: lax.mul(x, _const(x, 180 / np.pi)), promote_args_inexact)
radians, degrees = deg2rad, rad2deg


@jnp_jit("hypot")
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` computed without overflow."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = _const(x1, np.inf)
    either_inf = lax.bitwise_or(lax.eq(x1, inf), lax.eq(x2, inf))
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    big_is_zero = lax.eq(big, _const(big, 0))
    safe_big = _where(lax.eq(big, _const(big, 0)), _full_like(big, 1), big)
    ratio = lax.div(small, safe_big)
    out = lax.mul(big, lax.sqrt(lax.add(_const(ratio, 1), lax.square(ratio))))
    out = _where(big_is_zero, big, out)
    return _where(either_inf, inf, out)


@jnp_jit("sinc")
def sinc(x, /):
    """Normalized sinc: ``sin(pi x) / (pi x)``, and 1 at 0."""
    x, = promote_args_inexact("sinc", x)
    is_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe = _where(is_zero, _const(x, 1), pi_x)
    return _where(is_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe), safe))


def _sinc_maclaurin_formula(k, x):
    """The k-th derivative of ``sin(x)/x`` at 0, in ``x``'s shape: the formula
    ``sin(x)/x`` has no derivatives at 0, so the rule gives each order its
    Maclaurin coefficient: ``grad(grad(sinc))(0.)`` is ``-pi**2/3``."""
    zero = lax.mul(x, _const(x, 0))
    return zero if k % 2 else lax.add(zero, _const(x, (-1) ** (k // 2) / (k + 1)))


_sinc_maclaurin = jnp_custom_jvp(_sinc_maclaurin_formula, nondiff_argnums=(0,),
                                 name="_sinc_maclaurin")


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


# --- selection and predicates -----------------------------------------------------------

def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` holds, else ``y`` (``jnp.where``).

    With only ``condition`` it is :func:`jax.numpy.nonzero`, whose output
    shape depends on the values, so ``size`` must be given under tracing.
    """
    if x is None and y is None:
        check_arraylike("where", condition)
        import minijax.numpy as jnp  # nonzero lives with the indexing functions
        nonzero = getattr(jnp, "nonzero", None)
        if nonzero is None:
            raise NotImplementedError("jnp.where(condition) needs jnp.nonzero, which this "
                                      "build of minijax does not provide yet.")
        return nonzero(condition, size=size, fill_value=fill_value)
    check_arraylike("where", condition, x, y)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in "
                         "three-term where function.")
    return _where(condition, x, y)


def select(condlist, choicelist, default=0):
    """The entry of ``choicelist`` whose condition in ``condlist`` is the first true one."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    choices = promote_dtypes(*map(asarray, choicelist), asarray(default))
    out = choices[-1]
    for cond, choice in reversed(list(zip(condlist, choices[:-1]))):
        out = _where(cond, choice, out)
    return out


isnan = _unary("isnan", lambda x: lax.ne(x, x))


def _float_only(name, fn, otherwise: bool):
    """A float predicate that is constant (``otherwise``) on integers and bools."""
    def pred(x, /):
        x, = promote_args(name, x)
        return _full_like(x, otherwise, np.bool_) if _is_int_or_bool(x) else fn(x)
    pred.__name__ = pred.__qualname__ = name
    pred.__doc__ = f"Elementwise ``{name}`` test (constant {otherwise} for integers)."
    return pred


def _is_inf(x):
    """|x| == inf; a complex number is infinite when either part is (as NumPy)."""
    if _is(x, np.complexfloating):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(_is_inf(re), _is_inf(im))
    return lax.eq(lax.abs(x), _strong_const(x, np.inf))


def _is_finite(x):
    """``lax.is_finite`` takes only real floats: a complex number is finite when
    both its parts are (JAX's ``jnp.isfinite`` writes the same equations)."""
    if _is(x, np.complexfloating):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


isinf = jnp_jit("isinf")(_float_only("isinf", _is_inf, False))  # inner-jitted, as JAX's
isposinf = _float_only("isposinf", lambda x: lax.eq(x, _strong_const(x, np.inf)), False)
isneginf = _float_only("isneginf", lambda x: lax.eq(x, _strong_const(x, -np.inf)), False)
isfinite = _float_only("isfinite", _is_finite, True)


@jnp_jit("isclose", static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (infinities equal to themselves)."""
    a, b = promote_args_inexact("isclose", a, b)
    dt = _dtype(a)
    if np.issubdtype(dt, np.complexfloating):  # the tolerances compare magnitudes: real
        dt = np.array(0, dt).real.dtype
    rtol = lax._convert_element_type(rtol, dt, False)
    atol = lax._convert_element_type(atol, dt, False)
    both_nan = lax.bitwise_and(isnan(a), isnan(b))
    b_finite = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(b_finite, in_range))
    return lax.bitwise_or(out, both_nan) if equal_nan else out


@jnp_jit("nan_to_num")
def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by the largest finite values (or those given)."""
    check_arraylike("nan_to_num", x)
    x = asarray(x)
    if not _is(x, np.inexact):
        return x
    info = dtypes.finfo(_dtype(x))
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _where(isnan(x), asarray(nan, dtype=_dtype(x)), x)
    out = _where(isposinf(out), asarray(posinf, dtype=_dtype(x)), out)
    return _where(isneginf(out), asarray(neginf, dtype=_dtype(x)), out)


_INT_OF_WIDTH = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


@jnp_jit("signbit")
def signbit(x, /):
    """Whether the sign bit is set (true for ``-0.0`` and negative NaNs)."""
    x, = promote_args("signbit", x)
    if _is(x, np.bool_):
        return _full_like(x, False, np.bool_)
    if _is(x, np.integer):
        return lax.lt(x, _strong_const(x, 0))
    itype = _INT_OF_WIDTH[_dtype(x).itemsize]
    bits = lax.bitcast_convert_type(x, itype)
    bits = lax.shift_right_arithmetic(bits, np.asarray(8 * _dtype(x).itemsize - 1, itype))
    return lax._convert_element_type(bits, np.bool_, False)


@jnp_jit("copysign")
def copysign(x1, x2, /):
    """``|x1|`` with the sign of ``x2``."""
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    return _where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


@jnp_jit("heaviside")
def heaviside(x1, x2, /):
    """Step function: 0 for ``x1 < 0``, ``x2`` at 0, 1 for ``x1 > 0``."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = _const(x1, 0)
    negative, positive = lax.lt(x1, zero), lax.gt(x1, zero)
    at_zero = _where(lax.ne(x1, x1), x1, x2)
    return _where(negative, zero, _where(positive, _const(x1, 1), at_zero))


# --- comparisons and logic ---------------------------------------------------------------

equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)
logical_and = _binary("logical_and", lambda x, y: lax.bitwise_and(_to_bool(x), _to_bool(y)))
logical_or = _binary("logical_or", lambda x, y: lax.bitwise_or(_to_bool(x), _to_bool(y)))
logical_xor = _binary("logical_xor", lambda x, y: lax.bitwise_xor(_to_bool(x), _to_bool(y)))
logical_not = _unary("logical_not", lambda x: lax.bitwise_not(_to_bool(x)))


# --- bits --------------------------------------------------------------------------

bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)
bitwise_not = _unary("bitwise_not", lax.bitwise_not)
invert = _unary("invert", lax.bitwise_not)
left_shift = _binary("left_shift", lax.shift_left, promote_args_numeric)


def right_shift(x1, x2, /):
    """Elementwise ``x1 >> x2``: arithmetic for signed integers, logical for unsigned."""
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if _is(x1, np.unsignedinteger):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


# --- complex parts (minijax arrays are real, but these must exist) ----------------------------

def _complex_part(name, lax_name, real_fn):
    def fn(x, /):
        check_arraylike(name, x)
        x = asarray(x)
        return getattr(lax, lax_name)(x) if _is(x, np.complexfloating) else real_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (for real inputs: {real_fn.__doc__})."
    return fn


def _identity(x):
    """the input itself"""
    return x


def _zeros(x):
    """zeros of the same type"""
    return _full_like(x, 0)


conj = _complex_part("conj", "conj", _identity)
conjugate = _complex_part("conjugate", "conj", _identity)
real = _complex_part("real", "real", _identity)
imag = _complex_part("imag", "imag", _zeros)


@jnp_jit("angle", static_argnames=("deg",))
def angle(z, deg: bool = False):
    """The argument of ``z`` (``atan2(imag, real)``), in radians or, with ``deg``, degrees.

    Real inputs have angle 0 or pi; integers, and float scalars, are computed
    in the default float dtype, as in JAX.
    """
    check_arraylike("angle", z)
    z = asarray(z)
    re, im = real(z), imag(z)
    if not _is(re, np.inexact) or (_is(z, np.floating) and np.ndim(z) == 0):
        re = lax.convert_element_type(re, dtypes.default_float_dtype)
        im = lax.convert_element_type(im, dtypes.default_float_dtype)
    result = lax.atan2(im, re)
    return rad2deg(result) if deg else result
