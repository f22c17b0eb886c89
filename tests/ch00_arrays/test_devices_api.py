"""The device API of the ``jax`` namespace (chapter 00: one CPU device, synchronous).

Device queries live in ``minijax.devices``, data movement in ``minijax.transfers``.
"""
from collections import namedtuple

import numpy as np
import pytest

import minijax.numpy as jnp
import importlib

# the module (``minijax.devices`` itself is the function, as ``jax.devices`` is)
D = importlib.import_module("minijax.devices")
T = importlib.import_module("minijax.transfers")  # device_put, device_get, block_until_ready
from minijax.array import Array

# expected values from JAX 0.10.2


def test_device_queries():
    assert D.devices() == D.devices("cpu") == D.local_devices() == [D.CpuDevice(0)]
    assert D.local_devices(0, backend="cpu") == D.devices()
    assert repr(D.devices()[0]) == "CpuDevice(id=0)" and str(D.devices()[0]) == "cpu:0"
    assert isinstance(D.devices()[0], D.Device)
    assert D.device_count() == D.local_device_count() == D.process_count() == 1
    assert D.process_index() == 0 and D.default_backend() == "cpu"
    d = D.devices()[0]
    assert (d.platform, d.device_kind, d.id, d.process_index) == ("cpu", "cpu", 0, 0)


def test_unknown_backend_errors():
    with pytest.raises(RuntimeError, match="Unknown backend: 'gpu' requested, but no platforms"):
        D.devices("gpu")
    with pytest.raises(RuntimeError, match=r"Unknown backend cuda. Available backends are \['cpu'\]"):
        D.devices("cuda")


@pytest.mark.parametrize("value, dtype, weak", [
    (1, np.int32, True), (1.0, np.float32, True), (True, np.bool_, False), (1j, np.complex64, True),
    (np.float64(1), np.float32, False), (np.int64(3), np.int32, False),
    (np.uint64(1), np.uint32, False), (np.arange(3.), np.float32, False),
])
def test_device_put_leaves(value, dtype, weak):
    out = T.device_put(value, D.devices()[0])
    assert isinstance(out, Array) and out.dtype == dtype and out.aval.weak_type == weak
    np.testing.assert_array_equal(np.asarray(out), np.asarray(value).astype(dtype))


def test_device_put_pytrees():
    P = namedtuple("P", "a b")
    out = T.device_put([1, (2.0, {"a": np.ones(2)}), None, P(1, 2.0)])
    assert out[0].aval.weak_type and out[1][0].dtype == np.float32
    assert out[1][1]["a"].dtype == np.float32 and not out[1][1]["a"].aval.weak_type
    assert out[2] is None and isinstance(out[3], P) and out[3].b.dtype == np.float32
    x = jnp.ones(3)
    assert T.device_put(x) is x


def test_device_put_errors():
    with pytest.raises(TypeError, match="Argument 's' of type <class 'str'> is not a valid JAX type"):
        T.device_put("s")
    with pytest.raises(TypeError, match="Cannot interpret value of type <class 'object'>"):
        T.device_put(object())


def test_device_get_and_block():
    tree = {"a": jnp.arange(3.0), "b": 1, "c": (jnp.float32(2),), "d": np.ones(2), "e": "s"}
    got = T.device_get(tree)
    assert type(got["a"]) is np.ndarray and got["a"].dtype == np.float32
    assert got["b"] == 1 and type(got["b"]) is int and got["e"] == "s"
    assert type(got["c"][0]) is np.ndarray and got["c"][0].shape == ()
    assert got["d"].dtype == np.float64
    assert type(T.device_get(np.float64(1.0))) is np.ndarray
    assert T.block_until_ready(tree) is tree and T.block_until_ready(3) == 3
