"""Check of exercise 1 of chapter 01: a trace that counts FLOPs (``ex1_count_flops.py``)."""
import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.ad import jvp
from _load import load

ex = load(__file__, "ex1_count_flops")

rng = np.random.RandomState(0)
W = rng.randn(4, 3).astype(np.float32)
b = rng.randn(4).astype(np.float32)
x = rng.randn(3).astype(np.float32)


def test_a_dense_layer():
    out, flops = ex.count_flops(lambda W, b, x: jnp.sum(jnp.tanh(W @ x + b)))(W, b, x)
    np.testing.assert_allclose(float(out), np.sum(np.tanh(W @ x + b)), rtol=1e-5)
    # by the counting rules: 2*M*K for a (M,K)@(K,) product, one per element after
    assert flops == {"dot_general": 2 * 4 * 3, "add": 4, "tanh": 4, "reduce_sum": 4}


def test_batched_matmul_and_data_movement():
    A = rng.randn(2, 5, 6).astype(np.float32)
    B = rng.randn(2, 6, 7).astype(np.float32)
    out, flops = ex.count_flops(lambda A, B: jnp.transpose(A @ B, (0, 2, 1)).reshape(-1))(A, B)
    np.testing.assert_allclose(np.asarray(out), np.transpose(A @ B, (0, 2, 1)).ravel(), rtol=1e-5)
    assert flops == {"dot_general": 2 * (2 * 5 * 7) * 6}     # transpose, reshape: 0


def test_multiple_results_and_scalars():
    v = rng.randn(10).astype(np.float32)
    out, flops = ex.count_flops(lambda v: lax.sort((v * 2.0, v), num_keys=1))(v)
    np.testing.assert_array_equal(np.asarray(out[0]), np.sort(v * 2))
    assert flops == {"mul": 10, "sort": 10}


def test_counts_what_an_inner_jvp_binds():
    (y, dy), flops = ex.count_flops(lambda x: jvp(jnp.sin, (x,), (jnp.ones_like(x),)))(x)
    np.testing.assert_allclose(np.asarray(dy), np.cos(x), rtol=1e-6)
    assert flops == {"sin": 3, "cos": 3, "mul": 3}


def test_an_outer_jvp_sees_through_it():
    f = lambda x: ex.count_flops(lambda x: jnp.sin(x) * x)(x)[0]
    y, dy = jvp(f, (x,), (jnp.ones_like(x),))
    np.testing.assert_allclose(np.asarray(y), np.sin(x) * x, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dy), np.cos(x) * x + np.sin(x), rtol=1e-5)


def test_each_call_counts_afresh():
    g = ex.count_flops(lambda x: x + x)
    assert g(x)[1] == {"add": 3} and g(x)[1] == {"add": 3}
