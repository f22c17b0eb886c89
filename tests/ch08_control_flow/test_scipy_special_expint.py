"""``exp1``, ``expi``, ``expn`` (chapter 08 loops), ``spence`` and ``bernoulli`` of
``minijax.scipy.special`` against SciPy."""
import numpy as np
import pytest
import scipy.special as ss

import minijax
import minijax.numpy as jnp
from minijax.scipy import special

X = np.array([0.01, 0.3, 0.9, 1.0, 1.5, 3.0, 10.0, 30.0, 80.0], np.float32)


def close(got, want, rtol=3e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=0)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 12])
def test_expn_matches_scipy(n):
    close(special.expn(n, X), ss.expn(n, X.astype(np.float64)))


def test_exp1_expi_match_scipy_and_jax_edges():
    close(special.exp1(X), ss.exp1(X.astype(np.float64)))
    xs = np.concatenate([X, -X, [45.0, 60.0]]).astype(np.float32)
    close(special.expi(xs), ss.expi(xs.astype(np.float64)))
    # from JAX 0.10.2: the values at and beyond the edges of the domains
    got = np.asarray(special.exp1(jnp.array([0.0, -1.0])))
    assert got[0] == np.inf and np.isnan(got[1])
    assert np.isnan(float(special.expi(0.0)))
    got = np.asarray(special.expn(jnp.array([1, 3, 2]), jnp.array([0.0, 0.0, -1.0])))
    assert got[0] == np.inf and got[1] == 0.5 and np.isnan(got[2])


def test_exponential_integral_gradients():
    g = minijax.grad(special.expi)(2.0)
    close(g, np.exp(2.0) / 2.0, rtol=1e-5)  # Ei'(x) = exp(x) / x
    g = minijax.grad(lambda x: special.expn(3, x))(0.7)
    close(g, -ss.expn(2, 0.7), rtol=1e-5)  # E_n' = -E_{n-1}


def test_spence_and_bernoulli():
    x = np.array([0.0, 0.1, 0.3, 0.7, 1.0, 1.3, 1.7, 2.5, 10.0], np.float32)
    close(special.spence(x), ss.spence(x.astype(np.float64)), rtol=2e-6)
    assert np.isnan(float(special.spence(-1.0)))
    close(special.bernoulli(12), ss.bernoulli(12), rtol=1e-5)
    assert special.bernoulli(1).shape == (2,)
    with pytest.raises(ValueError, match="non-negative"):
        special.bernoulli(-1)


def test_bessel_jn_matches_scipy_and_jax():
    z = np.array([5.0, 7.5, 12.0, 20.0], np.float32)
    got = special.bessel_jn(z, v=4)
    assert got.shape == (5, 4)
    np.testing.assert_allclose(got, ss.jv(np.arange(5)[:, None], z.astype(np.float64)),
                               atol=2e-6)
    # from JAX 0.10.2: small arguments overflow the float32 recurrence from n_iter=50
    small = np.asarray(special.bessel_jn(jnp.array([0.5, 2.0, 3.0]), v=1))
    assert np.isnan(small).all()
    np.testing.assert_allclose(special.bessel_jn(jnp.array([0.5, 2.0]), v=1, n_iter=20),
                               ss.jv(np.arange(2)[:, None], [0.5, 2.0]), atol=2e-6)


def test_hyp1f1_matches_scipy_and_jax():
    a = np.array([0.5, 1.0, 2.5, -1.5, 3.0], np.float32)
    b = np.array([1.5, 2.0, 1.0, 2.5, 3.0], np.float32)
    x = np.array([0.3, -2.0, 5.0, 1.0, 2.0], np.float32)
    close(special.hyp1f1(a, b, x), ss.hyp1f1(a, b, x), rtol=2e-6)
    close(special.hyp1f1(1.5, 2.5, 60.0), ss.hyp1f1(1.5, 2.5, 60.0), rtol=1e-5)  # asymptotic
    # from JAX 0.10.2: the special cases, and JAX's values where SciPy's differ
    got = np.asarray(special.hyp1f1(jnp.array([0.0, 2.0, 1.5, 1.5]),
                                    jnp.array([1.0, 0.0, 2.5, 2.5]),
                                    jnp.array([3.0, 1.0, 150.0, -20.0])))
    assert got[0] == 1.0 and got[1] == np.inf and got[2] == np.inf
    close(got[3], np.float32(0.20356400), rtol=1e-6)
    grads = minijax.grad(special.hyp1f1, argnums=(0, 1, 2))(1.5, 2.5, 0.7)
    eps = 1e-3
    for i, g in enumerate(grads):
        hi, lo = [1.5, 2.5, 0.7], [1.5, 2.5, 0.7]
        hi[i] += eps
        lo[i] -= eps
        close(g, (ss.hyp1f1(*hi) - ss.hyp1f1(*lo)) / (2 * eps), rtol=1e-4)


