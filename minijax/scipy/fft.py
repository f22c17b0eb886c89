"""Chapter 00 — ``minijax.scipy.fft``: the discrete cosine transform (type 2).

``dct(x)[k] = 2 sum_n x[n] cos(pi k (2n + 1) / (2N))``. Makhoul's trick
computes it with one complex FFT of the same length: reorder ``x`` as
``v = [x0, x2, x4, ..., x5, x3, x1]`` (evens, then odds reversed); then
``dct(x)[k] = 2 Re(exp(-i pi k / 2N) fft(v)[k])``. The inverse undoes each
step: multiply by the conjugate twiddle, inverse FFT, un-interleave.
"""
from __future__ import annotations

import math
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy import fft as jnp_fft
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]


def _axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _along(v, axis: int, ndim: int):
    """The vector ``v`` shaped to broadcast along ``axis`` of an ``ndim``-d array."""
    return lax.expand_dims(v, [a for a in range(ndim) if a != axis])


def _twiddle(n: int, k):
    """``exp(-i pi k / 2n)``: the quarter-turn factor of Makhoul's DCT."""
    k = k.astype(jnp.result_type(k.dtype, np.complex64))
    return jnp.exp(-.5j * np.pi * k / n)


def _interleave(x, axis: int):
    """``[x0, x2, x4, ..., x5, x3, x1]`` along ``axis``."""
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds_reversed = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds_reversed], axis)


def _deinterleave(x, axis: int):
    """The inverse of :func:`_interleave`."""
    half = math.ceil(x.shape[axis] / 2)
    evens = lax.slice_in_dim(x, 0, half, 1, axis)
    odds = lax.rev(lax.slice_in_dim(x, half, None, 1, axis), (axis,))
    out = jnp.zeros(x.shape, x.dtype)
    at = [slice(None)] * x.ndim
    at[axis] = slice(None, None, 2)
    out = out.at[tuple(at)].set(evens)
    at[axis] = slice(1, None, 2)
    return out.at[tuple(at)].set(odds)


def _ortho_scale(out, axis: int):
    """Divide entry 0 by ``sqrt(4N)`` and the rest by ``sqrt(2N)``: the DCT matrix
    becomes orthonormal (``norm="ortho"``)."""
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    return out / lax.sqrt(_along(factor, axis, out.ndim) * n)


def _check(name, x, type, norm):
    check_arraylike(name, x)
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")
    return jnp.asarray(x)


def _pad_to(x, sizes: dict):
    """Zero-pad (or cut) ``x`` at the end of each axis in ``sizes`` to that length."""
    if not sizes:
        return x
    pads = [(0, sizes.get(a, x.shape[a]) - x.shape[a], 0) for a in range(x.ndim)]
    return lax.pad(x, jnp.zeros((), x.dtype), pads)


def dct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The type-2 DCT of ``x`` along ``axis`` (zero-padded or cut to ``n``)."""
    x = _check("dct", x, type, norm)
    if jnp.iscomplexobj(x):  # the DCT is real-linear: transform each part
        return lax.complex(dct(x.real, type, n, axis, norm), dct(x.imag, type, n, axis, norm))
    axis = _axis(axis, x.ndim)
    x = _pad_to(x, {} if n is None else {axis: n})
    size = x.shape[axis]
    spectrum = jnp_fft.fft(_interleave(x, axis), axis=axis)
    k = _along(jnp.arange(size, dtype=spectrum.real.dtype), axis, x.ndim)
    out = 2 * (spectrum * _twiddle(size, k)).real
    return _ortho_scale(out, axis) if norm == "ortho" else out


def _dct2(x, axes, norm):
    """The 2-d DCT with one 2-d FFT: both axes interleaved, and the two twiddles
    of the second axis (``k2`` and ``-k2``) combine the spectrum with its mirror."""
    axis1, axis2 = (_axis(a, x.ndim) for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    spectrum = jnp_fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = _along(jnp.arange(n1, dtype=spectrum.dtype), axis1, x.ndim)
    k2 = _along(jnp.arange(n2, dtype=spectrum.dtype), axis2, x.ndim)
    mirrored = jnp.roll(jnp.flip(spectrum, axis=axis2), shift=1, axis=axis2)
    out = _twiddle(n1, k1) * (_twiddle(n2, k2) * spectrum + _twiddle(n2, -k2) * mirrored)
    out = 2 * out.real
    if norm == "ortho":
        return _ortho_scale(_ortho_scale(out, axis1), axis2)
    return out


def _nd_axes(x, s, axes):
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(_axis(a, x.ndim) for a in axes)
    return s, axes


def dctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
    """The type-2 DCT over ``axes`` (all by default), two axes at a time."""
    x = _check("dctn", x, type, norm)
    if jnp.iscomplexobj(x):
        return lax.complex(dctn(x.real, type, s, axes, norm), dctn(x.imag, type, s, axes, norm))
    s, axes = _nd_axes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _pad_to(x, {} if s is None else dict(zip(axes, s)))
    if len(axes) == 2:
        return _dct2(x, axes, norm)
    for block in [axes[i:i + 2] for i in range(0, len(axes), 2)]:
        x = dctn(x, axes=block, norm=norm)
    return x


def idct(x, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of :func:`dct` (type 2) along ``axis``."""
    x = _check("idct", x, type, norm)
    if jnp.iscomplexobj(x):
        return lax.complex(idct(x.real, type, n, axis, norm), idct(x.imag, type, n, axis, norm))
    axis = _axis(axis, x.ndim)
    x = _pad_to(x, {} if n is None else {axis: n})
    size = x.shape[axis]
    x, = promote_dtypes_inexact(x)
    if norm is None or norm == "backward":
        x = _ortho_scale(x, axis)
    x = _ortho_scale(x, axis)
    k = _along(jnp.arange(size, dtype=x.dtype), axis, x.ndim)
    w = _twiddle(size, k)
    x = x.astype(w.dtype) / w * 2 * size
    return _deinterleave(jnp_fft.ifft(x, axis=axis).real, axis)


def idctn(x, type: int = 2, s=None, axes=None, norm: str | None = None):
    """The inverse of :func:`dctn`: :func:`idct` along each of ``axes``."""
    x = _check("idctn", x, type, norm)
    if jnp.iscomplexobj(x):
        return lax.complex(idctn(x.real, type, s, axes, norm), idctn(x.imag, type, s, axes, norm))
    s, axes = _nd_axes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _pad_to(x, {} if s is None else dict(zip(axes, s)))
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x
