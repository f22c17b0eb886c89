"""Chapter 06 — jit composes with jvp and vmap, in both orders.

``jvp(jit(f))`` differentiates the inner jaxpr, ``vmap(jit(f))`` batches it;
``jit(jvp(f))`` and ``jit(vmap(f))`` trace the transformed function. Results
are checked against NumPy and central finite differences (in float64).
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.dtypes import float0
from minijax.interpreters.ad import jacfwd, jvp
from minijax.interpreters.batching import vmap
from minijax.jit import jit

#: Every test runs jitted code: on both backends (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("jit_backend")


def f(x, y):
    return jnp.sin(x) * y + jnp.exp(-x * y)


def np_f(x, y):
    return np.sin(x) * y + np.exp(-x * y)


def fd(fun, x, y, dx, dy, eps=1e-6):
    """Central finite difference of ``fun`` at (x, y) along (dx, dy), in float64."""
    return (fun(x + eps * dx, y + eps * dy) - fun(x - eps * dx, y - eps * dy)) / (2 * eps)


X = np.array([0.3, -1.2, 2.0], np.float32)
Y = np.array([1.5, 0.7, -0.4], np.float32)
DX = np.array([1.0, 0.5, -2.0], np.float32)
DY = np.array([0.0, 1.0, 0.25], np.float32)


def check_jvp(out, tangent):
    x, y, dx, dy = (a.astype(np.float64) for a in (X, Y, DX, DY))
    np.testing.assert_allclose(out, np_f(x, y), rtol=1e-5)
    np.testing.assert_allclose(tangent, fd(np_f, x, y, dx, dy), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("order", ["jvp_of_jit", "jit_of_jvp", "jit_jvp_jit"])
def test_jvp_and_jit(order):
    if order == "jvp_of_jit":
        out, tangent = jvp(jit(f), (X, Y), (DX, DY))
    elif order == "jit_of_jvp":
        out, tangent = jit(lambda *a: jvp(f, a[:2], a[2:]))(X, Y, DX, DY)
    else:
        out, tangent = jit(lambda *a: jvp(jit(f), a[:2], a[2:]))(X, Y, DX, DY)
    check_jvp(out, tangent)


def test_jvp_of_jit_with_a_zero_tangent_input():
    out, tangent = jvp(jit(f), (X, Y), (DX, np.zeros(3, np.float32)))
    x, y = X.astype(np.float64), Y.astype(np.float64)
    np.testing.assert_allclose(tangent, fd(np_f, x, y, DX, 0 * DY), rtol=1e-4, atol=1e-5)


def test_jvp_of_jit_with_integer_and_unused_outputs():
    g = jit(lambda x, n: (x * n, n + 1, 2.0))
    (a, b, c), (ta, tb, tc) = jvp(g, (3.0, 4), (1.0, np.zeros((), float0)))
    assert (float(a), int(b), float(c)) == (12.0, 5, 2.0)
    assert float(ta) == 4.0 and tb.dtype == float0 and float(tc) == 0.0


def test_second_order_jvp_through_jit():
    d2 = jit(lambda x: jvp(lambda y: jvp(jit(jnp.sin), (y,), (1.0,))[1], (x,), (1.0,))[1])
    np.testing.assert_allclose(d2(0.7), -np.sin(0.7), rtol=1e-6)


def test_jacfwd_of_jit():
    J = jacfwd(jit(lambda x: jnp.sin(x) * x))(X)
    np.testing.assert_allclose(J, np.diag(np.cos(X) * X + np.sin(X)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("order", ["vmap_of_jit", "jit_of_vmap", "jit_vmap_jit"])
def test_vmap_and_jit(order):
    xs = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    y = np.float32(0.5)
    row = lambda x, y: jnp.sum(f(x, y))  # noqa: E731
    if order == "vmap_of_jit":
        out = vmap(jit(row), in_axes=(0, None))(xs, y)
    elif order == "jit_of_vmap":
        out = jit(vmap(row, in_axes=(0, None)))(xs, y)
    else:
        out = jit(vmap(jit(row), in_axes=(0, None)))(xs, y)
    np.testing.assert_allclose(out, np_f(xs, y).sum(1), rtol=1e-5)


def test_vmap_of_jit_with_out_axes_and_unbatched_outputs():
    g = jit(lambda x, y: (x * y, y, 1.0))
    a, b, c = vmap(g, in_axes=(None, 1), out_axes=(1, 1, None))(2.0, np.ones((2, 3), np.float32))
    assert a.shape == (2, 3) and b.shape == (2, 3) and c.shape == ()
    np.testing.assert_allclose(a, 2 * np.ones((2, 3)))


def test_vmap_of_jvp_of_jit():
    xs = np.linspace(-1, 1, 4).astype(np.float32)
    tangents = vmap(lambda x: jvp(jit(jnp.tanh), (x,), (1.0,))[1])(xs)
    np.testing.assert_allclose(tangents, 1 - np.tanh(xs) ** 2, rtol=1e-5)


def test_jit_closing_over_a_tracer_of_an_outer_transformation():
    """The closed-over tracer becomes an explicit argument of the jit equation."""
    out, tangent = jvp(lambda z: jit(lambda y: y * z)(1.0), (2.0,), (1.0,))
    assert (float(out), float(tangent)) == (2.0, 1.0)
    np.testing.assert_allclose(vmap(lambda z: jit(lambda y: y * z)(1.0))(jnp.arange(3.0)),
                               [0.0, 1.0, 2.0])


def test_jit_with_inline_computes_the_same():
    g = jit(f, inline=True)
    out, tangent = jvp(g, (X, Y), (DX, DY))
    check_jvp(out, tangent)
    np.testing.assert_allclose(jit(lambda x: g(x, Y))(X), np_f(X, Y), rtol=1e-6)
