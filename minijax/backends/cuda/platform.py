"""Chapter 10 — the GPU platform: CUDA devices, found without importing CUDA.

``import numba.cuda`` costs almost half a second, so nothing here imports it
until a GPU is asked for. Where is there a GPU?

- with ``NUMBA_ENABLE_CUDASIM=1`` in the environment (set before Python
  starts): Numba's *CUDA simulator*, which runs kernels in Python, one thread
  per GPU thread. Its device exists, but the default platform stays the CPU
  unless the user picks the GPU (``JAX_PLATFORMS=cuda``), as JAX would never
  default to something that slow;
- with a CUDA driver (``libcuda``) and the ``cuda`` extra installed: the real
  GPUs, and the default platform is the GPU, as in JAX;
- otherwise none, and ``devices("gpu")`` raises JAX's error.

``jax_platforms`` (environment ``JAX_PLATFORMS``) is JAX's option: a comma-
separated list of platforms in order of preference. ``"cpu"`` hides the GPU;
``"cuda"`` (or ``"gpu"``) makes it the default.
"""
from __future__ import annotations

import ctypes
import functools
import importlib
import importlib.util
import os

from minijax.config import optional_string_state
from minijax.devices import Device

__all__ = ["CudaDevice", "numba_cuda", "simulator", "gpu_devices", "gpu_is_default",
           "platforms_option"]

platforms_option = optional_string_state(
    "jax_platforms", os.environ.get("MINIJAX_PLATFORMS") or None,
    "Comma-separated platforms in order of preference ('cpu', 'cuda'): the first "
    "is the default; a platform not named is hidden. Default: every platform "
    "present, a real GPU first.")


class CudaDevice(Device):
    """One CUDA GPU (or the simulator's), printed as JAX prints it: ``CudaDevice(id=0)``.

    Its work is ordered by its own CUDA *stream* (:attr:`stream`), an in-order
    queue in the GPU's hardware: chapter 11's executor hands work straight to
    it instead of to a thread (``queue_is_own``).
    """
    platform = "gpu"
    queue_is_own = True

    def __init__(self, id: int, device_kind: str):
        super().__init__(id)
        self.device_kind = device_kind
        self._cuda_stream = None

    @property
    def stream(self):
        """The device's CUDA stream, made on first use."""
        if self._cuda_stream is None:
            cuda = numba_cuda()
            with cuda.gpus[self.id]:
                self._cuda_stream = cuda.stream()
        return self._cuda_stream

    def run_primitive(self, prim, args, params, avals_out):
        """An eager primitive on GPU arrays (chapter 11's executor asks the device):
        a kernel, as JAX runs each op as a tiny compiled program. A primitive the
        CUDA target does not lower runs its NumPy impl on the host values; the
        result is copied back to the GPU."""
        from minijax.backends.cuda.eager import run_primitive
        return run_primitive(self, prim, args, params, avals_out)



def simulator() -> bool:
    """Is Numba's CUDA simulator switched on (``NUMBA_ENABLE_CUDASIM=1``)?"""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def _installed() -> bool:
    return importlib.util.find_spec("numba_cuda") is not None


def _driver_present() -> bool:
    """Is NVIDIA's driver library loadable? (A failed ``dlopen`` takes microseconds;
    ``ctypes.util.find_library`` would run ``ldconfig``: 30 ms at every import.)"""
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def numba_cuda():
    """``numba.cuda`` (imported on first use: it takes almost half a second)."""
    return importlib.import_module("numba.cuda")


def _selected() -> list[str] | None:
    """The platforms ``jax_platforms`` names, in order (``gpu`` for ``cuda``), or None."""
    value = platforms_option.value or os.environ.get("JAX_PLATFORMS") or None
    if not value:
        return None
    return ["gpu" if p.strip() in ("cuda", "gpu") else p.strip() for p in value.split(",")]


@functools.cache
def gpu_devices() -> tuple[CudaDevice, ...]:
    """The GPUs (found on the first call): the simulator's one, the driver's, or none."""
    selected = _selected()
    if (selected is not None and "gpu" not in selected) or not _installed():
        return ()  # jax_platforms="cpu" hides the GPU; no cuda extra, no GPU
    if simulator():
        return (CudaDevice(0, "CUDA simulator"),)
    if not _driver_present():
        return ()
    cuda = numba_cuda()
    if not cuda.is_available():
        return ()
    return tuple(CudaDevice(gpu.id, gpu.name.decode() if isinstance(gpu.name, bytes)
                            else str(gpu.name)) for gpu in cuda.gpus)


def gpu_is_default() -> bool:
    """The GPU is the default platform: chosen first in ``jax_platforms``, or, when
    that is not set, a real GPU is present (the simulator never is by default)."""
    selected = _selected()
    if selected is not None:
        return selected[0] == "gpu" and bool(gpu_devices())
    return not simulator() and bool(gpu_devices())
