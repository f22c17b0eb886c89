"""Chapter 00 — ``minijax.nn``: common activation functions and ``logsumexp``, as ``jax.nn``.

Each activation is a short composite of ``jnp`` functions. The ones that can
overflow are written the stable way, as in JAX: ``softplus`` is
``logaddexp(x, 0)``, ``softmax`` subtracts the row maximum before
exponentiating, ``log_softmax`` never takes the log of an exponential.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.numpy import reductions, ufuncs
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, promote_args_inexact
from minijax.numpy.util import jnp_jit
from minijax.scipy.special import _stop_gradient, logsumexp

__all__ = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "gelu", "elu",
           "leaky_relu", "log_sigmoid", "softmax", "log_softmax", "logsumexp", "one_hot",
           "standardize"]


@jnp_jit("relu")
def relu(x):
    """Rectified linear unit: ``max(x, 0)``."""
    check_arraylike("relu", x)
    return ufuncs.maximum(x, 0)


@jnp_jit("relu6")
def relu6(x):
    """``min(max(x, 0), 6)``."""
    check_arraylike("relu6", x)
    return ufuncs.minimum(ufuncs.maximum(x, 0), 6.0)


def sigmoid(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    check_arraylike("sigmoid", x)
    return lax.logistic(x)


@jnp_jit("softplus")
def softplus(x):
    """``log(1 + exp(x))``, computed as ``logaddexp(x, 0)``."""
    return ufuncs.logaddexp(x, 0)


@jnp_jit("silu")
def silu(x):
    """Sigmoid-weighted linear unit ``x * sigmoid(x)``."""
    check_arraylike("silu", x)
    x = asarray(x)
    return ufuncs.multiply(x, sigmoid(x))


swish = silu


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit; ``approximate=True`` uses the tanh formula."""
    x, = promote_args_inexact("gelu", x)
    dt = get_aval(x).dtype
    if approximate:
        c = np.sqrt(2 / np.pi).astype(dt)
        inner = ufuncs.multiply(c, ufuncs.add(x, ufuncs.multiply(0.044715, ufuncs.power(x, 3))))
        cdf = ufuncs.multiply(0.5, ufuncs.add(1.0, ufuncs.tanh(inner)))
        return ufuncs.multiply(x, cdf)
    half_x = ufuncs.multiply(0.5, x)
    scaled = ufuncs.multiply(ufuncs.negative(x), np.sqrt(0.5).astype(dt))
    return ufuncs.multiply(half_x, lax.erfc(scaled))


@jnp_jit("elu")
def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` if positive, else ``alpha * (exp(x) - 1)``."""
    check_arraylike("elu", x)
    x = asarray(x)
    positive, positive_again = ufuncs.greater(x, 0), ufuncs.greater(x, 0)  # as JAX traces it
    safe_x = ufuncs.where(positive_again, 0.0, x)
    return ufuncs.where(positive, x, ufuncs.multiply(alpha, ufuncs.expm1(safe_x)))


@jnp_jit("leaky_relu")
def leaky_relu(x, negative_slope=0.01):
    """``x`` if non-negative, else ``negative_slope * x``."""
    check_arraylike("leaky_relu", x)
    x = asarray(x)
    return ufuncs.where(ufuncs.greater_equal(x, 0), x, ufuncs.multiply(negative_slope, x))


@jnp_jit("log_sigmoid")
def log_sigmoid(x):
    """``log(sigmoid(x))``, computed as ``-softplus(-x)``."""
    x, = promote_args_inexact("log_sigmoid", x)
    return ufuncs.negative(softplus(ufuncs.negative(x)))


def _shifted(x, axis, where):
    """``x`` minus its (gradient-stopped) maximum over ``axis``."""
    x_max = reductions.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    if where is not None:
        x = ufuncs.where(where, x, -np.inf)
    return ufuncs.subtract(x, _stop_gradient(x_max))


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x), axis)``, shifted by the maximum so it cannot overflow."""
    unnormalized = ufuncs.exp(_shifted(x, axis, where))
    result = ufuncs.divide(unnormalized, reductions.sum(unnormalized, axis, where=where,
                                                        keepdims=True))
    return result if where is None else ufuncs.where(where, result, 0)


@jnp_jit("log_softmax", static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x, axis)``, computed from the max-shifted ``x``."""
    shifted = _shifted(x, axis, where)
    total = reductions.sum(ufuncs.exp(shifted), axis, where=where, keepdims=True)
    result = ufuncs.subtract(shifted, ufuncs.log(total))
    return result if where is None else ufuncs.where(where, result, -np.inf)


@jnp_jit("_one_hot", static_argnames=("num_classes", "dtype", "axis"))
def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
    """One-hot encode ``x``: a new axis of size ``num_classes`` (float32 by default)."""
    check_arraylike("one_hot", x)
    x = asarray(x)
    dtype = dtypes.default_float_dtype if dtype is None else dtypes.canonicalize_dtype(
        dtypes.dtype(dtype))
    num_classes = int(num_classes)
    shape = get_aval(x).shape
    axis = canonicalize_axis(axis, len(shape) + 1)
    lhs = lax.expand_dims(x, (axis,))
    classes_shape = [1] * (len(shape) + 1)
    classes_shape[axis] = num_classes
    classes = lax.broadcasted_iota(get_aval(x).dtype, tuple(classes_shape), axis)
    return lax._convert_element_type(ufuncs.equal(lhs, classes), dtype, False)


@jnp_jit("standardize", static_argnames=("axis",))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis`` (statistics computed if None)."""
    check_arraylike("standardize", x)
    x = asarray(x)
    if mean is None:
        mean = reductions.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        mean_sq = reductions.mean(ufuncs.square(x), axis, keepdims=True, where=where)
        variance = ufuncs.clip(ufuncs.subtract(mean_sq, ufuncs.square(mean)), 0)
    return ufuncs.multiply(ufuncs.subtract(x, mean),
                           lax.rsqrt(ufuncs.add(variance, epsilon)))
