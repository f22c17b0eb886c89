"""Chapter 13 — ``minijax.random``: JAX's random samplers, bit for bit.

Every sampler takes an explicit **key** and is a pure function of it: the
same key gives the same numbers, and a key is never changed by use. To get
fresh numbers, make new keys with :func:`split` or :func:`fold_in`::

    key = random.key(0)
    key, subkey = random.split(key)
    x = random.normal(subkey, (3,))

The samplers all start from :func:`bits` (uniform random uint32s from the
threefry hash of :mod:`minijax.prng`) and turn bits into numbers exactly as
JAX does, so that ``minijax.random.normal(key, (3,))`` and
``jax.random.normal(key, (3,))`` agree bit for bit:

- ``uniform``: keep 23 random mantissa bits, give them the exponent of 1.0
  (a float in [1, 2)), subtract 1, scale to [minval, maxval);
- ``normal``: ``sqrt(2) * erf_inv(u)`` with ``u`` uniform in (-1, 1);
- ``randint``: two 32-bit draws combined modulo the span;
- ``permutation`` and ``choice`` without replacement: sort by random keys;
- ``exponential``, ``gumbel``, ``laplace``, ``logistic``: a formula of a uniform.

Keys are *typed* (``random.key(0)``, dtype ``key<fry>``) or *legacy*
(``random.PRNGKey(0)``, a ``uint32[2]`` array); every function accepts both,
and ``split``/``fold_in`` return the kind they were given.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

import numpy as np

from minijax import dtypes, lax, prng
from minijax import numpy as jnp
from minijax.array import Array
from minijax.core import Tracer, concrete_or_error, get_aval
from minijax.jit import jit
from minijax.lax.base import canonicalize_axis, canonicalize_shape
from minijax.lax.base import const as _const  # JAX's lax._const
from minijax.numpy.util import check_arraylike, is_arraylike, promote_dtypes_inexact

__all__ = [
    "PRNGKey", "key", "key_data", "wrap_key_data", "clone", "key_impl", "key_dtype",
    "default_prng_impl", "resolve_prng_impl", "split", "fold_in", "bits", "uniform",
    "normal", "truncated_normal", "randint", "bernoulli", "categorical", "choice",
    "permutation", "exponential", "gumbel", "laplace", "logistic", "multivariate_normal",
]

UINT_DTYPES = prng.UINT_DTYPES


# =============================================================================
# Keys
# =============================================================================
def default_prng_impl() -> prng.PRNGImpl:
    """The PRNG of keys made without ``impl=``: the option ``jax_default_prng_impl``."""
    name = prng.default_prng_impl_name.value
    assert name in prng.prngs, name
    return prng.prngs[name]


def resolve_prng_impl(impl_spec) -> prng.PRNGImpl:
    """A ``PRNGImpl`` from ``None`` (the default), a name, a key dtype or an impl."""
    if impl_spec is None:
        return default_prng_impl()
    if type(impl_spec) is prng.PRNGImpl:
        return impl_spec
    if isinstance(impl_spec, prng.KeyTy):
        return impl_spec._impl
    if type(impl_spec) is str:
        if impl_spec in prng.prngs:
            return prng.prngs[impl_spec]
        names = ", ".join(f'"{s}"' for s in prng.prngs)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". '
                         f"Did you mean one of: {names}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


def key_dtype(impl_spec=None) -> prng.KeyTy:
    """The dtype of keys of a PRNG implementation (``key<fry>``)."""
    return prng.KeyTy(resolve_prng_impl(impl_spec))


def _is_typed_key(x) -> bool:
    return isinstance(x, (Array, Tracer)) and prng.is_key_dtype(get_aval(x).dtype)


def _key(ctor_name: str, seed, impl_spec):
    impl = resolve_prng_impl(impl_spec)
    if prng.is_key_dtype(getattr(seed, "dtype", None)):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of "
                        f"shape {np.shape(seed)} != (). Use jax.vmap for batching")
    return prng.random_seed(seed, impl=impl)


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (dtype ``key<fry>``, shape ``()``) from an integer seed.

    >>> key(0)
    Array((), dtype=key<fry>) overlaying:
    [0 0]
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _key("key", seed, impl)


def PRNGKey(seed, *, impl=None):
    """A legacy PRNG key: a ``uint32[2]`` array holding the key data.

    >>> PRNGKey(0)
    Array([0, 0], dtype=uint32)
    """
    return prng.random_unwrap(_key("PRNGKey", seed, impl))


def _check_prng_key(name: str, key, *, allow_batched: bool = False):
    """``(typed_key, was_legacy)``: a typed key for ``key``, wrapping legacy key data."""
    if _is_typed_key(key):
        typed, wrapped = key, False
    elif is_arraylike(key) or np.isscalar(key):
        typed, wrapped = prng.random_wrap(key, impl=default_prng_impl()), True
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and get_aval(typed).ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of "
                         f"shape {np.shape(key)} != (). Use jax.vmap for batching.")
    return typed, wrapped


def _return_prng_keys(was_wrapped: bool, key):
    """Give back the kind of key the caller passed: legacy data or typed keys."""
    return prng.random_unwrap(key) if was_wrapped else key


def _split(key, num=2):
    """``split`` on a typed key (used inside the samplers)."""
    if get_aval(key).ndim:
        raise TypeError("split accepts a single key, but was given a key array of "
                        f"shape {get_aval(key).shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    return prng.random_split(key, shape=shape)


def split(key, num: int | tuple[int, ...] = 2):
    """``num`` new keys (or a shape of them) from one key, along a new leading axis."""
    typed, wrapped = _check_prng_key("split", key)
    return _return_prng_keys(wrapped, _split(typed, num))


def fold_in(key, data):
    """A new key from ``key`` and a 32-bit integer ``data`` (a step number, a layer index...)."""
    typed, wrapped = _check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    out = prng.random_fold_in(typed, jnp.asarray(_as_uint32(data), dtype="uint32"))
    return _return_prng_keys(wrapped, out)


def _as_uint32(data):
    """A Python int must fit in uint32, with NumPy's OverflowError otherwise (as JAX)."""
    if isinstance(data, int) and not 0 <= data < 2 ** 32:
        raise OverflowError(f"Python integer {data} out of bounds for uint32")
    return data


