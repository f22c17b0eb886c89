"""Chapter 00 — ``lax.linalg`` primitives and ``jnp.linalg``, against NumPy and SciPy.

Every result is checked against NumPy/SciPy (in float64, loosely) and for
JAX's dtypes: float32 in, float32 out; integer indices are int32. Batched
inputs (a stack of matrices) must give the stack of the per-matrix results.
"""
import numpy as np
import pytest
import scipy.linalg

import minijax.numpy as jnp
from minijax import lax
from minijax.primitives import Primitive

RNG = np.random.RandomState(0)
A = (RNG.randn(2, 4, 4) + 3 * np.eye(4)).astype(np.float32)   # a batch of 2 matrices
B = RNG.randn(2, 4, 3).astype(np.float32)
SPD = (A @ A.transpose(0, 2, 1) + np.eye(4)).astype(np.float32)
TALL = RNG.randn(2, 5, 3).astype(np.float32)
TOL = dict(rtol=1e-4, atol=1e-4)


def check(actual, expected, dtype=np.float32, **tol):
    assert np.asarray(actual).dtype == dtype
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, **(tol or TOL))


def test_lax_linalg_is_a_submodule():
    assert lax.linalg.__name__ == "minijax.lax.linalg"
    for name in ["cholesky_p", "triangular_solve_p", "lu_p", "qr_p", "eigh_p", "svd_p"]:
        assert isinstance(getattr(lax.linalg, name), Primitive)
    assert lax.linalg.cholesky_p.name == "cholesky"


def test_cholesky():
    L = lax.linalg.cholesky(SPD)
    check(L, np.linalg.cholesky(SPD.astype(np.float64)))
    check(jnp.linalg.cholesky(SPD, upper=True),
          np.linalg.cholesky(SPD.astype(np.float64)).transpose(0, 2, 1))


def test_cholesky_of_indefinite_matrix_is_nan_below_the_diagonal():
    L = np.asarray(lax.linalg.cholesky(-SPD[0]))
    assert np.isnan(L[np.tril_indices(4)]).all() and (L[np.triu_indices(4, 1)] == 0).all()


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve(left_side, lower, transpose_a, unit_diagonal):
    b = B if left_side else B.transpose(0, 2, 1)
    x = lax.linalg.triangular_solve(A, b, left_side=left_side, lower=lower,
                                    transpose_a=transpose_a, unit_diagonal=unit_diagonal)
    for a1, b1, x1 in zip(A.astype(np.float64), b, np.asarray(x)):
        t = np.tril(a1) if lower else np.triu(a1)
        if unit_diagonal:
            np.fill_diagonal(t, 1)
        t = t.T if transpose_a else t
        check(x1, np.linalg.solve(t, b1) if left_side else np.linalg.solve(t.T, b1.T).T)


@pytest.mark.parametrize("shape", [(2, 4, 4), (2, 5, 3), (3, 5)])
def test_lu(shape):
    x = RNG.randn(*shape).astype(np.float32)
    lu, pivots, perm = lax.linalg.lu(x)
    assert np.asarray(pivots).dtype == np.int32 and np.asarray(perm).dtype == np.int32
    m, n = shape[-2:]
    k = min(m, n)
    for x1, lu1, piv1, perm1 in zip(x.reshape(-1, m, n), np.asarray(lu).reshape(-1, m, n),
                                    np.asarray(pivots).reshape(-1, k),
                                    np.asarray(perm).reshape(-1, m)):
        p, l, u = scipy.linalg.lu(x1.astype(np.float64))
        check(np.tril(lu1, -1)[:, :k] + np.eye(m, k, dtype=np.float32), l)
        check(np.triu(lu1)[:k], u)
        np.testing.assert_array_equal(x1[perm1], p.T @ x1)
        # pivots (LAPACK's row swaps) replay into the permutation
        np.testing.assert_array_equal(lax.linalg.lu_pivots_to_permutation(piv1, m), perm1)


def test_lu_pivots_to_permutation():
    # expected values from JAX 0.10.2
    perm = lax.linalg.lu_pivots_to_permutation(np.array([[1, 1, 2], [1, 2, 2]], np.int32), 5)
    np.testing.assert_array_equal(perm, [[1, 0, 2, 3, 4], [1, 2, 0, 3, 4]])


@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr(full_matrices):
    q, r = lax.linalg.qr(TALL, full_matrices=full_matrices)
    mode = "complete" if full_matrices else "reduced"
    q64, r64 = np.linalg.qr(TALL.astype(np.float64), mode=mode)
    check(q, q64)
    check(r, r64)
    Q, R = jnp.linalg.qr(TALL)
    assert Q.shape == (2, 5, 3) and R.shape == (2, 3, 3)
    check(jnp.linalg.qr(TALL, mode="r"), np.linalg.qr(TALL.astype(np.float64), mode="r"))


def test_eigh():
    v, w = lax.linalg.eigh(SPD)
    w64, v64 = np.linalg.eigh(SPD.astype(np.float64))
    check(w, w64, rtol=1e-4, atol=1e-3)
    check(np.abs(v), np.abs(v64), atol=1e-3)  # eigenvectors are unique up to sign
    res = jnp.linalg.eigh(SPD)
    check(res.eigenvalues, w64, rtol=1e-4, atol=1e-3)
    check(jnp.linalg.eigvalsh(SPD), w64, rtol=1e-4, atol=1e-3)


