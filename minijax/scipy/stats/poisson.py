"""The Poisson distribution (``jax.scipy.stats.poisson``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


def logpmf(k, mu, loc=0):
    """``k log(mu) - mu - log(k!)``; ``-inf`` for negative or non-integer ``k``."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = k - loc
    value = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return outside((x < 0) | (x != jnp.round(x)), value)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``P(K <= k) = gammaincc(floor(k) + 1, mu)``; 0 below ``loc``."""
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    x = jnp.floor(k - loc)
    return jnp.where(x < 0, 0.0, special.gammaincc(jnp.maximum(x, 0) + 1, mu))


def _entropy_by_sum(mu, terms: int, upper):
    """``-sum_k p(k) log p(k)`` over ``k < upper`` (at most ``terms`` of them)."""
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    probs = jnp.where(k < upper[None, :], pmf(k, mu, 0), 0.0)
    return jnp.sum(special.entr(probs), axis=0)


def entropy(mu, loc=0):
    """The entropy ``-sum_k p(k) log p(k)``, as JAX computes it: the sum itself up
    to ``mu + 20`` (``mu < 10``) or ``mu + 10 sqrt(mu) + 20`` (``mu < 100``), where
    the rest of the mass is negligible; beyond, the asymptotic
    ``log(2 pi e mu) / 2 - 1 / (12 mu)``. ``loc`` shifts, so changes nothing."""
    mu, loc = (jnp.asarray(v) for v in promote("poisson.entropy", mu, loc))
    shape = np.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    small = _entropy_by_sum(flat, 35, jnp.ceil(flat + 20))
    medium = _entropy_by_sum(flat, 250, jnp.ceil(flat + 10 * jnp.sqrt(flat) + 20))
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    result = jnp.where(flat == 0, jnp.zeros_like(flat),
                       jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(result.reshape(mu.shape), shape)
