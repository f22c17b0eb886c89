"""Chapter 00 — devices: where a buffer lives.

In chapter 00 there is one device, the host CPU, and a buffer is a NumPy
array that is already there. The class exists now so that an ``Array`` can
answer ``.device`` and ``.devices()`` as JAX's does; chapter 10 adds CUDA
devices and chapter 11 gives each device a queue.

Chapter 11 can also split the CPU into several *virtual* devices (as XLA's
``--xla_force_host_platform_device_count`` does). The list of devices is
therefore made on first use: :func:`set_cpu_device_count_hook` tells this
module how many to make, and once anyone has asked for the list it is fixed.

This module imports no other minijax module: ``buffers`` and ``array`` need
it, so it must come before them (``tests/ch00_arrays/test_import_graph.py``).
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


_cpu_devices: list[Device] = [CpuDevice(0)]  # device 0 always exists
_initialized = False
_cpu_device_count_hook = None  # chapter 11: () -> how many CPU devices to make


def set_cpu_device_count_hook(hook) -> None:
    """Chapter 11: ``hook()`` gives the number of CPU devices, read on first use."""
    global _cpu_device_count_hook
    _cpu_device_count_hook = hook


def devices_initialized() -> bool:
    """Has the device list been made (so the device count can no longer change)?"""
    return _initialized


def _all_cpu_devices() -> list[Device]:
    """The CPU devices, made on the first call (device 0 is there from the start)."""
    global _initialized
    if not _initialized:
        n = _cpu_device_count_hook() if _cpu_device_count_hook else 1
        _cpu_devices.extend(CpuDevice(i) for i in range(len(_cpu_devices), n))
        _initialized = True
    return _cpu_devices


def default_device() -> Device:
    return _cpu_devices[0]


# --- the device queries of the ``jax`` namespace -----------------------------
# Moving data onto and off devices (``device_put``, ``device_get``,
# ``block_until_ready``) needs arrays and buffers, so it lives in
# :mod:`minijax.transfers`; this module knows only the devices themselves.

def _check_backend(backend) -> None:
    if backend is None or backend == "cpu":
        return
    if backend == "gpu":
        raise RuntimeError(
            "Unknown backend: 'gpu' requested, but no platforms that are instances "
            "of gpu are present. Platforms present are: cpu")
    raise RuntimeError(f"Unknown backend {backend}. Available backends are ['cpu']")


def devices(backend=None) -> list[Device]:
    """All devices of ``backend`` (the default backend if None): ``[CpuDevice(id=0)]``."""
    _check_backend(backend)
    return list(_all_cpu_devices())


def local_devices(process_index=None, backend=None, host_id=None) -> list[Device]:
    """The devices attached to this process (all of them: there is one process)."""
    _check_backend(backend)
    return list(_all_cpu_devices())


def device_count(backend=None) -> int:
    return len(devices(backend))


def local_device_count(backend=None) -> int:
    return len(local_devices(backend=backend))


def default_backend() -> str:
    """The platform name of the default backend."""
    return default_device().platform


def process_index(backend=None) -> int:
    _check_backend(backend)
    return 0


def process_count(backend=None) -> int:
    _check_backend(backend)
    return 1
