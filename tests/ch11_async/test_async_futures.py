"""Every dispatch returns at once; reading a value waits for it."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
import minijax.runtime as runtime
from minijax.runtime import FutureBuffer

x_np = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.fixture(scope="module")
def double():
    return minijax.jit(lambda a, b: (a * 2 + b, jnp.sum(a)))


def test_eager_op_returns_a_pending_future_with_its_metadata(hold):
    x = jnp.asarray(x_np)
    with hold():
        y = x * 2 + 1
        assert isinstance(y._buffer, FutureBuffer)
        assert not y.is_ready()
        # metadata comes from abstract evaluation: no waiting
        assert y.shape == (2, 3) and y.dtype == np.float32 and not y.weak_type
        assert y.device == minijax.devices()[0]
    np.testing.assert_array_equal(np.asarray(y), x_np * 2 + 1)
    assert y.is_ready()


def test_jitted_call_and_device_put_return_pending_futures(hold, double):
    x = jnp.asarray(x_np)
    with hold():
        a, s = double(x, 1.0)
        z = minijax.device_put(np.ones(3, np.float64))
        assert not a.is_ready() and not s.is_ready() and not z.is_ready()
        assert (a.shape, a.dtype, s.shape, z.dtype, z.weak_type) == (
            (2, 3), np.float32, (), np.float32, False)
    np.testing.assert_array_equal(a, x_np * 2 + 1)
    assert float(s) == 15.0
    np.testing.assert_array_equal(z, np.ones(3, np.float32))


def test_a_future_can_feed_another_computation(hold, double):
    x = jnp.asarray(x_np)
    with hold():
        y = jnp.sin(x)             # pending
        a, _ = double(y, y)        # jitted, takes a future
        b = jnp.dot(a, a.T)        # eager, takes a future
        assert not b.is_ready()
    expected = np.sin(x_np) * 3
    np.testing.assert_allclose(b, expected @ expected.T, rtol=1e-5)


def test_a_chain_of_1000_dispatches_returns_before_the_first_runs(hold):
    y = jnp.zeros(4)
    with hold():
        first = y + 1
        y = first
        for _ in range(999):
            y = y + 1
        assert not first.is_ready()   # Python ran ahead of the device
    np.testing.assert_array_equal(y, np.full(4, 1000, np.float32))


def test_reading_blocks_everywhere(hold):
    x = jnp.asarray(x_np)
    readers = {
        "str": str, "asarray": np.asarray,
        "tolist": lambda a: a.tolist(), "item": lambda a: a[1, 2].item(),
        "float": lambda a: float(a[1, 2]), "int": lambda a: int(a[0, 1]),
        "bool": lambda a: bool(a[0, 1]), "device_get": minijax.device_get,
        "index": lambda a: a[1].tolist(), "iter": lambda a: [r.tolist() for r in a],
    }
    for name, read in readers.items():
        with hold():
            y = x + 0
        assert np.all(np.asarray(read(y)) == np.asarray(read(x_np))), name
    with hold():
        y = x + 0
    assert repr(y) == "Array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32)"


def test_block_until_ready_waits_without_copying(hold):
    x = jnp.asarray(x_np)
    with hold():
        tree = {"a": x + 1, "b": [x * 2, 3]}
        assert not tree["a"].is_ready()
    out = minijax.block_until_ready(tree)
    assert out is tree and tree["a"].is_ready() and tree["b"][0].is_ready()
    assert tree["a"].block_until_ready() is tree["a"]
    tree["a"].copy_to_host_async()


def test_a_big_matmul_returns_before_it_finishes():
    """The JAX documentation's example: the dispatch returns a future."""
    x = jnp.ones((1000, 1000))
    with runtime.hold():   # the matmul cannot even start before we look
        y = jnp.dot(x, x) + 3.
        assert not y.is_ready()
    assert y.block_until_ready().is_ready()
    assert float(y[0, 0]) == 1003.0


def test_tiny_work_on_an_idle_device_runs_inline():
    """No queue round trip for tiny work when nothing is pending (see executor's doc)."""
    runtime.synchronize()
    y = jnp.arange(3.0) + 1
    assert y.is_ready() and not isinstance(y._buffer, FutureBuffer)
    with runtime.inline_dispatch(False):   # config: always go through the queue
        z = jnp.arange(3.0) + 1
        assert isinstance(z._buffer, FutureBuffer)
    np.testing.assert_array_equal(z, [1., 2., 3.])


def test_results_are_the_same_eager_jitted_sync_and_async(double):
    x = jnp.asarray(x_np)
    runtime.synchronize()
    ref_a, ref_s = double(x, 2.0)
    with runtime.inline_dispatch(False):
        a, s = double(x, 2.0)
        e = x * 2 + 2.0
    np.testing.assert_array_equal(a, ref_a)
    np.testing.assert_array_equal(e, ref_a)
    assert float(s) == float(ref_s) == 15.0
    assert a.dtype == ref_a.dtype and s.weak_type == ref_s.weak_type


def test_donated_inputs_are_safe_with_queued_work(hold):
    f = minijax.jit(lambda a: a * 2, donate_argnums=0)
    x = jnp.asarray(x_np) + 0
    with hold():
        y = f(x)
        assert x.is_deleted() and not y.is_ready()
    np.testing.assert_array_equal(y, x_np * 2)


def test_uninstall_goes_back_to_synchronous_dispatch():
    x = jnp.asarray(x_np)
    runtime.uninstall()
    try:
        assert not runtime.installed()
        with runtime.inline_dispatch(False):
            y = x * 2
        assert not isinstance(y._buffer, FutureBuffer)   # chapter 00's ready buffer
    finally:
        runtime.install()
    assert runtime.installed()
    np.testing.assert_array_equal(y, x_np * 2)
