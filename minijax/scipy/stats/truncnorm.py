"""The truncated normal distribution (``jax.scipy.stats.truncnorm``): a normal
restricted to ``[a, b]`` (in standard units) and renormalized.

Everything hinges on the log of the normal mass between two points,
computed in whichever tail keeps it accurate: for an interval right of 0 it
is mirrored to the left (``Phi(b) - Phi(a) = Phi(-a) - Phi(-b)``), where
``log_ndtr`` does not lose digits.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats import norm
from minijax.scipy.stats._common import promote

__all__ = ["logpdf", "pdf", "logcdf", "cdf", "logsf", "sf"]


def _log_diff(x, y):
    """``log(exp(x) - exp(y))`` for ``x >= y``."""
    return special.logsumexp(jnp.array([x, y]),
                             b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a, b):
    """``log(Phi(b) - Phi(a))``, accurately in each tail and in the middle."""
    a, b = jnp.broadcast_arrays(jnp.asarray(a), jnp.asarray(b))
    left, right = b <= 0, a > 0
    a_tail, b_tail = jnp.where(right, -b, a), jnp.where(right, -a, b)
    tail = _log_diff(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
    central = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return jnp.where(~(left | right), central, tail)


def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    value = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    z = (x - loc) / scale
    value = jnp.where((z < a) | (z > b), -np.inf, value)
    return jnp.where(a >= b, np.nan, value)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """``log(mass(a, x) / mass(a, b))``; near 1 through the survival mass instead."""
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(jnp.asarray(x), jnp.asarray(a), jnp.asarray(b))
    z = (x - loc) / scale
    total = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, z) - total
    log_sf = _log_gauss_mass(z, b) - total
    out = jnp.select([z >= b, z <= a, log_cdf > -0.1, z > a],
                     [0, -np.inf, jnp.log1p(-jnp.exp(log_sf)), log_cdf])
    return jnp.where(a >= b, np.nan, out)


def cdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """The mirror image: ``sf(x; a, b) = cdf(-x; -b, -a)``."""
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x, a, b, loc=0, scale=1):
    return jnp.exp(logsf(x, a, b, loc, scale))
