"""Check of exercise 2 of chapter 11: an asynchronous ``device_put`` (``ex2_device_put.py``)."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import transfers
from minijax.runtime import executor
from minijax.runtime.futures import FutureBuffer
from _load import load

ex = load(__file__, "ex2_device_put")


@pytest.fixture(autouse=True)
def your_transfer():
    calls = []

    def hook(source, weak, device):
        calls.append(type(source).__name__)
        return ex.transfer(source, weak, device)
    transfers.set_transfer_hook(hook)
    try:
        yield calls
    finally:
        transfers.set_transfer_hook(executor.transfer)   # chapter 11's, back


def test_returns_a_future_at_once(your_transfer):
    with minijax.runtime.hold():                 # the device runs nothing in this block
        a = minijax.device_put(np.arange(4.0))    # float64 data
        assert your_transfer == ["ndarray"]
        assert isinstance(a._buffer, FutureBuffer) and not a.is_ready()
        assert a.shape == (4,) and a.dtype == np.float32 and not a.aval.weak_type
    np.testing.assert_array_equal(np.asarray(a), [0.0, 1.0, 2.0, 3.0])
    assert a._buffer.result().dtype == np.float32   # the copy has the aval's dtype


def test_weak_type_and_dtypes():
    s = minijax.device_put(2.5)                  # from JAX 0.10.2: weakly typed float32
    assert s.dtype == np.float32 and s.aval.weak_type and float(s) == 2.5
    i = minijax.device_put(np.array([1, 2], np.int64))
    assert i.dtype == np.int32 and not i.aval.weak_type
    np.testing.assert_array_equal(np.asarray(i), [1, 2])


def test_the_copy_is_taken_at_the_call():
    data = np.ones(3, np.float32)
    with minijax.runtime.hold():
        a = minijax.device_put(data)
        data[:] = 7.0                            # the caller reuses its buffer at once
    np.testing.assert_array_equal(np.asarray(a), [1.0, 1.0, 1.0])


def test_computations_wait_for_the_copy():
    with minijax.runtime.hold():
        x = minijax.device_put(np.arange(3.0, dtype=np.float32))
        y = jnp.sin(x) * 2                       # queued behind the copy
        assert not y.is_ready()
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(3.0)) * 2, rtol=1e-6)


def test_an_array_source(your_transfer):
    with minijax.runtime.hold():
        x = jnp.arange(5) * 3                    # a future of chapter 11
        y = transfers._transfer(x, True, None)   # what device_put(x, d) does for a new device
        assert your_transfer[-1] == "Array" and not y.is_ready()
    assert y.aval.weak_type and y.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(y), [0, 3, 6, 9, 12])
