"""Recording every CUDA module the simulator run lowers, for the PTX check.

The simulator runs kernels but checks nothing a GPU compiler would (it does
no typing): a kernel it runs may still not compile. So during the simulator
run of ``make test`` (``MINIJAX_RECORD_CUDA=<dir>``), every plan the CUDA
backend lowers is also written *as a real GPU gets it* (``GPU_LAUNCH``: 256
threads, 16x16 tiles) into ``<dir>``, one file per module, with the Numba
signature of each kernel. ``test_recorded_ptx.py`` (run afterwards, without
the simulator) compiles each kernel to PTX and assembles it with ``ptxas``.
"""
from __future__ import annotations

import hashlib
import json
import os

from minijax.backends.cuda import backend as cuda_backend
from minijax.backends.cuda.compile import kernel_signature
from minijax.backends.cuda.writer import GPU_LAUNCH, generate_module

ENV = "MINIJAX_RECORD_CUDA"


def record(plan, name: str, directory: str) -> None:
    """Write the GPU version of ``plan``'s module and its kernels' signatures."""
    module = generate_module(plan, name, GPU_LAUNCH)
    digest = hashlib.sha256(module.source.encode()).hexdigest()[:24]
    kernels = [{"name": k.name, "signature": [[str(t.dtype), t.ndim]
                                              for t in kernel_signature(k)]}
               for k in module.kernels]
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"cuda_{digest}.py"), "w") as f:
        f.write(module.source)
    with open(os.path.join(directory, f"cuda_{digest}.json"), "w") as f:
        json.dump({"name": name, "kernels": kernels}, f)


def install() -> None:
    """Record every lowering of this process, if ``MINIJAX_RECORD_CUDA`` names a directory."""
    directory = os.environ.get(ENV)
    if not directory or getattr(cuda_backend.NumbaCudaBackend.lower, "_recording", False):
        return
    lower = cuda_backend.NumbaCudaBackend.lower

    def recording_lower(self, closed_jaxpr, *, name, **options):
        lowering = lower(self, closed_jaxpr, name=name, **options)
        record(lowering.plan, name, directory)
        return lowering
    recording_lower._recording = True
    cuda_backend.NumbaCudaBackend.lower = recording_lower
