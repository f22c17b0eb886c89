"""The beta distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.beta``)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import outside, promote, standardize

__all__ = ["logpdf", "pdf"]


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
