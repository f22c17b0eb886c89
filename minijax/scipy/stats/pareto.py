"""The Pareto distribution (``jax.scipy.stats.pareto``): ``sf(x) = x^-b`` for ``x >= 1``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import promote

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, b, loc=0, scale=1):
    """``log b - log scale - (b + 1) log z`` for ``z = (x - loc) / scale >= 1``."""
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    z = (x - loc) / scale
    log_probs = -(jnp.log(scale / b) + (b + 1) * jnp.log(z))
    return jnp.where(x < loc + scale, -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    z = (x - loc) / scale
    return jnp.where(x < loc + scale, 0.0, 1 - z ** -b)


def logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    z = (x - loc) / scale
    return jnp.where(x < loc + scale, -np.inf, jnp.log1p(-(z ** -b)))


def logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    z = (x - loc) / scale
    return jnp.where(x < loc + scale, 0.0, -(b * jnp.log(z)))


def sf(x, b, loc=0, scale=1):
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """``loc + scale (1 - q)^(-1/b)``; NaN outside ``[0, 1]``."""
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    value = loc + scale * (1 - q) ** -(1 / b)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
