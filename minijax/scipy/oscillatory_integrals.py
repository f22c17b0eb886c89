"""Chapter 08 — ``dawsn``, ``fresnel`` and ``sici`` of ``jax.scipy.special``.

All three are integrals of oscillating or Gaussian integrands, and all three
are power series near 0; away from 0 each is read off a complex function:

* Dawson's ``D(x) = exp(-x^2) int_0^x exp(t^2) dt`` is ``sqrt(pi)/2 Im w(x)``,
  ``w`` the Faddeeva function (``wofz``);
* the Fresnel integrals ``S(x) = int_0^x sin(pi t^2 / 2) dt`` and ``C(x)`` (with
  ``cos``) are ``C + i S = (1 + i)/2 erf((1 - i) sqrt(pi) x / 2)``, and
  ``erf(z) = 1 - exp(-z^2) w(i z)``;
* the sine and cosine integrals ``Si(x) = int_0^x sin t / t dt`` and
  ``Ci(x) = gamma + log x + int_0^x (cos t - 1) / t dt`` are, beyond ``x = 2``,
  ``Ci - i (Si - pi/2) = E_1(i x)``, whose continued fraction is evaluated by
  Lentz's method in complex arithmetic (a ``fori_loop``: this chapter's).

Each function is odd (``Ci`` even, taking ``|x|``), so only ``x >= 0`` is computed.
"""
from __future__ import annotations

import math

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.control_flow.loops import fori_loop
from minijax.numpy.util import promote_args_inexact
from minijax.scipy import special
from minijax.scipy.owens_t_wofz import wofz

__all__ = ["dawsn", "fresnel", "sici"]

_EULER = 0.5772156649015329


def _promote_real(name, x):
    x, = promote_args_inexact(name, x)
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x):
        raise TypeError(f"{name} does not support complex-valued inputs.")
    return x


def _complex(x):
    """``x + 0i`` (``lax.complex``, whose transpose keeps the real part of a cotangent)."""
    return lax.complex(x, jnp.zeros_like(x))


def _odd_series(x, coefficients):
    """``sum_n c_n x^(2n+1)``."""
    x2, power, total = x * x, x, jnp.zeros_like(x)
    for c in coefficients:
        total = total + c * power
        power = power * x2
    return total


#: Dawson: (-1)^n 2^n / (2n+1)!!
_DAWSON_SERIES = [(-2.0) ** n / math.prod(range(1, 2 * n + 2, 2)) for n in range(12)]


def dawsn(x):
    """Dawson's integral ``exp(-x^2) int_0^x exp(t^2) dt``."""
    x = _promote_real("dawsn", x)
    ax = jnp.abs(x)
    small = ax < 0.2
    far = jnp.where(small, 1.0, ax)
    from_wofz = 0.5 * np.sqrt(np.pi) * jnp.imag(wofz(_complex(far)))
    value = jnp.where(small, _odd_series(jnp.where(small, ax, 0.0), _DAWSON_SERIES), from_wofz)
    return jnp.sign(x) * value


#: Fresnel near 0: C = sum (-1)^n (pi/2)^(2n) x^(4n+1) / ((2n)! (4n+1)),
#: S = sum (-1)^n (pi/2)^(2n+1) x^(4n+3) / ((2n+1)! (4n+3))
_FRESNEL_C = [(-1) ** n * (np.pi / 2) ** (2 * n) / (math.factorial(2 * n) * (4 * n + 1))
              for n in range(10)]
_FRESNEL_S = [(-1) ** n * (np.pi / 2) ** (2 * n + 1) / (math.factorial(2 * n + 1) * (4 * n + 3))
              for n in range(10)]


def _series_in_x4(x, coefficients, first_power):
    x4, power, total = x ** 4, x ** first_power, jnp.zeros_like(x)
    for c in coefficients:
        total = total + c * power
        power = power * x4
    return total


def fresnel(x):
    """``(S(x), C(x))``, the Fresnel sine and cosine integrals."""
    x = _promote_real("fresnel", x)
    ax = jnp.abs(x)
    small = ax < 1.0
    near = jnp.where(small, ax, 0.0)
    s_small, c_small = _series_in_x4(near, _FRESNEL_S, 3), _series_in_x4(near, _FRESNEL_C, 1)
    far = _complex(jnp.where(small, 1.0, ax))
    z = (1 - 1j) * (np.sqrt(np.pi) / 2) * far
    erf_z = 1 - jnp.exp(-z * z) * wofz(1j * z)
    c_plus_is = (1 + 1j) / 2 * erf_z
    s = jnp.where(small, s_small, jnp.imag(c_plus_is).astype(x.dtype))
    c = jnp.where(small, c_small, jnp.real(c_plus_is).astype(x.dtype))
    sign = jnp.sign(x)
    return sign * s, sign * c


#: Si = sum (-1)^n x^(2n+1) / ((2n+1) (2n+1)!); Ci - gamma - log x = sum (-1)^n x^(2n) / (2n (2n)!)
_SI_SERIES = [(-1) ** n / ((2 * n + 1) * math.factorial(2 * n + 1)) for n in range(14)]
_CI_SERIES = [(-1) ** n / (2 * n * math.factorial(2 * n)) for n in range(1, 14)]


def _sici_fraction(x):
    """``E_1(i x)`` for ``x > 2`` by Lentz's method (Numerical Recipes' ``cisi``)."""
    cx = _complex(x)
    b = 1 + 1j * cx
    tiny = np.finfo(x.dtype).tiny * 1e3
    c = jnp.full_like(cx, 1.0 / tiny)
    d = 1.0 / b

    def body(i, carry):
        b, c, d, h = carry
        a = -((i - 1.0) ** 2)
        b = b + 2.0
        d = 1.0 / (a * d + b)
        c = b + a / c
        return b, c, d, h * (c * d)

    _, _, _, h = fori_loop(2, 100, body, (b, c, d, d))
    return h * (jnp.cos(cx) - 1j * jnp.sin(cx))


def sici(x):
    """``(Si(x), Ci(x))``, the sine and cosine integrals (``Ci`` of ``|x|``; ``-inf``
    at 0)."""
    x = _promote_real("sici", x)
    ax = jnp.abs(x)
    small = ax <= 2.0
    near = jnp.where(small, ax, 1.0)
    si_small = _odd_series(near, _SI_SERIES)
    x2, power, ci_sum = near * near, near * near, jnp.zeros_like(near)
    for coefficient in _CI_SERIES:
        ci_sum = ci_sum + coefficient * power
        power = power * x2
    ci_small = _EULER + jnp.log(near) + ci_sum
    h = _sici_fraction(jnp.where(small, 3.0, ax))
    si_far = (np.pi / 2 + jnp.imag(h)).astype(x.dtype)
    ci_far = (-jnp.real(h)).astype(x.dtype)
    si = jnp.sign(x) * jnp.where(small, si_small, si_far)
    ci = jnp.where(small, ci_small, ci_far)
    return si, jnp.where(ax == 0, -np.inf, ci)


special.dawsn, special.fresnel, special.sici = dawsn, fresnel, sici
special.__all__ += ["dawsn", "fresnel", "sici"]
