"""Chapter 00 — ``spence`` (the dilogarithm) and ``bernoulli`` (the Bernoulli numbers).

``spence(x) = int_1^x log(t) / (1 - t) dt = Li_2(1 - x)``. Near ``x = 1`` a
rational approximation in ``w = x - 1`` (Cephes' coefficients) is accurate;
the reflection and inversion identities of the dilogarithm bring every
``x > 0`` there: ``1/x`` for ``x > 2`` (or ``x > 1.5``, with ``w = 1/x - 1``)
and ``1 - x`` for ``x < 0.5``.

The Bernoulli numbers ``B_2m`` come from the zeta function:
``B_2m = (-1)^(m+1) 2 (2m)! zeta(2m) / (2 pi)^(2m)`` (Chowla and Hartung), the
factor ``(2m)! / (2 pi)^2m`` built as a running product and ``zeta(2m)`` summed
to ``k = 49``; the odd ones past ``B_1`` are zero.
"""
from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp

__all__ = ["spence", "bernoulli"]

#: Cephes' rational approximation of the dilogarithm near 1: numerator, denominator
_SPENCE_A = (4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
             8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
             3.29771340985225106936e0, 1.00000000000000000126e0)
_SPENCE_B = (6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
             1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
             3.54771340985225096217e0, 9.99999999999999998740e-1)


def _spence_positive(x):
    inverted = x > 2.0
    x = jnp.where(inverted, 1.0 / x, x)
    above = x > 1.5
    below = x < 0.5
    inverted = inverted | above
    w = jnp.where(above, 1.0 / x - 1.0, jnp.where(below, -x, x - 1.0))
    y = -w * jnp.polyval(jnp.array(_SPENCE_A, x.dtype), w) / jnp.polyval(
        jnp.array(_SPENCE_B, x.dtype), w)
    # reflection: Li2(1 - x) + Li2(x) = pi^2/6 - log(x) log(1 - x)
    y = jnp.where(below, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    # inversion: Li2(1 - 1/x) = -Li2(1 - x) - log(x)^2 / 2
    return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """``int_1^x log(t) / (1 - t) dt`` for ``x >= 0`` (NaN for negative ``x``)."""
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")
    safe = jnp.where(x > 0, x, 1.0)
    value = _spence_positive(safe)
    value = jnp.where(x == 1.0, 0.0, value)
    value = jnp.where(x == 0.0, np.pi ** 2 / 6, value)
    return jnp.where(x < 0.0, np.nan, value)


def bernoulli(n: int):
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    first = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[:n + 1]
    out = jnp.zeros(n + 1).at[:3].set(first)
    m = jnp.arange(4, n + 1, 2, dtype=out.dtype)
    # 2 (2m)! / (2 pi)^2m with its sign, as a running product over m = 2, 4, 6, ...
    factor = (1.0 / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = jnp.arange(2, 50, dtype=out.dtype)
    zeta_minus_one = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return out.at[4::2].set(factor * (1 + zeta_minus_one))
