"""``minijax.scipy.sparse.linalg.cg`` and ``bicgstab`` against direct solves and SciPy."""
import numpy as np
import pytest
import scipy.sparse.linalg

import minijax
import minijax.numpy as jnp
from minijax.scipy.sparse.linalg import bicgstab, cg, gmres

rng = np.random.default_rng(8)
G = rng.normal(size=(6, 6)).astype(np.float32)
SPD = (G @ G.T + 6 * np.eye(6)).astype(np.float32)
GENERAL = (G + 6 * np.eye(6)).astype(np.float32)
B = rng.normal(size=6).astype(np.float32)


def test_cg_solves_spd_systems():
    x, info = cg(SPD, B)
    assert info is None
    np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)
    want, _ = scipy.sparse.linalg.cg(SPD.astype(np.float64), B.astype(np.float64), rtol=1e-5)
    np.testing.assert_allclose(x, want, rtol=1e-3, atol=1e-4)
    # a function as the operator, a Jacobi preconditioner, a starting point
    x, _ = cg(lambda v: SPD @ v, B, x0=jnp.ones(6), M=lambda v: v / jnp.diag(SPD))
    np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)


def test_bicgstab_solves_general_systems():
    x, _ = bicgstab(GENERAL, B)
    np.testing.assert_allclose(x, np.linalg.solve(GENERAL, B), rtol=1e-4, atol=1e-5)
    x, _ = bicgstab(GENERAL, B, maxiter=1)  # one step only: not solved yet
    assert np.linalg.norm(GENERAL @ np.asarray(x) - B) > 1e-3


def test_pytree_right_hand_sides_and_jit():
    def op(v):
        return {"a": 2.0 * v["a"], "b": SPD @ v["b"]}
    b = {"a": jnp.array([1.0, 4.0]), "b": jnp.asarray(B)}
    x, _ = cg(op, b)
    np.testing.assert_allclose(x["a"], [0.5, 2.0], rtol=1e-5)
    np.testing.assert_allclose(x["b"], np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)
    x = minijax.jit(lambda b: cg(SPD, b)[0])(B)
    np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="square matrix"):
        cg(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="matching shapes"):
        cg(SPD, B, x0=jnp.zeros(5))


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres_solves_general_systems(method):
    # (tol=1e-5 bounds the relative residual, not the error: hence atol=1e-4)
    x, info = gmres(GENERAL, B, solve_method=method)
    assert int(info) == 0
    np.testing.assert_allclose(x, np.linalg.solve(GENERAL, B), rtol=1e-3, atol=1e-4)
    x, _ = gmres(GENERAL, B, restart=2, solve_method=method)  # restarts
    np.testing.assert_allclose(x, np.linalg.solve(GENERAL, B), rtol=1e-3, atol=1e-4)
    want, _ = scipy.sparse.linalg.gmres(GENERAL.astype(np.float64), B.astype(np.float64),
                                        rtol=1e-6)
    np.testing.assert_allclose(x, want, rtol=1e-3, atol=1e-4)
    x, _ = gmres(lambda v: {"u": GENERAL @ v["u"]}, {"u": jnp.asarray(B)}, solve_method=method,
                 M=lambda v: {"u": v["u"] / jnp.diag(GENERAL)})
    np.testing.assert_allclose(x["u"], np.linalg.solve(GENERAL, B), rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="solve_method"):
        gmres(GENERAL, B, solve_method="direct")
