"""Check of chapter 08, exercise 3: the JVP rule of ``toy_switch``."""
import numpy as np

import minijax
import minijax.numpy as jnp
from _load import load

ex = load(__file__, "ex3_switch_jvp")

FUNS = [jnp.sin, lambda x: x * x * x, jnp.exp]
DERIVATIVES = [np.cos, lambda x: 3 * x * x, np.exp]


def test_primal_still_works():
    for i, f in enumerate([np.sin, lambda x: x ** 3, np.exp]):
        np.testing.assert_allclose(float(ex.toy_switch(i, FUNS, np.float32(0.7))), f(0.7), rtol=1e-6)


def test_jvp_takes_the_derivative_of_the_chosen_branch():
    x = 0.7
    for i, d in enumerate(DERIVATIVES):
        y, t = minijax.jvp(lambda x: ex.toy_switch(i, FUNS, x), (x,), (2.0,))
        np.testing.assert_allclose(float(t), 2.0 * d(x), rtol=1e-5)


def test_jvp_against_finite_differences_with_a_traced_index():
    f = lambda i, x: ex.toy_switch(i, FUNS, x)
    x, eps = 0.3, 1e-3
    for i in range(3):
        _, t = minijax.jit(lambda i, x: minijax.jvp(lambda x: f(i, x), (x,), (1.0,)))(i, x)
        fd = (float(f(i, x + eps)) - float(f(i, x - eps))) / (2 * eps)
        np.testing.assert_allclose(float(t), fd, rtol=2e-3)


def test_one_switch_of_jvps():
    jaxpr = minijax.make_jaxpr(lambda i, x: minijax.jvp(lambda x: ex.toy_switch(i, FUNS, x),
                                                        (x,), (1.0,)))(1, 0.5).jaxpr
    names = [e.primitive.name for e in jaxpr.eqns]
    assert names.count("toy_switch") == 1 and "select_n" not in names, names


def test_jvp_on_a_vector():
    x = np.array([0.1, 0.2, 0.3], np.float32)
    v = np.array([1.0, -2.0, 0.5], np.float32)
    _, t = minijax.jvp(lambda x: ex.toy_switch(0, FUNS, x), (x,), (v,))
    np.testing.assert_allclose(np.asarray(t), np.cos(x) * v, rtol=1e-6)
