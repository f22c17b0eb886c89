"""The examples of JAX's control-flow notes, checked against NumPy and Python."""
import operator

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.scan...)
import minijax.numpy as jnp
from minijax import lax
from minijax.jit import jit


def test_scan_inference_loop_with_pytree_outputs(jit_backend):
    """A recurrent filter: per-step output is a dict, stacked leaf by leaf."""
    A = np.array([[0.9, 0.1], [-0.2, 0.8]], np.float32)
    obs = np.random.default_rng(0).normal(size=(5, 2)).astype(np.float32)

    def step(state, y):
        pred = A @ state["mean"]
        mean = pred + 0.5 * (y - pred)
        var = state["var"] * 0.5 + 0.1
        return {"mean": mean, "var": var}, {"mean": mean, "error": jnp.sum((y - pred) ** 2)}

    init = {"mean": jnp.zeros(2), "var": jnp.float32(1.)}
    final, outs = jit(lambda init, obs: lax.scan(step, init, obs))(init, obs)

    mean, var, means, errors = np.zeros(2, np.float32), np.float32(1.), [], []
    for y in obs:
        pred = A @ mean
        errors.append(np.sum((y - pred) ** 2))
        mean = pred + 0.5 * (y - pred)
        var = var * 0.5 + 0.1
        means.append(mean)
    assert set(outs) == {"mean", "error"}
    assert outs["mean"].shape == (5, 2) and outs["error"].shape == (5,)
    np.testing.assert_allclose(np.asarray(outs["mean"]), np.stack(means), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(outs["error"]), errors, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(final["var"]), var, rtol=1e-6)


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=17))
def test_associative_scan_add_is_prefix_sum(xs):
    x = np.array(xs, np.int32)
    np.testing.assert_array_equal(np.asarray(lax.associative_scan(operator.add, x)),
                                  np.cumsum(x))
    np.testing.assert_array_equal(np.asarray(lax.associative_scan(operator.add, x, reverse=True)),
                                  np.cumsum(x[::-1])[::-1])


def _collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def collatz(n):
    def body(carry):
        n, steps = carry
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        return n, steps + 1
    return lax.while_loop(lambda carry: carry[0] != 1, body, (n, 0))[1]


def test_collatz_while_loop_under_vmap(jit_backend):
    """Each lane stops at its own step: the loop runs until every lane is done."""
    ns = np.arange(1, 28, dtype=np.int32)
    expected = [_collatz_steps(int(n)) for n in ns]
    np.testing.assert_array_equal(np.asarray(minijax.vmap(collatz)(ns)), expected)
    np.testing.assert_array_equal(np.asarray(jit(minijax.vmap(collatz))(ns)), expected)
    assert int(collatz(np.int32(27))) == 111


def test_pure_uses_internal_state(jit_backend):
    """The notes' example: a dict updated in a Python loop, all at trace time."""
    def pure_uses_internal_state(x):
        state = dict(even=0, odd=0)
        for i in range(10):
            state["even" if i % 2 == 0 else "odd"] += x
        return state["even"] + state["odd"]
    assert float(jit(pure_uses_internal_state)(5.)) == 50.0  # expected value from JAX 0.10.2
    jaxpr = minijax.make_jaxpr(pure_uses_internal_state)(5.)
    assert [e.primitive.name for e in jaxpr.eqns] == ["add"] * 11  # the loop, unrolled


def test_pure_function_with_internal_python_state_under_jit(jit_backend):
    """Python state that lives only inside the function is fine: it is traced away.

    The loop counter and the list are Python objects used while tracing; the
    jaxpr contains only the arithmetic, so the jitted function is pure.
    """
    def f(x):
        history = []                 # internal state, created anew each trace
        for i in range(3):
            x = lax.cond(i % 2 == 0, lambda x: x * 2., lambda x: x + 1., x)
            history.append(x)
        return sum(history)

    traces = []
    g = jit(lambda x: traces.append(1) or f(x))
    for x in [1., 2., 3.]:
        y = x * 2.
        expected = y + (y + 1.) + (y + 1.) * 2.
        assert float(g(x)) == expected
    assert len(traces) == 1          # traced once, run three times


def test_python_state_outside_is_frozen_at_trace_time(jit_backend):
    """The counterpart: state read from outside is baked in when the body is traced."""
    scale = [2.]
    g = jit(lambda xs: lax.scan(lambda c, x: (c + x * scale[0], None), 0., xs)[0])
    assert float(g(jnp.arange(3.))) == 6.
    scale[0] = 100.
    assert float(g(jnp.arange(3.))) == 6.   # the cached trace still says 2.


@pytest.mark.parametrize("n", [0, 1, 5])
def test_fori_loop_sum_of_squares(n):
    assert int(lax.fori_loop(0, n, lambda i, total: total + i * i, 0)) == sum(i * i for i in range(n))
