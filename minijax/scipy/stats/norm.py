"""The normal distribution ``N(loc, scale**2)`` (``jax.scipy.stats.norm``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

_HALF_LOG_2PI = float(0.5 * np.log(2 * np.pi))  # a Python float: weakly typed


def logpdf(x, loc=0, scale=1):
    """``-((x - loc) / scale)**2 / 2 - log(scale) - log(2 pi) / 2``."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return -0.5 * z * z - jnp.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``ndtr((x - loc) / scale)``."""
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr(standardize(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf``, as ``cdf`` of the mirrored point."""
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return special.ndtr(-standardize(x, loc, scale))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return special.log_ndtr(-standardize(x, loc, scale))


def ppf(q, loc=0, scale=1):
    """The quantile function, the inverse of :func:`cdf`."""
    q, loc, scale = promote("norm.ppf", q, loc, scale)
    return special.ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    """The inverse of :func:`sf`."""
    q, loc, scale = promote("norm.isf", q, loc, scale)
    return -special.ndtri(q) * scale + loc
