"""Check of exercise 1 of chapter 07: ``running_sum``'s transpose, against ``L^T`` and
finite differences."""
import numpy as np
import pytest
from _load import load

import minijax
import minijax.numpy as jnp
from minijax.interpreters.transpose import linear_transpose

ex = load(__file__, "ex1_running_sum_transpose")

rng = np.random.RandomState(0)


def test_linear_transpose_is_the_matrix_transpose():
    n = 6
    L = np.tril(np.ones((n, n), np.float32))          # running_sum along a vector is L @ x
    ct = rng.randn(n).astype(np.float32)
    (ct_x,) = linear_transpose(lambda v: ex.running_sum(v, 0), np.zeros(n, np.float32))(ct)
    np.testing.assert_allclose(np.asarray(ct_x), L.T @ ct, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [0, 1])
def test_dot_product_test(axis):
    # <u, S v> == <S^T u, v> for the running sum S along axis
    v, u = rng.randn(3, 4).astype(np.float32), rng.randn(3, 4).astype(np.float32)
    (st_u,) = linear_transpose(lambda v: ex.running_sum(v, axis), v)(u)
    assert np.asarray(st_u).shape == (3, 4)
    np.testing.assert_allclose(np.vdot(u, np.cumsum(v, axis)), np.vdot(np.asarray(st_u), v),
                               rtol=1e-4)


def test_grad_against_numpy_and_finite_differences():
    w = rng.randn(5).astype(np.float32)

    def loss(x):
        return jnp.sum(jnp.sin(ex.running_sum(x, 0)) * w)

    x = rng.randn(5).astype(np.float32)
    L = np.tril(np.ones((5, 5)))
    want = L.T @ (np.cos(L @ x) * w)                    # the chain rule, by hand
    g = np.asarray(minijax.grad(loss)(x))
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)
    f64 = lambda x: np.sum(np.sin(np.cumsum(x)) * w)    # central differences, in float64
    eps = 1e-6
    fd = [(f64(x + eps * e) - f64(x - eps * e)) / (2 * eps) for e in np.eye(5)]
    np.testing.assert_allclose(g, fd, rtol=1e-3, atol=1e-4)


def test_backward_pass_is_made_of_primitives():
    x = rng.randn(2, 4).astype(np.float32)
    f = lambda x: jnp.sum(ex.running_sum(x, 1) ** 2)
    g_jit = minijax.jit(minijax.grad(f))(x)
    want = np.flip(np.cumsum(np.flip(2 * np.cumsum(x, 1), 1), 1), 1)
    np.testing.assert_allclose(np.asarray(g_jit), want, rtol=1e-5, atol=1e-5)
    names = [e.primitive.name for e in minijax.make_jaxpr(minijax.grad(f))(x).jaxpr.eqns]
    assert names.count("running_sum") == 2, names   # forward, and in the transposed part
