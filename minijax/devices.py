"""Chapter 00 — devices: where a buffer lives.

In chapter 00 there is one device, the host CPU, and a buffer is a NumPy
array that is already there. The class exists now so that an ``Array`` can
answer ``.device`` and ``.devices()`` as JAX's does; chapter 10 adds CUDA
devices and chapter 11 gives each device a queue.

Chapter 11 can also split the CPU into several *virtual* devices (as XLA's
``--xla_force_host_platform_device_count`` does). The list of devices is
therefore made on first use: :func:`set_cpu_device_count_hook` tells this
module how many to make, and once anyone has asked for the list it is fixed.
"""
from __future__ import annotations

import numpy as np


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


# --- the device API of the ``jax`` namespace ---------------------------------
# Synchronous versions: in chapter 00 every buffer is already on the host, so
# ``device_put`` just makes an Array and ``block_until_ready`` has nothing to
# wait for. Chapter 10 adds CUDA devices and chapter 11 makes transfers
# asynchronous; the signatures stay the same.

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


def _map_leaves(f, x):
    """Apply ``f`` to the leaves of nested tuples/lists/dicts (``None`` is an empty node).

    A tiny stand-in for ``tree_map``: pytrees arrive in chapter 03, but
    ``device_put`` and friends are chapter-00 functions.
    """
    if x is None:
        return None
    if isinstance(x, dict):
        return type(x)((k, _map_leaves(f, v)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # a namedtuple
        return type(x)(*(_map_leaves(f, v) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(_map_leaves(f, v) for v in x)
    return f(x)


#: Chapter 11: ``hook(source, weak_type, device)`` returns the ``Array`` on
#: ``device`` (its buffer a future filled by the device's queue), where
#: ``source`` is an ``Array`` or a NumPy array. ``None``: copy right now.
_transfer_hook = None


def set_transfer_hook(hook) -> None:
    global _transfer_hook
    _transfer_hook = hook


def _transfer(source, weak: bool, device):
    """``source`` (an ``Array`` or a NumPy array) as a new ``Array`` on ``device``."""
    from minijax import array  # same chapter; imported late (array imports us)
    if _transfer_hook is not None:
        return _transfer_hook(source, weak, device)
    value = source._value if isinstance(source, array.Array) else source
    return array.array_from_numpy(value, weak, device)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put every leaf of ``x`` on ``device`` as an ``Array``.

    Dtypes are canonicalized (float64 -> float32) and Python scalars become
    weakly typed arrays, as with ``jnp.asarray``. Tracers pass through.
    With chapter 11's runtime the copy is queued and the result is a future.
    """
    from minijax import array, dispatch  # same chapter; imported late (array imports us)
    from minijax.abstract_arrays import HasAval

    def put(leaf):
        if isinstance(leaf, array.Array):
            if device is None or device == leaf.device:
                return leaf
            return _transfer(leaf, leaf.aval.weak_type, device)
        if isinstance(leaf, HasAval):  # a tracer: nothing to move
            return leaf
        if isinstance(leaf, str):
            raise TypeError(f"Argument {leaf!r} of type {type(leaf)} is not a valid JAX type")
        weak = type(leaf) in (int, float, complex)  # Python scalars are weak
        if not weak and type(leaf) is not bool and not hasattr(leaf, "dtype"):
            raise TypeError(f"Cannot interpret value of type {type(leaf)} as an abstract "
                            "array; it does not have a dtype attribute")
        return _transfer(dispatch.to_numpy(leaf), weak, device)
    return _map_leaves(put, x)


def device_get(x):
    """Copy every array leaf of ``x`` to the host as a NumPy array; other leaves as they are."""
    def get(leaf):
        if hasattr(leaf, "copy_to_host_async"):
            leaf.copy_to_host_async()
        return np.asarray(leaf) if hasattr(leaf, "__array__") else leaf
    return _map_leaves(get, x)


def block_until_ready(x):
    """Wait for every array leaf of ``x``; returns ``x``."""
    def block(leaf):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    _map_leaves(block, x)
    return x
