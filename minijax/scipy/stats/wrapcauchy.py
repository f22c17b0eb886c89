"""The wrapped Cauchy distribution (``jax.scipy.stats.wrapcauchy``) on ``[0, 2 pi]``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """``log(1 - c^2) - log(2 pi) - log(1 + c^2 - 2 c cos x)``; ``-inf`` outside
    ``[0, 2 pi]``, NaN unless ``0 < c < 1``."""
    x, c = promote("wrapcauchy.logpdf", x, c)
    value = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    inside = (x >= 0) & (x <= np.pi * 2)
    return jnp.where((c > 0) & (c < 1), jnp.where(inside, value, -np.inf), np.nan)


def pdf(x, c):
    return jnp.exp(logpdf(x, c))
