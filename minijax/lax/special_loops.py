"""Chapter 08 — ``lax.random_gamma_grad``: the derivative of a gamma sample, as loops.

A gamma sample ``x ~ Gamma(a, 1)`` is drawn by rejection (chapter 13's
``random.gamma``), so it has no formula to differentiate. *Implicit
reparameterization* gives its derivative anyway: hold the sample's quantile
``u = P(a, x)`` fixed (``P`` is the regularized lower incomplete gamma
function) and move ``a``; then ``dP/da + dP/dx dx/da = 0``, so::

    dx/da = -(dP/da) / (dP/dx),    dP/dx = x^(a-1) e^-x / Gamma(a)

``dP/da`` is a sum that converges: the power series of ``P`` where
``x <= 1`` or ``x <= a``, the continued fraction of ``Q = 1 - P`` elsewhere,
each differentiated term by term *inside* its loop. Dividing by ``dP/dx``
cancels the common factor ``x^a e^-x / Gamma(a)``, which is why the result
below never multiplies by it (it still decides, through ``underflow``, where
the sums are not run).

This is JAX's computation (``jax._src.lax.special``: its ``_igamma_series``
and ``_igammac_continued_fraction`` in their ``SAMPLE_DERIVATIVE`` mode),
written again for this project: the same loops, carries, stopping tests and
order of operations, so the same jaxpr and the same numbers (up to the last
bits of ``lgamma``/``digamma``, which XLA computes its own way). Unlike JAX's
generic versions, only the sample-derivative mode is written here.

The loops are chapter 08's ``while_loop``; importing this module adds
``random_gamma_grad`` to chapter 00's ``minijax.lax``, where JAX has it.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.control_flow.loops import while_loop
from minijax.core import get_aval
from minijax.lax.base import const as _const

__all__ = ["random_gamma_grad"]


def _any(pred):
    """Does any element hold? (``reduce_or`` over every axis; ``axes=()`` for a scalar.)"""
    return lax.reduce_or(pred, tuple(range(get_aval(pred).ndim)))


def _select(pred, on_true, on_false):
    return lax.select(pred, on_true, on_false)


def _series_sample_derivative(x, a, enabled, eps):
    """``-(dP/da) / (dP/dx)`` from the power series ``P = factor * sum c_n``, where
    ``c_0 = 1``, ``c_n = c_{n-1} x / (a + n)``: the series and its derivative in ``a``
    are summed together until the derivative's last term is below ``eps``."""
    def cond_fn(vals):
        return _any(vals[0])

    def body_fn(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = r + _const(r, 1.)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        going = lax.bitwise_and(enabled, lax.abs(dc_da / dans_da) > eps)
        new = (r, c, ans, x, dc_da, dans_da)
        return (going, *(_select(enabled, n, o) for n, o in zip(new, vals[1:])))

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x,
            lax.full_like(a, 0), lax.full_like(a, 0))
    vals = while_loop(cond_fn, body_fn, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.log(x) - lax.digamma(a + _const(a, 1))
    return -(dans_da + ans * dlogax_da) * x / a


def _fraction_sample_derivative(x, a, enabled, eps):
    """``(dQ/da) / (dP/dx)`` from the continued fraction of ``Q = factor * p_k / q_k``
    (Legendre's fraction, as in Cephes' ``igamc``), run by its recurrences for
    ``p_k``, ``q_k`` and their derivatives in ``a``; rescaled by ``eps`` when they
    grow large. Stops when the derivative changes by less than ``eps``, or after
    2000 terms."""
    def cond_fn(vals):
        enabled, c = vals[0], vals[5]
        return lax.bitwise_and(c < _const(c, 2000), _any(enabled))

    def body_fn(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = c + _const(c, 1)
        y = y + _const(y, 1)
        z = z + _const(z, 2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        qk_is_nonzero = lax.ne(qk, _const(qk, 0))
        r = pk / qk
        t = _select(qk_is_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = _select(qk_is_nonzero, r, ans)
        dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
        dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
        dans_da_new = _select(qk_is_nonzero, lax.div(dpk_da - ans * dqk_da, qk), dans_da)
        grad_conditional = _select(qk_is_nonzero, lax.abs(dans_da_new - dans_da),
                                   lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(_const(pk, eps)))
        scaled = [_select(rescale, lax.mul(v, _const(v, eps)), v)
                  for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da)]
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = scaled
        going = lax.bitwise_and(enabled, grad_conditional > _const(grad_conditional, eps))
        new = (ans, t, y, z, None, pkm1, qkm1, pkm2, qkm2,
               dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da_new)
        return (going, *(c if n is None else _select(enabled, n, o)
                         for n, o in zip(new, vals[1:])))

    y = _const(a, 1) - a
    z = x + y + _const(x, 1)
    c = _const(x, 0)
    pkm2, qkm2 = lax.full_like(x, 1), x
    pkm1, qkm1 = x + _const(x, 1), z * x
    ans = pkm1 / qkm1
    dpkm1_da, dqkm1_da = lax.full_like(x, 0), -x
    dans_da = (dpkm1_da - ans * dqkm1_da) / qkm1
    init = (enabled, ans, lax.full_like(x, 1), y, z, c, pkm1, qkm1, pkm2, qkm2,
            lax.full_like(x, 0), lax.full_like(x, 0), dpkm1_da, dqkm1_da, dans_da)
    vals = while_loop(cond_fn, body_fn, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.log(x) - lax.digamma(a)
    return lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da)) * x)


def _random_gamma_grad(a, x):
    """``d x / d a`` for samples ``x`` of ``Gamma(a, 1)`` (same-shaped float arrays)."""
    eps = dtypes.finfo(get_aval(a).dtype).eps
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_fraction = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    log_factor = a * lax.log(x) - x - lax.lgamma(a)  # log(x^a e^-x / Gamma(a))
    max_float = np.array(dtypes.finfo(get_aval(a).dtype).max, get_aval(a).dtype)
    underflow = lax.lt(log_factor, -lax.log(max_float))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(
        x_is_zero, domain_error), underflow), is_nan))
    output = _select(
        use_fraction,
        -_fraction_sample_derivative(x, a, lax.bitwise_and(enabled, use_fraction), eps),
        _series_sample_derivative(x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_fraction)),
                                  eps))
    output = _select(x_is_zero, lax.full_like(output, 0), output)
    return _select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, float("nan")), output)


def random_gamma_grad(a, x):
    r"""Elementwise derivative of samples from `Gamma(a, 1)`: ``d x / d a`` with the
    sample's quantile held fixed (NaN where ``a <= 0`` or ``x < 0``; 0 at ``x = 0``).

    ``a`` and ``x`` are broadcast together; float16 is computed in float32, as in JAX.
    """
    a, x = jnp.asarray(a), jnp.asarray(x)
    shape = lax.broadcast_shapes(np.shape(a), np.shape(x))
    a, x = (v if np.shape(v) == shape else lax.broadcast_in_dim(v, shape, range(np.ndim(v)))
            for v in (a, x))
    dtype = get_aval(a).dtype
    upcast = dtype == np.dtype(np.float16)
    if upcast:
        a, x = lax.convert_element_type(a, np.float32), lax.convert_element_type(x, np.float32)
    out = _random_gamma_grad(a, x)
    return lax.convert_element_type(out, dtype) if upcast else out


lax.random_gamma_grad = random_gamma_grad
