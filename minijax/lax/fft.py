"""Chapter 00 — ``lax.fft``: the discrete Fourier transform as one primitive.

``fft`` transforms the *last* ``len(fft_lengths)`` axes of its operand (one,
two or three of them; ``jnp.fft`` moves the axes a user names there first)
and maps over every leading axis. Which transform is a parameter,
``fft_type``, one of :class:`FftType`:

=========  ========================  ==============================================
type       operand -> result         on the last axis (``n = fft_lengths[-1]``)
=========  ========================  ==============================================
``FFT``    complex -> complex        ``X[k] = sum_j x[j] exp(-2 pi i jk/n)``
``IFFT``   complex -> complex        ``x[j] = 1/n sum_k X[k] exp(+2 pi i jk/n)``
``RFFT``   real -> complex           ``X[0 .. n//2]``: the other half of a real
                                     signal's spectrum is its mirror (Hermitian)
``IRFFT``  complex -> real           reads ``n//2 + 1`` coefficients, returns ``n``
                                     real samples
=========  ========================  ==============================================

Every one of them is a *linear* map of its operand (``linear_in=(0,)``): its
JVP is itself applied to the tangent (chapter 02), and it has a transpose
(chapter 07: ``FFT`` and ``IFFT`` are symmetric matrices, so each is its own
transpose; ``RFFT`` and ``IRFFT`` transpose into each other with a mask that
counts the mirrored coefficients twice).

The impl calls NumPy's FFT (pocketfft, the library XLA's CPU FFT is built
from too). Dtypes are JAX's: a ``float32`` signal has a ``complex64``
spectrum, ``IRFFT`` of ``complex64`` is ``float32``; integer and boolean
operands are converted first (to ``complex64`` or, for ``RFFT``,
``float32``); ``float64`` inputs become 32-bit as everywhere without x64.
As in JAX, :func:`fft` is a jitted function: a traced program shows
``jit[name=fft jaxpr={ ... fft[fft_lengths=(8,) fft_type=0] ... }]``.
"""
from __future__ import annotations

import enum
import functools
import operator
from typing import Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray, get_aval
from minijax.lax.base import standard_primitive
from minijax.lax.elementwise import convert_element_type

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """Which FFT operation to perform (JAX's enum; it prints as its number)."""

    FFT = 0
    "Forward complex-to-complex FFT."

    IFFT = 1
    "Inverse complex-to-complex FFT."

    RFFT = 2
    "Forward real-to-complex FFT."

    IRFFT = 3
    "Inverse real-to-complex FFT."


#: The names :func:`fft` accepts for each type (lower case, or the enum's own name).
_BY_NAME = {**{t.name.lower(): t for t in FftType}, **{t.name: t for t in FftType}}


def _fft_type_of(fft_type) -> FftType:
    """An :class:`FftType`, from itself or its name (``"rfft"`` or ``"RFFT"``)."""
    if isinstance(fft_type, str):
        typ = _BY_NAME.get(fft_type)
        if typ is None:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return typ
    if isinstance(fft_type, FftType):
        return fft_type
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


