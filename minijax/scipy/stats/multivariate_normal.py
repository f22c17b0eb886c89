"""The multivariate normal distribution (``jax.scipy.stats.multivariate_normal``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy.util import promote_dtypes_inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x, mean, cov, allow_singular=None):
    """Through the Cholesky factor ``L`` of ``cov``: with ``y = L^-1 (x - mean)``,
    ``-|y|**2 / 2 - sum(log diag L) - n log(2 pi) / 2``. A scalar or 1-D ``cov``
    is a (diagonal) variance; ``x`` may carry leading batch dimensions."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)  # dtypes only: ranks differ
    if not np.shape(mean):
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (float(np.log(2 * np.pi)) + jnp.log(cov))
    n = np.shape(mean)[-1]
    if not np.shape(cov):
        y = x - mean
        return (-0.5 * jnp.sum(y * y, axis=-1) / cov
                - n / 2 * (float(np.log(2 * np.pi)) + jnp.log(cov)))
    if np.ndim(cov) == 1:
        cov = jnp.diag(cov)
    factor = lax.linalg.cholesky(cov)
    diff = (x - mean)[..., None]
    batch = np.broadcast_shapes(np.shape(diff)[:-2], np.shape(factor)[:-2])
    y = lax.linalg.triangular_solve(jnp.broadcast_to(factor, batch + factor.shape[-2:]),
                                    jnp.broadcast_to(diff, batch + diff.shape[-2:]),
                                    left_side=True, lower=True)[..., 0]
    log_det = jnp.sum(jnp.log(jnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * jnp.sum(y * y, axis=-1) - log_det - n / 2 * float(np.log(2 * np.pi))


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
