"""Chapter 10 — the CUDA target: the same kernel plan, written for numba.cuda.

The modules, in pipeline order:

- :mod:`.platform` — CUDA devices (a GPU, or Numba's simulator), found
  without importing CUDA until one is asked for;
- :mod:`.memory` — buffers in GPU memory, copies on the device's stream;
- :mod:`.rules` — the CUDA rule table (``lowering[cuda]``);
- :mod:`.helpers` — device functions the rules call;
- :mod:`.writer` — a plan as kernels (grid-stride loops, shared-memory tree
  reductions, tiled matrix products) plus a host driver;
- :mod:`.compile` — loading the module, PTX, ``ptxas``;
- :mod:`.backend` — the ``Backend`` registered as ``"cuda"`` (platform ``"gpu"``).

Importing this package registers the GPU platform and the backend when the
``cuda`` extra is installed; it does not import ``numba.cuda`` itself.
"""
from minijax.backends.cuda import platform
from minijax.buffers import register_buffer_kind
from minijax.devices import register_platform


def _register() -> None:
    if not platform._installed():
        return
    register_platform("gpu", platform.gpu_devices, platform.gpu_is_default,
                              aliases=("cuda",))
    from minijax.backends.cuda import backend
    from minijax.backends.cuda.memory import CudaBuffer
    register_buffer_kind("gpu", CudaBuffer)
    backend._register()


_register()
