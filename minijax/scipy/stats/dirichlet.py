"""The Dirichlet distribution (``jax.scipy.stats.dirichlet``)."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy import special
from minijax.numpy.util import promote_dtypes_inexact
from minijax.scipy.stats._common import outside

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """``sum((alpha - 1) log x) - log B(alpha)`` over the last axis of ``alpha``;
    ``-inf`` off the simplex (a coordinate outside ``[0, 1]``, or not summing to 1)."""
    x, alpha = promote_dtypes_inexact(x, alpha)  # dtypes only: ranks differ
    if np.ndim(alpha) != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={np.shape(alpha)}")
    if np.shape(x)[0] not in (np.shape(alpha)[0], np.shape(alpha)[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or "
                         f"one entry fewer; got x.shape={np.shape(x)}, "
                         f"alpha.shape={np.shape(alpha)}")
    if np.shape(x)[0] != np.shape(alpha)[0]:  # the last coordinate is 1 - sum(others)
        x = jnp.concatenate([x, 1 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    a = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    log_b = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
    value = jnp.sum(special.xlogy(a - 1, x), axis=0) - log_b
    off = jnp.any((x < 0) | (x > 1), axis=0) | (jnp.abs(jnp.sum(x, axis=0) - 1) > 1e-6)
    return outside(off, value)


def pdf(x, alpha):
    return jnp.exp(logpdf(x, alpha))
