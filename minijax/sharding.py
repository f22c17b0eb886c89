"""Chapter 00 — ``jax.sharding``: where an array's pieces live.

JAX can split one array over many devices; a *sharding* says which device
holds which piece. minijax places every array whole on one device, so the
only sharding is :class:`SingleDeviceSharding`: one device holds all of it.
It still answers every question JAX's sharding objects answer (which
devices, which index of the array each holds, the shape of each piece), so
code that inspects ``x.sharding`` runs unchanged.
"""
from __future__ import annotations

from minijax.devices import Device

__all__ = ["Sharding", "SingleDeviceSharding"]


class Sharding:
    """The interface every sharding has (``jax.sharding.Sharding``)."""

    @property
    def device_set(self) -> set[Device]:
        """The devices that hold a piece of the array."""
        raise NotImplementedError

    @property
    def is_fully_replicated(self) -> bool:
        """Does every device hold the whole array?"""
        raise NotImplementedError

    @property
    def is_fully_addressable(self) -> bool:
        """Are all the devices attached to this process?"""
        raise NotImplementedError

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def addressable_devices(self) -> set[Device]:
        return set(self.device_set)

    def devices_indices_map(self, global_shape: tuple) -> dict:
        """device -> the index (a tuple of slices) of the piece it holds."""
        raise NotImplementedError

    def addressable_devices_indices_map(self, global_shape: tuple) -> dict:
        return {d: index for d, index in self.devices_indices_map(global_shape).items()
                if d in self.addressable_devices}

    def shard_shape(self, global_shape: tuple) -> tuple:
        """The shape of each device's piece."""
        raise NotImplementedError

    def is_equivalent_to(self, other: "Sharding", ndim: int) -> bool:
        """Do both place the pieces of an ``ndim``-dimensional array alike?"""
        shape = (1,) * ndim
        return (self.device_set == other.device_set
                and self.devices_indices_map(shape) == other.devices_indices_map(shape))


class SingleDeviceSharding(Sharding):
    """The whole array on one device (``jax.sharding.SingleDeviceSharding``).

    >>> jnp.ones(3).sharding  # doctest: +SKIP
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    """
    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device: Device, *, memory_kind: str | None = None):
        self._device = device
        self._memory_kind = "device" if memory_kind is None else memory_kind

    @property
    def memory_kind(self) -> str:
        """Which memory of the device: minijax has only ``"device"``."""
        return self._memory_kind

    def with_memory_kind(self, kind: str) -> "SingleDeviceSharding":
        return SingleDeviceSharding(self._device, memory_kind=kind)

    @property
    def _device_assignment(self) -> tuple[Device, ...]:
        return (self._device,)

    @property
    def device_set(self) -> set[Device]:
        return {self._device}

    is_fully_replicated = property(lambda self: True)
    is_fully_addressable = property(lambda self: True)

    def devices_indices_map(self, global_shape: tuple) -> dict:
        return {self._device: (slice(None),) * len(global_shape)}

    def shard_shape(self, global_shape: tuple) -> tuple:
        return tuple(global_shape)

    def __eq__(self, other):
        if not isinstance(other, SingleDeviceSharding):
            return NotImplemented
        return self._device == other._device and self._memory_kind == other._memory_kind

    def __hash__(self):
        return hash((SingleDeviceSharding, self._device, self._memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"
