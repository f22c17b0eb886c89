"""Chapter 01: ``jax.typeof`` (the abstract value of anything) and ``jax.float0``.
Expected strings are JAX 0.10.2's."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.core import ShapedArray


def test_typeof_of_values():
    t = jax.typeof(jnp.ones((2, 3)))
    assert type(t) is ShapedArray
    assert (str(t), repr(t)) == ("float32[2,3]", "ShapedArray(float32[2,3])")  # from JAX 0.10.2
    # from JAX 0.10.2
    assert repr(jax.typeof(1.0)) == "ShapedArray(float32[], weak_type=True)"
    assert str(jax.typeof(1.0)) == "~float32[]"
    assert repr(jax.typeof(3)) == "ShapedArray(int32[], weak_type=True)"
    assert repr(jax.typeof(jnp.int8(3))) == "ShapedArray(int8[])"
    assert jax.typeof(np.zeros(2, np.float64)) == ShapedArray((2,), np.float32)


def test_typeof_of_tracers_is_their_aval():
    seen = []
    jax.vmap(lambda a: seen.append(str(jax.typeof(a))) or a)(jnp.ones((3, 2)))
    jax.grad(lambda a: seen.append(str(jax.typeof(a))) or a)(1.0)
    jax.make_jaxpr(lambda a: seen.append(str(jax.typeof(a))) or a)(jnp.ones(4, jnp.int32))
    assert seen == ["float32[2]", "~float32[]", "int32[4]"]  # from JAX 0.10.2


def test_typeof_rejects_what_is_not_a_jax_type():
    with pytest.raises(TypeError, match="Argument 'abc' of type <class 'str'> is not a valid "
                                        "JAX type"):  # from JAX 0.10.2
        jax.typeof("abc")


def test_float0_is_at_the_top_level():
    assert jax.float0 is jax.dtypes.float0
    assert str(jax.float0) == "[('float0', 'V')]"  # from JAX 0.10.2
    _, f_vjp = jax.vjp(lambda x, n: x * n, 2.0, 3)
    assert f_vjp(1.0)[1].dtype == jax.float0
