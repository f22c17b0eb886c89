"""jit's fast path: a repeated call on Arrays skips the full path, and gives what it gave.

The first call of a signature takes the full path (pytree, cache key, trace
cache, checks, backend) and remembers what a later call with the same avals
needs; these tests call each program at least twice, so that the second call
takes the fast path, and check it against NumPy, JAX's printed values, and the
behaviour of the full path (options, transformations, cleared caches, errors).
"""
import threading

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes
from minijax.backends import registry
from minijax.devices import other_platforms_present
from minijax.jit import _executables

x_np = np.linspace(-2, 2, 16, dtype=np.float32)


def _entries(f, n: int) -> int:
    """How many fast calls ``f`` should hold: ``n``, unless another platform (a GPU,
    or the CUDA simulator) is present, where every call takes the full path."""
    return 0 if other_platforms_present() else n


def _twice(f, *args):
    """``f(*args)`` twice: the first call fills the fast path, the second takes it."""
    first = f(*args)
    return first, f(*args)


def test_repeated_calls_agree_with_numpy_and_stay_asynchronous():
    f = minijax.jit(lambda x: x * 2 + 1)
    x = jnp.asarray(x_np)
    for y in _twice(f, x):
        assert type(y) is minijax.Array and y.dtype == np.float32 and y.shape == (16,)
        np.testing.assert_array_equal(np.asarray(y), x_np * 2 + 1)
    assert len(f._fast) == _entries(f, 1)  # the second call found the remembered entry


def test_chain_of_calls_agrees_with_numpy():
    f = minijax.jit(lambda x: x * 0.5 + 1)
    x, want = jnp.asarray(x_np), x_np.copy()
    for _ in range(50):
        x, want = f(x), want * np.float32(0.5) + np.float32(1)
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-6)


def test_weak_and_strong_arrays_are_different_entries():
    g = minijax.jit(lambda x: x + 1)
    weak = minijax.jit(lambda: 2.0)()
    strong = jnp.asarray(np.float32(2.0))
    for _ in range(2):
        # from JAX 0.10.2: Array(3., dtype=float32, weak_type=True), then without weak_type
        assert repr(g(weak)) == "Array(3., dtype=float32, weak_type=True)"
        assert repr(g(strong)) == "Array(3., dtype=float32)"
    assert len(g._fast) == _entries(g, 2)


def test_python_scalars_and_numpy_arguments_take_the_full_path_with_the_same_results():
    g = minijax.jit(lambda x: x + 1)
    for _ in range(2):
        assert repr(g(2.0)) == "Array(3., dtype=float32, weak_type=True)"  # from JAX 0.10.2
        np.testing.assert_array_equal(np.asarray(g(x_np)), x_np + 1)
    assert not g._fast


def test_pytree_outputs_with_none_and_dicts():
    f = minijax.jit(lambda x, y: {"sum": x + y, "none": None, "pair": (x, y * 2)})
    x, y = jnp.asarray(x_np), jnp.asarray(x_np[::-1].copy())
    for out in _twice(f, x, y):
        assert set(out) == {"sum", "none", "pair"} and out["none"] is None
        np.testing.assert_array_equal(np.asarray(out["sum"]), x_np + x_np[::-1])
        np.testing.assert_array_equal(np.asarray(out["pair"][1]), x_np[::-1] * 2)
        assert out["pair"][0] is x  # an input returned as it is stays that Array


def test_a_non_contiguous_array_argument():
    x = jnp.asarray(np.arange(24, dtype=np.float32).reshape(4, 6)).T  # eager transpose
    f = minijax.jit(lambda a: a * 3 - 1)
    for y in _twice(f, x):
        np.testing.assert_array_equal(np.asarray(y), np.arange(24, dtype=np.float32)
                                      .reshape(4, 6).T * 3 - 1)


def test_donated_arguments_are_consumed_on_every_call():
    f = minijax.jit(lambda a: a + 1, donate_argnums=0)
    for _ in range(2):
        x = jnp.asarray(x_np)
        y = f(x)
        assert x.is_deleted()
        np.testing.assert_array_equal(np.asarray(y), x_np + 1)
        with pytest.raises(RuntimeError, match="deleted"):
            f(x)


