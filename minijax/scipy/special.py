"""Chapter 00 — ``minijax.scipy.special``: ``logsumexp``, ``erf``, ``erfinv``, ``expit``, ``logit``.

The same functions as ``jax.scipy.special``.

The special functions are single lax primitives (``erf``, ``erf_inv``,
``logistic``, ``lgamma``) after the usual promotion of integers to float32.
``logsumexp`` is the numerically careful composite: it subtracts the maximum
before exponentiating, so ``logsumexp([1000., 1000.])`` is ``1000 + log 2``
rather than ``inf``, and a slice that is all ``-inf`` gives ``-inf``, not NaN.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as _jnp  # the jnp namespace, for readable composites
from minijax import dtypes
from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.numpy import reductions, ufuncs
from minijax.numpy.util import promote_args_inexact

__all__ = ["logsumexp", "erf", "erfc", "erfinv", "expit", "logit", "gammaln"]


def _stop_gradient(x):
    """``lax.stop_gradient`` (the identity until chapter 02 gives it a meaning)."""
    stop = getattr(lax, "stop_gradient", None)
    return stop(x) if stop is not None else x


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a), axis))``, computed without overflow.

    With ``return_sign=True`` returns ``(log|s|, sign(s))`` where ``s`` is the
    (possibly negative, when ``b`` is) sum; otherwise a negative sum is NaN.
    """
    if where is not None:
        a = ufuncs.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = ufuncs.where(ufuncs.not_equal(b, 0), a, -np.inf)
    else:
        a, = promote_args_inexact("logsumexp", a)
    ndim = len(get_aval(a).shape)
    axes = reductions._reduction_axes(ndim, reductions._static_axis(axis))
    dt = get_aval(a).dtype
    amax = reductions.max(ufuncs.real(a), axis=axes, keepdims=keepdims, where=where,
                          initial=-np.inf)
    amax = lax.select(ufuncs.isfinite(amax), amax, ufuncs._full_like(amax, 0))
    amax = _stop_gradient(amax)
    amax_kept = amax if keepdims else lax.expand_dims(amax, axes)
    exp_a = lax.exp(lax.sub(a, lax._convert_element_type(amax_kept, dt, False)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = reductions.sum(exp_a, axis=axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(lax.abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = ufuncs.where(lax.lt(sign, np.asarray(0, dt)), np.asarray(np.nan, dt), out)
    return out


def _special(name: str, lax_fn, doc: str):
    def fn(x):
        x, = promote_args_inexact(name, x)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


erf = _special("erf", lax.erf, "The error function ``2/sqrt(pi) * int_0^x exp(-t**2) dt``.")
erfc = _special("erfc", lax.erfc, "The complementary error function ``1 - erf(x)``.")
erfinv = _special("erfinv", lax.erf_inv, "The inverse of :func:`erf` on ``(-1, 1)``.")
expit = _special("expit", lax.logistic, "The logistic sigmoid ``1 / (1 + exp(-x))``.")
gammaln = _special("gammaln", lax.lgamma, "``log|Gamma(x)|``.")


def logit(x):
    """The inverse of :func:`expit`: ``log(x / (1 - x))``."""
    x, = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(ufuncs._const(x, 1), x)))


# =============================================================================
# More of jax.scipy.special: composites of the primitives above
# =============================================================================
__all__ += ["xlogy", "xlog1py", "entr", "rel_entr", "kl_div", "ndtr", "ndtri", "log_ndtr",
            "betaln", "digamma", "softmax", "log_softmax"]


def xlogy(x, y):
    """``x * log(y)``, and 0 where ``x == 0`` (even where ``log(y)`` is -inf or NaN)."""
    x, y = promote_args_inexact("xlogy", x, y)
    return _jnp.where(x == 0, _jnp.zeros_like(x), x * _jnp.log(y))


def xlog1py(x, y):
    """``x * log1p(y)``, and 0 where ``x == 0``."""
    x, y = promote_args_inexact("xlog1py", x, y)
    return _jnp.where(x == 0, _jnp.zeros_like(x), x * _jnp.log1p(y))


def entr(x):
    """The entropy term ``-x log x``: ``-0.`` at ``x == 0``, ``-inf`` for ``x < 0``."""
    x, = promote_args_inexact("entr", x)
    return _jnp.where(x < 0, -np.inf, -xlogy(x, x))


def rel_entr(p, q):
    """``p log(p / q)`` (0 at ``p == 0``, ``inf`` where it is undefined)."""
    p, q = promote_args_inexact("rel_entr", p, q)
    both = (p > 0) & (q > 0)
    safe_p, safe_q = _jnp.where(both, p, 1), _jnp.where(both, q, 1)
    return _jnp.where(both, safe_p * _jnp.log(safe_p / safe_q),
                      _jnp.where((p == 0) & (q >= 0), _jnp.zeros_like(p), np.inf))


def kl_div(p, q):
    """``p log(p / q) - p + q`` (as SciPy's ``kl_div``)."""
    p, q = promote_args_inexact("kl_div", p, q)
    both = (p > 0) & (q > 0)
    safe_p, safe_q = _jnp.where(both, p, 1), _jnp.where(both, q, 1)
    return _jnp.where(both, safe_p * _jnp.log(safe_p / safe_q) - p + q,
                      _jnp.where((p == 0) & (q >= 0), q, np.inf))


def _float_input(x, *, docstring_hint: bool = True):
    """``x`` as a (strongly typed) float32/float64 array: the normal-distribution
    functions refuse other dtypes with JAX's error."""
    x = _jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        hint = ", see docstring for supported types." if docstring_hint else "."
        raise TypeError(f"x.dtype={x.dtype} is not supported{hint}")
    return lax.convert_element_type(x, x.dtype) if x.weak_type else x


def ndtr(x):
    """The standard normal CDF, ``(1 + erf(x / sqrt 2)) / 2``, with ``erfc`` in the
    tails (so ``ndtr(-10)`` is not 0)."""
    x = _float_input(x)
    w = x * float(np.sqrt(0.5))  # a Python float: x's dtype
    z = _jnp.abs(w)
    y = _jnp.where(z < np.sqrt(0.5), 1.0 + erf(w),
                   _jnp.where(w > 0, 2.0 - erfc(z), erfc(z)))
    return lax.convert_element_type(0.5 * y, x.dtype)


#: log_ndtr's branches: above ``upper`` ``-ndtr(-x)``, between ``log(ndtr(x))``,
#: below ``lower`` the asymptotic series (the bounds JAX uses for each dtype).
_LOG_NDTR_BOUNDS = {np.dtype(np.float32): (-10.0, 5.0), np.dtype(np.float64): (-20.0, 8.0)}


def log_ndtr(x, series_order: int = 3):
    """``log(ndtr(x))``, accurate far into both tails."""
    x = _float_input(x, docstring_hint=False)
    lower, upper = _LOG_NDTR_BOUNDS[np.dtype(x.dtype)]
    # far right: log(1 - ndtr(-x)) ~ -ndtr(-x); middle: the log of the CDF
    right = -ndtr(-_jnp.where(x > upper, x, upper))
    middle = _jnp.log(ndtr(_jnp.clip(x, lower, upper)))
    # far left: -x^2/2 - log(-x) - log(2 pi)/2 + log(1 + sum_n (-1)^n (2n-1)!! / x^(2n))
    xl = _jnp.where(x < lower, x, lower)
    x2 = xl * xl
    term, total, odd = _jnp.ones_like(xl), _jnp.ones_like(xl), 1.0
    for n in range(1, series_order + 1):
        odd *= 2 * n - 1
        term = term / x2
        total = total + ((-1) ** n) * odd * term
    left = -0.5 * x2 - _jnp.log(-xl) - 0.5 * np.log(2 * np.pi) + _jnp.log(total)
    out = _jnp.where(x > upper, right, _jnp.where(x > lower, middle, left))
    return lax.convert_element_type(out, x.dtype)


def ndtri(p):
    """The inverse of :func:`ndtr`: ``sqrt(2) * erfinv(2p - 1)``, refined by three
    Newton steps on ``log_ndtr`` (so tiny ``p`` keep their precision); ``-inf``
    at 0, ``inf`` at 1, NaN outside ``[0, 1]``."""
    p = _float_input(p)
    dt = p.dtype
    lower = p < 0.5
    q = _jnp.where(lower, p, 1 - p)  # solve in the lower tail: x = -ndtri(1 - p) above
    safe = _jnp.clip(q, dtypes.finfo(dt).tiny, 0.5)
    x = np.sqrt(2.0) * erfinv(2 * safe - 1)
    x = _jnp.where(safe < 1e-4, -_jnp.sqrt(-2 * _jnp.log(safe)), x)  # a tail start
    log_q = _jnp.log(safe)
    for _ in range(3):
        log_cdf = log_ndtr(x)
        log_pdf = -0.5 * x * x - 0.5 * np.log(2 * np.pi)
        x = x - (log_cdf - log_q) / _jnp.exp(log_pdf - log_cdf)
    x = _jnp.where(lower, x, 0.0 - x)  # (0 - x: ndtri(0.5) is 0., not -0.)
    x = _jnp.where(p == 0, -np.inf, _jnp.where(p == 1, np.inf, x))
    x = _jnp.where((p < 0) | (p > 1) | _jnp.isnan(p), np.nan, x)
    return lax.convert_element_type(x, dt)


def betaln(a, b):
    """``log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)``."""
    a, b = promote_args_inexact("betaln", a, b)
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def digamma(x):
    """The logarithmic derivative of the Gamma function (``lax.digamma``)."""
    x, = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)`` (``jax.nn.softmax``)."""
    from minijax import nn
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """``x - logsumexp(x, axis)`` (``jax.nn.log_softmax``)."""
    from minijax import nn
    return nn.log_softmax(x, axis=axis)


# --- the Hurwitz zeta function and polygamma ----------------------------------------
__all__ += ["zeta", "polygamma"]

#: Euler-Maclaurin's correction terms: (2k)! / B_2k for k = 1..12.
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` (``x > 1``, ``q > 0``): ten terms
    summed, then the Euler-Maclaurin tail with twelve Bernoulli terms."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None "
                                  "to compute the Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    s = _jnp.power(q, -x)
    a = q
    b = _jnp.zeros_like(s)
    for _ in range(9):  # the direct sum, to a = q + 9
        a = a + 1
        b = _jnp.power(a, -x)
        s = s + b
    w = a
    s = s + b * w / (x - 1) - 0.5 * b
    fact, k = _jnp.ones_like(s), 0.0
    for coefficient in _ZETA_A:  # the tail: B_2k / (2k)! * x (x+1) ... / w^(x + 2k - 1)
        fact = fact * (x + k)
        b = b / w
        s = s + fact * b / coefficient
        k += 1
        fact = fact * (x + k)
        b = b / w
        k += 1
    out = _jnp.where((x == 1), np.inf, s)
    return _jnp.where((x < 1) | (q <= 0), np.nan, out)


def polygamma(n, x):
    """The ``n``-th derivative of :func:`digamma`:
    ``(-1)^(n+1) n! zeta(n + 1, x)`` for ``n >= 1``, :func:`digamma` for ``n = 0``."""
    n_arr = _jnp.asarray(n)
    if not np.issubdtype(n_arr.dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{n_arr.dtype}.")
    n, x = promote_args_inexact("polygamma", n, x)
    sign = _jnp.where(_jnp.fmod(n, 2) == 0, -1.0, 1.0)
    factorial = _jnp.exp(gammaln(n + 1))
    higher = sign * factorial * zeta(n + 1, x)
    return _jnp.where(n == 0, lax.digamma(x), higher)


# --- modified Bessel functions of orders 0 and 1, and the scaled erfc ------------------
__all__ += ["i0", "i0e", "i1", "i1e", "erfcx"]

#: Below this |x| the power series (40 terms), above it the asymptotic series.
_BESSEL_SPLIT = 15.0


def _bessel_ie(nu: int, x):
    """``exp(-|x|) I_nu(|x|)`` for ``nu`` 0 or 1: the power series
    ``sum (x/2)^(2k+nu) / (k! (k+nu)!)`` times ``exp(-|x|)`` for small ``|x|``, the
    asymptotic ``sum_k (-1)^k prod_j (4 nu^2 - (2j-1)^2) / (k! (8x)^k) / sqrt(2 pi x)``
    for large."""
    ax = _jnp.abs(x)
    small = _jnp.minimum(ax, _BESSEL_SPLIT)
    half = small / 2
    term = half ** nu / (1.0 if nu == 0 else 1.0)
    total = term
    quarter = half * half
    for k in range(1, 40):
        term = term * quarter / (k * (k + nu))
        total = total + term
    series = total * _jnp.exp(-small)
    large = _jnp.maximum(ax, _BESSEL_SPLIT)
    coefficient, asym = 1.0, _jnp.ones_like(large)
    for k in range(1, 8):
        coefficient *= -(4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)
        asym = asym + coefficient / large ** k
    asym = asym / _jnp.sqrt(2 * np.pi * large)
    return _jnp.where(ax <= _BESSEL_SPLIT, series, asym)


def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    x, = promote_args_inexact("i0e", x)
    return _bessel_ie(0, x)


def i0(x):
    """The modified Bessel function of order 0."""
    x, = promote_args_inexact("i0", x)
    return _jnp.exp(_jnp.abs(x)) * _bessel_ie(0, x)


def i1e(x):
    """``exp(-|x|) I1(x)`` (odd in ``x``)."""
    x, = promote_args_inexact("i1e", x)
    return _jnp.sign(x) * _bessel_ie(1, x)


def i1(x):
    """The modified Bessel function of order 1 (odd in ``x``)."""
    x, = promote_args_inexact("i1", x)
    return _jnp.sign(x) * _jnp.exp(_jnp.abs(x)) * _bessel_ie(1, x)


def erfcx(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)``: directly below
    ``x = 6``, the asymptotic ``(1 - 1/(2x^2) + 3/(2x^2)^2 - ...) / (x sqrt(pi))``
    above, and ``2 exp(x^2) - erfcx(-x)`` for negative ``x``."""
    x, = promote_args_inexact("erfcx", x)
    ax = _jnp.abs(x)
    near = _jnp.minimum(ax, 6.0)
    direct = _jnp.exp(near * near) * erfc(near)
    far = _jnp.maximum(ax, 6.0)
    inv = 1 / (2 * far * far)
    total, term = _jnp.ones_like(far), _jnp.ones_like(far)
    for k in range(1, 8):
        term = -term * (2 * k - 1) * inv
        total = total + term
    asymptotic = total / (far * np.sqrt(np.pi))
    positive = _jnp.where(ax < 6.0, direct, asymptotic)
    out = _jnp.where(x >= 0, positive, 2 * _jnp.exp(x * x) - positive)
    return lax.convert_element_type(out, out.dtype)  # strongly typed, as JAX's


# --- the Gamma-function family (gamma, beta, comb, poch, ...): its own module -----------
from minijax.scipy.gamma_functions import (  # noqa: E402,F401
    beta, boxcox, boxcox1p, comb, factorial, gamma, gammasgn, loggamma, multigammaln, poch)

__all__ += ["beta", "boxcox", "boxcox1p", "comb", "factorial", "gamma", "gammasgn",
            "loggamma", "multigammaln", "poch"]

from minijax.scipy.spence_bernoulli import bernoulli, spence  # noqa: E402,F401

__all__ += ["bernoulli", "spence"]

from minijax.scipy.spherical_harmonics import sph_harm_y  # noqa: E402,F401

__all__ += ["sph_harm_y"]