# --- dtypes ----------------------------------------------------------------------------------
def _inexact_dtype(dtype: np.dtype) -> np.dtype:
    """Integers and booleans become float32 (JAX's ``to_inexact_dtype``, without x64)."""
    return dtype if dtypes.is_inexact(dtype) else np.dtype(np.float32)


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype a transform of ``dtype`` computes in: complex128 only for 64-bit."""
    wide = _inexact_dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.dtype(np.complex128 if wide else np.complex64)


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return dtypes.finfo(dtype).dtype


# --- shape and dtype rules (JAX's checks and messages) ---------------------------------------
def _check_lengths(x: ShapedArray, fft_type: FftType, fft_lengths: tuple) -> None:
    k = len(fft_lengths)
    if k > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many "
                         f"input dimensions as fft_lengths {fft_lengths}.")
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if x.shape[-k:] != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must "
                             f"be equal to fft_lengths {fft_lengths}")
    elif fft_type == FftType.IRFFT:
        if not np.issubdtype(x.dtype, np.complexfloating):
            raise ValueError(f"IRFFT input must be complex64 or complex128, got {x.dtype}")
        if x.shape[-k:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must "
                             "be equal to all except the last fft_length, got "
                             f"fft_lengths={fft_lengths}")
        # (JAX leaves this one to XLA, which raises it when compiling)
        if x.shape[-1] != fft_lengths[-1] // 2 + 1:
            raise ValueError("IRFFT requires innermost dimension to be compatible with "
                             f"fft_length[-1]/2+1. Got: {x.shape[-1]} but fft_length is "
                             f"{fft_lengths[-1]}.")
    else:
        if not np.issubdtype(x.dtype, np.complexfloating):
            raise ValueError(f"FFT input must be complex64 or complex128, got {x.dtype}")
        if x.shape[-k:] != fft_lengths:
            raise ValueError(f"FFT input shape {x.shape} minor dimensions must "
                             f"be equal to fft_lengths {fft_lengths}")


def _fft_shape(x, *, fft_type, fft_lengths):
    _check_lengths(x, fft_type, fft_lengths)
    k = len(fft_lengths)
    if fft_type == FftType.RFFT:  # the last axis keeps n//2 + 1 coefficients
        return x.shape[:-k] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
    if fft_type == FftType.IRFFT:  # ... and gives back n samples
        return x.shape[:-k] + fft_lengths
    return x.shape


def _fft_dtype(x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return _complex_dtype(x.dtype)
    if fft_type == FftType.IRFFT:
        return _real_dtype(x.dtype)
    return x.dtype


# --- the impl: NumPy's pocketfft ----------------------------------------------------------------
_NUMPY_TRANSFORMS = {FftType.FFT: np.fft.fftn, FftType.IFFT: np.fft.ifftn,
                     FftType.RFFT: np.fft.rfftn}


def _fft_impl(x, *, fft_type, fft_lengths):
    """The transform of the last ``len(fft_lengths)`` axes, in the result dtype of JAX."""
    x = np.asarray(x)
    aval = ShapedArray(x.shape, x.dtype)
    shape = _fft_shape(aval, fft_type=fft_type, fft_lengths=fft_lengths)
    dtype = _fft_dtype(aval, fft_type=fft_type, fft_lengths=fft_lengths)
    if 0 in shape:  # nothing to transform (NumPy refuses zero-length transforms)
        return np.zeros(shape, dtype)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.IRFFT:
        out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    else:
        out = _NUMPY_TRANSFORMS[fft_type](x, axes=axes)
    return out.astype(dtype, copy=False)


fft_p = standard_primitive("fft", _fft_shape, _fft_dtype, _fft_impl,
                           weak_type_rule=lambda x, **_: x.weak_type, linear_in=(0,))


# --- the wrapper ----------------------------------------------------------------------------------
def fft(x, fft_type: FftType | str, fft_lengths: Sequence[int]):
    """The FFT of type ``fft_type`` over the last ``len(fft_lengths)`` axes of ``x``.

    ``fft_type`` is an :class:`FftType` or its name (``"fft"``, ``"IRFFT"``...);
    ``fft_lengths`` the lengths of the transformed axes (of the *result*, for
    ``IRFFT``). The operand is first converted to the dtype the transform
    reads (complex, or real for ``RFFT``). Empty ``fft_lengths``: only that.
    """
    return _jitted_fft()(x, fft_type, tuple(map(operator.index, fft_lengths)))


def _fft(x, fft_type, fft_lengths):
    typ = _fft_type_of(fft_type)
    dtype = get_aval(x).dtype
    if typ == FftType.RFFT:
        if np.iscomplexobj(np.empty(0, dtype)):
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, dtypes.canonicalize_dtype(_inexact_dtype(dtype)))
    else:
        x = convert_element_type(x, dtypes.canonicalize_dtype(_complex_dtype(dtype)))
    if not fft_lengths:  # (XLA's FFT has no rank-0 transform)
        return x
    return fft_p.bind(x, fft_type=typ, fft_lengths=tuple(fft_lengths))


@functools.cache
def _jitted_fft():
    """``_fft`` as JAX has it, a jitted function named ``fft`` with static type and lengths.

    (Made on first use: ``minijax.numpy.util`` imports ``minijax.lax``, so it can
    only be imported once ``minijax.lax`` is complete.)
    """
    from minijax.numpy.util import jnp_jit
    return jnp_jit("fft", static_argnames=("fft_type", "fft_lengths"))(_fft)
