"""Chapter 00 — devices: where a buffer lives.

In chapter 00 there is one device, the host CPU, and a buffer is a NumPy
array that is already there. The class exists now so that an ``Array`` can
answer ``.device`` and ``.devices()`` as JAX's does; chapter 10 adds CUDA
devices and chapter 11 gives each device a queue.
"""
from __future__ import annotations


class Device:
    """A place that holds buffers and runs computations."""
    platform = "unknown"
    device_kind = "unknown"

    def __init__(self, id: int = 0):
        self.id = id
        self.process_index = 0

    def __repr__(self):
        return f"{type(self).__name__}(id={self.id})"

    def __str__(self):
        return f"{self.platform}:{self.id}"

    def __eq__(self, other):
        return type(self) is type(other) and self.id == other.id

    def __hash__(self):
        return hash((type(self).__name__, self.id))


class CpuDevice(Device):
    """The host CPU, printed as JAX prints it: ``CpuDevice(id=0)``."""
    platform = "cpu"
    device_kind = "cpu"


_cpu_devices: list[Device] = [CpuDevice(0)]


def default_device() -> Device:
    return _cpu_devices[0]