def key_impl(keys) -> str:
    """The name of the PRNG implementation of ``keys``."""
    typed, _ = _check_prng_key("key_impl", keys, allow_batched=True)
    return get_aval(typed).dtype._impl.name


def key_data(keys):
    """The raw ``uint32`` key data underlying keys: shape ``keys.shape + (2,)``."""
    typed, _ = _check_prng_key("key_data", keys, allow_batched=True)
    return prng.random_unwrap(typed)


def clone(key):
    """The key again, as a new value: the identity (one ``random_clone`` equation)."""
    return prng.random_clone(key)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys viewing a ``uint32`` array of key data (trailing axis of size 2)."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to"
                             " jax.random.wrap_key_data")
        impl = dtype
    return prng.random_wrap(key_bits_array, impl=resolve_prng_impl(impl))


# =============================================================================
# Shared checks
# =============================================================================
def _check_shape(name: str, shape, *param_shapes) -> None:
    if param_shapes:
        shape_ = lax.broadcast_shapes(shape, *param_shapes)
        if tuple(shape) != tuple(shape_):
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             "argument, and the result of broadcasting the shapes must equal "
                             f"the shape argument, but got result {shape_} for shape "
                             f"argument {shape}.")


def _float_dtype(name: str, dtype, kind: str = "a float dtype"):
    """The canonical float dtype a sampler is asked for, or JAX's ValueError."""
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    family = np.inexact if kind != "a float dtype" else np.floating
    if not dtypes.issubdtype(dtype, family):
        raise ValueError(f"dtype argument to `{name}` must be {kind}, got {dtype}")
    return dtype


def _random_bits(key, bit_width: int, shape):
    return prng.random_bits(key, bit_width=bit_width, shape=shape)


