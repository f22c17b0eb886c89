"""The negative binomial distribution (``jax.scipy.stats.nbinom``): failures before
the ``n``-th success."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """``log C(y + n - 1, y) + n log p + y log(1 - p)`` for ``y = k - loc >= 0``."""
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_choose = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1)
    log_probs = log_choose + special.xlogy(n, p) + special.xlogy(y, 1 - p)
    return jnp.where(k < loc, -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
