"""Chapter 00 — devices: where a buffer lives.

In chapter 00 there is one device, the host CPU, and a buffer is a NumPy
array that is already there. The class exists now so that an ``Array`` can
answer ``.device`` and ``.devices()`` as JAX's does; chapter 10 adds CUDA
devices (:func:`register_platform`) and chapter 11 gives each device a queue.

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
    #: Chapter 10: a device whose own hardware queue (a CUDA stream) orders its
    #: work; chapter 11's executor then hands work straight to it, with no thread.
    queue_is_own = False

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


#: Chapter 10: platform name -> (aliases, devices(), is_default()): the
#: platforms besides the CPU. ``devices()`` makes the list on first use;
#: ``is_default()`` says whether the platform is the default one (a real GPU,
#: or the user chose it with ``JAX_PLATFORMS``).
_platforms: dict[str, tuple] = {}
_default: list = []  # the default device, once known
_present_cache: list = []  # other_platforms_present(), once known


def register_platform(platform: str, devices_fn, is_default_fn, aliases=()) -> None:
    """Chapter 10: add a platform (``"gpu"``, also named ``"cuda"``) whose devices
    ``devices_fn()`` lists (an empty list: none present); ``is_default_fn()``
    says whether it is the default platform. Asked on first use only."""
    _platforms[platform] = (tuple(aliases), devices_fn, is_default_fn)
    _default.clear()
    _present_cache.clear()


def _platform_name(backend: str) -> str:
    for platform, (aliases, _, _) in _platforms.items():
        if backend == platform or backend in aliases:
            return platform
    return backend


def _platform_devices(platform: str) -> list[Device]:
    if platform == "cpu":
        return _all_cpu_devices()
    entry = _platforms.get(platform)
    return entry[1]() if entry is not None else []


def default_platform() -> str:
    """``"cpu"``, unless a registered platform is present and says it is the default."""
    return default_device().platform


def default_device() -> Device:
    """The first device of the default platform (the CPU unless chapter 10 finds a GPU)."""
    if _default:
        return _default[0]
    device = _cpu_devices[0]
    for platform, (_, devices_fn, is_default_fn) in _platforms.items():
        if is_default_fn():
            found = devices_fn()
            if found:
                device = found[0]
                break
    _default.append(device)
    return device


def other_platforms_present() -> bool:
    """Does a platform besides the CPU have devices (so an Array may live elsewhere)?
    Asked on every jitted call: answered once (device lists are fixed at first use)."""
    if not _present_cache:
        _present_cache.append(any(_platform_devices(p) for p in _platforms))
    return _present_cache[0]


# --- the device queries of the ``jax`` namespace -----------------------------
# Moving data onto and off devices (``device_put``, ``device_get``,
# ``block_until_ready``) needs arrays and buffers, so it lives in
# :mod:`minijax.transfers`; this module knows only the devices themselves.

def _present() -> list[str]:
    return ["cpu", *(p for p in _platforms if _platform_devices(p))]


def _check_backend(backend) -> str:
    """The platform named ``backend`` (the default one if None), if it is present;
    else JAX's error."""
    if backend is None:
        return default_device().platform
    platform = _platform_name(backend)
    if platform == "cpu" or (platform in _platforms and _platform_devices(platform)):
        return platform
    present = ", ".join(_present())
    if backend == "gpu":  # JAX's two messages: a platform alias, and a backend name
        raise RuntimeError(
            f"Unknown backend: '{backend}' requested, but no platforms that are instances "
            f"of {backend} are present. Platforms present are: {present}")
    raise RuntimeError(f"Unknown backend {backend}. Available backends are "
                       f"{_present()}")


def devices(backend=None) -> list[Device]:
    """All devices of ``backend`` (the default backend if None): ``[CpuDevice(id=0)]``."""
    return list(_platform_devices(_check_backend(backend)))


def local_devices(process_index=None, backend=None, host_id=None) -> list[Device]:
    """The devices attached to this process (all of them: there is one process)."""
    return list(_platform_devices(_check_backend(backend)))


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