# =============================================================================
# Bits and uniform floats
# =============================================================================
def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers (uint32 by default)."""
    key, _ = _check_prng_key("bits", key)
    dtype = dtypes.uint32 if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return _random_bits(key, dtype.itemsize * 8, canonicalize_shape(shape))


def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Uniform random floats in ``[minval, maxval)``."""
    key, _ = _check_prng_key("uniform", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `uniform` must be a float dtype, got {dtype}")
    return _uniform(key, minval, maxval, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    """Random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus 1."""
    _check_shape("uniform", shape)
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    bits = _random_bits(key, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint_dtype)
    mantissa = lax.shift_right_logical(bits, jnp.array(rng_bits - nmant, uint_dtype))
    one_bits = jnp.asarray(np.array(1.0, dtype).view(uint_dtype), dtype=uint_dtype)
    floats = lax.bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype) \
        - jnp.array(1., dtype)
    return lax.max(minval, lax.reshape(floats * (maxval - minval) + minval, shape))


# =============================================================================
# Integers
# =============================================================================
def _convert_and_clip_integer(val, dtype):
    """``val`` converted to the integer ``dtype``, clipped to its range (not wrapped)."""
    val_info, info = dtypes.iinfo(get_aval(val).dtype), dtypes.iinfo(dtype)
    lo = _const(val, max(info.min, val_info.min))
    hi = _const(val, min(info.max, val_info.max))
    return jnp.clip(val, lo, hi).astype(dtype)


def randint(key, shape, minval, maxval, dtype=None):
    """Uniform random integers in ``[minval, maxval)`` (int32 by default).

    The result is ``minval + (2 random words) mod span``, slightly biased when
    the span is not a power of two, exactly as JAX's. Empty ranges give minval.
    """
    key, _ = _check_prng_key("randint", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sampling_dtype = dtype
    if info.bits < 32:  # sample in 32 bits to avoid biased results
        sampling_dtype = np.dtype("int32")
        minval = jnp.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
        maxval = jnp.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, shape, sampling_dtype).astype(dtype)


@partial(jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    _check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    check_arraylike("randint", minval, maxval)
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # randint(key, shape, 0, 256, 'uint8'): maxval beyond the dtype's range
    maxval_out_of_range = lax.gt(
        maxval, _convert_and_clip_integer(jnp.array(dtypes.iinfo(dtype).max, dtype),
                                          maxval.dtype))
    minval = _convert_and_clip_integer(minval, dtype)  # both clipped, then both broadcast,
    maxval = _convert_and_clip_integer(maxval, dtype)  # the order JAX's jaxpr shows
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split(key)
    higher_bits, lower_bits = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)

    unsigned = UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)  # empty range: minval
    span = lax.select(maxval_out_of_range & (maxval > minval),
                      lax.add(span, _const(span, 1)), span)
    # (hi * 2**nbits + lo) % span, without overflow: 2**nbits % span, by squaring
    multiplier = lax.rem(_const(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier),
                     lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


# =============================================================================
# Shuffles: permutation and choice
# =============================================================================
def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (an int), or of an array along ``axis``."""
    key, _ = _check_prng_key("permutation", key)
    check_arraylike("permutation", x)
    axis = canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(dtypes.dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = int(concrete_or_error(x, "argument x of jax.random.permutation()"))
        return _shuffle(key, jnp.arange(r), axis)
    if independent or np.ndim(x) == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, jnp.arange(np.shape(x)[axis]), 0)
    return jnp.take(x, ind, axis, unique_indices=True)


@partial(jit, static_argnums=(2,))
def _shuffle(key, x, axis):
    """Sort ``x`` along ``axis`` by random 32-bit keys, as many rounds as collisions need.

    One round leaves ties between equal random keys (a stable sort keeps
    their order); ``ceil(3 ln(n) / ln(2**32 - 1))`` rounds make a tie in every
    round unlikely (tjablin's heuristic, as in JAX and TensorFlow).
    """
    size = get_aval(x).size
    num_rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, subkey = _split(key)
        sort_keys = _random_bits(subkey, 32, get_aval(x).shape)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Random samples from ``a`` (an array, or ``arange(a)`` for an int).

    Uniform with replacement: ``randint``. Without: the first draws of a
    permutation. With probabilities ``p``: inverse CDF (with replacement) or
    the Gumbel top-k trick (without).
    """
    key, _ = _check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError("shape argument of jax.random.choice must be a sequence, "
                        f"got {shape}")
    check_arraylike("choice", a)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(concrete_or_error(a, "The error occurred in jax.random.choice()"))
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than "
                         f"population (size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        check_arraylike("choice", p)
        p_arr, = promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as "
                             f"a.shape[axis]. p has shape {p_arr.shape} and a.shape[axis] "
                             f"is {n_inputs}.")
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = jnp.searchsorted(p_cuml, r).astype(int)
        else:  # the Gumbel top-k trick
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = lax.top_k(g, k=n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


# =============================================================================
# Normal and friends
# =============================================================================
def normal(key, shape=(), dtype=None):
    """Standard normal floats: ``sqrt(2) * erf_inv(u)`` for ``u`` uniform in (-1, 1)."""
    key, _ = _check_prng_key("normal", key)
    shape = canonicalize_shape(shape)
    dtype = _float_dtype("normal", dtype, kind="a float or complex dtype")
    return _normal(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        key_re, key_im = _split(key)
        real_dtype = np.array(0, dtype).real.dtype
        re = _normal_real(key_re, shape, real_dtype).astype(dtype)
        im = _normal_real(key_im, shape, real_dtype).astype(dtype)
        return (re + 1j * im) / np.array(np.sqrt(2), dtype)
    return _normal_real(key, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    _check_shape("normal", shape)
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = uniform(key, shape, dtype, lo, np.array(1., dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats conditioned on ``lower < x < upper``: inverse CDF of a narrowed uniform."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    return _truncated_normal(key, lower, upper, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = lax.broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax.erf_inv(u)
    # rounding may reach the bounds: clamp to the open interval
    return jnp.clip(out,
                    lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype=dtype)),
                    lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype=dtype)))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky"):
    """Normal vectors with mean ``mean`` (..., n) and covariance ``cov`` (..., n, n).

    ``mean + factor @ z`` for standard normal ``z`` and ``factor @ factor.T == cov``.
    """
    key, _ = _check_prng_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    if dtype is None:
        dtype = mean.dtype
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError("dtype argument to `multivariate_normal` must be a float "
                         f"dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if not np.ndim(mean) >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = lax.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    factor = _covariance_factor(cov, method)
    normal_samples = normal(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, normal_samples)


def _covariance_factor(cov, method: str):
    """A matrix ``F`` with ``F @ F.T == cov`` (``method`` was checked by the caller)."""
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        return u * jnp.sqrt(s[..., None, :])
    if method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        return v * jnp.sqrt(w[..., None, :])
    return jnp.linalg.cholesky(cov)


# =============================================================================
# Other distributions, each a formula of one uniform draw
# =============================================================================
def bernoulli(key, p=0.5, shape=None, mode: str = "low"):
    """Random booleans, True with probability ``p``: ``uniform < p``."""
    if shape is not None:
        shape = canonicalize_shape(shape)
    if mode not in ["high", "low"]:
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key, _ = _check_prng_key("bernoulli", key)
    dtype = dtypes.dtype(p, canonicalize=True)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, shape=shape, mode=mode)


@partial(jit, static_argnames=["shape", "mode"])
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    dtype = get_aval(p).dtype
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 *= 2 ** -dtypes.finfo(dtype).nmant  # finer resolution for tiny p
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


def exponential(key, shape=(), dtype=None):
    """Exponential floats (rate 1): ``-log(1 - u)``."""
    key, _ = _check_prng_key("exponential", key)
    dtype = _float_dtype("exponential", dtype)
    return _exponential(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    _check_shape("exponential", shape)
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # 1 - u is in (0, 1]: log never sees 0


def gumbel(key, shape=(), dtype=None, mode=None):
    """Gumbel floats: ``-log(-log(u))``."""
    key, _ = _check_prng_key("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    shape = canonicalize_shape(shape)
    mode = "low" if mode is None else mode  # JAX's use_high_dynamic_range_gumbel=False
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(key, shape, dtype, mode)


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    _check_shape("gumbel", shape)
    info = dtypes.finfo(dtype)
    if mode in ("high", "highest"):  # two uniforms make one finer-grained one
        high, low = _uniform(key, minval=0., maxval=1., shape=(2,) + shape, dtype=dtype)
        x = jnp.where(high >= 0.5, high, high + 2 ** -info.nmant * low + info.tiny)
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(
        _uniform(key, minval=info.tiny, maxval=1., shape=shape, dtype=dtype)))


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
    """Random category indices drawn with probabilities ``softmax(logits, axis)``.

    The Gumbel-max trick: ``argmax(logits + gumbel)`` (top-k without replacement).
    """
    key, _ = _check_prng_key("categorical", key)
    check_arraylike("categorical", logits)
    logits_arr = jnp.asarray(logits)
    batch_shape = tuple(np.delete(logits_arr.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = canonicalize_shape(shape)
        _check_shape("categorical", shape, batch_shape)
    shape_prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        if axis >= 0:
            axis -= len(logits_arr.shape)
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % len(logits_arr.shape), logits_arr.shape[axis])
        g = gumbel(key, (*shape_prefix, *logits_shape), logits_arr.dtype, mode=mode)
        return jnp.argmax(g + lax.expand_dims(logits_arr, tuple(range(len(shape_prefix)))),
                          axis=axis)
    logits_arr = logits_arr + gumbel(key, logits_arr.shape, logits_arr.dtype, mode=mode)
    k = math.prod(shape_prefix)
    if k > logits_arr.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number "
                         f"of categories ({logits_arr.shape[axis]}).")
    _, indices = lax.top_k(jnp.moveaxis(logits_arr, axis, -1), k)
    dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax.reshape(indices, shape, dimensions)


def laplace(key, shape=(), dtype=None):
    """Laplace floats: ``sign(u) * log(1 - |u|)`` for ``u`` uniform in (-1, 1)."""
    key, _ = _check_prng_key("laplace", key)
    dtype = _float_dtype("laplace", dtype)
    return _laplace(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    _check_shape("laplace", shape)
    u = uniform(key, shape, dtype, minval=-1. + dtypes.finfo(dtype).epsneg, maxval=1.)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key, shape=(), dtype=None):
    """Logistic floats: ``log(u) - log(1 - u)``."""
    key, _ = _check_prng_key("logistic", key)
    dtype = _float_dtype("logistic", dtype)
    return _logistic(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    _check_shape("logistic", shape)
    x = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).tiny, maxval=1.)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


# =============================================================================
# More samplers: transforms of uniform and normal draws, as JAX computes them
# (the same draws and the same arithmetic, so the same samples as JAX's)
# =============================================================================
__all__ += ["cauchy", "rademacher", "pareto", "weibull_min", "rayleigh", "maxwell",
            "double_sided_maxwell", "triangular", "lognormal", "geometric"]


def _param_shape(name: str, shape, *params):
    """``shape``, or the parameters' broadcast shape when it is None (checked)."""
    shapes = [np.shape(p) for p in params]
    if shape is None:
        return tuple(lax.broadcast_shapes(*shapes)) if shapes else ()
    shape = canonicalize_shape(shape)
    _check_shape(name, shape, *shapes)
    return shape


def cauchy(key, shape=(), dtype=None):
    """Cauchy floats: ``tan(pi (u - 1/2))`` for ``u`` uniform in ``[eps, 1)``."""
    key, _ = _check_prng_key("cauchy", key)
    dtype = _float_dtype("cauchy", dtype)
    return _cauchy(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _cauchy(key, shape, dtype):
    _check_shape("cauchy", shape)
    u = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).eps, maxval=1.)
    return lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))


