"""The right-skewed Gumbel distribution (``jax.scipy.stats.gumbel_r``): the law of
maxima, ``cdf(z) = exp(-exp(-z))``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "ppf", "sf", "logsf"]


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(scale > 0, special.xlogy(-1, scale) - (z + jnp.exp(-z)), np.nan)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(scale > 0, -jnp.exp(-standardize(x, loc, scale)), np.nan)


def cdf(x, loc=0, scale=1):
    return jnp.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc - scale log(-log p)``; NaN outside ``(0, 1)``."""
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    quantile = loc - scale * jnp.log(special.xlogy(-1, p))
    return jnp.where((p > 0) & (p < 1), quantile, np.nan)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("gumbel_r.sf", x, loc, scale)
    return jnp.where(scale > 0, 1 - jnp.exp(-jnp.exp((loc - x) / scale)), np.nan)


def logsf(x, loc=0, scale=1):
    """``log(1 - exp(-e))`` with ``e = exp(-z)``, as ``log(-expm1(-e))``."""
    x, loc, scale = promote("gumbel_r.logsf", x, loc, scale)
    e = jnp.exp((loc - x) / scale)
    # log(1 - exp(-e)): log(-expm1(-e)) for small e, log1p(-exp(-e)) for large
    log_sf = jnp.where(e < np.log(2), jnp.log(-jnp.expm1(-e)), jnp.log1p(-jnp.exp(-e)))
    return jnp.where(scale > 0, log_sf, np.nan)
