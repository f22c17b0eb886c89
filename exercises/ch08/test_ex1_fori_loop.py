"""Check of chapter 08, exercise 1: ``fori_loop`` with ``while_loop``."""
import numpy as np

import minijax
import minijax.numpy as jnp
from _load import load

ex = load(__file__, "ex1_fori_loop")


def python_loop(lower, upper, body, val):
    for i in range(lower, upper):
        val = body(i, val)
    return val


def body(i, v):
    return 0.5 * v + i


def test_python_bounds():
    got = ex.fori_loop(2, 7, body, np.float32(1.0))
    np.testing.assert_allclose(np.asarray(got), python_loop(2, 7, body, np.float32(1.0)), rtol=1e-6)


def test_empty_range_returns_init():
    assert float(ex.fori_loop(5, 5, body, 3.0)) == 3.0
    assert float(ex.fori_loop(6, 2, body, 3.0)) == 3.0


def test_pytree_carry():
    a, b = ex.fori_loop(0, 4, lambda i, c: (c[0] + i, c[1] * 2.0), (0, 1.0))
    assert int(a) == 0 + 1 + 2 + 3 and float(b) == 16.0


def test_traced_bounds_under_jit_make_one_while():
    f = lambda lo, hi, x: ex.fori_loop(lo, hi, body, x)
    for lo, hi in [(0, 3), (2, 9), (4, 4)]:
        got = minijax.jit(f)(lo, hi, np.float32(1.5))
        np.testing.assert_allclose(np.asarray(got), python_loop(lo, hi, body, np.float32(1.5)), rtol=1e-6)
    names = [e.primitive.name for e in minijax.make_jaxpr(f)(0, 3, 1.5).jaxpr.eqns]
    assert names.count("while") == 1 and "scan" not in names, names


def test_vmap_over_the_trip_count():
    # a different number of iterations per example: the batched while runs until all are done
    got = minijax.vmap(lambda n: ex.fori_loop(0, n, lambda i, v: v + i, 0))(jnp.arange(6))
    np.testing.assert_array_equal(np.asarray(got), [0, 0, 1, 3, 6, 10])


def test_jvp_goes_through():
    # f(x) = x^4, as four multiplications in the loop: f'(x) = 4 x^3
    f = lambda x: ex.fori_loop(0, 4, lambda i, v: v * x, 1.0)
    y, t = minijax.jvp(f, (1.5,), (1.0,))
    np.testing.assert_allclose([float(y), float(t)], [1.5 ** 4, 4 * 1.5 ** 3], rtol=1e-6)