def test_owens_t_and_wofz_match_scipy_with_exact_derivatives():
    h = np.array([0.0, 0.3, 1.0, 2.5, -1.0, 0.7, 0.2], np.float32)
    a = np.array([0.5, 1.0, 2.0, -3.0, 0.8, 0.0, 5.0], np.float32)
    np.testing.assert_allclose(special.owens_t(h, a), ss.owens_t(h, a), atol=2e-7)
    dh, da = minijax.grad(special.owens_t, argnums=(0, 1))(0.6, 1.7)
    eps = 1e-4
    close(dh, (ss.owens_t(0.6 + eps, 1.7) - ss.owens_t(0.6 - eps, 1.7)) / (2 * eps), rtol=1e-4)
    close(da, (ss.owens_t(0.6, 1.7 + eps) - ss.owens_t(0.6, 1.7 - eps)) / (2 * eps), rtol=1e-4)
    z = np.array([0.5 + 0.2j, -1 + 2j, 3 - 1j, -0.5 - 0.5j, 10j, 2.0], np.complex64)
    close(special.wofz(z), ss.wofz(z.astype(np.complex128)), rtol=5e-7)
    assert special.wofz(1.0).dtype == jnp.complex64
    _, tangent = minijax.jvp(special.wofz, (jnp.complex64(0.3 + 0.4j),), (jnp.complex64(1.0),))
    w = ss.wofz(0.3 + 0.4j)
    close(tangent, -2 * (0.3 + 0.4j) * w + 2j / np.sqrt(np.pi), rtol=1e-5)


OSC_X = np.array([-2.0, -0.5, 1e-4, 0.1, 0.19, 0.21, 0.99, 1.01, 1.99, 2.01, 3.0, 10.0, 40.0],
                 np.float32)


def test_dawsn_fresnel_sici_match_scipy():
    xd = OSC_X.astype(np.float64)
    close(special.dawsn(OSC_X), ss.dawsn(xd), rtol=1e-6)
    s, c = special.fresnel(OSC_X)
    want_s, want_c = ss.fresnel(xd)
    close(s, want_s, rtol=1.5e-6)
    close(c, want_c, rtol=1.5e-6)
    si, ci = special.sici(OSC_X)
    want_si, want_ci = ss.sici(xd)
    close(si, want_si, rtol=1e-6)
    close(ci, want_ci, rtol=2e-6)
    si0, ci0 = special.sici(0.0)  # from JAX 0.10.2: (0, -inf)
    assert float(si0) == 0.0 and float(ci0) == -np.inf
    g = minijax.grad(lambda x: special.sici(x)[0])(3.0)
    close(g, np.sin(3.0) / 3.0, rtol=1e-5)  # Si'(x) = sin(x) / x
    g = minijax.grad(special.dawsn)(1.3)
    close(g, 1 - 2 * 1.3 * ss.dawsn(1.3), rtol=1e-5)  # D' = 1 - 2 x D


def test_hyp2f1_matches_scipy_and_jax():
    a = np.array([0.5, 1.0, 2.5, -2.0, 3.0, 0.0, 1.0, 0.5, 2.0, 1.0, -3.0], np.float32)
    b = np.array([1.5, 2.0, 1.0, 2.5, 3.0, 1.0, 1.0, 0.5, 0.5, 2.0, 1.5], np.float32)
    c = np.array([2.5, 3.0, 4.0, 1.5, 2.0, 1.0, 2.0, 1.0, 1.5, 3.0, 2.0], np.float32)
    x = np.array([0.3, -0.5, 0.95, 0.7, 0.2, 0.5, 0.99, 0.97, 0.5, 0.95, 0.5], np.float32)
    close(special.hyp2f1(a, b, c, x), ss.hyp2f1(a, b, c, x), rtol=3e-6)
    # from JAX 0.10.2: a pole at a non-positive integer c, beyond x = 1, and Gauss' value at 1
    got = np.asarray(special.hyp2f1(jnp.array([1.2, 0.3, 1.5]), jnp.array([2.3, 0.7, 2.5]),
                                    jnp.array([-2.0, 1.0, 4.0]), jnp.array([0.3, 1.2, 1.0])))
    assert got[0] == np.inf and got[1] == np.inf and got[2] == np.inf
    close(special.hyp2f1(0.5, 1.0, 4.0, 1.0), ss.hyp2f1(0.5, 1.0, 4.0, 1.0), rtol=1e-5)
    grads = minijax.grad(special.hyp2f1, argnums=(0, 1, 2, 3))(0.5, 1.5, 2.5, 0.3)
    # from JAX 0.10.2
    close(grads, [0.22988102, 0.08051101, -0.04936362, 0.4358303], rtol=2e-6)


def test_complex_gamma_and_loggamma_match_scipy():
    z = np.array([0.5 + 1j, -2.3 + 0.4j, -7.5 - 2j, 3 + 4j, 10.2 - 0.1j, -0.5 + 1e-3j,
                  1e-3 + 0j], np.complex64)
    zd = z.astype(np.complex128)
    close(special.gamma(z), ss.gamma(zd), rtol=5e-6)
    # the principal branch: the same imaginary part as SciPy's, not just modulo 2 pi
    np.testing.assert_allclose(special.loggamma(z), ss.loggamma(zd), atol=5e-6)
    pole = np.asarray(special.gamma(np.array([-3.0 + 0j], np.complex64)))
    assert np.isnan(pole.real).all() and np.isnan(pole.imag).all()
