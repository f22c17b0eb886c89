"""Chapter 00 — windowed FFTs: ``stft``, ``istft``, ``csd`` and ``welch``.

The short-time Fourier transform cuts the signal into overlapping segments
of ``nperseg`` samples, ``nperseg - noverlap`` apart, multiplies each by a
window (a Hann window by default, ``sin^2`` of a half period) and takes its
FFT: a spectrum per segment. ``welch`` averages ``|spectrum|^2`` over the
segments (a power spectral density with less noise than one long FFT);
``csd`` does the same for ``conj(X) * Y`` of two signals. ``istft`` inverts
the STFT by *overlap-add*: inverse FFT of each segment, weighted by the
window again, summed where segments overlap and divided by the summed
squared window.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.numpy import fft as jnp_fft
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact
from minijax.scipy.signal import detrend

__all__ = ["stft", "istft", "csd", "welch"]


def _complex_dtype(dtype):
    return np.result_type(dtype, np.complex64)


def _hann(n: int):
    """The periodic Hann window ``sin(pi k / n)^2``."""
    if n == 1:
        return jnp.array([1.0])
    return jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2


def _window(window, nperseg, input_length: int, dtype):
    """``(window array, nperseg)`` from a window name (SciPy's ``get_window`` for
    names other than ``"hann"``) or an array."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length}, using "
                          f"nperseg={input_length}")
            n = input_length
        if window == "hann":
            win = _hann(n)
        else:
            from scipy.signal import get_window
            win = get_window(window, n)
        return jnp.array(win, dtype=dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _segments(x, nperseg: int, step: int):
    """The segments ``x[..., s:s + nperseg]`` for ``s = 0, step, 2 step, ...`` stacked
    on a new axis ``-2``: one gather with an index matrix."""
    starts = np.arange(x.shape[-1] - nperseg + 1, step=step)
    return x[..., starts[:, None] + np.arange(nperseg)[None, :]]


def _fft_segments(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    if np.issubdtype(x.dtype, np.integer):
        x = x.astype(win.dtype)
    if nperseg == 1 and noverlap == 0:
        segs = x[..., None]
    else:
        segs = _segments(x, nperseg, nperseg - noverlap)
    segs = detrend_func(segs)
    if jnp.iscomplexobj(win):
        segs = segs.astype(_complex_dtype(segs.dtype))
    segs = win * segs
    if sides == "twosided":
        return jnp_fft.fft(segs, n=nfft)
    return jnp_fft.rfft(segs.real, n=nfft)


def _odd_ext(x, n: int):
    """Extend by ``n`` samples each end, point-reflected about the end samples."""
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {x.shape[-1] - 1}.")
    left = 2 * x[..., :1] - jnp.flip(x[..., 1:n + 1], axis=-1)
    right = 2 * x[..., -1:] - jnp.flip(x[..., -(n + 1):-1], axis=-1)
    return jnp.concatenate((left, x, right), axis=-1)


def _pad_last(mode, **kwargs):
    def pad(x, n):
        return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode, **kwargs)
    return pad


_BOUNDARIES = {"even": _pad_last("reflect"), "odd": _odd_ext, "constant": _pad_last("edge"),
               "zeros": _pad_last("constant", constant_values=0.0), None: lambda x, n: x}


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
    """The shared core of ``stft`` (``mode="stft"``) and ``csd``/``welch``
    (``mode="psd"``): ``(freqs, times, result)``, result on ``axis`` then segments."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARIES)}")
    if y is None:
        check_arraylike("spectral_helper", x)
        x, = promote_dtypes_inexact(jnp.asarray(x))
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y = promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(y))
        if x.ndim != y.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
    axis = axis % x.ndim
    result_dtype = _complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None and int(nperseg) < 1:
        raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if x.size == 0 or (y is not None and y.size == 0):
        return (jnp.zeros(x.shape, freq_dtype), jnp.zeros(x.shape, freq_dtype),
                jnp.zeros(x.shape, result_dtype))
    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        y = jnp.moveaxis(y, axis, -1) if y.ndim > 1 else y
        if x.shape[-1] != y.shape[-1]:  # zero-pad the shorter signal
            n = max(x.shape[-1], y.shape[-1])
            x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - x.shape[-1])])
            y = jnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, n - y.shape[-1])])
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if boundary is not None:
        x = _BOUNDARIES[boundary](x, nperseg // 2)
        if y is not None:
            y = _BOUNDARIES[boundary](y, nperseg // 2)
    if padded:  # zeros so the segments cover the signal to its end
        extra = (-(x.shape[-1] - nperseg) % step) % nperseg
        x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, extra)])
        if y is not None:
            y = jnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, extra)])
    if isinstance(detrend_type, str):
        def detrend_func(d):
            return detrend(d, type=detrend_type, axis=-1)
    elif callable(detrend_type):
        detrend_func = detrend_type
    elif not detrend_type:
        def detrend_func(d):
            return d
    else:
        raise ValueError(f"Unsupported detrend type: {detrend_type}")
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    scale = jnp.asarray(scale).astype(_complex_dtype(jnp.asarray(scale).dtype))
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (jnp.iscomplexobj(x) or (y is not None and jnp.iscomplexobj(y))):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False")
    freqs = (jnp_fft.fftfreq(nfft, 1 / fs, dtype=freq_dtype) if sides == "twosided"
             else jnp_fft.rfftfreq(nfft, 1 / fs, dtype=freq_dtype))
    result = _fft_segments(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        result = jnp.conjugate(result) * _fft_segments(y, win, detrend_func, nperseg,
                                                       noverlap, nfft, sides)
    elif mode == "psd":
        result = jnp.conjugate(result) * result
    result = result * scale
    if sides == "onesided" and mode == "psd":  # fold the negative frequencies in
        end = None if nfft % 2 else -1
        result = result.at[..., 1:end].mul(2)
    time = jnp.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nperseg - noverlap,
                      dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    # segments last, frequencies where the signal's axis was
    result = jnp.moveaxis(result, -1, axis)
    return freqs, time, result


def stft(x, fs=1.0, window="hann", nperseg: int = 256, noverlap=None, nfft=None,
         detrend: bool = False, return_onesided: bool = True, boundary="zeros",
         padded: bool = True, axis: int = -1):
    """``(freqs, times, Zxx)``: the spectrum of each windowed segment, ``Zxx`` of
    shape ``(..., freqs, segments)``."""
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     "spectrum", axis, "stft", boundary, padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend: str = "constant", return_onesided: bool = True, scaling: str = "density",
        axis: int = -1, average: str = "mean"):
    """``(freqs, Pxy)``: the cross power spectral density of ``x`` and ``y`` (Welch's
    method: the segments' ``conj(X) Y`` averaged by ``average``)."""
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, "psd")
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                ii_2 = jnp.arange(2.0, pxy.shape[-1], 2)  # the median's bias for chi^2_2
                bias = (1 + jnp.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)).astype(pxy.dtype)
                if jnp.iscomplexobj(pxy):
                    pxy = (jnp.median(jnp.real(pxy), axis=-1)
                           + 1j * jnp.median(jnp.imag(pxy), axis=-1))
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend: str = "constant", return_onesided: bool = True, scaling: str = "density",
          axis: int = -1, average: str = "mean"):
    """``(freqs, Pxx)``: the power spectral density by Welch's method."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


def _overlap_and_add(x, step: int):
    """Sum the frames ``x[..., frame, :]``, frame ``i`` starting at ``i * step``.

    Each frame is cut into ``ceil(length / step)`` pieces of ``step`` samples;
    piece ``p`` of frame ``i`` lands in output block ``i + p``. Laying the
    frames out with one zero frame between runs of pieces turns that shift
    into a reshape, and a sum over pieces adds the overlaps.
    """
    if x.ndim < 2:
        raise ValueError("Input must have (..., frames, frame_length) shape.")
    *batch, nframes, length = x.shape
    flat = math.prod(batch)
    x = x.reshape((flat, nframes, length))
    out_size = step * (nframes - 1) + length
    pieces = 1 + (length - 1) // step
    x = jnp.pad(x, ((0, 0), (0, 0), (0, pieces * step - length)))
    x = x.reshape((flat, nframes, pieces, step)).transpose((0, 2, 1, 3))
    x = jnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))  # (flat, pieces, 2 frames, step)
    shrunk = x.shape[2] - 1
    x = x.reshape((flat, -1))[:, :pieces * shrunk * step]
    x = x.reshape((flat, pieces, shrunk * step)).sum(axis=1)[:, :out_size]
    return x.reshape(tuple(batch) + (-1,))


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided: bool = True, boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2):
    """``(times, x)``: the signal whose :func:`stft` is ``Zxx``, by overlap-add."""
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis, time_axis = freq_axis % Zxx.ndim, time_axis % Zxx.ndim
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = Zxx.astype(_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg = int(nperseg or n_default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft_int = int(nfft)
    if nfft_int < nperseg:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({nperseg}).")
    noverlap = int(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in {time_axis, freq_axis})
        Zxx = jnp.transpose(Zxx, outer + (freq_axis, time_axis))
    inverse = jnp_fft.irfft if input_onesided else jnp_fft.ifft
    frames = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, str) and window == "hann":
        win = _hann(nperseg).astype(frames.dtype)
    elif isinstance(window, (str, tuple)):
        from scipy.signal import get_window
        win = jnp.array(get_window(window, nperseg), dtype=frames.dtype)
    else:
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    frames = frames * win.sum()  # undo the "spectrum" scaling
    win = lax.expand_dims(win, (*range(frames.ndim - 2), -1))
    x = _overlap_and_add((frames * win).swapaxes(-2, -1), step)
    win_squared = jnp.repeat(win * win, frames.shape[-1], axis=-1)
    norm = _overlap_and_add(win_squared.swapaxes(-2, -1), step)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
