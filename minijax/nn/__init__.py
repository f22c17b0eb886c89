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
from minijax.numpy import reductions, shapes, ufuncs
from minijax.numpy.creation import asarray
from minijax.numpy.tensor_contractions import einsum
from minijax.numpy.util import check_arraylike, promote_args_inexact
from minijax.numpy.util import jnp_custom_jvp, jnp_jit
from minijax.scipy.special import _stop_gradient, logsumexp

__all__ = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "gelu", "elu",
           "leaky_relu", "log_sigmoid", "softmax", "log_softmax", "logsumexp", "one_hot",
           "standardize", "selu", "celu", "glu", "hard_tanh", "hard_sigmoid", "hard_silu",
           "hard_swish", "identity", "mish", "log1mexp", "logmeanexp", "soft_sign",
           "squareplus", "sparse_plus", "sparse_sigmoid", "tanh", "dot_product_attention"]


@jnp_custom_jvp
@jnp_jit("relu")
def relu(x):
    """Rectified linear unit: ``max(x, 0)``; its derivative at 0 is 0 (as JAX's)."""
    check_arraylike("relu", x)
    return ufuncs.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@jnp_custom_jvp
@jnp_jit("relu6")
def relu6(x):
    """``min(max(x, 0), 6)``; its derivative at 0 and at 6 is 0 (as JAX's)."""
    check_arraylike("relu6", x)
    return ufuncs.minimum(ufuncs.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


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


# --- more activations (JAX 0.10's full list) ---------------------------------
tanh = ufuncs.tanh


@jnp_jit("selu")
def selu(x):
    """Scaled ELU: ``scale * elu(x, alpha)`` with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return ufuncs.multiply(scale, elu(x, alpha))


@jnp_jit("celu")
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    positive_part = ufuncs.maximum(x, 0.0)
    negative_part = ufuncs.expm1(ufuncs.divide(ufuncs.minimum(x, 0.0), alpha))
    return ufuncs.add(positive_part, ufuncs.multiply(alpha, negative_part))


@jnp_jit("glu", static_argnames=("axis",))
def glu(x, axis: int = -1):
    """Gated linear unit: split ``x`` in two halves along ``axis``, ``a * sigmoid(b)``."""
    check_arraylike("glu", x)
    x = asarray(x)
    assert get_aval(x).shape[axis] % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = shapes.split(x, 2, axis)
    return ufuncs.multiply(x1, sigmoid(x2))


@jnp_jit("hard_tanh")
def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]`` (written with two ``where``s, as JAX does)."""
    check_arraylike("hard_tanh", x)
    x = asarray(x)
    above, below = ufuncs.greater(x, 1), ufuncs.less(x, -1)
    return ufuncs.where(above, 1, ufuncs.where(below, -1, x))


@jnp_jit("hard_sigmoid")
def hard_sigmoid(x):
    """A piecewise-linear sigmoid: ``relu6(x + 3) / 6``."""
    return ufuncs.divide(relu6(ufuncs.add(x, 3.0)), 6.0)


@jnp_jit("hard_silu")
def hard_silu(x):
    """``x * hard_sigmoid(x)``; also called ``hard_swish``."""
    check_arraylike("hard_silu", x)
    x = asarray(x)
    return ufuncs.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


@jnp_jit("identity")
def identity(x):
    """Returns ``x`` (as an array)."""
    check_arraylike("identity", x)
    return asarray(x)


@jnp_jit("mish")
def mish(x):
    """``x * tanh(softplus(x))``."""
    check_arraylike("mish", x)
    x = asarray(x)
    return ufuncs.multiply(x, ufuncs.tanh(softplus(x)))


@jnp_custom_jvp
@jnp_jit("log1mexp")
def log1mexp(x):
    """``log(1 - exp(-x))``, accurate for small and large ``x`` (switch at ``log 2``).

    Its derivative is stated, ``1 / expm1(x)``, rather than that of the formula.
    """
    check_arraylike("log1mexp", x)
    x = asarray(x)
    small = ufuncs.log(ufuncs.negative(ufuncs.expm1(ufuncs.negative(x))))
    large = ufuncs.log1p(ufuncs.negative(ufuncs.exp(ufuncs.negative(x))))
    return ufuncs.where(ufuncs.less(x, np.log(2.0)), small, large)


log1mexp.defjvps(lambda g, ans, x: g / ufuncs.expm1(x))


@jnp_jit("logmeanexp", static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``log(mean(exp(x)))`` = ``logsumexp(x) - log(count)``."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    dt = get_aval(lse).dtype
    shape = get_aval(asarray(x)).shape
    if where is not None:
        count = reductions.sum(shapes.broadcast_to(where, shape), axis, dtype=dt,
                               keepdims=keepdims)
    else:
        axes = range(len(shape)) if axis is None else (
            axis if isinstance(axis, (tuple, list)) else (axis,))
        size = int(np.prod([shape[canonicalize_axis(a, len(shape))] for a in axes]))
        count = lax._convert_element_type(size, dt, False)
    return ufuncs.subtract(lse, ufuncs.log(count))


@jnp_jit("soft_sign")
def soft_sign(x):
    """``x / (|x| + 1)``."""
    check_arraylike("soft_sign", x)
    x = asarray(x)
    return ufuncs.divide(x, ufuncs.add(ufuncs.abs(x), 1))


@jnp_jit("squareplus")
def squareplus(x, b=4):
    """A smooth ReLU: ``(x + sqrt(x**2 + b)) / 2``."""
    check_arraylike("squareplus", x, b)
    x, b = asarray(x), asarray(b)
    return ufuncs.divide(ufuncs.add(x, ufuncs.sqrt(ufuncs.add(ufuncs.square(x), b))), 2)


@jnp_jit("sparse_plus")
def sparse_plus(x):
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` in between."""
    check_arraylike("sparse_plus", x)
    x = asarray(x)
    low, high = ufuncs.less_equal(x, -1.0), ufuncs.greater_equal(x, 1.0)
    middle = ufuncs.divide(ufuncs.power(ufuncs.add(x, 1.0), 2), 4)
    return ufuncs.where(low, 0.0, ufuncs.where(high, x, middle))


@jnp_jit("sparse_sigmoid")
def sparse_sigmoid(x):
    """A piecewise-linear sigmoid: ``clip((x + 1) / 2, 0, 1)``."""
    return ufuncs.multiply(0.5, ufuncs.clip(ufuncs.add(x, 1.0), 0.0, 2.0))


# --- attention ---------------------------------------------------------------
def _ensure_4d(t):
    t = asarray(t)
    return shapes.reshape(t, (1,) * (4 - t.ndim) + t.shape) if t.ndim < 4 else t


def _check_attention_operand(t, shape, dtype, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want != -1 and got != want for got, want in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {t.shape}")


def _attention_mask(T, S, mask, is_causal, q_seqlen, kv_seqlen):
    """The boolean ``(B|1, N|1, T, S)`` mask of allowed query/key pairs, or None."""
    masks = [] if mask is None else [mask]
    if is_causal:
        masks.append(np.tril(np.ones((T, S), bool))[None, None])
    if q_seqlen is not None:
        masks.append(ufuncs.less(np.arange(T)[None, None, :, None],
                                 shapes.reshape(q_seqlen, (-1, 1, 1, 1))))
    if kv_seqlen is not None:
        masks.append(ufuncs.less(np.arange(S)[None, None, None, :],
                                 shapes.reshape(kv_seqlen, (-1, 1, 1, 1))))
    combined = None
    for m in masks:
        combined = m if combined is None else ufuncs.logical_and(combined, m)
    return combined


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """Scaled dot-product attention, ``softmax(Q K^T * scale + bias) V``.

    Shapes follow JAX: ``query`` is ``(B, T, N, H)`` (batch, query length,
    heads, head size), ``key``/``value`` are ``(B, S, K, H)`` with ``N`` a
    multiple of ``K`` (grouped-query attention repeats each key head). A
    boolean ``mask``, ``is_causal`` and the sequence lengths replace masked
    logits by a large negative number before the (float32) softmax. Only the
    ``'xla'`` implementation exists.
    """
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("minijax has only the 'xla' implementation")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    if local_window_size is not None or return_residual:
        raise NotImplementedError("local_window_size and return_residual are not supported")
    output_shape = asarray(query).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    B, S, K, H = k.shape
    _check_attention_operand(v, [B, S, K, H], k.dtype, "value")
    _check_attention_operand(q, [B, -1, -1, H], k.dtype, "query")
    _check_attention_operand(mask, [-1] * 4, np.dtype(bool), "mask")
    _check_attention_operand(bias, [-1] * 4, None, "bias")
    q_len = None if query_seq_lengths is None else asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else asarray(key_value_seq_lengths)
    _check_attention_operand(q_len, [B], np.dtype("int32"), "query_seq_lengths")
    _check_attention_operand(kv_len, [B], np.dtype("int32"), "key_value_seq_lengths")
    T, N = q.shape[1], q.shape[2]
    if N % K != 0:
        raise ValueError("The number of query heads must be a multiple of "
                         f"key/value heads, but got {N} vs {K}")
    if N != K:  # grouped-query attention: each key/value head serves N // K query heads
        k, v = shapes.repeat(k, N // K, axis=2), shapes.repeat(v, N // K, axis=2)
    logits_dtype = dtypes.promote_types(q.dtype, np.float32)
    logits = einsum("BTNH,BSNH->BNTS", q, k, preferred_element_type=logits_dtype)
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    logits = ufuncs.multiply(logits, asarray(scale, dtype=logits_dtype))
    if bias is not None:
        logits = ufuncs.add(logits, bias).astype(logits_dtype)
    combined = _attention_mask(T, S, mask, is_causal, q_len, kv_len)
    if combined is not None:
        big_negative = -0.7 * min(float(dtypes.finfo(logits_dtype).max),
                                  float(dtypes.finfo(np.float32).max))
        logits = ufuncs.where(combined, logits, asarray(big_negative, dtype=logits_dtype))
    probs = softmax(logits.astype(np.float32), axis=-1).astype(k.dtype)
    encoded = einsum("BNTS,BSNH->BTNH", probs, v)
    if q_len is not None:
        valid = ufuncs.less(np.arange(T)[None, :, None, None], shapes.reshape(q_len, (-1, 1, 1, 1)))
        encoded = ufuncs.multiply(encoded, valid.astype(encoded.dtype))
    return shapes.reshape(encoded, output_shape)


# the block-scaled (mxfp8 / nvfp4) dot product: configs, and lax.dot_general without them
from minijax.nn.block_scaled import (  # noqa: E402,F401
    BlockScaleConfig, get_scaled_dot_general_config, scaled_dot_general)

__all__ += ["get_scaled_dot_general_config", "scaled_dot_general"]
