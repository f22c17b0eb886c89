"""``minijax.scipy.linalg`` against SciPy, with printed results recorded from JAX 0.10.2."""
import numpy as np
import pytest
import scipy.linalg as sl

import minijax
import minijax.numpy as jnp
from minijax.scipy import linalg as L

rng = np.random.default_rng(0)
G = rng.normal(size=(4, 4)).astype(np.float32)
SPD = (G @ G.T + 4 * np.eye(4)).astype(np.float32)
B = rng.normal(size=(4, 2)).astype(np.float32)
V = rng.normal(size=4).astype(np.float32)
T = rng.normal(size=(5, 3)).astype(np.float32)


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_solve(lower):
    close(L.cholesky(SPD, lower=lower), sl.cholesky(SPD, lower=lower))
    c = L.cho_factor(SPD, lower=lower)
    assert c[1] is lower
    for b in (B, V):
        close(L.cho_solve(c, b), sl.cho_solve(sl.cho_factor(SPD, lower=lower), b), rtol=2e-5)
    close(L.solve(SPD, B, assume_a="pos", lower=lower), np.linalg.solve(SPD, B), rtol=2e-5)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular(trans, lower):
    a = (np.tril(G) if lower else np.triu(G)) + 3 * np.eye(4, dtype=np.float32)
    for b in (B, V):
        close(L.solve_triangular(a, b, trans=trans, lower=lower),
              sl.solve_triangular(a, b, trans=trans, lower=lower), rtol=2e-5)
    close(L.solve_triangular(a, B, lower=lower, unit_diagonal=True),
          sl.solve_triangular(a, B, lower=lower, unit_diagonal=True), rtol=2e-5)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu(shape):
    a = rng.normal(size=shape).astype(np.float32)
    p, l, u = L.lu(a)
    want = sl.lu(a)
    for got, ref in zip((p, l, u), want):
        close(got, ref)
    pl, u2 = L.lu(a, permute_l=True)
    close(pl @ u2, a)


@pytest.mark.parametrize("trans", [0, 1])
def test_lu_factor_and_solve(trans):
    lu, piv = L.lu_factor(G)
    want_lu, want_piv = sl.lu_factor(G)
    close(lu, want_lu)
    np.testing.assert_array_equal(np.asarray(piv), want_piv)
    for b in (B, V):
        close(L.lu_solve((lu, piv), b, trans=trans), sl.lu_solve((want_lu, want_piv), b,
                                                                  trans=trans), rtol=2e-5)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr(mode):
    got, want = L.qr(T, mode=mode), sl.qr(T, mode=mode)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w)


def test_svd_eigh_det_inv_solve():
    u, s, vh = L.svd(T, full_matrices=False)
    close((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), T)
    close(L.svd(T, compute_uv=False), sl.svd(T, compute_uv=False))
    w, v = L.eigh(SPD)
    close(w, sl.eigh(SPD)[0], rtol=2e-5)
    close((np.asarray(v) * np.asarray(w)) @ np.asarray(v).T, SPD, rtol=2e-5, atol=1e-4)
    close(L.eigh(SPD, eigvals_only=True), sl.eigh(SPD, eigvals_only=True), rtol=2e-5)
    close(L.det(G), sl.det(G), rtol=2e-5)
    close(L.inv(SPD), sl.inv(SPD), rtol=2e-5)
    close(L.solve(G, B), sl.solve(G, B), rtol=2e-5, atol=1e-4)


def test_block_diag_and_expm():
    blocks = (np.ones((1, 1), np.float32), 2 * np.ones((2, 3), np.float32), np.float32(5))
    close(L.block_diag(*blocks), sl.block_diag(*blocks))
    for a in (np.array([[0., 1.], [-1., 0.]], np.float32), G, 8 * G,
              np.triu(G).astype(np.float32)):
        close(L.expm(a), sl.expm(a.astype(np.float64)), rtol=2e-4, atol=1e-4)


def test_printed_results_as_jax():
    # recorded from JAX 0.10.2
    a = jnp.array([[4., 2.], [2., 3.]])
    assert repr(L.cholesky(a)) == ("Array([[2.       , 1.       ],\n"
                                   "       [0.       , 1.4142135]], dtype=float32)")
    lu, piv = L.lu_factor(jnp.array([[1., 2.], [3., 4.]]))
    assert repr(piv) == "Array([1, 1], dtype=int32)"
    assert repr(L.lu_solve((lu, piv), jnp.array([1., 2.]))) == \
        "Array([0. , 0.5], dtype=float32)"
    assert repr(L.block_diag(jnp.ones((1, 1)), 2 * jnp.ones((2, 2)))) == (
        "Array([[1., 0., 0.],\n       [0., 2., 2.],\n       [0., 2., 2.]], dtype=float32)")
    assert repr(L.det(a)) == "Array(8., dtype=float32)"


def test_errors_as_jax():
    with pytest.raises(ValueError, match="Unsupported QR decomposition mode 'weird'"):
        L.qr(T, mode="weird")
    with pytest.raises(ValueError, match="Invalid 'trans' value 3"):
        L.solve_triangular(SPD, V, trans=3)


def test_under_jit_and_grad(jit_backend):
    f = minijax.jit(lambda a, b: L.cho_solve(L.cho_factor(a, lower=True), b))
    close(f(SPD, B), np.linalg.solve(SPD, B), rtol=2e-5)
    close(minijax.jit(L.expm)(G), sl.expm(G.astype(np.float64)), rtol=2e-4, atol=1e-4)
    # d/db sum(solve_triangular(a, b)) = a^-T @ 1
    a = np.tril(G) + 3 * np.eye(4, dtype=np.float32)
    g = minijax.grad(lambda b: jnp.sum(L.solve_triangular(a, b, lower=True)))(V)
    close(g, np.linalg.solve(a.T, np.ones(4)), rtol=2e-5)


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
@pytest.mark.parametrize("axis, keepdims", [((1, 2), False), ((2, 0), True)])
def test_jnp_matrix_norms_from_singular_values(ord, axis, keepdims):
    m = rng.normal(size=(3, 4, 5)).astype(np.float32)
    close(jnp.linalg.norm(m, ord, axis=axis, keepdims=keepdims),
          np.linalg.norm(m, ord, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("p", [None, 2, -2, 1, "fro", np.inf])
def test_jnp_cond(p):
    close(jnp.linalg.cond(G, p), np.linalg.cond(G, p), rtol=2e-5)
