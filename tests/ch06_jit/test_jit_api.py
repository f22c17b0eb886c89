"""Chapter 06 — jit's API: results, pytrees, static arguments, decorators, donation.

Results are checked against NumPy; output types (dtype, weak type) are
JAX 0.10.2's.
"""
import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax.numpy as jnp
from minijax import lax
from minijax.array import Array
from minijax.jit import JitWrapped, disable_jit, jit


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def np_selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)


@pytest.mark.usefixtures("jit_backend")  # (an argument would fail a Hypothesis health check)
@given(st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=20))
def test_selu_matches_numpy(xs):
    x = np.array(xs, np.float32)
    np.testing.assert_allclose(jit(selu)(x), np_selu(x), rtol=2e-6, atol=1e-6)


def test_pytrees_in_and_out(jit_backend):
    @jit
    def f(params, x):
        return {"y": params["w"] @ x + params["b"], "norms": (jnp.sum(x * x),)}
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = f({"w": w, "b": np.ones(2, np.float32)}, np.ones(3, np.float32))
    assert set(out) == {"y", "norms"} and isinstance(out["norms"], tuple)
    np.testing.assert_allclose(out["y"], w @ np.ones(3) + 1)
    np.testing.assert_allclose(out["norms"][0], 3.0)


def test_outputs_are_arrays_of_jaxs_types(jit_backend):
    """Forwarded inputs and literal outputs come back as Arrays (JAX 0.10.2's types)."""
    cases = [(lambda x: x, np.float64(1.0), "float32", False),
             (lambda x: x, np.arange(3), "int32", False),
             (lambda x: x, True, "bool", False),
             (lambda x: 3.0, True, "float32", True),
             (lambda x: x, 1.0, "float32", True)]
    for fun, arg, dtype, weak in cases:
        out = jit(fun)(arg)
        assert isinstance(out, Array)
        assert (out.dtype.name, out.weak_type) == (dtype, weak)
    out = jit(lambda x: (x, None, [1]))(1.0)
    assert out[1] is None and out[2][0].dtype == np.int32 and out[2][0].weak_type
    three = jit(lambda: 3)()
    assert three == 3 and three.dtype == np.int32 and three.weak_type


def test_static_arguments_are_python_values(jit_backend):
    @functools.partial(jit, static_argnames=["n"])
    def power(x, n=2):
        assert isinstance(n, int)  # a Python int: usable in range() and if
        out = 1.0
        for _ in range(n):
            out = out * x
        return out
    assert power(2.0) == 4.0 and power(2.0, n=3) == 8.0 and power(2.0, 3) == 8.0


def test_static_argnums_negative_and_varargs(jit_backend):
    assert jit(lambda x, n: x * n, static_argnums=-1)(1.0, 3) == 3.0
    f = jit(lambda *args: args[0] * len(args), static_argnums=(1, 5))
    assert f(2.0, "static") == 4.0  # static_argnums past the arguments are ignored


def test_decorator_forms(jit_backend):
    @jit
    def a(x):
        return x + 1

    @jit(static_argnums=1)
    def b(x, n):
        return x * n

    c = functools.partial(jit, static_argnames="n")(lambda x, n: x - n)
    assert a(1.0) == 2.0 and b(2.0, 3) == 6.0 and c(2.0, n=1) == 1.0
    assert isinstance(a, JitWrapped)


def test_wrapper_metadata():
    def documented(x):
        """Adds one."""
        return x + 1
    f = jit(documented)
    assert f.__name__ == "documented" and f.__doc__ == "Adds one."
    assert f.__wrapped__ is documented
    assert repr(f).startswith("<PjitFunction of <function")


def test_jit_of_a_method(jit_backend):
    class Model:
        def __init__(self, scale):
            self.scale = scale

        def __hash__(self):
            return hash(self.scale)

        def __eq__(self, other):
            return self.scale == other.scale

        @functools.partial(jit, static_argnums=0)
        def apply(self, x):
            return x * self.scale
    assert Model(3.0).apply(2.0) == 6.0


def test_jit_of_jit_and_nested_results(jit_backend):
    inner = jit(lambda x: jnp.sin(x) * 2.0)
    outer = jit(lambda x, y: inner(x) + inner(y))
    np.testing.assert_allclose(outer(1.0, 2.0), 2 * (np.sin(1.0) + np.sin(2.0)), rtol=1e-6)
    np.testing.assert_allclose(jit(jit(jnp.cos))(0.5), np.cos(0.5), rtol=1e-6)


def test_closed_over_constants(jit_backend):
    c = jnp.arange(3.0)
    np.testing.assert_allclose(jit(lambda x: x * c)(jnp.ones(3)), [0.0, 1.0, 2.0])


def test_donated_arrays_are_deleted(jit_backend):
    x = jnp.ones(3)
    out = jit(lambda x, y: x * y, donate_argnums=0)(x, 2.0)
    assert x.is_deleted()  # as JAX 0.10.2 on CPU
    np.testing.assert_allclose(out, [2.0, 2.0, 2.0])
    y = jnp.ones(2)
    out = jit(lambda y: y, donate_argnums=0)(y)
    assert not y.is_deleted() and out is y  # returned as it is: not consumed


def test_disable_jit_runs_python(jit_backend):
    seen = []

    @jit
    def f(x):
        seen.append(type(x).__name__)
        return x * 2
    with disable_jit():
        assert f(3.0) == 6.0
    assert seen == ["float"]
    f(3.0)
    assert seen == ["float", "DynamicJaxprTracer"]


def test_backend_by_name_or_platform():
    """It names each backend, so it runs on both without ``jit_backend``."""
    for backend in ["interpreter", "cpu"]:
        with pytest.warns(DeprecationWarning):
            f = jit(lambda x: x + 1, backend=backend)
        assert f(1.0) == 2.0


def test_lax_ops_inside_jit(jit_backend):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = jit(lambda x: lax.reduce_sum(lax.transpose(x, (1, 0)), (1,)))
    np.testing.assert_allclose(f(x), x.sum(0))
