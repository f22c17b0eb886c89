"""Chapter 05: ``jax.named_scope`` and ``jax.named_call`` name parts of a program; like
JAX's, the names change neither results nor the printed jaxpr. Expected values are
JAX 0.10.2's."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.name_stack import current_name_stack


def f(a):
    return jnp.sin(a) * 2


def test_named_call_keeps_value_name_and_jaxpr():
    named = jax.named_call(f, name="foo")
    np.testing.assert_allclose(named(1.0), 1.6829419, rtol=1e-6)  # from JAX 0.10.2
    assert named.__name__ == "f"
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(named)(1.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }"
    np.testing.assert_allclose(jax.grad(named)(1.0), 2 * np.cos(1.0), rtol=1e-6)


def test_named_scope_keeps_the_jaxpr():
    def g(a):
        with jax.named_scope("scope"):
            return jnp.cos(a)
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(g)(1.0)) == "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"


def test_the_names_stack_up_while_open():
    seen = []

    def inner(a):
        seen.append(current_name_stack())
        return a

    with jax.named_scope("outer"):
        jax.named_call(inner, name="mlp")(1.0)
        jax.named_call(inner)(1.0)
        seen.append(current_name_stack())
    seen.append(current_name_stack())
    assert seen == ["outer/mlp", "outer/inner", "outer", ""]


def test_named_scope_wants_a_string():
    with pytest.raises(TypeError, match="named_scope name argument must be a string."):
        with jax.named_scope(3):  # from JAX 0.10.2
            pass
