"""The multinomial distribution (``jax.scipy.stats.multinomial``): counts ``x`` of
``n`` draws over categories of probabilities ``p`` (the last axis)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.numpy.util import promote_args_inexact, promote_dtypes
from minijax.scipy import special

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """``log n! + sum_i (x_i log p_i - log x_i!)``; ``-inf`` unless the counts sum
    to ``n``. ``x`` and ``n`` must be integers."""
    p, = promote_args_inexact("multinomial.logpmf", p)
    p = jnp.asarray(p)
    x, n = promote_dtypes(jnp.asarray(x), jnp.asarray(n))
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = special.gammaln(n + 1) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1),
                                                 axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), log_probs, -np.inf)


def pmf(x, n, p):
    return jnp.exp(logpmf(x, n, p))
