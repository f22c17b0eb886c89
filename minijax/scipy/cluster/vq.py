"""Chapter 00 — ``minijax.scipy.cluster.vq.vq``: assign observations to the nearest code."""
from __future__ import annotations

import minijax.numpy as jnp
from minijax.numpy import linalg as jnp_linalg
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
    """``(codes, distances)``: for each row of ``obs``, the index of the nearest row of
    ``code_book`` (Euclidean distance) and that distance."""
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(jnp.asarray(obs), jnp.asarray(code_book))
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    # all distances at once: (observations, codes)
    dist = jnp_linalg.norm(obs[:, None, :] - code_book[None, :, :], axis=-1)
    code = jnp.argmin(dist, axis=-1)
    return code, jnp.take_along_axis(dist, code[:, None], axis=-1)[:, 0]
