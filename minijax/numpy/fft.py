"""Chapter 00 — ``jnp.fft``: NumPy's FFT functions, built on the one ``lax.fft`` primitive.

``lax.fft`` transforms only the *last* one to three axes of an array, at the
lengths they have. Everything NumPy's interface adds is arranged around it,
as JAX does:

1. ``axes``: the named axes are moved to the end (``moveaxis``), and the
   result is moved back;
2. ``n`` / ``s``: each transformed axis is cropped (a ``slice``) or padded
   with zeros (``pad``) to the asked length first (for ``irfft``, the last
   axis to ``n//2 + 1`` coefficients, which give ``n`` samples);
3. more than three axes: a 3-D (or two 2-D) transforms of the last axes,
   then the rest, moved to the end in turn (a multi-dimensional DFT is a
   1-D DFT along each axis, in any order);
4. ``norm``: ``"backward"`` (the default: ``1/N`` on the inverse),
   ``"ortho"`` (``1/sqrt(N)`` both ways) or ``"forward"`` (``1/N`` on the
   forward transform), one multiplication of the result.

``hfft``/``ihfft`` are ``irfft``/``rfft`` of the conjugate (a signal whose
*spectrum* is real). ``fftfreq``, ``rfftfreq``, ``fftshift`` and
``ifftshift`` are arithmetic on ``arange`` and ``roll``.
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from minijax import dtypes
from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.lax.fft import FftType
from minijax.numpy import creation, reductions, shapes, ufuncs
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _ensure_arraylike(name: str, a):
    check_arraylike(name, a)
    return creation.asarray(a)


# --- the core: axes, lengths, normalization around lax.fft -------------------------------------
def _fft_norm(s, func_name: str, norm: str):
    """The factor ``norm`` asks for; ``s`` holds the transform's lengths (complex)."""
    if norm == "backward":
        return creation.array(1)
    s, = promote_dtypes_inexact(s)
    if norm == "ortho":
        root = ufuncs.sqrt(reductions.prod(s))
        return root if func_name.startswith("i") else 1 / root
    if norm == "forward":
        n = reductions.prod(s)
        return n if func_name.startswith("i") else 1 / n
    raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                     '"ortho" or "forward".')


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
    """The transform of ``a`` over ``axes`` at lengths ``s`` (NumPy's meaning of both)."""
    full_name = f"jax.numpy.fft.{func_name}"
    arr = _ensure_arraylike(full_name, a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")  # (NumPy's error)
    orig_axes = axes
    ndim = get_aval(arr).ndim
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")

    # 1. lax.fft transforms the innermost axes: move the named ones there
    if orig_axes is not None:
        axes = tuple(range(ndim - len(axes), ndim))
        arr = shapes.moveaxis(arr, orig_axes, axes)

    # 2. crop or zero-pad each transformed axis to its length
    if s is not None:
        in_s = list(get_aval(arr).shape)
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:  # n real samples come from n//2 + 1 coefficients
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = shapes.pad(arr, [(0, n - m) for n, m in zip(in_s, get_aval(arr).shape)])
    else:
        shape = get_aval(arr).shape
        if fft_type == FftType.IRFFT:
            s = [shape[axis] for axis in axes[:-1]]
            if axes:
                s += [max(0, 2 * (shape[axes[-1]] - 1))]
        else:
            s = [shape[axis] for axis in axes]

    # 3. the transform, and 4. its normalization
    transformed = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        transformed = transformed * _fft_norm(
            creation.array(s, dtype=get_aval(transformed).dtype), func_name, norm)
    if orig_axes is not None:
        transformed = shapes.moveaxis(transformed, axes, orig_axes)
    return transformed


def _fft_core_nd(arr, fft_type: FftType, s):
    """``lax.fft`` over the last ``len(s)`` axes; more than three in several rounds."""
    if len(s) <= 3:
        return lax.fft(arr, fft_type, tuple(s))
    # The last n axes first (two 2-D transforms are cheaper than a 3-D and a 1-D for
    # four axes), then the others, moved to the end for the recursive call.
    n = 2 if len(s) == 4 else 3
    ndim = get_aval(arr).ndim
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax.fft(arr, fft_type, tuple(s)[-n:])
        arr = shapes.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return shapes.moveaxis(arr, dst, src)
    # inverse: the complex axes first, so that IRFFT (real output) comes last
    arr = shapes.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = shapes.moveaxis(arr, dst, src)
    return lax.fft(arr, fft_type, tuple(s)[-n:])


# --- n-dimensional transforms ----------------------------------------------------------------
def fftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
    """The multidimensional discrete Fourier transform of ``a`` over ``axes`` (all by default).

    ``s`` gives the length of each transformed axis (cropping or zero-padding
    ``a``; default: ``a``'s); ``norm`` is ``"backward"`` (default), ``"ortho"``
    or ``"forward"``. JAX implementation of :func:`numpy.fft.fftn`.
    """
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """The multidimensional inverse discrete Fourier transform (see :func:`fftn`)."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """The multidimensional DFT of a real ``a``: the last axis keeps ``s[-1]//2 + 1``
    coefficients (the others are their mirror images' conjugates)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None):
    """The inverse of :func:`rfftn`: real output, ``s[-1]`` samples along the last axis
    (default ``2 * (m - 1)`` for ``m`` coefficients)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


# --- one-dimensional transforms --------------------------------------------------------------
def _axis_check_1d(func_name: str, axis) -> None:
    full_name = f"jax.numpy.fft.{func_name}"
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"{full_name} does not support multiple axes. Please use "
                         f"{full_name}n. Got axis = {axis!r}.")


def _fft_core_1d(func_name: str, fft_type: FftType, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The one-dimensional discrete Fourier transform of ``a`` along ``axis``.

    ``n`` crops or zero-pads the axis first. JAX implementation of
    :func:`numpy.fft.fft`.
    """
    return _fft_core_1d("fft", FftType.FFT, a, n=n, axis=axis, norm=norm)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The one-dimensional inverse discrete Fourier transform (see :func:`fft`)."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n=n, axis=axis, norm=norm)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The DFT of a real ``a`` along ``axis``: ``n//2 + 1`` coefficients."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n=n, axis=axis, norm=norm)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of :func:`rfft`: ``n`` real samples (default ``2 * (m - 1)``)."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n=n, axis=axis, norm=norm)


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The DFT of a signal with a Hermitian-symmetric ``a`` (given by its first half):
    a real spectrum of ``n`` values (default ``2 * (m - 1)``)."""
    conj_a = ufuncs.conj(a)
    _axis_check_1d("hfft", axis)
    nn = (get_aval(conj_a).shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n=n, axis=axis, norm=norm) * nn


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of :func:`hfft`: ``n//2 + 1`` coefficients of a real ``a``."""
    _axis_check_1d("ihfft", axis)
    arr = creation.asarray(a)
    nn = get_aval(arr).shape[axis] if n is None else n
    output = _fft_core_1d("ihfft", FftType.RFFT, arr, n=n, axis=axis, norm=norm)
    return ufuncs.conj(output) * (1 / nn)


# --- two-dimensional transforms --------------------------------------------------------------
def _fft_core_2d(func_name: str, fft_type: FftType, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. "
                         f"Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None):
    """The two-dimensional DFT over ``axes`` (the last two by default): :func:`fftn`."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None):
    """The two-dimensional inverse DFT: :func:`ifftn` over two axes."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None):
    """The two-dimensional DFT of a real ``a``: :func:`rfftn` over two axes."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None):
    """The inverse of :func:`rfft2`: :func:`irfftn` over two axes."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


# --- frequencies and shifts ------------------------------------------------------------------
def _check_freq_args(name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single "
                         f"value. Got d = {list(d)}.")


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The frequencies of :func:`fft`'s ``n`` outputs for samples ``d`` apart:
    ``[0, 1, ..., n//2 - 1 (or n//2 for odd n), -n//2, ..., -1] / (d * n)``."""
    dtype = dtype or dtypes.default_float_dtype
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.finfo(_inexact(dtype)).dtype  # computed in the real float type
    i = creation.arange(n, dtype=dtype, device=device)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / creation.array(d * n, dtype=dtype, device=device)
    return result.astype(out_dtype)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The frequencies of :func:`rfft`'s ``n//2 + 1`` outputs: ``[0, 1, ..., n//2] / (d * n)``."""
    dtype = dtype or dtypes.default_float_dtype
    _check_freq_args("rfftfreq", n, d)
    k = creation.arange(0, n // 2 + 1, dtype=dtype)  # ((n - 1)//2 + 1 for odd n: the same)
    result = k / creation.array(d * n, dtype=dtype)
    return result if device is None else result.to_device(device)


def _inexact(dtype) -> np.dtype:
    """Integers and booleans compute in float32 (JAX's ``to_inexact_dtype``)."""
    dtype = np.dtype(dtype)
    return dtype if dtypes.is_inexact(dtype) else np.dtype(np.float32)


def fftshift(x, axes: None | int | Sequence[int] = None):
    """Roll the zero frequency to the centre of the spectrum (along ``axes``, or all)."""
    x = _ensure_arraylike("fftshift", x)
    shape = get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [dim // 2 for dim in shape]
    elif isinstance(axes, int):
        shift = shape[axes] // 2
    else:
        shift = [shape[ax] // 2 for ax in axes]
    return shapes.roll(x, shift, axes)


def ifftshift(x, axes: None | int | Sequence[int] = None):
    """The inverse of :func:`fftshift` (the same for even lengths)."""
    x = _ensure_arraylike("ifftshift", x)
    shape = get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [-(dim // 2) for dim in shape]
    elif isinstance(axes, int):
        shift = -(shape[axes] // 2)
    else:
        shift = [-(shape[ax] // 2) for ax in axes]
    return shapes.roll(x, shift, axes)
