"""The geometric distribution on ``1, 2, ...`` (``jax.scipy.stats.geom``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """``(k - 1) log(1 - p) + log p``; ``-inf`` below 1."""
    k, p, loc = promote("geom.logpmf", k, p, loc)
    x = k - loc
    return outside(x < 1, special.xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
