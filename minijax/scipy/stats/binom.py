"""The binomial distribution (``jax.scipy.stats.binom``): successes in ``n`` trials."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """``log C(n, y) + y log p + (n - y) log(1 - p)`` for ``y = k - loc`` in
    ``0..n``; ``-inf`` outside (``0 log 0`` counts as 0)."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    log_choose = special.gammaln(n + 1) - (special.gammaln(y + 1) + special.gammaln(n - y + 1))
    log_powers = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    log_probs = jnp.where(((y == 0) & (n == 0)) | (log_powers == 0), 0.0,
                          log_choose + log_powers)
    return jnp.where((k >= loc) & (k < loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
