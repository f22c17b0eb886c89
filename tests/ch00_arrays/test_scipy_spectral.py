"""``minijax.scipy.signal``'s windowed FFTs (``stft``, ``istft``, ``csd``, ``welch``)
against SciPy, and ``istft``'s digits against JAX 0.10.2."""
import numpy as np
import pytest
import scipy.signal

import minijax.numpy as jnp
from minijax.scipy import signal

rng = np.random.default_rng(2)
X = rng.normal(size=(2, 50)).astype(np.float32)
Y = rng.normal(size=(2, 50)).astype(np.float32)


def close(got, want, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


@pytest.mark.parametrize("kwargs", [{}, {"nperseg": 8}, {"nperseg": 10, "noverlap": 3},
                                    {"nperseg": 8, "nfft": 12, "boundary": "even"},
                                    {"nperseg": 7, "window": "hamming", "padded": False},
                                    {"nperseg": 8, "return_onesided": False}])
def test_stft_matches_scipy(kwargs):
    kwargs = {"nperseg": 16, **kwargs}
    f, t, z = signal.stft(X, **kwargs)
    wf, wt, wz = scipy.signal.stft(X, **kwargs)
    close(f, wf)
    close(t, wt)
    close(z, wz)


def test_istft_inverts_stft_and_matches_jax_digits():
    for kwargs in ({"nperseg": 8}, {"nperseg": 16, "noverlap": 12}):
        _, _, z = signal.stft(X, **kwargs)
        _, back = signal.istft(z, **kwargs)
        close(back[..., :X.shape[-1]], X, atol=1e-5)
        _, want = scipy.signal.istft(np.asarray(z), **kwargs)
        close(back, want)
    x = jnp.array([1., 2., 3., 2., 1., 0., 1., 2.])
    _, _, z = signal.stft(x, nperseg=4)
    _, back = signal.istft(z)
    np.testing.assert_array_equal(  # from JAX 0.10.2
        back, np.array([1.0, 2.0000002, 3.0, 2.0000002, 1.0, 5.9604652e-08, 1.0, 2.0],
                       np.float32))


@pytest.mark.parametrize("kwargs", [{}, {"nperseg": 10, "scaling": "spectrum"},
                                    {"nperseg": 16, "average": "median"},
                                    {"nperseg": 12, "detrend": "linear", "fs": 4.0}])
def test_welch_and_csd_match_scipy(kwargs):
    kwargs = {"nperseg": 16, **kwargs}
    f, p = signal.welch(X, **kwargs)
    wf, wp = scipy.signal.welch(X, **kwargs)
    close(f, wf)
    close(p, wp)
    f, p = signal.csd(X, Y, **kwargs)
    close(p, scipy.signal.csd(X, Y, **kwargs)[1])


def test_spectral_errors():
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        signal.stft(X, nperseg=8, noverlap=8)
    with pytest.raises(ValueError, match="Unknown boundary"):
        signal.stft(X, nperseg=8, boundary="circular")
    with pytest.raises(ValueError, match="at least 2d"):
        signal.istft(jnp.ones(4))
