"""Chapter 07 tests: shared parametrizations."""
import pytest

import minijax as jax
import minijax.numpy as jnp

#: Per-element derivatives of a scalar function, six ways: reverse mode under
#: vmap and jit in every order, and the two Jacobians (whose diagonals they are).
per_element_derivatives = pytest.mark.parametrize("transform", [
    lambda f: jax.vmap(jax.grad(f)),
    lambda f: jax.jit(jax.vmap(jax.grad(f))),
    lambda f: jax.grad(lambda x: jnp.sum(jax.vmap(f)(x))),
    lambda f: jax.vmap(jax.grad(jax.jit(f))),
    lambda f: jax.jacrev(f),
    lambda f: jax.jacfwd(f),
], ids=["vmap_grad", "jit_vmap_grad", "grad_vmap", "vmap_grad_jit", "jacrev", "jacfwd"])
