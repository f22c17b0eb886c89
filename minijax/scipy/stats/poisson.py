"""The Poisson distribution (``jax.scipy.stats.poisson``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """``k log(mu) - mu - log(k!)``; ``-inf`` for negative or non-integer ``k``."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = k - loc
    value = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return outside((x < 0) | (x != jnp.round(x)), value)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))
