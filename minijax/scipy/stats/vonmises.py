"""The von Mises distribution (``jax.scipy.stats.vonmises``): the "normal" of angles,
density ``exp(kappa cos x) / (2 pi I0(kappa))``."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.scipy.stats._common import promote

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (``i0e = exp(-kappa) I0``, which
    does not overflow); NaN for ``kappa <= 0``."""
    x, kappa = promote("vonmises.logpdf", x, kappa)
    value = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * special.i0e(kappa))
    return jnp.where(kappa > 0, value, np.nan)


def pdf(x, kappa):
    return jnp.exp(logpdf(x, kappa))
