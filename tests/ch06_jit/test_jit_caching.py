"""Chapter 06 — jit traces once per signature: trace counts as in JAX 0.10.2.

A Python counter in the traced function counts traces (it runs only when
Python runs the body, i.e. when jit traces). The cache key is: the avals of
the arguments (shape, dtype, *weak type*), their pytree structure (keyword
names included), the static arguments' values (1, 1.0 and True differ), and
the function object itself (weakly held: ``jit(f)`` twice shares the cache,
a fresh lambda or ``functools.partial`` each time does not).
"""
import functools

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.interpreters.ad import jvp
from minijax.interpreters.batching import vmap
from minijax.jit import clear_caches, jit

#: Every test runs jitted code: on both backends (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("jit_backend")


class Counter:
    def __init__(self):
        self.n = 0

    def sin2(self, x):
        self.n += 1
        return jnp.sin(x) * 2.0

    def scaled(self, x, y=2.0):
        self.n += 1
        return x * y


@pytest.fixture
def c():
    return Counter()


def test_one_trace_for_repeated_calls(c):
    f = jit(c.sin2)
    x = jnp.ones(3)
    for _ in range(5):
        np.testing.assert_allclose(f(x), 2 * np.sin(np.ones(3, np.float32)), rtol=1e-6)
    assert c.n == 1
    assert f._cache_size() == 1


def test_new_shapes_and_dtypes_retrace(c):
    f = jit(c.sin2)
    f(jnp.ones(3))
    f(jnp.ones(4))
    f(jnp.ones((2, 3)))
    f(jnp.ones(3, jnp.int32))
    f(jnp.ones(3))
    assert c.n == 4


def test_weak_and_strong_types_are_different_signatures(c):
    """``f(1.)`` (weakly typed float32) and ``f(jnp.float32(1))`` trace separately."""
    f = jit(c.sin2)
    x3 = jnp.ones(3)
    # expected values from JAX 0.10.2: 6 traces for these 12 calls
    for x in [x3, jnp.ones(3, jnp.float32), jnp.float32(1.0), 1.0, jnp.array(1.0),
              jnp.asarray(1.0, dtype=jnp.float32), np.float32(1.0), np.ones(3),
              np.ones(3, np.float32), True, 1, np.int32(1)]:
        f(x)
    assert c.n == 6
    assert f(1.0).weak_type and not f(jnp.float32(1.0)).weak_type


def test_static_values_are_compared_with_their_type(c):
    f = jit(c.scaled, static_argnums=1)
    for y in [2, 2.0, True, 1, 1.0, 2]:
        f(1.0, y)
    assert c.n == 5  # expected values from JAX 0.10.2


def test_keyword_arguments_are_part_of_the_signature(c):
    f = jit(c.scaled)
    f(1.0, 2.0)
    f(1.0, y=2.0)
    f(x=1.0, y=2.0)
    f(1.0)            # the default y is a Python constant of the trace
    f(y=2.0, x=1.0)   # same as f(x=1.0, y=2.0): keyword order does not matter
    assert c.n == 4  # expected values from JAX 0.10.2
    assert f._cache_size() == 4


def test_static_argnames_and_argnums_resolve_each_other(c):
    f = jit(c.scaled, static_argnames="y")
    assert f(2.0, 3) == 6.0 and f(2.0, y=3) == 6.0  # static both ways
    assert c.n == 2  # positional and keyword static values are different keys
    g = jit(c.scaled, static_argnums=1)  # the same options once resolved: same cache
    assert g(2.0, y=3) == 6.0
    assert c.n == 2  # expected values from JAX 0.10.2


def test_jit_of_the_same_function_shares_the_cache(c):
    f = c.sin2
    jit(f)(1.0)
    jit(f)(1.0)
    assert c.n == 1
    assert jit(f)._cache_size() == 1


def test_lambda_or_partial_in_a_loop_retraces(c):
    """The classic pitfall: a new function object each time means a new cache."""
    for _ in range(3):
        jit(lambda x: c.sin2(x))(1.0)
    assert c.n == 3
    for _ in range(3):
        jit(functools.partial(c.sin2))(1.0)
    assert c.n == 6
    for _ in range(3):
        jit(c.sin2)(1.0)  # a bound method is a new object each time, too
    assert c.n == 9  # expected values from JAX 0.10.2


def test_named_function_defined_once_traces_once(c):
    """The fix: define (and jit) the function once, outside the loop."""
    def step(x):
        return c.sin2(x) + 1
    jstep = jit(step)
    for _ in range(3):
        jstep(1.0)
    assert c.n == 1


def test_clear_cache_and_clear_caches(c):
    f = jit(c.sin2)
    f(1.0)
    f.clear_cache()
    assert f._cache_size() == 0
    f(1.0)
    assert c.n == 2
    clear_caches()
    f(1.0)
    assert c.n == 3 and f._cache_size() == 1


def test_jit_of_jit_traces_inner_once_per_signature(c):
    inner = jit(c.sin2)
    outer = jit(lambda x: inner(x) + inner(x))
    np.testing.assert_allclose(outer(1.0), 4 * np.sin(1.0), rtol=1e-6)
    outer(2.0)
    assert c.n == 1


def test_transformations_of_jit_reuse_its_trace(c):
    f = jit(lambda x: c.sin2(x))
    for _ in range(3):
        vmap(f)(jnp.ones((2, 3)))
    for _ in range(3):
        jvp(f, (1.0,), (1.0,))
    assert c.n == 2  # expected values from JAX 0.10.2: one per example shape


def test_traced_function_sees_tracers_only_once(c):
    seen = []

    @jit
    def f(x):
        seen.append(type(x).__name__)
        return x + 1
    f(1.0)
    f(2.0)
    assert seen == ["DynamicJaxprTracer"]


def test_arrays_numpy_arrays_and_weak_types_share_or_split_the_cache_as_in_jax(c):
    """Calls on Arrays take a shortcut to the cache (no pytree walk): it must
    find the entry a NumPy call made, and tell weak types apart (JAX 0.10.2:
    2 traces for float32 data then a weakly typed scalar Array)."""
    import minijax
    f = jit(c.sin2)
    x = np.float32(0.5)
    f(x)
    f(minijax.device_put(x))             # same aval as the NumPy scalar: no trace
    f(jnp.asarray(np.float32(0.5)))
    assert c.n == 1
    f(jnp.asarray(0.5))                  # weakly typed float32[]: a new trace
    f(jnp.asarray(0.7))
    assert c.n == 2
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(0.5))), np.sin(0.5) * 2, rtol=1e-6)
