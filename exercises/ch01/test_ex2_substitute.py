"""Check of exercise 2 of chapter 01: a trace that swaps primitives (``ex2_substitute.py``)."""
import numpy as np

import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.ad import jvp
from _load import load

ex = load(__file__, "ex2_substitute")

xs = np.linspace(-1, 1, 5).astype(np.float32)
taylor_exp = lambda x, **params: 1.0 + x + x * x / 2.0


def taylor(x):
    return 1 + x + x * x / 2


def test_replaces_exp():
    g = ex.substitute(lambda x: jnp.exp(x) * 2.0, {lax.exp_p: taylor_exp})
    np.testing.assert_allclose(np.asarray(g(xs)), 2 * taylor(xs), rtol=1e-6)
    assert float(g(jnp.float32(0.5))) == 3.25


def test_other_primitives_unchanged():
    g = ex.substitute(lambda x: jnp.sin(x) + jnp.exp(x), {lax.exp_p: taylor_exp})
    np.testing.assert_allclose(np.asarray(g(xs)), np.sin(xs) + taylor(xs), rtol=1e-6)
    h = ex.substitute(lambda x: (jnp.sin(x), jnp.cos(x)), {})
    np.testing.assert_allclose(np.asarray(h(xs)[1]), np.cos(xs), rtol=1e-6)


def test_params_reach_the_rule_and_no_loop():
    # integer_pow carries a param y; the rule may call jnp itself without looping
    cube_by_exp_log = lambda x, y: jnp.exp(y * jnp.log(x))
    g = ex.substitute(lambda x: x ** 3, {lax.integer_pow_p: cube_by_exp_log})
    pos = np.float32([0.5, 1.0, 2.0])
    np.testing.assert_allclose(np.asarray(g(pos)), pos ** 3, rtol=1e-5)
    # a rule calling the very primitive it replaces runs it under the parent: no recursion
    g2 = ex.substitute(lambda x: jnp.exp(x), {lax.exp_p: lambda x: jnp.exp(x) + 1.0})
    np.testing.assert_allclose(np.asarray(g2(xs)), np.exp(xs) + 1, rtol=1e-6)


def test_jvp_of_substituted_is_the_replacement_derivative():
    g = ex.substitute(lambda x: jnp.exp(x), {lax.exp_p: taylor_exp})
    y, dy = jvp(g, (xs,), (np.ones_like(xs),))
    np.testing.assert_allclose(np.asarray(y), taylor(xs), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dy), 1 + xs, rtol=1e-6)


def test_substitute_sees_what_inner_jvp_rules_bind():
    # exp's jvp rule is t * ans: with exp replaced, ans is the Taylor value
    g = ex.substitute(lambda x: jvp(jnp.exp, (x,), (jnp.ones_like(x),))[1],
                      {lax.exp_p: taylor_exp})
    np.testing.assert_allclose(np.asarray(g(xs)), taylor(xs), rtol=1e-6)


def test_outer_values_are_constants():
    # the inner substitution sees x (a tracer of the outer one) as a constant
    def f(x):
        return ex.substitute(lambda y: jnp.exp(x) * y, {lax.exp_p: taylor_exp})(jnp.float32(3.0))
    outer = ex.substitute(f, {lax.sin_p: lambda x: x})
    np.testing.assert_allclose(np.asarray(outer(xs)), 3 * taylor(xs), rtol=1e-6)
    y, dy = jvp(f, (xs,), (np.ones_like(xs),))
    np.testing.assert_allclose(np.asarray(dy), 3 * (1 + xs), rtol=1e-6)
