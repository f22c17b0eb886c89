"""Check of exercise 1 of chapter 02: the JVP rule of ``logcosh`` (``ex1_logcosh.py``)."""
import numpy as np

import minijax.numpy as jnp
from minijax.interpreters.ad import jacfwd, jvp
from _load import load

ex = load(__file__, "ex1_logcosh")

xs = np.linspace(-4, 4, 17).astype(np.float32)


def logcosh64(x):
    x = np.asarray(x, np.float64)
    return np.logaddexp(x, -x) - np.log(2.0)


def test_jvp_against_finite_differences():
    y, dy = jvp(ex.logcosh, (xs,), (np.ones_like(xs),))
    np.testing.assert_allclose(np.asarray(y), logcosh64(xs), rtol=1e-6, atol=1e-7)
    h = 1e-5
    fd = (logcosh64(xs.astype(np.float64) + h) - logcosh64(xs.astype(np.float64) - h)) / (2 * h)
    np.testing.assert_allclose(np.asarray(dy), fd, rtol=1e-5, atol=1e-6)
    assert dy.dtype == np.float32


def test_tangent_is_scaled():
    t = np.float32([2.0, -1.0, 0.5])
    x = np.float32([0.3, -1.2, 2.0])
    _, dy = jvp(ex.logcosh, (x,), (t,))
    np.testing.assert_allclose(np.asarray(dy), np.tanh(x.astype(np.float64)) * t, rtol=1e-6)


def test_jacfwd_is_diagonal():
    x = np.float32([0.3, -1.2, 2.0])
    J = np.asarray(jacfwd(lambda x: ex.logcosh(x) * 2.0)(x))
    np.testing.assert_allclose(J, np.diag(2 * np.tanh(x.astype(np.float64))), rtol=1e-6, atol=1e-7)


def test_second_derivative_by_nesting():
    d = lambda f: (lambda x: jvp(f, (x,), (jnp.ones_like(x),))[1])
    x = np.float32([-1.5, 0.0, 0.7])
    np.testing.assert_allclose(np.asarray(d(d(ex.logcosh))(x)),
                               1 - np.tanh(x.astype(np.float64)) ** 2, rtol=1e-5)


def test_chain_rule_inside_a_larger_function():
    f = lambda x: jnp.sum(ex.logcosh(3.0 * x - 1.0))
    x = np.float32([0.1, 0.4, -0.2])
    g = np.asarray(jacfwd(f)(x))
    np.testing.assert_allclose(g, 3 * np.tanh(3 * x.astype(np.float64) - 1), rtol=1e-5)
