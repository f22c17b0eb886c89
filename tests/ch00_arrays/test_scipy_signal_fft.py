"""``minijax.scipy.signal``, ``.fft`` and ``.integrate`` against SciPy (and JAX 0.10.2)."""
import numpy as np
import pytest
import scipy.fft
import scipy.integrate
import scipy.signal

import minijax
import minijax.numpy as jnp
from minijax.scipy import fft, integrate, signal

rng = np.random.default_rng(7)
X1 = rng.normal(size=9).astype(np.float32)
K1 = rng.normal(size=4).astype(np.float32)
X2 = rng.normal(size=(5, 6)).astype(np.float32)
K2 = rng.normal(size=(3, 2)).astype(np.float32)


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_match_scipy(mode):
    for a, b in ((X1, K1), (K1, X1), (X2, K2), (X2, X2)):
        close(signal.convolve(a, b, mode=mode), scipy.signal.convolve(a, b, mode=mode))
        close(signal.correlate(a, b, mode=mode), scipy.signal.correlate(a, b, mode=mode))
        close(signal.fftconvolve(a, b, mode=mode), scipy.signal.fftconvolve(a, b, mode=mode),
              atol=1e-4)
        close(signal.convolve(a, b, mode=mode, method="fft"),
              scipy.signal.convolve(a, b, mode=mode), atol=1e-4)
    for a, b in ((X2, K2), (K2, X2), (X2, X2)):
        close(signal.convolve2d(a, b, mode=mode), scipy.signal.convolve2d(a, b, mode=mode))
        close(signal.correlate2d(a, b, mode=mode), scipy.signal.correlate2d(a, b, mode=mode))


def test_convolve_of_integers_is_float_as_in_jax():
    out = signal.convolve(jnp.array([1, 2, 3, 2, 1]), jnp.array([1, 1, 1]))
    assert out.dtype == jnp.float32  # from JAX 0.10.2: Array([1., 3., 6., 7., 6., 3., 1.])
    np.testing.assert_array_equal(out, [1., 3., 6., 7., 6., 3., 1.])


def test_fftconvolve_over_some_axes_and_under_grad():
    a = rng.normal(size=(3, 8)).astype(np.float32)
    b = rng.normal(size=(3, 3)).astype(np.float32)
    close(signal.fftconvolve(a, b, axes=1), scipy.signal.fftconvolve(a, b, axes=1), atol=1e-4)
    g = minijax.grad(lambda k: signal.convolve(X1, k, mode="valid").sum())(K1)
    close(g, [sum(X1[i - j + 3] for i in range(6)) for j in range(4)], rtol=1e-4)


def test_signal_errors():
    with pytest.raises(ValueError, match="mode must be one of"):
        signal.convolve(X1, K1, mode="middle")
    with pytest.raises(ValueError, match="smaller than the other in every dimension"):
        signal.convolve2d(np.ones((2, 5)), np.ones((3, 3)))
    with pytest.raises(NotImplementedError, match="boundary='fill'"):
        signal.convolve2d(X2, K2, boundary="wrap")


def test_detrend_matches_scipy():
    data = rng.normal(size=(4, 12)).astype(np.float32) + np.arange(12)
    close(signal.detrend(data), scipy.signal.detrend(data), atol=1e-4)
    close(signal.detrend(data, type="constant"), scipy.signal.detrend(data, type="constant"))
    close(signal.detrend(data, axis=0), scipy.signal.detrend(data, axis=0), atol=1e-4)
    close(signal.detrend(data, bp=[5]), scipy.signal.detrend(data, bp=[5]), atol=1e-4)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_and_inverse_match_scipy(norm):
    x = rng.normal(size=(3, 5)).astype(np.float32)
    for axis in (0, 1):
        close(fft.dct(x, axis=axis, norm=norm), scipy.fft.dct(x, axis=axis, norm=norm), atol=1e-4)
        close(fft.idct(x, axis=axis, norm=norm), scipy.fft.idct(x, axis=axis, norm=norm),
              atol=1e-4)
    close(fft.dct(x, n=7, norm=norm), scipy.fft.dct(x, n=7, norm=norm), atol=1e-4)
    close(fft.dctn(x, norm=norm), scipy.fft.dctn(x, norm=norm), atol=1e-4)
    close(fft.idctn(x, norm=norm), scipy.fft.idctn(x, norm=norm), atol=1e-4)
    x3 = rng.normal(size=(2, 3, 4)).astype(np.float32)
    close(fft.dctn(x3, norm=norm), scipy.fft.dctn(x3, norm=norm), atol=1e-4)
    close(fft.dctn(x3, s=(4, 6), norm=norm), scipy.fft.dctn(x3, s=(4, 6), norm=norm), atol=1e-4)
    close(fft.idct(fft.dct(x, norm=norm), norm=norm), x, atol=1e-5)
    z = (x + 1j * x[::-1]).astype(np.complex64)
    close(fft.dct(z, norm=norm), scipy.fft.dct(z, norm=norm), atol=1e-4)
    with pytest.raises(NotImplementedError, match="type 2"):
        fft.dct(x, type=3)


def test_trapezoid_matches_scipy():
    y = rng.normal(size=(2, 6)).astype(np.float32)
    close(integrate.trapezoid(y), scipy.integrate.trapezoid(y))
    xs = np.sort(rng.normal(size=6)).astype(np.float32)
    close(integrate.trapezoid(y, xs), scipy.integrate.trapezoid(y, xs))
    close(integrate.trapezoid(y, dx=0.5, axis=0), scipy.integrate.trapezoid(y, dx=0.5, axis=0))
