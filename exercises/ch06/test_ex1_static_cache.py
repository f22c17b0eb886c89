"""Check of exercise 1 of chapter 06: ``cached_jit`` traces when JAX's ``jit`` does."""
import numpy as np
from _load import load

import minijax.numpy as jnp
from minijax import tree_util

ex = load(__file__, "ex1_static_cache")


def test_traces_as_jax():
    traces = []

    def f(x, n):
        traces.append(1)
        return tree_util.tree_map(lambda leaf: leaf * n, x)

    g = ex.cached_jit(f, static_argnums=(1,))
    calls = [(jnp.ones(3), 2), (jnp.zeros(3), 2), (jnp.ones(3), 3), (jnp.ones(4), 3),
             (jnp.ones(3, jnp.int32), 2), (1.0, 2), (jnp.float32(1.0), 2), (np.float32(1.0), 2),
             (2.0, 2), ({"a": jnp.ones(3)}, 2), ({"b": jnp.ones(3)}, 2), ({"a": jnp.ones(3)}, 2),
             ((jnp.ones(3), jnp.ones(3)), 2), (jnp.ones(3), 2)]
    counts = []
    for x, n in calls:
        out = g(x, n)
        want = tree_util.tree_map(lambda leaf: np.asarray(leaf) * n, x)
        for o, w in zip(tree_util.tree_leaves(out), tree_util.tree_leaves(want)):
            np.testing.assert_array_equal(np.asarray(o), w)
        counts.append(len(traces))
    # from JAX 0.10.2: jax.jit(f, static_argnums=(1,)) on the same calls, traces after each
    assert counts == [1, 1, 2, 3, 4, 5, 6, 6, 6, 7, 8, 8, 9, 9]


def test_static_value_drives_python_control_flow():
    traces = []

    def power(x, n):
        traces.append(n)
        y = x
        for _ in range(n - 1):        # a Python loop over a static value: unrolled
            y = y * x
        return y

    p = ex.cached_jit(power, static_argnums=1)
    x = np.array([1.5, -2.0], np.float32)
    for n in (1, 3, 3, 5, 1):
        np.testing.assert_allclose(np.asarray(p(x, n)), x ** n, rtol=1e-6)
    assert traces == [1, 3, 5]


def test_static_values_of_different_types_differ():
    traces = []
    g = ex.cached_jit(lambda x, n: traces.append(n) or x * n, static_argnums=1)
    counts = []
    for n in (2, 2.0, True, 1, 2):
        g(jnp.ones(3), n)
        counts.append(len(traces))
    assert counts == [1, 2, 3, 4, 4]   # from JAX 0.10.2: jax.jit with static_argnums=1


def test_no_static_arguments_and_several_outputs():
    traces = []

    def f(a, b):
        traces.append(1)
        return {"sum": a + b, "prod": a * b}

    g = ex.cached_jit(f)
    a, b = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
    out = g(a, b)
    g(b, a)
    np.testing.assert_array_equal(np.asarray(out["sum"]), a + b)
    np.testing.assert_array_equal(np.asarray(out["prod"]), a * b)
    assert len(traces) == 1
