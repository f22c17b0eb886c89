"""Chapter 00 — ``jnp.angle`` and ``jnp.i0``: two elementwise functions built from others.

``angle(z)`` is the argument of a complex number, ``atan2(imag z, real z)``;
for a real ``x`` it is 0 or pi. ``i0`` is the modified Bessel function of the
first kind of order 0, ``sum_k (x^2/4)^k / (k!)^2``. JAX computes it from its
``bessel_i0e`` primitive; minijax has no such primitive and reuses the series
of :mod:`minijax.scipy.special` (good to a few float32 ulps), so the inner
jaxpr differs from JAX's while the values, dtypes and derivative agree.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.numpy import ufuncs as _u
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, jnp_custom_jvp, jnp_jit, promote_args_inexact

__all__ = ["angle", "i0"]


@jnp_jit("angle", static_argnames=("deg",))
def angle(z, deg: bool = False):
    """The counterclockwise angle of each (complex) element of ``z``, in radians
    (degrees with ``deg=True``): ``atan2(imag(z), real(z))``, always a float."""
    check_arraylike("angle", z)
    z = asarray(z)
    re, im = _u.real(z), _u.imag(z)
    dtype = re.dtype
    # integers, and real 0-d inputs (whose weak type JAX drops), become float32
    if not dtypes.issubdtype(dtype, np.inexact) or (
            dtypes.issubdtype(z.dtype, np.floating) and z.ndim == 0):
        dtype = dtypes.default_float_dtype
        re = lax._convert_element_type(re, dtype, False)
        im = lax._convert_element_type(im, dtype, False)
    result = lax.atan2(im, re)
    return _u.degrees(result) if deg else result


def _i0_formula(x):
    """``exp(|x|) * i0e(|x|)`` (the series, scaled so that it cannot overflow early)."""
    from minijax.scipy import special  # chapter 00 too; imported late to avoid a cycle
    return special.i0(x)


_i0 = jnp_custom_jvp(_i0_formula, name="_i0")


@_i0.defjvp
def _i0_jvp(primals, tangents):
    """``I0'(x) = I1(x)``, and exactly 0 at ``x = 0`` (as JAX's rule says)."""
    from minijax.scipy import special
    (x,), (t,) = primals, tangents
    slope = _u.where(x == 0, 0.0, special.i1(x))
    return _i0(x), slope * t


@jnp_jit("i0")
def i0(x):
    """The modified Bessel function of the first kind, order 0 (real inputs only)."""
    x, = promote_args_inexact("i0", x)
    dtype = get_aval(x).dtype
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {dtype}")
    return _i0(x)