def test_svd():
    u, s, vh = lax.linalg.svd(TALL, full_matrices=False)
    check(s, np.linalg.svd(TALL.astype(np.float64), compute_uv=False))
    check(u @ (np.asarray(s)[..., None] * vh), TALL)
    assert lax.linalg.svd(TALL).__len__() == 3 and lax.linalg.svd(TALL)[0].shape == (2, 5, 5)
    check(lax.linalg.svd(TALL, compute_uv=False), np.asarray(s))
    U, S, Vh = jnp.linalg.svd(TALL, full_matrices=False)
    check(S, np.asarray(s))
    check(jnp.linalg.svdvals(TALL), np.asarray(s))


def test_solve_inv_det_slogdet():
    a64, b64 = A.astype(np.float64), B.astype(np.float64)
    check(jnp.linalg.solve(A, B), np.linalg.solve(a64, b64))
    check(jnp.linalg.solve(A[0], B[0, :, 0]), np.linalg.solve(a64[0], b64[0, :, 0]))
    check(jnp.linalg.solve(A, B[0]), np.linalg.solve(a64, b64[0]))  # batch broadcast
    check(jnp.linalg.inv(A), np.linalg.inv(a64))
    check(jnp.linalg.det(A), np.linalg.det(a64), rtol=1e-4, atol=1e-3)
    sign, logdet = jnp.linalg.slogdet(A)
    sign64, logdet64 = np.linalg.slogdet(a64)
    check(sign, sign64)
    check(logdet, logdet64)
    assert type(jnp.linalg.slogdet(A)).__name__ == "SlogdetResult"


def test_int_inputs_promote_to_float32():
    # expected values from JAX 0.10.2: det(eye(2, int32)) is float32 1.0
    check(jnp.linalg.det(np.eye(2, dtype=np.int32)), 1.0)
    check(jnp.linalg.inv(np.eye(2, dtype=np.int32)), np.eye(2))


def test_singular_matrices():
    # expected values from JAX 0.10.2
    zero = np.zeros((2, 2), np.float32)
    check(jnp.linalg.det(zero), 0.0)
    sign, logdet = jnp.linalg.slogdet(zero)
    check(sign, 0.0)
    assert np.asarray(logdet) == -np.inf


def test_pinv_lstsq_rank_power():
    x64 = TALL[0].astype(np.float64)
    check(jnp.linalg.pinv(TALL[0]), np.linalg.pinv(x64))
    x, resid, rank, s = jnp.linalg.lstsq(TALL[0], TALL[1])
    x_np, resid_np, rank_np, s_np = np.linalg.lstsq(x64, TALL[1].astype(np.float64), None)
    check(x, x_np)
    check(resid, resid_np)
    assert int(rank) == rank_np and np.asarray(rank).dtype == np.int32
    check(s, s_np)
    check(jnp.linalg.matrix_rank(np.ones((3, 3), np.float32)), 1, dtype=np.int32)
    check(jnp.linalg.matrix_rank(A), [4, 4], dtype=np.int32)
    a64 = A[0].astype(np.float64)
    check(jnp.linalg.matrix_power(A[0], 5), np.linalg.matrix_power(a64, 5), rtol=1e-4)
    check(jnp.linalg.matrix_power(A[0], -2), np.linalg.matrix_power(a64, -2))
    check(jnp.linalg.matrix_power(A[0], 0), np.eye(4))


def test_array_api_aliases():
    a64, b64 = A.astype(np.float64), B.astype(np.float64)
    check(jnp.linalg.multi_dot([A[0], A[1], B[0]]), a64[0] @ a64[1] @ b64[0])
    check(jnp.linalg.outer(B[0, :, 0], B[0, 0]), np.outer(b64[0, :, 0], b64[0, 0]))
    check(jnp.linalg.cross(B[0, :3], B[1, :3], axis=0),
          np.cross(b64[0, :3], b64[1, :3], axis=0))
    check(jnp.linalg.trace(A), np.trace(a64, axis1=-2, axis2=-1))
    check(jnp.linalg.diagonal(A, offset=1), np.diagonal(a64, 1, -2, -1))
    check(jnp.linalg.matmul(A, B), a64 @ b64)
    check(jnp.linalg.matrix_transpose(B), b64.transpose(0, 2, 1))
    check(jnp.linalg.vecdot(A, A[0]), (a64 * a64[0]).sum(-1))
    check(jnp.linalg.tensorinv(A[0].reshape(4, 2, 2), ind=1),
          np.linalg.tensorinv(a64[0].reshape(4, 2, 2), ind=1))
    check(jnp.linalg.tensorsolve(A[0].reshape(4, 2, 2), B[0, :, 0]),
          np.linalg.tensorsolve(a64[0].reshape(4, 2, 2), b64[0, :, 0]))


def test_errors():
    with pytest.raises(ValueError, match=r"must have shape \[..., n, n\]"):
        jnp.linalg.inv(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="Last 2 dimensions of the array must be square"):
        jnp.linalg.matrix_power(np.ones((2, 3), np.float32), 2)
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(np.eye(2, dtype=np.float32), 1.5)
