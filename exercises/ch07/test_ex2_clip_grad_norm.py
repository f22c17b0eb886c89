"""Check of exercise 2 of chapter 07: gradients clipped by norm, against NumPy."""
import numpy as np
import pytest
from _load import load

import minijax
import minijax.numpy as jnp

ex = load(__file__, "ex2_clip_grad_norm")


def numpy_clip(g, max_norm):
    norm = np.linalg.norm(g)
    return g if norm <= max_norm else g * (max_norm / norm)


W = np.array([[3.0, 0.0], [0.0, 4.0], [1.0, 1.0]], np.float32)


def loss(x, max_norm):
    y = ex.clip_grad_norm(jnp.tanh(x), max_norm)   # tanh sees the clipped cotangent
    return jnp.sum(W @ y)


@pytest.mark.parametrize("max_norm", [0.5, 2.0, 100.0])
def test_grad_is_clipped(max_norm):
    x = np.array([0.3, -0.2], np.float32)
    g = np.asarray(minijax.grad(loss)(x, max_norm))
    ct_y = W.sum(0)                                 # the cotangent reaching the clip: (4, 5)
    want = numpy_clip(ct_y, max_norm) * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(g, want, rtol=1e-5)


def test_per_example_clipping_under_vmap_and_jit():
    xs = np.array([[0.0, 0.0], [0.1, 0.2], [2.0, -1.0]], np.float32)
    scale = np.array([0.0, 1.0, 10.0], np.float32)    # per-example losses scale the gradient
    f = lambda x, s: s * jnp.sum(ex.clip_grad_norm(x, 1.0) * jnp.array([0.6, 0.8]))
    got = np.asarray(minijax.jit(minijax.vmap(minijax.grad(f)))(xs, scale))
    want = np.stack([numpy_clip(s * np.array([0.6, 0.8], np.float32), 1.0) for s in scale])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert np.all(np.isfinite(got))
