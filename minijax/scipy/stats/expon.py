"""The exponential distribution on ``x >= loc`` (``jax.scipy.stats.expon``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """``-(x - loc) / scale - log(scale)``; ``-inf`` below ``loc``."""
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return outside(z < 0, -z - jnp.log(scale))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(z < 0, jnp.zeros_like(z), -jnp.expm1(-z))


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.sf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(z < 0, jnp.ones_like(z), jnp.exp(-z))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.logsf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(z < 0, jnp.zeros_like(z), -z)


def ppf(q, loc=0, scale=1):
    """``loc - scale * log1p(-q)``; NaN outside ``[0, 1]``."""
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return jnp.where((q < 0) | (q > 1), np.nan, loc - scale * jnp.log1p(-q))
