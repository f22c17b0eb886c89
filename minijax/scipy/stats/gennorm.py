"""The generalized normal distribution (``jax.scipy.stats.gennorm``): density
proportional to ``exp(-|x|^beta)`` (Laplace for ``beta = 1``, normal-shaped for 2)."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax import lax
from minijax.scipy import special
from minijax.scipy.stats._common import promote

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, beta):
    """``log(beta / 2) - lgamma(1 / beta) - |x|^beta``."""
    x, beta = promote("gennorm.logpdf", x, beta)
    return jnp.log(0.5 * beta) - lax.lgamma(1 / beta) - jnp.abs(x) ** beta


def pdf(x, beta):
    return jnp.exp(logpdf(x, beta))


def cdf(x, beta):
    """``(1 + sign(x) P(1 / beta, |x|^beta)) / 2``, ``P`` the regularized lower
    incomplete Gamma function."""
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * special.gammainc(1 / beta, jnp.abs(x) ** beta))
