"""The uniform distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.uniform``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import outside, promote

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` inside the interval, ``-inf`` outside."""
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    return outside((x < loc) | (x > loc + scale), -jnp.log(scale) + jnp.zeros_like(x))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    return jnp.clip((x - loc) / scale, 0, 1)


def ppf(q, loc=0, scale=1):
    """``loc + q * scale``; NaN outside ``[0, 1]``."""
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return jnp.where((q < 0) | (q > 1), np.nan, loc + q * scale)
