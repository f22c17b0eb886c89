"""Chapter 06: ``jax.ensure_compile_time_eval`` — evaluate constants while tracing.
Expected values are JAX 0.10.2's."""
import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax.core import Tracer


def test_constants_are_evaluated_and_usable_in_python_control_flow():
    kinds = []

    @jax.jit
    def h(a):
        with jax.ensure_compile_time_eval():
            y = jnp.sin(3.0)
            positive = jnp.sin(y) > 0
            kinds.append((isinstance(y, jax.Array), isinstance(positive, jax.Array)))
            w = y + a  # reads the traced argument: still staged
            kinds.append(isinstance(w, Tracer))
        if positive:
            return jnp.sin(a)
        return jnp.cos(a)

    np.testing.assert_allclose(h(1.0), 0.84147096, rtol=1e-6)  # from JAX 0.10.2
    assert kinds == [(True, True), True]


def test_without_it_constants_are_staged():
    seen = []
    jax.jit(lambda a: seen.append(isinstance(jnp.sin(3.0), Tracer)) or a)(1.0)
    assert seen == [True]


def test_the_block_only_lasts_while_open():
    def f(a):
        with jax.ensure_compile_time_eval():
            c = jnp.cos(0.5)
        return a * c + jnp.exp(1.0)  # exp(1.0) is staged again
    text = str(jax.make_jaxpr(f)(1.0))
    assert "exp" in text and "cos" not in text
    np.testing.assert_allclose(jax.jit(f)(2.0), 2 * np.cos(0.5) + np.e, rtol=1e-6)


def test_at_top_level_it_changes_nothing():
    with jax.ensure_compile_time_eval():
        assert float(jax.jit(lambda a: a + 1)(1.0)) == 2.0  # from JAX 0.10.2


def test_custom_jvp_calls_are_evaluated_too():
    @jax.jit
    def f(a):
        with jax.ensure_compile_time_eval():
            r = jax.nn.relu(jnp.float32(-2.0))  # relu is a custom_jvp function
        return a + r, isinstance(r, jax.Array)
    out = jax.make_jaxpr(f)(1.0)
    assert "custom_jvp_call" not in str(out)
