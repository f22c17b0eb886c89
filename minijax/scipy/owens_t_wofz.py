"""Chapter 07 — ``owens_t`` and ``wofz``: two special functions given their
derivatives by ``custom_jvp`` (this chapter's), because their formulas are
approximations whose own derivatives would be less accurate than the exact ones.

Owen's T function ``T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx``
(the probability of a bivariate-normal region) is a 26-point Gauss-Legendre
quadrature (the integrand is even, so the 13 positive nodes suffice), for
``|a| <= 1``; larger ``|a|`` are brought there by the identity relating
``T(h, a)`` and ``T(a h, 1/a)``. Its derivatives are closed forms.

The Faddeeva function ``w(z) = exp(-z^2) erfc(-i z)`` uses Weideman's rational
approximation (1994): with ``Z = (L + i z) / (L - i z)``,
``w(z) ~ 2 p(Z) / (L - i z)^2 + 1 / (sqrt(pi) (L - i z))``, ``p`` a polynomial
of degree 31 whose coefficients are a discrete Fourier transform computed
once, below, as Weideman's paper does. It holds in the upper half-plane;
``w(-z) = 2 exp(-z^2) - w(z)`` gives the lower one. ``w'(z) = -2 z w + 2i/sqrt(pi)``.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.custom_derivatives import custom_jvp
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special

__all__ = ["owens_t", "wofz"]

# --- Owen's T ----------------------------------------------------------------------------
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(26)
_POSITIVE = _NODES > 0
#: squared positive nodes (the integrand depends on x^2) and weights / (2 pi)
_QUAD_X2 = _NODES[_POSITIVE] ** 2
_QUAD_W = _WEIGHTS[_POSITIVE] / (2 * np.pi)


def _quadrature(h, a):
    """``T(h, a)`` for ``|a| <= 1``: ``a sum_i w_i f(a^2 x_i^2)`` over [0, 1]."""
    r = jnp.square(a)[..., None] * jnp.asarray(_QUAD_X2, a.dtype)
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (integrand @ jnp.asarray(_QUAD_W, a.dtype))


@custom_jvp
def _owens_t(h, a):
    h, a = jnp.asarray(h), jnp.asarray(a)
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root_2 = np.sqrt(2).astype(h.dtype)
    small_a = jnp.where(abs_a <= 1.0, abs_a, 1.0 / abs_a)
    scaled_h = jnp.where(abs_a <= 1.0, h, abs_a * h)
    result = _quadrature(scaled_h, small_a)
    result = jnp.where(scaled_h == 0.0, jnp.arctan(small_a) / (2 * np.pi), result)  # exact
    result = jnp.where(small_a == 1.0, 0.125 * lax.erfc(-scaled_h / root_2)
                       * lax.erfc(scaled_h / root_2), result)                     # exact
    # |a| > 1: T(h, a) = (Phi(h) + Phi(a h)) / 2 - Phi(h) Phi(a h) - T(a h, 1/a), written
    # with erf near 0 and erfc in the tails
    norm_h, norm_ah = lax.erfc(h / root_2), lax.erfc(abs_a * h / root_2)
    near = 0.25 - 0.25 * lax.erf(h / root_2) * lax.erf(abs_a * h / root_2) - result
    tail = 0.25 * (norm_h + norm_ah - norm_h * norm_ah) - result
    result = jnp.where(abs_a > 1.0, jnp.where(abs_a * h <= 0.67, near, tail), result)
    result = jnp.sign(a) * result
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, np.nan), result)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    h, a = (jnp.asarray(v) for v in primals)
    dh, da = tangents
    root_2 = np.sqrt(2).astype(h.dtype)
    # dT/dh = -exp(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi));
    # dT/da = exp(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))
    d_h = -jnp.exp(-0.5 * h * h) * lax.erf(a * h / root_2) / (2.0 * np.sqrt(2.0 * np.pi))
    d_a = jnp.exp(-0.5 * (a * a + 1.0) * h * h) / (2.0 * np.pi * (a * a + 1.0))
    out = _owens_t(h, a)
    return out, (d_h * dh + d_a * da).astype(out.dtype)


def owens_t(h, a):
    """Owen's T function ``T(h, a)``."""
    h, a = promote_args_inexact("owens_t", h, a)
    h, a = jnp.broadcast_arrays(jnp.asarray(h), jnp.asarray(a))
    return _owens_t(h, a)


# --- the Faddeeva function w(z) -----------------------------------------------------------
def _weideman_coefficients(n: int = 32):
    """``(L, coefficients of p, highest first)`` of Weideman's approximation with ``n``
    terms: ``L = sqrt(n / sqrt 2)``, and the coefficients the FFT of
    ``exp(-t^2) (L^2 + t^2)`` sampled at ``t = L tan(theta / 2)``."""
    m = 2 * n
    k = np.arange(-m + 1, m)
    length = np.sqrt(n / np.sqrt(2))
    t = length * np.tan(k * np.pi / m / 2)
    f = np.concatenate([[0.0], np.exp(-t ** 2) * (length ** 2 + t ** 2)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return length, a[1:n + 1][::-1]


_WOFZ_L, _WOFZ_COEFFS = _weideman_coefficients()


def _wofz_upper(z):
    length = jnp.asarray(_WOFZ_L, z.dtype)
    iz = 1j * z
    denom = length - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_COEFFS, z.dtype), (length + iz) / denom)
    return 2 * p / (denom * denom) + (1 / np.sqrt(np.pi)) / denom


@custom_jvp
def _wofz(z):
    upper = jnp.imag(z) >= 0
    w_upper = _wofz_upper(jnp.where(upper, z, -z))
    return jnp.where(upper, w_upper, 2 * jnp.exp(-z * z) - w_upper)


_wofz.defjvps(lambda g, ans, z: g * (-2 * z * ans + 2j / np.sqrt(np.pi)))


def wofz(z):
    """The Faddeeva function ``exp(-z^2) erfc(-i z)`` (complex)."""
    z = jnp.asarray(z)
    z = z.astype(np.result_type(z.dtype, np.complex64))
    return _wofz(z)


special.owens_t, special.wofz = owens_t, wofz
special.__all__ += ["owens_t", "wofz"]
