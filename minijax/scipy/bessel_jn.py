"""Chapter 08 — ``jax.scipy.special.bessel_jn``: Bessel functions of the first kind
``J_0 .. J_v``, by Miller's backward recurrence.

The recurrence ``J_{k-1}(z) = (2k / z) J_k(z) - J_{k+1}(z)`` is unstable upward
but stable downward. Starting far above (``n_iter``) from ``0`` and a tiny
value, running it down to ``k = 0`` gives numbers proportional to the true
``J_k``; the identity ``J_0 + 2 (J_2 + J_4 + ...) = 1`` then fixes the scale.
The run is a ``scan`` (chapter 08), elementwise in ``z``.
"""
from __future__ import annotations

import operator

import minijax.numpy as jnp
from minijax import lax
from minijax.control_flow.loops import scan
from minijax.numpy.util import promote_dtypes_inexact
from minijax.scipy import special

__all__ = ["bessel_jn"]


def bessel_jn(z, *, v: int, n_iter: int = 50):
    """``[J_0(z), ..., J_v(z)]`` stacked on a new leading axis (real ``z``)."""
    z, = promote_dtypes_inexact(jnp.asarray(z))
    if jnp.iscomplexobj(z):
        raise ValueError("complex input not supported.")
    v, n_iter = operator.index(v), int(n_iter)

    def down(carry, k):
        above2, above1, norm = carry  # the values at k + 2 and k + 1
        value = 2.0 * (k + 1.0) * above1 / z - above2
        norm = jnp.where(k % 2 == 0, norm + 2.0 * value, norm)  # 2 (J_0 + J_2 + ...)
        return (above1, value, norm), value

    zero = jnp.zeros_like(z)
    init = (zero, jnp.full_like(z, 1e-16), zero)
    (_, j0, norm), values = scan(down, init, lax.iota(z.dtype, n_iter + 1), reverse=True)
    return values[:v + 1] / (norm - j0)  # norm counted J_0 twice


special.bessel_jn = bessel_jn
special.__all__ += ["bessel_jn"]
