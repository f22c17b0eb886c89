"""Chapter 08 — the regularized incomplete gamma functions of ``jax.scipy.special``.

``gammainc(a, x)`` (``P``) and ``gammaincc(a, x)`` (``Q = 1 - P``) are sums
that converge, computed as loops (``fori_loop``): the power series for ``P``
where ``x < a + 1``, Lentz's continued fraction for ``Q`` elsewhere. Loops
are chapter 08's, so this module, of chapter 08, adds the two functions to
chapter 00's ``minijax.scipy.special`` when it is imported (as later chapters
register their rules into earlier ones); ``scipy.stats``' gamma, chi-squared
and Poisson CDFs look them up there when called.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as _jnp
from minijax import dtypes
from minijax.control_flow.loops import fori_loop
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special

__all__ = ["gammainc", "gammaincc"]

#: Iterations of the series and of the continued fraction (enough for float32
#: and float64 at the shapes ``a`` of everyday statistics: both converge well
#: before, in the region where each is used).
_IGAMMA_ITERATIONS = 200


def _igamma_parts(a, x):
    """``(P, Q, use_series)``: the series for ``P(a, x)`` (used where ``x < a + 1``)
    and Lentz's continued fraction for ``Q(a, x)`` (used elsewhere), each computed
    for every element, with the common factor ``x^a e^-x / Gamma(a)``."""
    a, x = _jnp.broadcast_arrays(a, x)  # the loops carry arrays of one shape
    safe_x = _jnp.where(x > 0, x, 1)
    log_factor = a * _jnp.log(safe_x) - safe_x - special.gammaln(a)
    factor = _jnp.exp(log_factor)
    # series: P = factor * sum_n x^n / (a (a+1) ... (a+n))
    def series_step(n, carry):
        term, total = carry
        term = term * safe_x / (a + n)
        return term, total + term
    first = 1 / a
    _, total = fori_loop(1, _IGAMMA_ITERATIONS, series_step, (first, first))
    p_series = factor * total
    # continued fraction (modified Lentz): Q = factor * h
    tiny = float(dtypes.finfo(np.dtype(x.dtype)).tiny) * 1e3  # a Python float: weak

    def fraction_step(i, carry):
        b, c, d, h = carry
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = _jnp.where(_jnp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = _jnp.where(_jnp.abs(c) < tiny, tiny, c)
        d = 1 / d
        return b, c, d, h * d * c
    b0 = safe_x + 1 - a
    b0 = _jnp.where(_jnp.abs(b0) < tiny, tiny, b0)
    start = (b0, _jnp.full_like(b0, 1 / tiny), 1 / b0, 1 / b0)
    _, _, _, h = fori_loop(1, _IGAMMA_ITERATIONS, fraction_step, start)
    q_fraction = factor * h
    return p_series, q_fraction, x < a + 1


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``: 0 at ``x = 0``,
    NaN for ``a <= 0`` or ``x < 0`` (as SciPy and JAX)."""
    a, x = promote_args_inexact("gammainc", a, x)
    p_series, q_fraction, use_series = _igamma_parts(a, x)
    p = _jnp.where(use_series, p_series, 1 - q_fraction)
    p = _jnp.where(x == 0, 0.0, _jnp.where(x == np.inf, 1.0, p))
    return _jnp.where((a <= 0) | (x < 0) | _jnp.isnan(a) | _jnp.isnan(x), np.nan, p)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = promote_args_inexact("gammaincc", a, x)
    p_series, q_fraction, use_series = _igamma_parts(a, x)
    q = _jnp.where(use_series, 1 - p_series, q_fraction)
    q = _jnp.where(x == 0, 1.0, _jnp.where(x == np.inf, 0.0, q))
    return _jnp.where((a <= 0) | (x < 0) | _jnp.isnan(a) | _jnp.isnan(x), np.nan, q)


special.gammainc, special.gammaincc = gammainc, gammaincc
special.__all__ += ["gammainc", "gammaincc"]
