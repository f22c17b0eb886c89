"""Check of exercise 2 of chapter 02: the JVP rule of ``smoothmax`` (``ex2_smoothmax.py``)."""
import numpy as np

import minijax.numpy as jnp
from minijax.interpreters.ad import jacfwd, jvp
from _load import load

ex = load(__file__, "ex2_smoothmax")

rng = np.random.RandomState(0)
x = rng.randn(5).astype(np.float32)
y = rng.randn(5).astype(np.float32)


def f64(x, y):
    return np.logaddexp(np.float64(x), np.float64(y))


def fd(f, args, i, h=1e-5):
    """Central finite differences of ``f`` in float64 along argument ``i`` (all ones)."""
    up = [np.asarray(a, np.float64) for a in args]
    dn = [np.asarray(a, np.float64) for a in args]
    up[i] = up[i] + h
    dn[i] = dn[i] - h
    return (f(*up) - f(*dn)) / (2 * h)


def test_both_tangents():
    tx, ty = rng.randn(5).astype(np.float32), rng.randn(5).astype(np.float32)
    out, dout = jvp(ex.smoothmax, (x, y), (tx, ty))
    np.testing.assert_allclose(np.asarray(out), f64(x, y), rtol=1e-6)
    want = tx * fd(f64, (x, y), 0) + ty * fd(f64, (x, y), 1)
    np.testing.assert_allclose(np.asarray(dout), want, rtol=1e-4, atol=1e-6)


def test_one_argument_constant():
    _, dx = jvp(lambda x: ex.smoothmax(x, y), (x,), (np.ones_like(x),))
    np.testing.assert_allclose(np.asarray(dx), fd(f64, (x, y), 0), rtol=1e-4, atol=1e-6)
    _, dy = jvp(lambda y: ex.smoothmax(x, y), (y,), (np.ones_like(y),))
    np.testing.assert_allclose(np.asarray(dy), fd(f64, (x, y), 1), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(dx) + np.asarray(dy), np.ones(5), rtol=1e-5)


def test_broadcast_scalar_tangent():
    s = np.float32(0.3)
    out, ds = jvp(lambda s: ex.smoothmax(x, s), (s,), (np.float32(1.0),))
    assert out.shape == (5,) and ds.shape == (5,)
    np.testing.assert_allclose(np.asarray(ds), fd(f64, (x, s), 1), rtol=1e-4, atol=1e-6)


def test_jacfwd_of_both_arguments():
    Jx, Jy = jacfwd(ex.smoothmax, argnums=(0, 1))(x, y)
    w = np.exp(np.float64(x) - f64(x, y))
    np.testing.assert_allclose(np.asarray(Jx), np.diag(w), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(Jy), np.diag(1 - w), rtol=1e-5, atol=1e-6)


def test_integer_argument_has_zero_tangent():
    n = jnp.arange(5)                       # an integer: its tangent is a symbolic zero
    _, dx = jvp(lambda x: ex.smoothmax(x, n), (x,), (np.ones_like(x),))
    np.testing.assert_allclose(np.asarray(dx), fd(f64, (x, np.arange(5)), 0), rtol=1e-4, atol=1e-6)


def test_second_derivative():
    d = lambda f: (lambda x: jvp(f, (x,), (jnp.ones_like(x),))[1])
    g = d(d(lambda x: ex.smoothmax(x, 0.0)))(x)
    s = 1 / (1 + np.exp(-np.float64(x)))            # d/dx logaddexp(x, 0) = sigmoid(x)
    np.testing.assert_allclose(np.asarray(g), s * (1 - s), rtol=1e-4, atol=1e-6)