def test_a_deleted_argument_raises_at_the_call():
    f = minijax.jit(lambda a: a - 1)
    x = jnp.asarray(x_np)
    f(x), f(x)
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x)


def test_an_error_inside_the_program_surfaces_where_the_value_is_read():
    def host(v):
        if np.any(v > 100):
            raise ValueError("too big")
        return v

    f = minijax.jit(lambda a: minijax.pure_callback(
        host, minijax.ShapeDtypeStruct(a.shape, a.dtype), a) * 2)
    ok, big = jnp.asarray(x_np), jnp.asarray(x_np + 1000)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(ok)), x_np * 2)
        y = f(big)  # the call itself does not raise
        assert y.shape == (16,) and y.dtype == np.float32
        # JAX 0.10.2 raises JaxRuntimeError("INTERNAL: CpuCallback error ... too big")
        with pytest.raises(minijax.errors.JaxRuntimeError, match="too big"):
            y.block_until_ready()
        with pytest.raises(minijax.errors.JaxRuntimeError, match="too big"):
            np.asarray(y)


def test_disable_jit_after_the_fast_path_was_filled():
    traces = []

    def f(x):
        traces.append(type(x))
        return x + 1
    jf = minijax.jit(f)
    x = jnp.asarray(x_np)
    jf(x), jf(x)
    assert len(traces) == 1
    with minijax.disable_jit():
        np.testing.assert_array_equal(np.asarray(jf(x)), x_np + 1)
    assert len(traces) == 2 and traces[1] is minijax.Array  # ran as Python, on the Array


def test_transformations_after_the_fast_path_was_filled():
    f = minijax.jit(lambda x: jnp.sin(x) * x)
    x = jnp.asarray(x_np)
    f(x), f(x)
    g = minijax.grad(lambda v: f(v).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(x_np) * x_np + np.sin(x_np), rtol=1e-5,
                               atol=1e-6)
    assert "jit[" in str(minijax.make_jaxpr(f)(x))
    np.testing.assert_allclose(np.asarray(minijax.vmap(f)(x)), np.sin(x_np) * x_np, rtol=1e-6)


def test_clear_cache_and_clear_caches_trace_again():
    traces = []

    def f(x):
        traces.append(1)
        return x * 3
    jf = minijax.jit(f)
    x = jnp.asarray(x_np)
    jf(x), jf(x)
    jf.clear_cache()
    jf(x), jf(x)
    assert len(traces) == 2
    minijax.clear_caches()
    np.testing.assert_array_equal(np.asarray(jf(x)), x_np * 3)
    assert len(traces) == 3


def test_strict_promotion_after_the_fast_path_was_filled():
    f = minijax.jit(lambda a, b: a + b)
    x, i = jnp.asarray(x_np), jnp.asarray(np.arange(16, dtype=np.int32))
    f(x, i), f(x, i)
    with pytest.raises(dtypes.TypePromotionError, match="strict"):
        with minijax.numpy_dtype_promotion("strict"):
            f(x, i)
    np.testing.assert_array_equal(np.asarray(f(x, i)), x_np + np.arange(16, dtype=np.float32))


def test_a_new_default_backend_is_used_after_the_fast_path_was_filled():
    f = minijax.jit(lambda a: a * 4)
    x = jnp.asarray(x_np)
    f(x), f(x)
    (closed,) = [c for c, per in _executables.items() if any(
        e.name == "<lambda>" and e.in_avals == [x.aval] for e in per.values())
        and "mul" in str(c)][-1:]
    assert "interpreter" not in _executables[closed]
    with registry.default_backend_option("interpreter"):
        np.testing.assert_array_equal(np.asarray(f(x)), x_np * 4)
    assert "interpreter" in _executables[closed]


