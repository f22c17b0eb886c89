"""Chapter 07: the last line of JAX's custom-interpreter tutorial,
``jit(vmap(grad(inverse(f))))``: an interpreter written by the user composes with
every transformation. Expected values from JAX 0.10.2 (and the derivative of the
true inverse, ``x -> arctanh(log x)``, is ``1 / (x (1 - log(x)^2))``)."""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from tests.ch05_jaxpr.test_custom_interpreter_tutorial import f, inverse


def test_jit_vmap_grad_of_the_inverse():
    xs = (jnp.arange(5) + 1.) / 5.
    got = jax.jit(jax.vmap(jax.grad(inverse(f))))(xs)
    # from JAX 0.10.2
    np.testing.assert_allclose(got, [-3.1440797, 15.584931, 2.2551253, 1.3155028, 1.],
                               rtol=1e-5)
    x = np.asarray(xs, np.float64)
    np.testing.assert_allclose(got, 1 / (x * (1 - np.log(x) ** 2)), rtol=1e-4)
