"""Chapter 08 — the regularized incomplete beta function of ``jax.scipy.special``.

``betainc(a, b, x) = I_x(a, b)`` by Lentz's continued fraction, a loop
(``fori_loop``): evaluated at ``x`` where ``x < (a + 1) / (a + b + 2)``, where it
converges fast, else through the symmetry ``I_x(a, b) = 1 - I_(1-x)(b, a)``.
As :mod:`minijax.scipy.incomplete_gamma`, this chapter-08 module adds the
function to chapter 00's ``minijax.scipy.special``; ``scipy.stats.beta``'s CDF
looks it up there when called.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as _jnp
from minijax import dtypes
from minijax.control_flow.loops import fori_loop
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special

__all__ = ["betainc"]

#: Iterations of the continued fraction (it converges in O(sqrt(max(a, b))) of them).
_ITERATIONS = 200


def _continued_fraction(a, b, x):
    """``I_x(a, b) * a * B(a, b) / (x^a (1-x)^b)`` by the modified Lentz method."""
    tiny = float(dtypes.finfo(np.dtype(x.dtype)).tiny) * 1e3

    def guard(v):
        return _jnp.where(_jnp.abs(v) < tiny, tiny, v)
    qab, qap, qam = a + b, a + 1, a - 1
    d = 1 / guard(1 - qab * x / qap)

    def step(m, carry):
        c, d, h = carry
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))  # the even step
        d = 1 / guard(1 + aa * d)
        c = guard(1 + aa / c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))  # the odd step
        d = 1 / guard(1 + aa * d)
        c = guard(1 + aa / c)
        return c, d, h * d * c
    _, _, h = fori_loop(1, _ITERATIONS, step, (_jnp.ones_like(d), d, d))
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``: 0 at ``x = 0``, 1 at
    ``x = 1``, NaN for ``a <= 0``, ``b <= 0`` or ``x`` outside ``[0, 1]``."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    a, b, x = _jnp.broadcast_arrays(a, b, x)
    direct = x < (a + 1) / (a + b + 2)
    a_, b_ = _jnp.where(direct, a, b), _jnp.where(direct, b, a)
    x_ = _jnp.where(direct, x, 1 - x)
    inside = (x_ > 0) & (x_ < 1)
    safe = _jnp.where(inside, x_, 0.5)
    log_front = (special.gammaln(a_ + b_) - special.gammaln(a_) - special.gammaln(b_)
                 + a_ * _jnp.log(safe) + b_ * _jnp.log1p(-safe))
    value = _jnp.exp(log_front) * _continued_fraction(a_, b_, safe) / a_
    value = _jnp.where(direct, value, 1 - value)
    value = _jnp.where(x == 0, 0.0, _jnp.where(x == 1, 1.0, value))
    bad = (a <= 0) | (b <= 0) | (x < 0) | (x > 1) | _jnp.isnan(a) | _jnp.isnan(b) | _jnp.isnan(x)
    return _jnp.where(bad, np.nan, value)


special.betainc = betainc
special.__all__ += ["betainc"]
