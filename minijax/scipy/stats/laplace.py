"""The Laplace (double exponential) distribution (``jax.scipy.stats.laplace``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, loc=0, scale=1):
    """``-|x - loc| / scale - log(2 scale)``."""
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    return -jnp.abs(standardize(x, loc, scale)) - jnp.log(scale) - float(np.log(2.0))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return jnp.where(z < 0, 0.5 * jnp.exp(z), 1 - 0.5 * jnp.exp(-z))
