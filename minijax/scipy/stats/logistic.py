"""The logistic distribution (``jax.scipy.stats.logistic``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x, loc=0, scale=1):
    """``-z - 2 log(1 + exp(-z)) - log(scale)``, written with ``logaddexp``-style
    care: ``-|z| - 2 log1p(exp(-|z|))`` (the density is symmetric)."""
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    z = jnp.abs(standardize(x, loc, scale))
    return -z - 2 * jnp.log1p(jnp.exp(-z)) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return special.expit(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return special.expit(-standardize(x, loc, scale))


def ppf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return special.logit(x) * scale + loc


def isf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return -special.logit(x) * scale + loc
