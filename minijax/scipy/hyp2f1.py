"""Chapter 08 — ``jax.scipy.special.hyp2f1``: Gauss' hypergeometric function.

``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!`` for ``x <= 1``, as JAX
computes it (after Cephes' ``hyp2f1``):

* closed forms: 1 at ``x = 0`` (or ``a`` or ``b`` zero), ``inf`` where ``c`` is a
  non-positive integer or ``x > 1``, ``(1 - x)^-a`` when ``b = c`` (and the
  mirror), Gauss' ``Gamma(c) Gamma(c-a-b) / (Gamma(c-a) Gamma(c-b))`` at ``x = 1``;
* Euler's transformation ``(1 - x)^(c-a-b) 2F1(c - a, c - b; c; x)`` when
  ``c - a - b <= -1`` (the transformed series converges faster);
* the series itself (a ``while_loop`` until a term is below ``eps`` of the sum;
  it stops by itself when ``a`` or ``b`` is a non-positive integer);
* near ``x = 1`` with ``c - a - b`` an integer, where the usual connection
  formula divides by zero, the logarithmic series in ``1 - x`` with digamma
  terms (Abramowitz & Stegun 15.3.10-12).

Derivatives (``custom_jvp``, chapter 07): in ``x`` by
``d/dx 2F1 = ab/c 2F1(a+1, b+1; c+1; x)``, in ``a``, ``b``, ``c`` by the series
differentiated term by term (digamma differences).
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes
from minijax.control_flow.loops import fori_loop, while_loop
from minijax.custom_derivatives import custom_jvp
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special
from minijax.scipy.hyp1f1 import _sum_series

__all__ = ["hyp2f1"]


def _ratio(a, b, c, x):
    return lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x


def _series(a, b, c, x):
    return _sum_series(a * b / c * x, _ratio(a, b, c, x))


def _log_series_near_one(a, b, c, x):
    """``2F1`` for ``x`` near 1 when ``e = |c - a - b|`` is an integer: a series in
    ``s = 1 - x`` whose terms carry ``psi(1+t) + psi(1+t+e) - psi(a+t+d1) - psi(b+t+d1) - log s``,
    plus (for ``e > 0``) a finite sum of ``e`` terms."""
    eps = dtypes.finfo(x.dtype).eps
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, 0.0)
    d2 = jnp.where(rd >= 0, 0.0, d)
    n_finite = jnp.where(rd >= 0, rd, -rd).astype(np.int32)
    log_s = jnp.log(s)
    psi = special.digamma
    y = (psi(1.0) + psi(1.0 + e) - psi(a + d1) - psi(b + d1) - log_s) / special.gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / special.gamma(e + 2.0)

    def going(state):
        t, p, q, y = state
        return (t < 250) & jnp.any(jnp.abs(q) >= eps * jnp.abs(y))

    def body(state):
        t, p, q, y = state
        active = jnp.abs(q) >= eps * jnp.abs(y)
        r = psi(1.0 + t) + psi(1.0 + t + e) - psi(a + t + d1) - psi(b + t + d1) - log_s
        q = p * r
        y = jnp.where(active, y + q, y)
        p = p * s * (a + t + d1) / (t + 1.0) * (b + t + d1) / (t + 1.0 + e)
        return t + 1.0, p, jnp.where(active, q, 0.0), y

    _, _, _, y = while_loop(going, body, (jnp.ones((), x.dtype), p, y, y))

    def finite_sum(i, state):
        p, t, total = state
        p = p * s * (a + t + d2) * (b + t + d2) / (1.0 - e + t)
        t = t + 1.0
        p = p / t
        return p, t, jnp.where(i < n_finite, total + p, total)

    max_terms = 64  # |c - a - b| is at most this many for the finite part
    _, _, y1 = fori_loop(1, max_terms, finite_sum,
                         (jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x)))
    gc = special.gamma(c)
    y1 = y1 * special.gamma(e) * gc / (special.gamma(a + d1) * special.gamma(b + d1))
    y_scaled = y * gc / (special.gamma(a + d2) * special.gamma(b + d2))
    y_scaled = jnp.where(n_finite % 2 != 0, -y_scaled, y_scaled)
    q = s ** rd
    combined = jnp.where(rd > 0, y_scaled * q + y1, y_scaled + y1 * q)
    return jnp.where(rd == 0, y * gc / (special.gamma(a) * special.gamma(b)), combined)


def _series_or_log(a, b, c, x):
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    neg_int = (((a <= 0) & (jnp.abs(a - jnp.round(a)) < eps))
               | ((b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)))
    use_log = (x > 0.9) & ~neg_int & (jnp.abs(d - jnp.round(d)) < eps)
    plain = _series(a, b, c, jnp.where(use_log, 0.0, x))
    near_one = _log_series_near_one(a, b, c, jnp.where(use_log, x, 0.95))
    return jnp.where(use_log, near_one, plain)


def _hyp2f1(a, b, c, x):
    a, b, c, x = (jnp.asarray(v) for v in (a, b, c, x))
    eps = dtypes.finfo(x.dtype).eps * 50
    d, s = c - a - b, 1 - x
    ca, cb = c - a, c - b
    one = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    pole = (c == 0) | ((c < 0) & (c % 1 == 0)) | ((d <= 0) & (x == 1)) | (x > 1)
    euler = (d <= -1) & ~((jnp.abs(d - jnp.round(d)) >= eps) & (s < 0))
    x_in = jnp.where(x < 1, x, 0.0)
    result = _series_or_log(a, b, c, x_in)
    result = jnp.where(x == 1, special.gamma(c) * special.gamma(d)
                       / (special.gamma(ca) * special.gamma(cb)), result)
    result = jnp.where((x < 1) & (a == c), s ** (-b), result)
    result = jnp.where((x < 1) & (b == c), s ** (-a), result)
    result = jnp.where(euler, s ** d * _series_or_log(ca, cb, c, x_in), result)
    result = jnp.where(pole & ~one, np.inf, result)
    return jnp.where(one, 1.0, result)


@custom_jvp
def _hyp2f1_custom(a, b, c, x):
    return _hyp2f1(a, b, c, x)


def _parameter_derivative(a, b, c, x, weight):
    return _sum_series(a * b / c * x, _ratio(a, b, c, x), weight=weight, start=0.0)


_psi = special.digamma
_hyp2f1_custom.defjvps(
    lambda t, out, a, b, c, x: t * _parameter_derivative(
        a, b, c, x, lambda k: _psi(a + k) - _psi(a)),
    lambda t, out, a, b, c, x: t * _parameter_derivative(
        a, b, c, x, lambda k: _psi(b + k) - _psi(b)),
    lambda t, out, a, b, c, x: t * _parameter_derivative(
        a, b, c, x, lambda k: _psi(c) - _psi(c + k)),
    lambda t, out, a, b, c, x: t * a * b / c * _hyp2f1_custom(a + 1, b + 1, c + 1, x),
)


def hyp2f1(a, b, c, x):
    """Gauss' hypergeometric function ``2F1(a, b; c; x)`` for real arguments, ``x <= 1``."""
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    a, b, c, x = jnp.broadcast_arrays(*(jnp.asarray(v) for v in (a, b, c, x)))
    return _hyp2f1_custom(a, b, c, x)


special.hyp2f1 = hyp2f1
special.__all__ += ["hyp2f1"]
