"""The Cauchy distribution (``jax.scipy.stats.cauchy``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """``-log(pi scale (1 + z**2))``."""
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return -float(np.log(np.pi)) - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1/2 + arctan(z) / pi``."""
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    return 0.5 + jnp.arctan(standardize(x, loc, scale)) / np.pi


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """``cdf`` of the mirrored point."""
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return 0.5 - jnp.arctan(standardize(x, loc, scale)) / np.pi


def logsf(x, loc=0, scale=1):
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """``loc + scale * tan(pi (q - 1/2))``."""
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return loc + scale * jnp.tan(np.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return loc + scale * jnp.tan(np.pi * (0.5 - q))
