"""The beta-binomial distribution (``jax.scipy.stats.betabinom``): a binomial whose
success probability is itself ``Beta(a, b)``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """``log C(n, y) + log B(y + a, n - y + b) - log B(a, b)``, with
    ``C(n, y) = 1 / ((n + 1) B(n - y + 1, y + 1))``; NaN for bad parameters."""
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k) - loc
    log_choose = -(jnp.log1p(n) + special.betaln(n - y + 1, y + 1))
    log_probs = log_choose + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_probs = jnp.where((y == 0) & (n == 0), 0.0, log_probs)
    log_probs = jnp.where((y < -loc) | (y > n) | (y + a <= 0), -np.inf, log_probs)
    return jnp.where((n < 0) | (a <= 0) | (b <= 0), np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return jnp.exp(logpmf(k, n, a, b, loc))
