"""``lax.optimization_barrier``, ``lax.composite`` and ``lax.approx_max_k`` /
``approx_min_k``: values, printed jaxprs and derivatives from JAX 0.10.2 (their
docstring examples among them), eager and under jit on every backend."""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax import lax


def test_optimization_barrier_is_the_identity(jit_backend):
    def f(x):  # JAX's docstring example
        return lax.optimization_barrier(lax.sin(x)) + lax.sin(x)
    assert repr(jax.jit(f)(0.)) == "Array(0., dtype=float32, weak_type=True)"
    # from JAX 0.10.2 (a GPU's sin may differ in the last bit)
    np.testing.assert_allclose(float(jax.jit(f)(1.)), 1.6829419, rtol=1e-6)
    grad = jax.grad(lambda x: jnp.sum(jnp.stack(lax.optimization_barrier((x * x, jnp.sin(x))))))
    np.testing.assert_allclose(float(jax.jit(grad)(2.)), 3.5838532, rtol=1e-6)  # from JAX
    np.testing.assert_array_equal(
        np.asarray(jax.jit(jax.vmap(lambda x: lax.optimization_barrier(x) * 2))(jnp.arange(3.))),
        [0., 2., 4.])


def test_optimization_barrier_jaxpr_is_jaxs():
    # printed by JAX 0.10.2
    assert str(jax.make_jaxpr(lambda x: lax.optimization_barrier((x, x + 1)))(1.)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = add a 1.0:f32[]
    c:f32[] d:f32[] = optimization_barrier a b
  in (c, d) }"""


def test_composite_calls_its_decomposition(jit_backend):
    x = jnp.array([0.0, jnp.pi / 4, 3 * jnp.pi / 4, jnp.pi])
    tangent = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
    np.testing.assert_allclose(np.asarray(jax.jit(tangent)(x)), np.tan(np.asarray(x)),
                               rtol=1e-5, atol=1e-6)


def test_approx_top_k_is_exact_on_the_cpu(jit_backend):
    x = jnp.array([[3., 1, 2, 5], [0, 9, 8, 7]])
    values, indices = jax.jit(lambda x: lax.approx_max_k(x, 2))(x)
    # from JAX 0.10.2
    np.testing.assert_array_equal(np.asarray(values), [[5., 3.], [9., 8.]])
    np.testing.assert_array_equal(np.asarray(indices), [[3, 0], [1, 2]])
    values, indices = jax.jit(lambda x: lax.approx_min_k(x, 2, reduction_dimension=0))(x)
    np.testing.assert_array_equal(np.asarray(values), [[0., 1., 2., 5.], [3., 9., 8., 7.]])
    np.testing.assert_array_equal(np.asarray(indices), [[1, 0, 0, 0], [0, 1, 1, 1]])
    assert indices.dtype == np.int32
