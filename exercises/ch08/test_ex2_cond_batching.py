"""Check of chapter 08, exercise 2: the batching rule of ``toy_cond``."""
import numpy as np

import minijax
import minijax.numpy as jnp
from _load import load

ex = load(__file__, "ex2_cond_batching")

xs = np.array([-1.0, 0.5, 1.6, 2.0, 3.5], np.float32)


def f(x):
    return ex.toy_cond(x > 1.5, lambda x: x * 2.0, jnp.sin, x)


def test_unbatched_call_still_works():
    assert float(f(np.float32(2.0))) == 4.0
    np.testing.assert_allclose(float(f(np.float32(1.0))), np.sin(1.0), rtol=1e-6)


def test_batched_predicate_gives_each_example_its_branch():
    got = minijax.vmap(f)(xs)
    np.testing.assert_allclose(np.asarray(got), np.where(xs > 1.5, xs * 2, np.sin(xs)), rtol=1e-6)


def test_batched_predicate_becomes_a_select():
    names = [e.primitive.name for e in minijax.make_jaxpr(minijax.vmap(f))(xs).jaxpr.eqns]
    assert "select_n" in names and "toy_cond" not in names, names


def test_predicate_per_example_over_a_vector_operand():
    # each example (a column) is a vector; its predicate is one boolean, broadcast over it
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    g = lambda v: ex.toy_cond(jnp.sum(v) > 0, lambda v: v * 10.0, lambda v: -v, v)
    got = minijax.vmap(g, in_axes=1, out_axes=1)(a)
    want = np.where(a.sum(axis=0) > 0, a * 10, -a)
    np.testing.assert_allclose(np.asarray(got), want)


def test_batched_predicate_unbatched_operand():
    x = np.float32(0.75)
    got = minijax.vmap(lambda p: ex.toy_cond(p, jnp.cos, jnp.sin, x))(np.array([True, False, True]))
    np.testing.assert_allclose(np.asarray(got), [np.cos(x), np.sin(x), np.cos(x)], rtol=1e-6)


def test_unbatched_predicate_batched_operand():
    got = minijax.vmap(lambda x: ex.toy_cond(True, jnp.cos, jnp.sin, x))(xs)
    np.testing.assert_allclose(np.asarray(got), np.cos(xs), rtol=1e-6)
