"""The gamma distribution with shape ``a`` (``jax.scipy.stats.gamma``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x, a, loc=0, scale=1):
    """``(a - 1) log z - z - lgamma(a) - log(scale)``; ``-inf`` below ``loc``."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    z = standardize(x, loc, scale)
    value = special.xlogy(a - 1, z) - z - special.gammaln(a) - jnp.log(scale)
    return outside(z < 0, value)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))
