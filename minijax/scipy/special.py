"""Chapter 00 — ``minijax.scipy.special``: ``logsumexp``, ``erf``, ``erfinv``, ``expit``, ``logit``.

The same functions as ``jax.scipy.special``.

The special functions are single lax primitives (``erf``, ``erf_inv``,
``logistic``, ``lgamma``) after the usual promotion of integers to float32.
``logsumexp`` is the numerically careful composite: it subtracts the maximum
before exponentiating, so ``logsumexp([1000., 1000.])`` is ``1000 + log 2``
rather than ``inf``, and a slice that is all ``-inf`` gives ``-inf``, not NaN.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.numpy import reductions, ufuncs
from minijax.numpy.util import promote_args_inexact

__all__ = ["logsumexp", "erf", "erfc", "erfinv", "expit", "logit", "gammaln"]


def _stop_gradient(x):
    """``lax.stop_gradient`` (the identity until chapter 02 gives it a meaning)."""
    stop = getattr(lax, "stop_gradient", None)
    return stop(x) if stop is not None else x


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a), axis))``, computed without overflow.

    With ``return_sign=True`` returns ``(log|s|, sign(s))`` where ``s`` is the
    (possibly negative, when ``b`` is) sum; otherwise a negative sum is NaN.
    """
    if where is not None:
        a = ufuncs.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = ufuncs.where(ufuncs.not_equal(b, 0), a, -np.inf)
    else:
        a, = promote_args_inexact("logsumexp", a)
    ndim = len(get_aval(a).shape)
    axes = reductions._reduction_axes(ndim, reductions._static_axis(axis))
    dt = get_aval(a).dtype
    amax = reductions.max(ufuncs.real(a), axis=axes, keepdims=keepdims, where=where,
                          initial=-np.inf)
    amax = lax.select(ufuncs.isfinite(amax), amax, ufuncs._full_like(amax, 0))
    amax = _stop_gradient(amax)
    amax_kept = amax if keepdims else lax.expand_dims(amax, axes)
    exp_a = lax.exp(lax.sub(a, lax._convert_element_type(amax_kept, dt, False)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = reductions.sum(exp_a, axis=axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(lax.abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = ufuncs.where(lax.lt(sign, np.asarray(0, dt)), np.asarray(np.nan, dt), out)
    return out


def _special(name: str, lax_fn, doc: str):
    def fn(x):
        x, = promote_args_inexact(name, x)
        return lax_fn(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


erf = _special("erf", lax.erf, "The error function ``2/sqrt(pi) * int_0^x exp(-t**2) dt``.")
erfc = _special("erfc", lax.erfc, "The complementary error function ``1 - erf(x)``.")
erfinv = _special("erfinv", lax.erf_inv, "The inverse of :func:`erf` on ``(-1, 1)``.")
expit = _special("expit", lax.logistic, "The logistic sigmoid ``1 / (1 + exp(-x))``.")
gammaln = _special("gammaln", lax.lgamma, "``log|Gamma(x)|``.")


def logit(x):
    """The inverse of :func:`expit`: ``log(x / (1 - x))``."""
    x, = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(ufuncs._const(x, 1), x)))
