"""Chapter 00 — ``minijax.scipy.signal``: convolution, correlation, detrending.

``convolve`` and friends are one ``lax.conv_general_dilated`` call: the
signal is the image (one batch entry, one feature), the *flipped* second
input is the kernel (a convolution in the signal-processing sense is a
correlation with the flipped kernel, which is what ``conv_general_dilated``
computes), and ``mode`` only chooses the padding:

* ``"full"``: pad ``k - 1`` on both sides: every overlap, length ``n + k - 1``;
* ``"valid"``: no padding: only full overlaps, length ``n - k + 1``;
* ``"same"``: the centred ``n`` entries of ``"full"``.

``fftconvolve`` computes the same through the convolution theorem: the FFT
of a convolution is the product of the FFTs.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy import linalg as jnp_linalg
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve", "detrend",
           "stft", "istft", "csd", "welch"]

_MODES = ["full", "same", "valid"]


def _convolve_nd(in1, in2, mode: str, *, precision):
    """The N-d convolution of ``in1`` and ``in2`` by ``lax.conv_general_dilated``."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    out_shape_ref = in2.shape  # "same" centres on in1's shape, before any swap
    if swap:  # convolution commutes: slide the smaller one
        in1, in2 = in2, in1
    kernel_shape = in2.shape
    kernel = jnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0) for _ in kernel_shape]
    elif mode == "same":
        padding = [(k - 1 - (k_ref - 1) // 2, k - k_ref + (k_ref - 1) // 2)
                   for k, k_ref in zip(kernel_shape, out_shape_ref)]
    else:
        padding = [(k - 1, k - 1) for k in kernel_shape]
    out = lax.conv_general_dilated(in1[None, None], kernel[None, None],
                                   (1,) * in1.ndim, padding, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d convolution of ``in1`` and ``in2`` (``method="fft"``: by FFTs)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("direct", "auto"):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    check_arraylike("convolve", in1, in2)
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
               precision=None):
    """The 2-d convolution of ``in1`` and ``in2`` (zero ``"fill"`` boundary only)."""
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("convolve2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("convolve2d() only supports 2-dimensional inputs.")
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d cross-correlation: the convolution with ``in2`` flipped and conjugated."""
    check_arraylike("correlate", in1, in2)
    return convolve(in1, jnp.flip(jnp.asarray(in2).conj()), mode, precision=precision,
                    method=method)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0,
                precision=None):
    """The 2-d cross-correlation (zero ``"fill"`` boundary only).

    Correlating ``in1`` with ``in2`` is convolving ``flip(in1)`` with
    ``conj(in2)`` and flipping the result back; which input slides depends on
    their sizes, and SciPy's choice decides where ``"same"`` and ``"valid"``
    centre, so the branches below follow it.
    """
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("correlate2d() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError("correlate2d() only supports 2-dimensional inputs.")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = all(s1 == s2 for s1, s2 in zip(in1.shape, in2.shape))
    conv = lambda a, b: _convolve_nd(a, b, mode, precision=precision)  # noqa: E731
    if mode == "valid" and swap and not same_shape:
        return conv(jnp.flip(in2), in1.conj())
    if mode == "full" and swap:
        return conv(jnp.flip(in2), in1.conj()).conj()
    return jnp.flip(conv(jnp.flip(in1), in2.conj()))


def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """The convolution of ``in1`` and ``in2`` by FFTs: ``ifft(fft(in1) * fft(in2))``
    over the ``axes`` (all by default; on the others the shapes must agree)."""
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(jnp.asarray(in1), jnp.asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    axes = tuple(range(in1.ndim)) if axes is None else tuple(
        ax % in1.ndim for ax in np.atleast_1d(axes).tolist())
    for ax in set(range(in1.ndim)) - set(axes):
        if in1.shape[ax] != in2.shape[ax]:
            raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                             f"in2.shape={in2.shape} axes={axes}")
    if mode == "valid":
        no_swap = all(in1.shape[a] >= in2.shape[a] for a in axes)
        swap = all(in1.shape[a] <= in2.shape[a] for a in axes)
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    full = [in1.shape[a] + in2.shape[a] - 1 for a in axes]
    if all(in1.shape[a] == 1 or in2.shape[a] == 1 for a in axes):
        conv = in1 * in2  # a size-1 side: the convolution is a product
    else:
        complex_input = jnp.iscomplexobj(in1)
        fft, ifft = ((jnp.fft.fftn, jnp.fft.ifftn) if complex_input
                     else (jnp.fft.rfftn, jnp.fft.irfftn))
        conv = ifft(fft(in1, full, axes) * fft(in2, full, axes), full, axes)
    start, size = [0] * in1.ndim, list(conv.shape)
    for a, n_full in zip(axes, full):
        n_out = {"full": n_full, "same": in1.shape[a],
                 "valid": in1.shape[a] - in2.shape[a] + 1}[mode]
        start[a], size[a] = (n_full - n_out) // 2, n_out
    return lax.dynamic_slice(conv, start, size)


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):
    """``data`` less its least-squares line (``type="linear"``; one line per
    segment between the breakpoints ``bp``) or its mean (``"constant"``)."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data, = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    data = jnp.moveaxis(data, axis, 0)
    shape = data.shape
    data = data.reshape(n, -1)
    for lo, hi in zip(breaks[:-1], breaks[1:]):
        npts = hi - lo
        # the design matrix of a line on this segment: [1, t] with t = 1/npts .. 1
        design = jnp.vstack([jnp.ones(npts, dtype=data.dtype),
                             jnp.arange(1, npts + 1, dtype=data.dtype)
                             / np.asarray(npts).astype(data.dtype)]).T
        coef, *_ = jnp_linalg.lstsq(design, data[lo:hi])
        data = data.at[lo:hi].add(-jnp.matmul(design, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(data.reshape(shape), 0, axis)


# the windowed FFTs live in their own module (it reads ``detrend`` from this one)
from minijax.scipy.spectral import csd, istft, stft, welch  # noqa: E402,F401
