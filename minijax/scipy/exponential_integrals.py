"""Chapter 08 — the exponential integrals of ``jax.scipy.special``: ``exp1``, ``expi``,
``expn``.

``E_n(x) = int_1^inf exp(-x t) / t^n dt`` (``exp1`` is ``E_1``) and
``Ei(x) = -PV int_{-x}^inf exp(-t) / t dt``. Each is a convergent sum,
computed as a loop (``fori_loop``, this chapter's): the power series where
``x`` is small, and for ``E_n`` at larger ``x`` Lentz's evaluation of the
continued fraction ``E_n(x) = exp(-x) / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / ...))``.
``Ei`` of a positive ``x`` uses its series ``gamma + log x + sum x^k / (k k!)``
(all terms positive, so no cancellation) up to 40, the asymptotic series
``exp(x) / x sum k! / x^k`` beyond; for negative ``x``, ``Ei(x) = -E_1(-x)``.
The functions are added to chapter 00's ``minijax.scipy.special`` on import.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.control_flow.loops import fori_loop
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special

__all__ = ["exp1", "expi", "expn"]

_EULER = 0.5772156649015329  # Euler-Mascheroni constant gamma
_TERMS = 60                  # loop iterations of the series and continued fractions


def _expn_series(n, x):
    """``E_n(x)`` for ``0 < x <= 1``: the series of Numerical Recipes' ``expint``,
    whose term ``k = n - 1`` carries ``psi(n) - log x`` instead of ``1 / (k - n + 1)``."""
    nf = n.astype(x.dtype)
    first = jnp.where(n == 1, -jnp.log(x) - _EULER, 1.0 / jnp.where(n == 1, 1.0, nf - 1))
    # psi(n) = -gamma + sum_{j < n} 1/j
    psi = -_EULER + fori_loop(1, 64, lambda j, acc: acc + jnp.where(j < n, 1.0 / j, 0.0),
                              jnp.zeros_like(x))

    def body(i, carry):
        total, fact = carry
        fact = fact * (-x / i)
        special_term = i == n - 1
        denominator = jnp.where(special_term, 1.0, i - nf + 1)  # (no 0 in either branch)
        term = jnp.where(special_term, fact * (-jnp.log(x) + psi), -fact / denominator)
        return total + term, fact

    total, _ = fori_loop(1, _TERMS, body, (first, jnp.ones_like(x)))
    return total


def _expn_fraction(n, x):
    """``E_n(x)`` for ``x > 1`` by the modified Lentz algorithm on its continued
    fraction (Numerical Recipes' ``expint``)."""
    tiny = np.finfo(x.dtype).tiny * 1e3
    nf = n.astype(x.dtype)
    b = x + nf
    c = jnp.full_like(x, 1.0 / tiny)
    d = 1.0 / b

    def body(i, carry):
        b, c, d, h = carry
        an = -i * (nf - 1 + i)
        b = b + 2.0
        d = 1.0 / (an * d + b)
        c = b + an / c
        return b, c, d, h * (c * d)

    _, _, _, h = fori_loop(1, _TERMS, body, (b, c, d, d))
    return h * jnp.exp(-x)


def expn(n, x):
    """``E_n(x)`` for integer ``n >= 0`` and ``x >= 0`` (NaN elsewhere; ``inf`` at
    ``x = 0`` for ``n <= 1``)."""
    n, x = jnp.asarray(n), jnp.asarray(promote_args_inexact("expn", x)[0])
    n, x = jnp.broadcast_arrays(n, x)
    n = n.astype(np.int32)
    safe_x = jnp.where(x > 0, x, 1.0)
    safe_n = jnp.maximum(n, 1)
    # each branch sees only the x it is used for (a NaN in the other branch's
    # gradient would otherwise leak through the where)
    small = safe_x <= 1
    value = jnp.where(small, _expn_series(safe_n, jnp.where(small, safe_x, 0.5)),
                      _expn_fraction(safe_n, jnp.where(small, 2.0, safe_x)))
    value = jnp.where(n == 0, jnp.exp(-safe_x) / safe_x, value)  # E_0(x) = exp(-x) / x
    at_zero = jnp.where(n <= 1, np.inf, 1.0 / jnp.maximum(n - 1, 1).astype(x.dtype))
    value = jnp.where(x == 0, at_zero, value)
    return jnp.where((x < 0) | (n < 0) | jnp.isnan(x), np.nan, value)


def exp1(x):
    """``E_1(x)``: ``expn(1, x)``."""
    x, = promote_args_inexact("exp1", x)
    return expn(1, x)


def _expi_positive(x):
    def series(k, carry):
        total, term = carry
        term = term * x / k  # x^k / k!
        return total + term / k, term

    small, _ = fori_loop(1, 120, series, (jnp.zeros_like(x), jnp.ones_like(x)))
    small = small + _EULER + jnp.log(x)

    def asymptotic(k, carry):
        total, term = carry
        term = term * k / x  # k! / x^k
        return total + term, term

    large, _ = fori_loop(1, 20, asymptotic, (jnp.ones_like(x), jnp.ones_like(x)))
    return jnp.where(x <= 40, small, large * jnp.exp(x) / x)  # (x is kept <= 88 by float32)


def expi(x):
    """The exponential integral ``Ei(x)`` (NaN at 0, as JAX)."""
    x, = promote_args_inexact("expi", x)
    x = jnp.asarray(x)
    positive = _expi_positive(jnp.where(x > 0, x, 1.0))
    negative = -expn(1, jnp.where(x < 0, -x, 1.0))
    return jnp.where(x > 0, positive, jnp.where(x < 0, negative, np.nan))


special.exp1, special.expi, special.expn = exp1, expi, expn
special.__all__ += ["exp1", "expi", "expn"]
