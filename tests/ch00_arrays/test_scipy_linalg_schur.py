"""Schur/Hessenberg-based ``minijax.scipy.linalg`` functions against SciPy, and
``eigh_tridiagonal``'s bisection against JAX 0.10.2's digits."""
import numpy as np
import pytest
import scipy.linalg as sl

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.scipy import linalg as L

A = np.array([[0., 3., 3.], [0., 1., 2.], [2., 0., 1.]], np.float32)  # a complex pair
S = np.array([[1., 2., 3.], [2., 4., 2.], [3., 2., 1.]], np.float32)  # symmetric, indefinite
rng = np.random.default_rng(3)
G = rng.normal(size=(4, 4)).astype(np.float32)


def close(got, want, rtol=1e-4, atol=1e-4):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def test_schur_real_and_complex_reconstruct():
    t, z = L.schur(A)
    want_t, _ = sl.schur(A)
    close(t, want_t)  # LAPACK's standardized form: the same T as SciPy
    close(np.asarray(z) @ np.asarray(t) @ np.asarray(z).T, A)
    tc, zc = L.schur(A, output="complex")
    assert tc.dtype == jnp.complex64
    close(np.tril(np.asarray(tc), -1), 0)
    close(np.asarray(zc) @ np.asarray(tc) @ np.asarray(zc).conj().T, A)
    with pytest.raises(ValueError, match="output"):
        L.schur(A, output="imaginary")


# schur/hessenberg are LAPACK calls the CPU target leaves to the interpreter
@pytest.mark.numba_fallback
def test_schur_and_hessenberg_batch_under_vmap_and_jit():
    stack = np.stack([A, S, G[:3, :3]])
    ts = minijax.vmap(lambda m: L.schur(m)[0])(stack)
    for t, m in zip(ts, stack):
        close(t, sl.schur(m)[0])
    h = minijax.jit(lambda m: L.hessenberg(m))(stack)  # the interpreter runs it
    close(h[1], sl.hessenberg(S))


def test_schur_has_no_derivative_as_in_jax():
    with pytest.raises(NotImplementedError):
        minijax.jvp(lambda m: lax.linalg.schur(m)[0], (A,), (A,))


def test_rsf2csf_matches_scipy():
    tr, zr = sl.schur(A)
    tc, zc = L.rsf2csf(tr, zr)
    want_t, want_z = sl.rsf2csf(tr, zr)
    close(tc, want_t)
    close(zc, want_z)


def test_hessenberg_matches_scipy():
    h, q = L.hessenberg(G, calc_q=True)
    want_h, want_q = sl.hessenberg(G, calc_q=True)
    close(h, want_h)
    close(q, want_q)
    close(np.asarray(q) @ np.asarray(h) @ np.asarray(q).T, G)


def test_householder_product_is_qr_q():
    a = rng.normal(size=(5, 3))
    packed, taus = sl.lapack.dgeqrf(a)[:2]
    close(lax.linalg.householder_product(packed, taus), np.linalg.qr(a)[0], rtol=1e-10)


def test_sqrtm_funm_match_scipy():
    close(L.sqrtm(S), sl.sqrtm(S.astype(np.float64)))
    spd = G @ G.T + np.eye(4, dtype=np.float32)
    close(L.sqrtm(spd), sl.sqrtm(spd.astype(np.float64)), rtol=2e-4)
    two = np.array([[1., 2.], [3., 4.]], np.float32)
    # from JAX 0.10.2: funm(A, exp) of this matrix
    np.testing.assert_allclose(np.asarray(L.funm(two, jnp.exp)),
                               np.array([[51.96897, 74.73658], [112.10487, 164.07384]]),
                               rtol=1e-6)
    close(L.funm(G, jnp.sin), sl.funm(G.astype(np.float64), np.sin), rtol=1e-3, atol=1e-3)


def test_solve_sylvester_matches_scipy():
    a = np.array([[1., 2.], [3., 4.]], np.float32)
    b = np.array([[5., 6.], [7., 8.]], np.float32)
    c = np.array([[6., 8.], [10., 12.]], np.float32)
    x = L.solve_sylvester(a, b, c)
    assert x.dtype == jnp.float32
    close(x, sl.solve_sylvester(a, b, c))
    b3 = rng.normal(size=(3, 3)).astype(np.float32)
    c3 = rng.normal(size=(4, 3)).astype(np.float32)
    close(L.solve_sylvester(G, b3, c3), sl.solve_sylvester(G, b3, c3), rtol=1e-3, atol=1e-3)
    singular = L.solve_sylvester(np.eye(2), -np.eye(2), np.ones((2, 2)))
    assert np.isnan(np.asarray(singular)).all()


def test_eigh_tridiagonal_matches_jax_digits():
    got = L.eigh_tridiagonal(jnp.array([1., 2., 3., 4.]), jnp.array([1., 1., 1.]),
                             eigvals_only=True)
    np.testing.assert_array_equal(  # from JAX 0.10.2
        got, np.array([0.2547188, 1.8227171, 3.1772828, 4.745281], np.float32))
    got = L.eigh_tridiagonal(jnp.array([2., -1., 0.5, 3., 1.]), jnp.array([0.5, 2., 1., -1.]),
                             eigvals_only=True)
    np.testing.assert_array_equal(  # from JAX 0.10.2
        got, np.array([-2.4869976, 0.51493585, 1.5206833, 2.1763933, 3.7749856], np.float32))
    d, e = np.array([1., 2., 3.]), np.array([0.5, -1.])
    w, v = L.eigh_tridiagonal(d, e)
    close(w, sl.eigh_tridiagonal(d, e)[0], rtol=1e-10)
    dense = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    close(dense @ np.asarray(v), np.asarray(v) * np.asarray(w), rtol=1e-8)
    close(L.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 2)),
          sl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 2)))
    with pytest.raises(TypeError, match="same dtype"):
        L.eigh_tridiagonal(np.ones(3, np.float32), np.ones(2, np.complex64))


def test_polar_qr_multiply_expm_frechet_match_scipy():
    for side in ("right", "left"):
        u, p = L.polar(S, side=side)
        want_u, want_p = sl.polar(S, side=side)
        close(u, want_u)
        close(p, want_p)
    a = np.array([[1., 1.], [1., 2.], [1., 3.], [1., 4.]], np.float32)
    b = np.array([2., 4., 5., 4.], np.float32)
    cq, r = L.qr_multiply(a, b)
    want_cq, want_r = sl.qr_multiply(a, b)
    close(cq, want_cq)
    close(r, want_r)
    cq, r = L.qr_multiply(a, np.array([2., 4.], np.float32), mode="left")
    close(cq, sl.qr_multiply(a, np.array([2., 4.]), mode="left")[0])
    e = rng.normal(size=(4, 4)).astype(np.float32)
    expm_a, frechet = L.expm_frechet(G / 2, e)
    want_expm, want_frechet = sl.expm_frechet(G / 2, e)
    close(expm_a, want_expm, rtol=1e-4)
    close(frechet, want_frechet, rtol=1e-3, atol=1e-3)
    _, tangent = minijax.jvp(L.expm, (G / 2,), (e,))
    close(L.expm_frechet(G / 2, e, compute_expm=False), tangent, rtol=1e-3, atol=1e-3)
