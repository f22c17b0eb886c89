"""Chapter 00: ``Array.sharding`` — one device holds the whole array, as JAX's
``SingleDeviceSharding`` says. Expected values are JAX 0.10.2's on one CPU."""
import minijax as jax
import minijax.numpy as jnp
from minijax.sharding import Sharding, SingleDeviceSharding

CPU0 = jax.devices("cpu")[0]


def test_an_array_is_on_one_device_whole():
    x = jnp.ones((2, 3))
    s = x.sharding
    assert type(s) is SingleDeviceSharding and isinstance(s, Sharding)
    # from JAX 0.10.2
    assert repr(s) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert s.device_set == {CPU0} == s.addressable_devices
    assert s.is_fully_replicated and s.is_fully_addressable
    assert (s.memory_kind, s.num_devices) == ("device", 1)
    assert s._device_assignment == (CPU0,)
    assert s.shard_shape((2, 3)) == (2, 3)
    assert s.devices_indices_map((2, 3)) == {CPU0: (slice(None), slice(None))}
    assert s.addressable_devices_indices_map((2, 3)) == {CPU0: (slice(None), slice(None))}


def test_equal_shardings():
    s = jnp.float32(2).sharding
    assert s == SingleDeviceSharding(CPU0) and hash(s) == hash(SingleDeviceSharding(CPU0))
    assert s.is_equivalent_to(SingleDeviceSharding(CPU0), 2)
    assert s.with_memory_kind("device") == s
    assert s != s.with_memory_kind("pinned_host")


def test_every_way_of_making_an_array_has_a_sharding():
    x = jnp.arange(3.0)
    for y in (jax.device_put(x), jax.jit(lambda a: a * 2)(x), x + 1):
        assert y.sharding == SingleDeviceSharding(CPU0)