def test_an_escaped_tracer_still_raises():
    leaked = []

    def keep(v):
        leaked.append(v)
        return v
    f = minijax.jit(lambda a: a + 1)
    x = jnp.asarray(x_np)
    f(x), f(x)
    minijax.jvp(keep, (x,), (x,))
    with pytest.raises(minijax.errors.UnexpectedTracerError):
        f(leaked[0])


def test_an_option_set_in_another_thread_stays_in_that_thread():
    calls = []

    def f(x):
        calls.append(threading.current_thread().name)
        return x + 2
    jf = minijax.jit(f)
    x = jnp.asarray(x_np)
    jf(x), jf(x)
    inside, done = threading.Event(), threading.Event()

    def other():
        with minijax.disable_jit():
            inside.set()
            jf(x)  # runs f as Python, in this thread
            done.wait(5)
    t = threading.Thread(target=other, name="other")
    t.start()
    inside.wait(5)
    np.testing.assert_array_equal(np.asarray(jf(x)), x_np + 2)  # still compiled here
    done.set()
    t.join()
    assert calls == ["MainThread", "other"]
    jf(x)
    assert len(calls) == 2


def test_pytree_arguments_are_keyed_by_their_structure_too():
    f = minijax.jit(lambda p, x: (p["w"] * x + p["b"], [len(p)]))
    x = jnp.asarray(x_np)
    p1 = {"w": jnp.asarray(np.float32(3.0)), "b": jnp.asarray(np.float32(-1.0))}
    p2 = {"w": jnp.asarray(np.float32(3.0)), "b": jnp.asarray(np.float32(-1.0)),
          "c": jnp.asarray(np.float32(0.0))}
    for _ in range(2):
        y, n = f(p1, x)
        np.testing.assert_array_equal(np.asarray(y), x_np * 3 - 1)
        assert n == [2]
        y, n = f(p2, x)  # same avals first, another structure: another entry
        np.testing.assert_array_equal(np.asarray(y), x_np * 3 - 1)
        assert n == [3]
    assert len(f._fast) == _entries(f, 2) and f._fast_trees == bool(_entries(f, 1))


def test_pytree_arguments_with_none_tuples_and_lists():
    f = minijax.jit(lambda t: t[0] + (t[2][0] if t[1] is None else t[1]))
    x = jnp.asarray(x_np)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f((x, None, [x]))), x_np * 2)
        np.testing.assert_array_equal(np.asarray(f((x, x, [x]))), x_np * 2)
        np.testing.assert_array_equal(np.asarray(f([x, None, (x,)])), x_np * 2)
    assert len(f._fast) == _entries(f, 3)


def test_a_pytree_holding_a_python_scalar_takes_the_full_path():
    f = minijax.jit(lambda t: t[0] * t[1])
    x = jnp.asarray(np.float32(2.0))
    for _ in range(2):
        assert repr(f((2.0, 3.0))) == "Array(6., dtype=float32, weak_type=True)"  # JAX 0.10.2
        assert repr(f((x, 3.0))) == "Array(6., dtype=float32)"  # from JAX 0.10.2
    assert not f._fast


def test_a_training_step_on_a_pytree_agrees_with_numpy():
    @minijax.jit
    def step(params, x):
        w, b = params
        loss = lambda p: jnp.sum((x @ p[0] + p[1]) ** 2)
        g = minijax.grad(loss)(params)
        return (w - 0.1 * g[0], b - 0.1 * g[1])

    rng = np.random.default_rng(0)
    w_np, b_np = rng.standard_normal((4, 3)).astype(np.float32), np.zeros(3, np.float32)
    x_in = rng.standard_normal((5, 4)).astype(np.float32)
    params, x = (jnp.asarray(w_np), jnp.asarray(b_np)), jnp.asarray(x_in)
    for _ in range(5):
        params = step(params, x)
        r = x_in @ w_np + b_np
        w_np, b_np = w_np - 0.1 * (2 * x_in.T @ r), b_np - 0.1 * (2 * r.sum(0))
    np.testing.assert_allclose(np.asarray(params[0]), w_np, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(params[1]), b_np, rtol=1e-4, atol=1e-5)
    assert len(step._fast) == _entries(step, 1)
