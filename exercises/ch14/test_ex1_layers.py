"""Check of exercise 1 of chapter 14: ``LayerNorm`` and ``Residual`` (``ex1_layers.py``)."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import random
from minijax.example_libraries import stax
from _load import load

ex = load(__file__, "ex1_layers")


def np_layer_norm(x, scale, bias, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(-1, keepdims=True) + eps) * scale + bias


def test_layer_norm_init_and_apply():
    init, apply = ex.LayerNorm()
    out_shape, (scale, bias) = init(random.key(0), (-1, 6))
    assert tuple(out_shape) == (-1, 6)
    np.testing.assert_array_equal(np.asarray(scale), np.ones(6))
    np.testing.assert_array_equal(np.asarray(bias), np.zeros(6))
    x = np.random.default_rng(0).normal(3.0, 2.0, (4, 6)).astype(np.float32)
    s = np.linspace(0.5, 2.0, 6, dtype=np.float32)
    b = np.linspace(-1.0, 1.0, 6, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(apply((s, b), x)), np_layer_norm(x, s, b),
                               rtol=1e-5, atol=1e-5)
    init2, apply2 = ex.LayerNorm(epsilon=1.0)
    np.testing.assert_allclose(np.asarray(apply2((s, b), x)), np_layer_norm(x, s, b, 1.0),
                               rtol=1e-5, atol=1e-5)


def test_residual_shapes_and_errors():
    init, _ = ex.Residual(stax.Dense(5), stax.Relu)
    out_shape, params = init(random.key(0), (-1, 5))
    assert tuple(out_shape) == (-1, 5)
    assert [tuple(p.shape) for p in params[0]] == [(5, 5), (5,)] and params[1] == ()
    bad_init, _ = ex.Residual(stax.Dense(8))
    with pytest.raises(ValueError):
        bad_init(random.key(0), (-1, 5))


def np_forward(params, x):
    """serial(Dense(8), Residual(Dense(8), Relu, Dense(8)), LayerNorm(), Dense(3)) in NumPy."""
    (W0, b0), ((W1, b1), (), (W2, b2)), (s, b), (W3, b3) = params
    h = x @ W0 + b0
    h = h + (np.maximum(h @ W1 + b1, 0) @ W2 + b2)
    return np_layer_norm(h, s, b) @ W3 + b3


def model():
    return stax.serial(stax.Dense(8), ex.Residual(stax.Dense(8), stax.Relu, stax.Dense(8)),
                       ex.LayerNorm(), stax.Dense(3))


def as_numpy(params):
    return minijax.tree_util.tree_map(lambda p: np.asarray(p, np.float64), params)


def test_a_network_against_numpy():
    init, apply = model()
    _, params = init(random.key(1), (-1, 4))
    x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    expected = np_forward(as_numpy(params), x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(minijax.jit(apply)(params, x)), expected,
                               rtol=1e-4, atol=1e-5)


def test_gradients_against_finite_differences():
    init, apply = model()
    _, params = init(random.key(2), (-1, 4))
    x = np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32)
    loss = lambda p: jnp.sum(jnp.tanh(apply(p, x)))   # noqa: E731
    grads = minijax.jit(minijax.grad(loss))(params)
    p64 = as_numpy(params)
    leaves, tree = minijax.tree_util.tree_flatten(p64)
    np_loss = lambda ls: np.sum(np.tanh(np_forward(tree.unflatten(ls), x)))   # noqa: E731
    for g, k in zip(minijax.tree_util.tree_leaves(grads), range(len(leaves))):
        flat = leaves[k].reshape(-1)
        for j in (0, flat.size // 2, flat.size - 1):
            up = [l.copy() for l in leaves]
            down = [l.copy() for l in leaves]
            up[k].reshape(-1)[j] += 1e-5
            down[k].reshape(-1)[j] -= 1e-5
            fd = (np_loss(up) - np_loss(down)) / 2e-5
            assert abs(np.asarray(g).reshape(-1)[j] - fd) <= 2e-3 + 2e-2 * abs(fd), (k, j)
