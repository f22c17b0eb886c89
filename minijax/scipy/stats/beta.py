"""The beta distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.beta``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def logpdf(x, a, b, loc=0, scale=1):
    """``(a - 1) log z + (b - 1) log(1 - z) - log B(a, b) - log(scale)``; ``-inf``
    outside the interval."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    z = standardize(x, loc, scale)
    value = (special.xlogy(a - 1, z) + special.xlog1py(b - 1, -z)
             - special.betaln(a, b) - jnp.log(scale))
    return outside((z < 0) | (z > 1), value)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    """``betainc(a, b, z)``, clipped to ``[0, 1]`` outside the interval."""
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, jnp.clip(standardize(x, loc, scale), 0, 1))


def logcdf(x, a, b, loc=0, scale=1):
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """``betainc(b, a, 1 - z)``: the upper tail, without subtracting from 1."""
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - jnp.clip(standardize(x, loc, scale), 0, 1))


def logsf(x, a, b, loc=0, scale=1):
    return jnp.log(sf(x, a, b, loc, scale))
