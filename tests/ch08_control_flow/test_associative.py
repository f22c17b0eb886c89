"""``associative_scan``: prefix combinations in O(log n) rounds, on pytrees and any axis."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.associative_scan)
import minijax.numpy as jnp
from minijax import lax
from minijax.autodiff import grad


def _py_prefix(fn, xs):
    out = [xs[0]]
    for x in xs[1:]:
        out.append(fn(out[-1], x))
    return np.stack(out)


@given(st.integers(1, 20), st.booleans())
def test_matches_sequential_prefix(n, reverse):
    x = np.linspace(0.5, 1.5, n).astype(np.float32)
    out = lax.associative_scan(jnp.multiply, x, reverse=reverse)
    seq = x[::-1] if reverse else x
    expected = _py_prefix(np.multiply, seq)
    np.testing.assert_allclose(np.asarray(out), expected[::-1] if reverse else expected,
                               rtol=1e-5)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_axis(axis):
    x = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(np.asarray(lax.associative_scan(jnp.add, x, axis=axis)),
                               np.cumsum(x, axis=axis))


def test_pytree_elements_and_matrix_products():
    # a linear recurrence h_t = a_t h_{t-1} + b_t as a scan of (a, b) pairs
    a = np.array([0.5, 2., -1., 0.3], np.float32)
    b = np.array([1., 0., 2., 1.], np.float32)

    def combine(x, y):
        return {"a": x["a"] * y["a"], "b": y["a"] * x["b"] + y["b"]}
    out = lax.associative_scan(combine, {"a": a, "b": b})
    h, hs = 0., []
    for at, bt in zip(a, b):
        h = at * h + bt
        hs.append(h)
    np.testing.assert_allclose(np.asarray(out["b"]), hs, rtol=1e-6)

    mats = np.random.default_rng(0).normal(size=(5, 2, 2)).astype(np.float32)
    expected = _py_prefix(np.matmul, mats)
    np.testing.assert_allclose(np.asarray(lax.associative_scan(jnp.matmul, mats)), expected,
                               rtol=1e-4, atol=1e-5)


def test_booleans_and_transformations():
    x = np.array([False, True, False, False, True])
    # expected values from JAX 0.10.2
    np.testing.assert_array_equal(np.asarray(lax.associative_scan(jnp.logical_or, x)),
                                  [False, True, True, True, True])
    f = lambda x: lax.associative_scan(jnp.multiply, x).sum()
    x = np.arange(1., 5., dtype=np.float32)
    # d/dx_k of sum_j prod_{i<=j} x_i
    expected = [sum(np.prod(np.delete(x[:j + 1], k)) for j in range(k, 4)) for k in range(4)]
    np.testing.assert_allclose(np.asarray(grad(f)(x)), expected)
    xs = np.arange(6., dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(
        np.asarray(minijax.vmap(lambda x: lax.associative_scan(jnp.add, x))(xs)),
        np.cumsum(xs, axis=1))


def test_errors():
    with pytest.raises(TypeError, match="lax.associative_scan: fn argument should be callable."):
        lax.associative_scan(1, jnp.arange(3))
    with pytest.raises(ValueError) as info:
        lax.associative_scan(lambda a, b: a, (jnp.arange(3), jnp.arange(4)))
    assert str(info.value) == ("Array inputs to associative_scan must have the same first "
                               "dimension. (saw: [(3,), (4,)])")
