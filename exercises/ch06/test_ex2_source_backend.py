"""Check of exercise 2 of chapter 06: ``jit`` on a backend that generates Python source."""
import warnings

import numpy as np
import pytest
from _load import load

import minijax
import minijax.numpy as jnp

ex = load(__file__, "ex2_source_backend")

W = np.arange(6, dtype=np.float32).reshape(2, 3) / 4


def on_backend(fun, **kwargs):
    with warnings.catch_warnings():        # jit's backend= is deprecated in JAX
        warnings.simplefilter("ignore")
        return minijax.jit(fun, backend="ex_python", **kwargs)


def mlp(x):                                  # closes over W (a constvar), literals
    return jnp.tanh(W @ x + 1.0) * 2.0


def two_halves(x):                           # a multiple-results primitive, an unused result
    a, b = jnp.split(x, 2)
    _ = jnp.sin(a)
    return {"a": a * b, "b": b - 1.0}


@pytest.mark.parametrize("fun,numpy_fun,x", [
    (mlp, lambda x: np.tanh(W @ x + 1.0) * 2.0, np.array([0.5, -1.0, 2.0], np.float32)),
    (lambda x: jnp.exp(-x) + jnp.sin(x) * x, lambda x: np.exp(-x) + np.sin(x) * x,
     np.linspace(-2, 2, 5).astype(np.float32)),
    (lambda x: jnp.where(x > 0, x, 0.1 * x), lambda x: np.where(x > 0, x, np.float32(0.1) * x),
     np.linspace(-2, 2, 5).astype(np.float32)),
])
def test_results_against_numpy(fun, numpy_fun, x):
    np.testing.assert_allclose(np.asarray(on_backend(fun)(x)), numpy_fun(x), rtol=1e-6, atol=1e-6)


def test_multiple_results_and_pytrees():
    x = np.arange(6, dtype=np.float32)
    out = on_backend(two_halves)(x)
    np.testing.assert_array_equal(np.asarray(out["a"]), x[:3] * x[3:])
    np.testing.assert_array_equal(np.asarray(out["b"]), x[3:] - 1)


def test_the_source_has_one_line_per_equation():
    x = np.ones(3, np.float32)
    jaxpr = minijax.make_jaxpr(mlp)(x).jaxpr
    text = on_backend(mlp).lower(x).as_text()
    lines = text.splitlines()
    assert len(lines) == len(jaxpr.eqns) + 2, text
    assert lines[0].startswith("def ") and lines[-1].strip().startswith("return"), text
    compile(text, "<generated>", "exec")     # it is Python


def test_compiled_once_per_signature():
    traces = []

    def f(x):
        traces.append(1)
        return x * 3.0

    g = on_backend(f)
    for x in (np.ones(2, np.float32), np.zeros(2, np.float32), np.ones(3, np.float32)):
        np.testing.assert_array_equal(np.asarray(g(x)), x * 3)
    assert len(traces) == 2