def rademacher(key, shape=(), dtype=None):
    """-1 or 1, each with probability 1/2 (an integer dtype by default)."""
    key, _ = _check_prng_key("rademacher", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    return _rademacher(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    samples = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * samples - 1).astype(dtype)


def pareto(key, b, shape=None, dtype=None):
    """Pareto floats on ``[1, inf)``: ``exp(e / b)`` for ``e`` exponential."""
    key, _ = _check_prng_key("pareto", key)
    dtype = _float_dtype("pareto", dtype)
    return _pareto(key, b, _param_shape("pareto", shape, b), dtype)


@partial(jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return lax.exp(exponential(key, shape, dtype) / b)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats by the inverse CDF: ``(-log1p(-u))^(1/concentration) * scale``."""
    key, _ = _check_prng_key("weibull_min", key)
    dtype = _float_dtype("weibull_min", dtype)
    return _weibull_min(key, scale, concentration, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform(key, shape, dtype, minval=0, maxval=1)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh floats: ``scale * sqrt(-2 log u)``."""
    key, _ = _check_prng_key("rayleigh", key)
    dtype = _float_dtype("rayleigh", dtype)
    return _rayleigh(key, scale, _param_shape("rayleigh", shape, scale), dtype)


@partial(jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = jnp.broadcast_to(jnp.asarray(scale).astype(dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(scale, -2))))


def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell floats: the length of a standard normal 3-vector."""
    key, _ = _check_prng_key("maxwell", key)
    dtype = _float_dtype("maxwell", dtype)
    return _maxwell(key, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _maxwell(key, shape, dtype):
    return jnp.linalg.norm(normal(key, shape + (3,), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell floats with a random sign, shifted by ``loc`` and scaled by ``scale``
    (the parameters' shape is appended to ``shape``)."""
    key, _ = _check_prng_key("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(key, loc, scale, canonicalize_shape(shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params = tuple(lax.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = (shape or params) + params  # JAX's: the parameters' shape, once more
    maxwell_key, sign_key = _split(key)
    draws = maxwell(maxwell_key, shape, dtype)
    sign = rademacher(sign_key, shape, dtype)
    return sign * draws * scale + loc


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular floats on ``[left, right]`` peaking at ``mode`` (the inverse CDF)."""
    key, _ = _check_prng_key("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    shape = _param_shape("triangular", shape, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@partial(jit, static_argnums=(4, 5))
def _triangular(key, left, mode, right, shape, dtype):
    left, mode, right = (jnp.broadcast_to(lax.convert_element_type(v, dtype), shape)
                         for v in (left, mode, right))
    u = uniform(key, shape, dtype)
    below = left + lax.sqrt(u * (right - left) * (mode - left))
    above = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < (mode - left) / (right - left), below, above)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """Log-normal floats: ``exp(sigma * normal)``."""
    key, _ = _check_prng_key("lognormal", key)
    dtype = _float_dtype("lognormal", dtype)
    return _lognormal(key, sigma, _param_shape("lognormal", shape, sigma), dtype)


@partial(jit, static_argnums=(2, 3))
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(normal(key, shape, dtype) * sigma)


def geometric(key, p, shape=None, dtype=None):
    """Geometric integers ``1, 2, ...``: ``floor(log u / log(1 - p)) + 1``."""
    key, _ = _check_prng_key("geometric", key)
    check_arraylike("geometric", p)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    return _geometric(key, p, _param_shape("geometric", shape, p), dtype)


@partial(jit, static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    p, = promote_dtypes_inexact(p)
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)  # (JAX maps u = 0 to 1, keeping its other samples)
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1).astype(dtype)


__all__ += ["orthogonal"]


def orthogonal(key, n: int, shape=(), dtype=None, m: int | None = None):
    """An ``n x m`` matrix (``m = n`` by default) with orthonormal columns (or rows),
    uniform over the orthogonal group: the ``q`` of a normal matrix's QR, each
    column's sign fixed by ``r``'s diagonal (JAX's construction and draws)."""
    m_ = n if m is None else m
    shape = canonicalize_shape(shape)
    key, _ = _check_prng_key("orthogonal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    _check_shape("orthogonal", shape)
    n = int(concrete_or_error(n, "The error occurred in jax.random.orthogonal()"))
    m_ = int(concrete_or_error(m_, "The error occurred in jax.random.orthogonal()"))
    return _orthogonal(key, n, m_, shape, dtype)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    z = normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r_ = jnp.linalg.qr(z)
    x = q * jnp.expand_dims(jnp.sign(jnp.linalg.diagonal(r_)), -2)
    return jnp.swapaxes(x, -1, -2) if n < m else x


# Gamma and the samplers built on it (chapter 13's minijax.random_gamma and
# minijax.random_distributions), re-exported here, where JAX has them.
from minijax.random_distributions import *  # noqa: F401,F403,E402
from minijax.random_distributions import __all__ as _distributions_all  # noqa: E402

__all__ += _distributions_all
