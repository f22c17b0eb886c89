"""Tiny work waits for quick pending work and then runs inline (``Stream.drain_quick``).

A queued item is *quick* when it is tiny and waits for nothing but earlier
items of its own queue. Tiny work that finds only quick items pending waits
for them and runs inline; behind anything else (``hold``, a big program, a
program whose cost is not known yet) it is queued, as before.
"""
import time

import numpy as np

import minijax
import minijax.numpy as jnp
import minijax.runtime as runtime

x_np = np.arange(8, dtype=np.float32)


def _slow_when_asked():
    """A jitted program whose host callback sleeps while ``pause[0]`` is set."""
    pause = [0.0]

    def host(v):
        time.sleep(pause[0])
        return v

    f = minijax.jit(lambda a: minijax.pure_callback(
        host, minijax.ShapeDtypeStruct(a.shape, a.dtype), a) + 1)
    return f, pause


def _warm(f, x):
    for _ in range(3):
        f(x).block_until_ready()


def test_a_tiny_call_behind_quick_queued_work_waits_for_it_and_runs_inline():
    slow, pause = _slow_when_asked()
    tiny = minijax.jit(lambda a: a * 2)
    x = jnp.asarray(x_np)
    _warm(slow, x)
    _warm(tiny, x)
    pause[0] = 0.2  # its fastest run is still tiny: queued, it is marked quick
    with runtime.inline_dispatch(False):
        pending = slow(x)
    y = tiny(x)
    assert pending.is_ready() and y.is_ready()  # waited for, then ran inline
    np.testing.assert_array_equal(np.asarray(pending), x_np + 1)
    np.testing.assert_array_equal(np.asarray(y), x_np * 2)


def test_a_tiny_eager_op_behind_quick_queued_work_waits_for_it_and_runs_inline():
    slow, pause = _slow_when_asked()
    x = jnp.asarray(x_np)
    _warm(slow, x)
    pause[0] = 0.2
    with runtime.inline_dispatch(False):
        pending = slow(x)
    y = x + 1
    assert pending.is_ready() and y.is_ready()
    np.testing.assert_array_equal(np.asarray(y), x_np + 1)


def test_tiny_work_behind_held_work_stays_queued(hold):
    tiny = minijax.jit(lambda a: a * 2)
    x = jnp.asarray(x_np)
    _warm(tiny, x)
    with hold():
        y, z = tiny(x), x - 1
        assert not y.is_ready() and not z.is_ready()
    np.testing.assert_array_equal(np.asarray(y), x_np * 2)
    np.testing.assert_array_equal(np.asarray(z), x_np - 1)


def test_tiny_work_behind_an_unknown_program_stays_queued():
    slow, pause = _slow_when_asked()
    tiny = minijax.jit(lambda a: a * 2)
    x = jnp.asarray(x_np)
    _warm(tiny, x)
    pause[0] = 0.2
    pending = slow(x)  # a first call: its cost is unknown, so it is queued and not quick
    y = tiny(x)
    assert not pending.is_ready() and not y.is_ready()
    np.testing.assert_array_equal(np.asarray(y), x_np * 2)
    np.testing.assert_array_equal(np.asarray(pending), x_np + 1)


def test_a_chain_that_starts_queued_gives_numpy_s_values():
    f = minijax.jit(lambda a: a * 0.5 + 2)
    y, want = jnp.asarray(x_np), x_np.copy()
    for _ in range(200):  # the first call is queued (cost unknown); the rest catch up
        y, want = f(y), want * np.float32(0.5) + np.float32(2)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)
