"""Chapter 10 — compiling the CUDA module: loading it, and PTX.

The module is written to the compile cache by the hash of its source and
imported (:func:`minijax.backends.cpu.compile.load_module`, the CPU's own
cache): the same source is the same file, in every process. Each
``@cuda.jit`` kernel is compiled by Numba on its first launch, for the
types it is launched with.

``compile().as_text()`` shows *PTX*, the GPU's portable assembly, which
Numba makes through NVIDIA's NVVM (:func:`kernel_ptx`). That needs no GPU,
only the ``cuda`` extra (``numba-cuda[cu12]``: NVVM, libdevice and ``ptxas``
come in its wheels), so CI compiles every kernel of the test suite to PTX
and assembles it with ``ptxas`` (:func:`assemble`): a kernel that the
simulator runs but a real GPU would refuse is caught there.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import tempfile

import numpy as np

from minijax.backends.cpu.compile import load_module
from minijax.backends.cpu.syntax import is_threefry_key
from minijax.backends.cuda.platform import numba_cuda, simulator

__all__ = ["load_module", "kernel_signature", "kernel_ptx", "assemble", "ptxas_path",
           "DEFAULT_CC"]

#: The compute capability PTX is written for when no GPU says its own (an A100's).
DEFAULT_CC = (8, 0)


def kernel_signature(kernel) -> tuple:
    """The Numba types of a kernel's parameters: C-contiguous device arrays (a
    scalar is a one-element array), read-only where the kernel only reads."""
    from numba import from_dtype, types
    sig = []
    for v in kernel.params:
        if is_threefry_key(v.aval.dtype):  # key data: uint32, one more axis
            sig.append(types.Array(types.uint32, len(v.aval.shape) + 1, "C"))
        else:
            sig.append(types.Array(from_dtype(np.dtype(v.aval.dtype)),
                                   max(1, len(v.aval.shape)), "C"))
    return tuple(sig)


def kernel_ptx(module, kernel, cc=DEFAULT_CC) -> str:
    """The PTX of one kernel of a loaded module, for compute capability ``cc``."""
    if simulator():
        raise RuntimeError("the CUDA simulator compiles no PTX: run without "
                           "NUMBA_ENABLE_CUDASIM=1 (the cuda extra is enough, no GPU needed)")
    dispatcher = getattr(module, kernel.name)
    ptx, _ = numba_cuda().compile_ptx(dispatcher.py_func, kernel_signature(kernel), cc=cc)
    return ptx


def ptxas_path() -> str | None:
    """``ptxas`` from the cuda extra's NVIDIA wheels (or the system's), if present."""
    try:
        import nvidia.cuda_nvcc
        path = pathlib.Path(list(nvidia.cuda_nvcc.__path__)[0]) / "bin" / "ptxas"
        if path.exists():
            return str(path)
    except ImportError:
        pass
    from shutil import which
    return which("ptxas")


def assemble(ptx: str, cc=DEFAULT_CC) -> str:
    """Assemble PTX for ``sm_<cc>`` with ``ptxas -v``; its report (registers, shared
    memory). Raises ``RuntimeError`` with ptxas's message if it refuses the PTX."""
    ptxas = ptxas_path()
    if ptxas is None:
        raise RuntimeError("ptxas not found: install the cuda extra (numba-cuda[cu12])")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        run = subprocess.run([ptxas, f"-arch=sm_{cc[0]}{cc[1]}", "-v", src, "-o",
                              os.path.join(tmp, "kernel.cubin")],
                             capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"ptxas refused the PTX:\n{run.stderr}")
    return run.stderr
