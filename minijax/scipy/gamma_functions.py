"""Chapter 00 — the Gamma-function family of ``jax.scipy.special``, from ``lgamma``.

``lgamma(x) = log|Gamma(x)|`` is a lax primitive; the sign of ``Gamma`` is
known in closed form (positive for ``x > 0``; for negative non-integers it
alternates between the poles: ``-1`` where ``floor(x)`` is odd), so
``Gamma = sign * exp(lgamma)``. Factorials, binomial coefficients, Beta and
Pochhammer symbols are ratios of Gammas, computed as differences of logs.

Complex ``gamma`` uses Lanczos' approximation (``g = 7``, nine coefficients;
Godfrey's values) with the reflection formula
``Gamma(z) Gamma(1 - z) = pi / sin(pi z)`` left of ``Re z = 1/2``. Complex
``loggamma`` needs the principal branch, which takes a loop (chapter 08's
``minijax.scipy.complex_loggamma`` registers it in ``_COMPLEX_LOGGAMMA``).
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy.util import promote_args_inexact

__all__ = ["gamma", "gammasgn", "loggamma", "factorial", "beta", "comb", "multigammaln",
           "poch", "boxcox", "boxcox1p"]


#: Lanczos' approximation: Gamma(z + 1) ~ sqrt(2 pi) t^(z + 1/2) e^-t A(z), t = z + g + 1/2
_LANCZOS_G = 7.0
_LANCZOS_COEFFS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
                   771.32342877765313, -176.61502916214059, 12.507343278686905,
                   -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)

#: filled by chapter 08: the principal-branch complex loggamma
_COMPLEX_LOGGAMMA: list = []


def complex_loggamma_lanczos(z):
    """``log Gamma(z)`` for complex ``z`` by Lanczos (reflected left of 1/2): right
    up to a multiple of ``2 pi i`` (the branch is fixed in chapter 08)."""
    reflect = jnp.real(z) < 0.5
    w = jnp.where(reflect, 1.0 - z, z) - 1.0
    coeffs = jnp.asarray(_LANCZOS_COEFFS, dtype=z.dtype)
    ks = jnp.arange(1, 9, dtype=z.dtype)
    series = coeffs[0] + jnp.sum(coeffs[1:] / (w[..., None] + ks), axis=-1)
    t = w + _LANCZOS_G + 0.5
    log_gamma = 0.5 * np.log(2.0 * np.pi) + (w + 0.5) * jnp.log(t) - t + jnp.log(series)
    z_safe = jnp.where(reflect, z, jnp.full_like(z, 0.5))
    reflected = np.log(np.pi) - jnp.log(jnp.sin(np.pi * z_safe)) - log_gamma
    return jnp.where(reflect, reflected, log_gamma)


def _poles_or_nan(z):
    """Where ``Gamma`` has a pole (non-positive integers) or ``z`` is NaN."""
    at_pole = (jnp.imag(z) == 0) & (jnp.real(z) == jnp.floor(jnp.real(z))) & (jnp.real(z) <= 0)
    return at_pole | jnp.isnan(z)


def _complex_gamma(z):
    bad = _poles_or_nan(z)
    value = jnp.exp(complex_loggamma_lanczos(jnp.where(bad, jnp.ones_like(z), z)))
    return jnp.where(bad, jnp.array(complex(np.nan, np.nan), z.dtype), value)


def _promote(name, *args):
    """The arguments as arrays of one inexact dtype (Python scalars stay weakly typed)."""
    return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]


def _real_only(name, x):
    if jnp.iscomplexobj(x):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def gammasgn(x):
    """The sign of ``Gamma(x)``: ``1``, ``-1`` (negative ``x`` with odd ``floor(x)``,
    or ``-0.``), NaN at the poles (non-positive integers) and for NaN."""
    x, = _promote("gammasgn", x)
    _real_only("gammasgn", x)
    floor_x = lax.floor(x)
    negative = x < 0
    nan, minus_one, one = (np.array(v, x.dtype) for v in (np.nan, -1.0, 1.0))
    return jnp.select([(negative & (x == floor_x)) | jnp.isnan(x),
                       (negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))],
                      [nan, minus_one], one)


def gamma(x):
    """``Gamma(x) = gammasgn(x) * exp(lgamma(x))`` (complex ``x``: Lanczos; NaN at poles)."""
    x, = _promote("gamma", x)
    if jnp.iscomplexobj(x):
        return _complex_gamma(x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x):
    """``log(Gamma(x))`` for ``x > 0`` (NaN elsewhere: the real log of a negative
    Gamma does not exist); for complex ``x``, the principal branch (cut along the
    negative real axis, as SciPy)."""
    x, = _promote("loggamma", x)
    if jnp.iscomplexobj(x):
        if not _COMPLEX_LOGGAMMA:
            raise NotImplementedError("complex loggamma is chapter 08's: import minijax")
        return _COMPLEX_LOGGAMMA[0](x)
    return jnp.where(x > 0, lax.lgamma(x), jnp.nan)


def factorial(n, exact: bool = False):
    """``n! = Gamma(n + 1)`` as a float (0 for negative ``n``)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = _promote("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def beta(a, b):
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, with its sign."""
    a, b = _promote("beta", a, b)
    _real_only("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    log_abs = lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)
    return sign * lax.exp(log_abs)


def comb(N, k, *, repetition: bool = False):
    """``N choose k`` (with ``repetition``: ``N + k - 1 choose k``) as a float, from
    ``gammaln``; 0 where ``N < 0``, ``k < 0`` or ``k > N``."""
    N, k = _promote("comb", N, k)
    if repetition:  # (0 for N < 0, where SciPy gives NaN, as JAX)
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    ok = (N >= 0) & (k >= 0) & (k <= N)
    safe_n, safe_k = jnp.where(ok, N, 0.0), jnp.where(ok, k, 0.0)
    out = lax.exp(lax.lgamma(safe_n + 1) - lax.lgamma(safe_k + 1)
                  - lax.lgamma(safe_n + 1 - safe_k))
    return jnp.where(ok, out, 0.0)


def multigammaln(a, d):
    """The log of the multivariate Gamma function of dimension ``d``:
    ``d (d - 1) / 4 log(pi) + sum_{j<d} lgamma(a - j / 2)``."""
    d = int(d)
    a, d_ = _promote("multigammaln", a, d)
    constant = 0.25 * d_ * (d_ - 1) * jnp.log(np.array(np.pi, a.dtype))
    halves = jnp.arange(d, dtype=d_.dtype) / 2
    terms = lax.lgamma(jnp.expand_dims(a, -1) - halves)
    return jnp.sum(terms, axis=-1) + constant


def poch(z, m):
    """The rising factorial ``(z)_m = Gamma(z + m) / Gamma(z)`` (1 for ``m = 0``)."""
    z, m = _promote("poch", z, m)
    if jnp.iscomplexobj(z):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


def _boxcox_of_log(log_x, lmbda):
    """``(exp(lmbda * log_x) - 1) / lmbda``, and ``log_x`` itself at ``lmbda = 0``."""
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x^lmbda - 1) / lmbda`` (``log x`` at ``lmbda = 0``)."""
    x, lmbda = _promote("boxcox", x, lmbda)
    return _boxcox_of_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """:func:`boxcox` of ``1 + x``, accurate for small ``x``."""
    x, lmbda = _promote("boxcox1p", x, lmbda)
    return _boxcox_of_log(jnp.log1p(x), lmbda)
