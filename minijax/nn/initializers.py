"""Chapter 13 — ``minijax.nn.initializers``: how neural-network weights start out.

An *initializer* is a function ``init(key, shape, dtype=None) -> Array``.
The functions here are initializer *factories*: ``normal(0.1)`` returns an
initializer drawing from N(0, 0.1²). They are thin layers over
:mod:`minijax.random`, so the same key gives the same bits as JAX's.

The interesting one is :func:`variance_scaling`: it picks the spread of the
weights from the layer's *fans* (how many inputs feed each output, and how
many outputs each input feeds) so that activations keep roughly unit
variance from layer to layer. Glorot/Xavier, LeCun and He/Kaiming are
special cases of it. (``orthogonal`` and ``delta_orthogonal`` are not written
yet, though ``jnp.linalg.qr`` now exists; complex dtypes are not supported.)
"""
from __future__ import annotations

import math

import numpy as np

from minijax import dtypes, random
from minijax import numpy as jnp

__all__ = [
    "zeros", "ones", "constant", "uniform", "normal", "truncated_normal", "variance_scaling",
    "glorot_uniform", "glorot_normal", "xavier_uniform", "xavier_normal", "lecun_uniform",
    "lecun_normal", "he_uniform", "he_normal", "kaiming_uniform", "kaiming_normal",
]


def _float_dtype(dtype):
    return dtypes.default_float_dtype if dtype is None else dtype


def zeros(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns zeros (it ignores the key)."""
    return jnp.zeros(shape, _float_dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns ones (it ignores the key)."""
    return jnp.ones(shape, _float_dtype(dtype))


def constant(value, dtype=None):
    """An initializer that fills the array with ``value``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_float_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer drawing uniformly from ``[0, scale)``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _float_dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing from a normal distribution with mean 0 and ``stddev``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _float_dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """A standard normal truncated to ``[lower, upper]``, then scaled by ``stddev``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _float_dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
    return init


def _size(shape, axes) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """``(fan_in, fan_out)``: input/output sizes times the receptive field size.

    For a dense kernel ``(in, out)`` the fans are just ``in`` and ``out``; for
    a convolution kernel ``(h, w, in, out)`` each is multiplied by ``h * w``.
    """
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional"
            " weights tensor with default in_axis. Must be at least 2D or specify"
            " in_axis explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive_field = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive_field, out_size * receptive_field


_FAN_DENOMINATORS = {
    "fan_in": lambda fan_in, fan_out: fan_in,
    "fan_out": lambda fan_in, fan_out: fan_out,
    "fan_avg": lambda fan_in, fan_out: (fan_in + fan_out) / 2,
    "fan_geo_avg": lambda fan_in, fan_out: (fan_in * fan_out) ** 0.5,
}
# The standard deviation of a standard normal truncated to (-2, 2).
_TRUNCATED_STDDEV = .87962566103423978


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Weights with variance ``scale / n``, ``n`` chosen by ``mode`` from the fans.

    ``distribution`` is ``"truncated_normal"`` (rescaled so its variance is
    right), ``"normal"`` or ``"uniform"`` (on ``[-sqrt(3 var), sqrt(3 var))``).
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = tuple(int(d) for d in shape)
        dtype = _float_dtype(dtype)
        if not dtypes.issubdtype(dtype, np.floating):
            raise NotImplementedError("minijax's variance_scaling supports real dtypes only")
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode not in _FAN_DENOMINATORS:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / _FAN_DENOMINATORS[mode](fan_in, fan_out), dtype=dtype)
        if distribution == "truncated_normal":
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _preset(scale, mode, distribution):
    """A named special case of :func:`variance_scaling` (Glorot, LeCun, He)."""
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    return factory


glorot_uniform = xavier_uniform = _preset(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _preset(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _preset(1.0, "fan_in", "uniform")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _preset(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _preset(2.0, "fan_in", "truncated_normal")
for _fun, _name in [(glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"),
                    (lecun_uniform, "lecun_uniform"), (lecun_normal, "lecun_normal"),
                    (he_uniform, "he_uniform"), (he_normal, "he_normal")]:
    _fun.__name__ = _fun.__qualname__ = _name
del _fun, _name


__all__ += ["orthogonal"]


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of (semi-)orthogonal matrices: ``random.orthogonal`` of the
    shape's rows against its ``column_axis``, reshaped back, times ``scale``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _float_dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(dim == 0 for dim in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.array(scale, dtype) * q
    return init


__all__ += ["delta_orthogonal"]


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of convolution kernels that pass a signal through unchanged in
    norm: all zeros but the spatial centre, which holds an orthogonal matrix.

    The shape is ``(*spatial, fan_in, fan_out)`` with 1 to 3 spatial axes and
    ``fan_in <= fan_out`` (Xiao et al., 2018, "Dynamical Isometry and a Mean
    Field Theory of CNNs").
    """
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _float_dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        centre_matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(
            key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(centre_matrix)
    return init
