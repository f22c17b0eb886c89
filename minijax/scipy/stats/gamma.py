"""The gamma distribution with shape ``a`` (``jax.scipy.stats.gamma``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, loc=0, scale=1):
    """``(a - 1) log z - z - lgamma(a) - log(scale)``; ``-inf`` below ``loc``."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    z = standardize(x, loc, scale)
    value = special.xlogy(a - 1, z) - z - special.gammaln(a) - jnp.log(scale)
    return outside(z < 0, value)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """``gammainc(a, z)`` (0 below ``loc``)."""
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    z = standardize(x, loc, scale)
    return special.gammainc(a, jnp.maximum(z, 0))


def logcdf(x, a, loc=0, scale=1):
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """``gammaincc(a, z)`` (1 below ``loc``)."""
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    z = standardize(x, loc, scale)
    return special.gammaincc(a, jnp.maximum(z, 0))


def logsf(x, a, loc=0, scale=1):
    return jnp.log(sf(x, a, loc, scale))
