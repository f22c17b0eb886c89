"""Check of exercise 1 of chapter 00: the primitive ``cube`` (``ex1_cube.py``)."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from _load import load

ex = load(__file__, "ex1_cube")


def test_cube_p_is_a_registered_primitive():
    assert isinstance(ex.cube_p, Primitive) and ex.cube_p.name == "cube"
    assert ex.cube_p in impl_rules and ex.cube_p in abstract_eval_rules


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float16, np.float32, np.complex64])
def test_impl_rule_against_numpy(dtype):
    x = np.array([-3, -1, 0, 2, 5, 6], dtype)
    out = impl_rules[ex.cube_p](x)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, x * x * x)  # int8: 6**3 wraps to -40


def test_abstract_eval_rule():
    rule = abstract_eval_rules[ex.cube_p]
    assert rule(ShapedArray((2, 3), np.int8)) == ShapedArray((2, 3), np.int8)
    assert rule(ShapedArray((), np.float32, weak_type=True)) == ShapedArray((), np.float32, True)
    with pytest.raises(TypeError, match="cube does not accept dtype bool"):
        rule(ShapedArray((3,), np.bool_))


def test_cube_eager():
    x = jnp.arange(-2.0, 3.0)
    y = ex.cube(x)
    np.testing.assert_array_equal(np.asarray(y), np.arange(-2.0, 3.0) ** 3)
    assert y.aval == ShapedArray((5,), np.float32)
    # from JAX 0.10.2: x * x * x on int8 [5, 6, -3] is int8 [125, -40, -27]
    z = ex.cube(jnp.array([5, 6, -3], dtype=jnp.int8))
    assert z.dtype == np.int8 and np.asarray(z).tolist() == [125, -40, -27]


def test_python_scalars_stay_weak():
    # from JAX 0.10.2: typeof(2.0 ** 3) is ~float32[], of 2 ** 3 ~int32[]
    assert ex.cube(2.0).aval == ShapedArray((), np.float32, weak_type=True)
    assert ex.cube(2).aval == ShapedArray((), np.int32, weak_type=True)
    assert float(ex.cube(2.0)) == 8.0
    # a weak scalar meets float16 and stays float16, as in JAX
    assert (ex.cube(3.0) * jnp.ones(2, jnp.float16)).dtype == np.float16


def test_bad_inputs():
    with pytest.raises(TypeError, match="cube does not accept dtype bool"):
        ex.cube(jnp.array([True, False]))
    with pytest.raises(TypeError):
        ex.cube([1.0, 2.0])  # a list is not an array, as in jnp


def test_cube_is_traced_like_any_primitive():
    # chapter 01's printing trace sees the new primitive, as it sees sin or add
    from minijax.interpreters.printing import print_primitives
    log = []
    print_primitives(lambda x: ex.cube(x) + 1.0, echo=False, log=log)(jnp.ones(3))
    assert log[0].endswith("= cube a") and log[0].startswith("b:f32[3]")
