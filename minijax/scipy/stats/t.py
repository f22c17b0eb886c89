"""Student's t distribution (``jax.scipy.stats.t``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """``lgamma((df+1)/2) - lgamma(df/2) - log(pi df)/2 - log(scale)
    - (df+1)/2 log1p(z**2 / df)``."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    z = standardize(x, loc, scale)
    half = 0.5 * (df + 1)
    normalize = (special.gammaln(half) - special.gammaln(0.5 * df)
                 - 0.5 * jnp.log(np.pi * df) - jnp.log(scale))
    return normalize - half * jnp.log1p(z * z / df)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
