"""The left-skewed Gumbel distribution (``jax.scipy.stats.gumbel_l``): the law of
minima, ``sf(z) = exp(-exp(z))``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, special.xlogy(-1, scale) + (z - jnp.exp(z)), np.nan)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logcdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc + scale log(-log(1 - p))``; NaN outside ``(0, 1)``."""
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    quantile = loc + scale * jnp.log(special.xlog1py(-1, -p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_l.logsf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp(standardize(x, loc, scale)), np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))
