"""The Gamma-function family of ``minijax.scipy.special`` against SciPy."""
import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
from minijax.scipy import special

X = np.array([-3.5, -2.5, -1.2, -0.5, 0.3, 1.0, 2.5, 4.0, 7.25], np.float32)


def close(got, want, rtol=2e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=rtol,
                               atol=1e-6)


def test_gamma_gammasgn_loggamma_factorial():
    close(special.gamma(X), ss.gamma(X.astype(np.float64)))
    close(special.gammasgn(X), ss.gammasgn(X))
    with np.errstate(invalid="ignore"):
        want = np.where(X > 0, ss.gammaln(X), np.nan)
    close(special.loggamma(X), want)
    assert np.isnan(np.asarray(special.gammasgn(jnp.array([-2.0, 0.0 * np.nan])))).all()
    assert float(special.gammasgn(-0.0)) == -1.0
    close(special.factorial(np.array([0, 1, 5, -2, 3.5])), ss.factorial([0, 1, 5, -2, 3.5]))
    assert special.gamma(3).dtype == jnp.float32
    with pytest.raises(NotImplementedError, match="exact"):
        special.factorial(3, exact=True)


def test_beta_comb_poch_multigammaln():
    a, b = X[4:], X[:5][::-1] * -1 + 0.1
    close(special.beta(a, b), ss.beta(a, b), rtol=1e-4)
    close(special.beta(-1.5, 2.25), ss.beta(-1.5, 2.25), rtol=1e-4)
    n, k = np.array([5., 10., 3., 4., -1.]), np.array([2., 3., 4., 0., 1.])
    close(special.comb(n, k), ss.comb(n, k), rtol=1e-4)
    close(special.comb(np.append(n, 0.), np.append(k, 0.), repetition=True),
          [15., 220., 15., 1., 0., 1.], rtol=1e-4)  # from JAX 0.10.2
    close(special.poch(a, 2.5), ss.poch(a, 2.5), rtol=1e-4)
    close(special.poch(a, 0.0), np.ones_like(a))
    close(special.multigammaln(np.array([2.5, 4.0]), 3), ss.multigammaln(np.array([2.5, 4.0]), 3))


def test_boxcox_and_its_gradient():
    x = np.array([0.5, 1.0, 2.0, 10.0], np.float32)
    for lmbda in (0.0, 0.5, -1.5):
        close(special.boxcox(x, lmbda), ss.boxcox(x, lmbda))
        close(special.boxcox1p(x, lmbda), ss.boxcox1p(x, lmbda))
    g = minijax.grad(lambda v: special.boxcox(v, 0.5))(2.0)
    close(g, 2.0 ** -0.5)  # d/dx (x^l - 1)/l = x^(l-1)


def test_sph_harm_y_matches_scipy():
    rng = np.random.default_rng(0)
    n = np.array([0, 1, 1, 2, 3, 5, 7, 7, 4, 6])
    m = np.array([0, 0, -1, 2, -2, 3, 0, -7, 1, -6])
    theta = rng.uniform(0, np.pi, 10).astype(np.float32)
    phi = rng.uniform(0, 2 * np.pi, 10).astype(np.float32)
    got = special.sph_harm_y(n, m, theta, phi)
    assert got.dtype == jnp.complex64
    np.testing.assert_allclose(got, ss.sph_harm_y(n, m, theta, phi), atol=3e-7)
    clipped = special.sph_harm_y(np.array([4]), np.array([1]), theta[:1], phi[:1], n_max=2)
    np.testing.assert_allclose(clipped, ss.sph_harm_y(2, 1, theta[:1], phi[:1]), atol=3e-7)
    with pytest.raises(NotImplementedError, match="diff_n"):
        special.sph_harm_y(n, m, theta, phi, diff_n=1)
