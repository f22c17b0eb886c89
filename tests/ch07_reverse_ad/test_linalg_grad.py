"""Chapter 07: gradients through ``jnp.linalg`` and ``lax.linalg``, against finite differences.

Each function has a NumPy twin evaluated in float64; the gradient of the
minijax function (float32) must match the central finite differences of the
twin, entry by entry. ``vmap`` of the solvers must match stacking the
per-example results.
"""
import numpy as np
import pytest
import scipy.linalg

import minijax
import minijax.numpy as jnp
from minijax import lax

RNG = np.random.RandomState(1)
A = (RNG.randn(3, 3) + 3 * np.eye(3)).astype(np.float32)
B = RNG.randn(3, 2).astype(np.float32)
SPD = (A @ A.T + np.eye(3)).astype(np.float32)
TALL = RNG.randn(4, 3).astype(np.float32)


def numerical_grad(f, x, eps=1e-6):
    """Central finite differences of the float64 function ``f`` at ``x``."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        dx = np.zeros_like(x)
        dx[i] = eps
        g[i] = (f(x + dx) - f(x - dx)) / (2 * eps)
    return g


def check_grad(f, f_np, x, rtol=2e-3, atol=2e-3):
    g = minijax.grad(f)(x)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(g, numerical_grad(f_np, x), rtol=rtol, atol=atol)


def _sym(x):
    return (x + x.T) / 2


CASES = {
    "det": (jnp.linalg.det, np.linalg.det, A),
    "inv": (lambda a: (jnp.linalg.inv(a) * B[:, :1]).sum(),
            lambda a: (np.linalg.inv(a) * B[:, :1]).sum(), A),
    "solve_a": (lambda a: (jnp.linalg.solve(a, B) ** 2).sum(),
                lambda a: (np.linalg.solve(a, B) ** 2).sum(), A),
    "solve_b": (lambda b: (jnp.linalg.solve(A, b) ** 2).sum(),
                lambda b: (np.linalg.solve(A, b) ** 2).sum(), B),
    "slogdet": (lambda a: jnp.linalg.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1], A),
    "cholesky_logdet": (lambda a: 2 * jnp.log(jnp.diagonal(jnp.linalg.cholesky(a))).sum(),
                        lambda a: 2 * np.log(np.diag(np.linalg.cholesky(_sym(a)))).sum(),
                        SPD),
    "eigh_sum": (lambda a: (jnp.linalg.eigh(a)[0] ** 2).sum(),
                 lambda a: (np.linalg.eigvalsh(_sym(a)) ** 2).sum(), SPD),
    "eigvalsh_sum": (lambda a: jnp.linalg.eigvalsh(a).sum(),
                     lambda a: np.linalg.eigvalsh(_sym(a)).sum(), SPD),
    "svdvals": (lambda a: jnp.linalg.svd(a, compute_uv=False).sum(),
                lambda a: np.linalg.svd(a, compute_uv=False).sum(), TALL),
    "svd_u": (lambda a: (jnp.abs(jnp.linalg.svd(a, full_matrices=False)[0]) ** 3).sum(),
              lambda a: (np.abs(np.linalg.svd(a, full_matrices=False)[0]) ** 3).sum(), TALL),
    "qr": (lambda a: (jnp.linalg.qr(a)[0] ** 3).sum() + jnp.linalg.qr(a)[1].sum(),
           lambda a: (np.linalg.qr(a)[0] ** 3).sum() + np.linalg.qr(a)[1].sum(), TALL),
    "lu": (lambda a: (lax.linalg.lu(a)[0] ** 2).sum(),
           lambda a: (_np_packed_lu(a) ** 2).sum(), TALL),
    "triangular_solve": (
        lambda a: (lax.linalg.triangular_solve(a, B, left_side=True, lower=True,
                                               transpose_a=True) ** 2).sum(),
        lambda a: (np.linalg.solve(np.tril(a).T, B) ** 2).sum(), A),
    "triangular_solve_right": (
        lambda b: (lax.linalg.triangular_solve(A, b, unit_diagonal=True) ** 2).sum(),
        lambda b: (np.linalg.solve((np.triu(A, 1) + np.eye(3)).T, b.T).T ** 2).sum(), B.T),
    "pinv": (lambda a: (jnp.linalg.pinv(a) ** 2).sum(),
             lambda a: (np.linalg.pinv(a) ** 2).sum(), TALL),
}


def _np_packed_lu(a):
    """``lu``'s packed output for a 4x3 matrix, from SciPy's factors."""
    p, l, u = scipy.linalg.lu(a)
    return np.tril(l, -1) @ np.eye(3, 3) + np.vstack([u, np.zeros((1, 3))])


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_against_finite_differences(name):
    f, f_np, x = CASES[name]
    check_grad(f, f_np, x)


def test_grad_of_solve_under_jit(jit_backend):
    g = minijax.jit(minijax.grad(lambda a: jnp.linalg.det(a)))(A)
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-4)


STACK_A = np.stack([A, A.T, SPD])
STACK_B = np.stack([B, 2 * B, B + 1])


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None)])
def test_vmap_solve_matches_stacking(in_axes):
    a = A if in_axes[0] is None else STACK_A
    b = B if in_axes[1] is None else STACK_B
    out = minijax.vmap(jnp.linalg.solve, in_axes)(a, b)
    expected = np.stack([np.linalg.solve(a if in_axes[0] is None else a[i],
                                         b if in_axes[1] is None else b[i])
                         for i in range(3)])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_vmap_inv_along_last_axis_matches_stacking():
    out = minijax.vmap(jnp.linalg.inv, in_axes=2)(STACK_A.transpose(1, 2, 0))
    np.testing.assert_allclose(out, np.linalg.inv(STACK_A), rtol=1e-4, atol=1e-5)


def test_vmap_of_grad_of_det():
    out = minijax.vmap(minijax.grad(jnp.linalg.det))(STACK_A)
    expected = [np.linalg.det(a) * np.linalg.inv(a).T for a in STACK_A.astype(np.float64)]
    np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-3)


def test_vmap_of_decompositions():
    eig = minijax.vmap(jnp.linalg.eigvalsh, in_axes=1)(np.stack([SPD, 2 * SPD], 1))
    np.testing.assert_allclose(eig, [np.linalg.eigvalsh(SPD), np.linalg.eigvalsh(2 * SPD)],
                               rtol=1e-4)
    s = minijax.vmap(lambda a: jnp.linalg.svd(a, compute_uv=False))(np.stack([TALL, TALL]))
    np.testing.assert_allclose(s, [np.linalg.svd(TALL, compute_uv=False)] * 2, rtol=1e-4)
    L = minijax.vmap(jnp.linalg.cholesky)(np.stack([SPD, 2 * SPD]))
    np.testing.assert_allclose(L, np.linalg.cholesky(np.stack([SPD, 2 * SPD])), rtol=1e-4)
