"""The Bernoulli distribution on ``{loc, loc + 1}`` (``jax.scipy.stats.bernoulli``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    """``log p`` at 1, ``log(1 - p)`` at 0, ``-inf`` elsewhere."""
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    k = k - loc
    value = special.xlogy(k, p) + special.xlog1py(1 - k, -p)
    return outside((k != 0) & (k != 1), value)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """0 below 0, ``1 - p`` on ``[0, 1)``, 1 from 1 on; NaN for ``p`` outside ``[0, 1]``."""
    k, p = promote("bernoulli.cdf", k, p)
    value = jnp.where(k < 0, 0.0, jnp.where(k < 1, 1 - p, 1.0))
    return jnp.where((p < 0) | (p > 1), np.nan, value)


def ppf(q, p):
    """The smallest ``k`` with ``cdf(k) >= q``."""
    q, p = promote("bernoulli.ppf", q, p)
    value = jnp.where(q <= 1 - p, 0.0, 1.0)
    return jnp.where((q < 0) | (q > 1) | (p < 0) | (p > 1), np.nan, value)
