"""Chapter 00 — ``jax.scipy.special.sph_harm_y``: spherical harmonics ``Y_n^m(theta, phi)``.

``Y_n^m = Pbar_n^m(cos theta) exp(i m phi)`` with ``Pbar`` the associated
Legendre function normalized so that the ``Y`` are orthonormal on the sphere
(and carrying the Condon-Shortley sign ``(-1)^m``). ``Pbar`` follows from three
stable recurrences, each element with its own ``n`` and ``|m|``:

* along the diagonal: ``Pbar_0^0 = 1 / sqrt(4 pi)``,
  ``Pbar_k^k = -sqrt((2k + 1) / 2k) sin(theta) Pbar_{k-1}^{k-1}``;
* one step off it: ``Pbar_{m+1}^m = sqrt(2m + 3) cos(theta) Pbar_m^m``;
* up in degree: ``Pbar_n^m = a (cos(theta) Pbar_{n-1}^m - Pbar_{n-2}^m / a')`` with
  ``a = sqrt((4n^2 - 1) / (n^2 - m^2))`` and ``a'`` the same at ``n - 1``.

The loops run ``n_max`` times (a Python loop: ``n_max`` is static) and each
element stops at its own ``n``; negative orders use
``Y_n^{-m} = (-1)^m conj(Y_n^m)``.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax

__all__ = ["sph_harm_y"]


def _normalized_legendre(n, am, x, n_max: int):
    """``Pbar_n^am(x)`` elementwise (``sin(theta) = sqrt(1 - x^2)``)."""
    sin = jnp.sqrt(jnp.maximum(1.0 - x * x, 0.0))
    diagonal = jnp.full_like(x, 1.0 / np.sqrt(4 * np.pi))
    for k in range(1, n_max + 1):
        factor = -np.sqrt((2 * k + 1) / (2 * k))
        diagonal = jnp.where(k <= am, factor * sin * diagonal, diagonal)
    amf = am.astype(x.dtype)
    below, current = diagonal, jnp.sqrt(2 * amf + 3) * x * diagonal  # degrees am, am + 1
    for step in range(2, n_max + 1):
        degree = amf + step
        a = jnp.sqrt((4 * degree ** 2 - 1) / jnp.maximum(degree ** 2 - amf ** 2, 1.0))
        a_prev = jnp.sqrt((4 * (degree - 1) ** 2 - 1)
                          / jnp.maximum((degree - 1) ** 2 - amf ** 2, 1.0))
        following = a * (x * current - below / a_prev)
        go = am + step <= n
        below, current = jnp.where(go, current, below), jnp.where(go, following, current)
    return jnp.where(n == am, diagonal, current)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic of degree ``n`` and order ``m`` (``|m| <= n``) at
    colatitude ``theta`` and longitude ``phi``; ``n_max`` bounds ``n`` (degrees
    above it are clipped to it, as JAX does)."""
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to jax.scipy.special.sph_harm_y is "
                                  "not supported.")
    theta = jnp.atleast_1d(jnp.asarray(theta))
    if n_max is None:
        n_max = int(np.max(np.asarray(n)))
    n_max = int(n_max)
    n, m = jnp.asarray(n), jnp.asarray(m)
    theta, phi = jnp.asarray(theta), jnp.asarray(phi)
    if not jnp.issubdtype(theta.dtype, jnp.inexact):
        theta = theta.astype(jnp.float32)
    n, m, theta, phi = jnp.broadcast_arrays(n, m, theta, phi.astype(theta.dtype))
    n = jnp.minimum(n, n_max)
    am = jnp.abs(m)
    legendre = _normalized_legendre(n, am, jnp.cos(theta), n_max)
    angle = am.astype(theta.dtype) * phi
    harmonics = lax.complex(legendre * jnp.cos(angle), legendre * jnp.sin(angle))
    return jnp.where(m < 0, (-1.0) ** am * jnp.conjugate(harmonics), harmonics)
