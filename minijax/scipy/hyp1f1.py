"""Chapter 08 — ``jax.scipy.special.hyp1f1``: Kummer's confluent hypergeometric function.

``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``, the term ratio being
``(a + k) / (b + k) * x / (k + 1)``. For ``|x| < 100`` the series is summed
until a term no longer changes the sum (at most 250 terms); beyond, the
asymptotic expansion ``Gamma(b) / Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k``.
Each sum is a ``while_loop`` over all elements at once: an element whose sum
has converged keeps it while the others go on, so the result is the one a
per-element loop gives. Derivatives: in ``x`` by the identity
``d/dx 1F1(a; b; x) = a / b 1F1(a + 1; b + 1; x)``, in ``a`` and ``b`` by the
series differentiated term by term (``custom_jvp``, chapter 07).
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes
from minijax.control_flow.loops import while_loop
from minijax.custom_derivatives import custom_jvp
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special

__all__ = ["hyp1f1"]

_MAX_TERMS = 250


def _sum_series(first_term, ratio, weight=None, start=1.0):
    """``start + sum_k weight(k) term_k`` with ``term_{k+1} = term_k ratio(k)`` from
    ``term_1 = first_term``, until ``|term / sum| <= eps`` everywhere (or 250 terms)."""
    first_term = jnp.asarray(first_term)
    eps = dtypes.finfo(first_term.dtype).eps
    weight = (lambda k: 1.0) if weight is None else weight

    def going(state):
        total, k, term, active = state
        return jnp.all(k < _MAX_TERMS) & jnp.any(active)

    def body(state):
        total, k, term, active = state
        total = jnp.where(active, total + term * weight(k), total)
        term = term * ratio(k)
        active = active & (jnp.abs(term) / jnp.abs(total) > eps)
        return total, k + 1, term, active

    total = jnp.zeros_like(first_term) + start
    active = jnp.abs(first_term) / jnp.abs(jnp.where(total == 0, 1.0, total)) > eps
    active = active | (total == 0)
    # k has the terms' shape, as in JAX's loop under ``vmap`` (every carry batched):
    # ``x / (k + 1)`` is then a division of equal shapes, not by a broadcast scalar,
    # which XLA (and the kernels) would turn into a product with the reciprocal
    k = jnp.ones(jnp.shape(first_term), dtypes.default_int_dtype)
    total, _, _, _ = while_loop(going, body, (total, k, first_term, active))
    return total


def _series(a, b, x):
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1))


def _asymptotic(a, b, x):
    total = _sum_series((b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x)
    return special.gamma(b) / special.gamma(a) * jnp.exp(x) * x ** (a - b) * total


def _hyp1f1(a, b, x):
    near = jnp.abs(x) < 100
    result = jnp.where(near, _series(a, b, jnp.where(near, x, 0.0)),
                       _asymptotic(a, b, jnp.where(near, 100.0, x)))
    result = jnp.where(a == 0, 1.0, result)
    result = jnp.where((a == b) & (a != 0), jnp.exp(x), result)
    return jnp.where((b == 0) & (a != 0), np.inf, result)


@custom_jvp
def _hyp1f1_custom(a, b, x):
    return _hyp1f1(a, b, x)


def _a_derivative(a, b, x):
    """``sum_k (a)_k/(b)_k x^k/k! (psi(a + k) - psi(a))``."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       weight=lambda k: special.digamma(a + k) - special.digamma(a), start=0.0)


def _b_derivative(a, b, x):
    """``sum_k (a)_k/(b)_k x^k/k! (psi(b) - psi(b + k))``."""
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       weight=lambda k: special.digamma(b) - special.digamma(b + k), start=0.0)


_hyp1f1_custom.defjvps(
    lambda a_dot, out, a, b, x: _a_derivative(a, b, x) * a_dot,
    lambda b_dot, out, a, b, x: _b_derivative(a, b, x) * b_dot,
    lambda x_dot, out, a, b, x: a / b * _hyp1f1_custom(a + 1, b + 1, x) * x_dot,
)


def hyp1f1(a, b, x):
    """Kummer's function ``1F1(a; b; x)`` for real arguments."""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    a, b, x = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b), jnp.asarray(x))
    if jnp.iscomplexobj(x):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    return _hyp1f1_custom(a, b, x)


special.hyp1f1 = hyp1f1
special.__all__ += ["hyp1f1"]
