"""The chi-squared distribution with ``df`` degrees of freedom (``jax.scipy.stats.chi2``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats import gamma
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, df, loc=0, scale=1):
    """The gamma distribution with shape ``df/2`` and scale 2."""
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    z = standardize(x, loc, scale)
    k = 0.5 * df
    value = (special.xlogy(k - 1, z) - 0.5 * z - special.gammaln(k) - k * float(np.log(2.0))
             - jnp.log(scale))
    return outside(z < 0, value)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    """The gamma distribution's: shape ``df / 2``, scale ``2 * scale``."""
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return gamma.cdf(x, 0.5 * df, loc, 2 * scale)


def logcdf(x, df, loc=0, scale=1):
    return jnp.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return gamma.sf(x, 0.5 * df, loc, 2 * scale)


def logsf(x, df, loc=0, scale=1):
    return jnp.log(sf(x, df, loc, scale))
