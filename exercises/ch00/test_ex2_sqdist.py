"""Check of exercise 2 of chapter 00: the binary primitive ``sqdist`` (``ex2_sqdist.py``)."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import abstract_eval_rules, impl_rules
from _load import load

ex = load(__file__, "ex2_sqdist")


def test_impl_rule_against_numpy():
    x, y = np.float32([1.5, -2.0, 3.0]), np.float32([0.5, 1.0, 3.0])
    np.testing.assert_array_equal(impl_rules[ex.sqdist_p](x, y), (x - y) ** 2)


def test_abstract_eval_rule():
    rule = abstract_eval_rules[ex.sqdist_p]
    f32 = lambda *shape, weak=False: ShapedArray(shape, np.float32, weak)
    assert rule(f32(2, 1), f32(1, 3)) == f32(2, 3)
    assert rule(f32(), f32(4)) == f32(4)
    assert rule(f32(weak=True), f32(weak=True)) == f32(weak=True)
    assert rule(f32(3, weak=True), f32(3)) == f32(3)
    # the lax messages, from JAX 0.10.2 (lax.div's, with this primitive's name)
    with pytest.raises(TypeError, match="lax.sqdist requires arguments to have the same "
                                        "dtypes, got float32, float16"):
        rule(f32(3), ShapedArray((3,), np.float16))
    with pytest.raises(TypeError, match="sqdist does not accept dtype int32"):
        rule(ShapedArray((3,), np.int32), ShapedArray((3,), np.int32))
    with pytest.raises(TypeError, match=r"sqdist got incompatible shapes for broadcasting: "
                                        r"\(2,\), \(3,\)"):
        rule(f32(2), f32(3))


# from JAX 0.10.2: jax.typeof(jnp.true_divide(a, b)) for each pair (the promotion sqdist follows)
PROMOTIONS = [
    ("int8, int8", lambda: (jnp.array([1, 2], jnp.int8), jnp.array([3, 4], jnp.int8)), "float32[2]"),
    ("int8, 2.0", lambda: (jnp.array([1, 2], jnp.int8), 2.0), "~float32[2]"),
    ("int32, float16", lambda: (jnp.array([1, 2], jnp.int32), jnp.array([3, 4], jnp.float16)), "float16[2]"),
    ("float16, 2", lambda: (jnp.array([1, 2], jnp.float16), 2), "float16[2]"),
    ("uint8, int8", lambda: (jnp.array([1, 2], jnp.uint8), jnp.array([3, 4], jnp.int8)), "float32[2]"),
    ("2, 3", lambda: (2, 3), "~float32[]"),
    ("2.0, int32", lambda: (2.0, jnp.array([1, 2], jnp.int32)), "~float32[2]"),
    ("bfloat16, float16", lambda: (jnp.array([1, 2], jnp.bfloat16), jnp.array([3, 4], jnp.float16)), "float32[2]"),
    ("bool, bool", lambda: (jnp.array([True, False]), jnp.array([True, True])), "float32[2]"),
    ("float16[2,1], float32[3]", lambda: (jnp.ones((2, 1), jnp.float16), jnp.ones(3)), "float32[2,3]"),
]


@pytest.mark.parametrize("make, expected", [p[1:] for p in PROMOTIONS], ids=[p[0] for p in PROMOTIONS])
def test_sqdist_promotes_as_jax(make, expected):
    x, y = make()
    out = ex.sqdist(x, y)
    assert out.aval.str_short() == expected.lstrip("~") and out.aval.weak_type == expected.startswith("~")
    want = (np.asarray(x, np.float64) - np.asarray(y, np.float64)) ** 2
    np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=1e-3)


def test_sqdist_values():
    x = np.linspace(-2, 2, 7).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(ex.sqdist(x, 0.5)), (x - np.float32(0.5)) ** 2)


def test_sqdist_shape_error():
    with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
        ex.sqdist(jnp.ones(2), jnp.ones(3))
