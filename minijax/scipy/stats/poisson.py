"""The Poisson distribution (``jax.scipy.stats.poisson``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpmf", "pmf", "cdf"]


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
