"""Chapter 09 — one BLAS thread inside a parallel loop.

OpenBLAS runs a matrix product on a pool of threads of its own. Called from
a kernel's ``prange`` loop, where Numba's OpenMP threads already occupy every
core, each call would wake that pool too: more threads than cores, spinning
against each other (on this project's 2-core machine, with other programs
running, a convolution's products took 16 ms instead of 0.7). A kernel that
splits its work over threads itself therefore asks each call for one thread.

OpenBLAS (0.3.27 and later, as SciPy ships it) has a *thread-local* setting
for that, ``openblas_set_num_threads_local(n)``, which returns the previous
value: the calling thread gets one BLAS thread, every other thread keeps its
own. Kernels call it by the name ``minijax_blas_threads_local``, whose address
this module gives LLVM at import (so kernels that use it can be cached on
disk, as for :mod:`.host_calls`). With another BLAS (no such function) the
name points to a function that does nothing.
"""
from __future__ import annotations

import ctypes
import glob
import os

import llvmlite.binding as llvm

__all__ = ["SYMBOL", "have_local_threads"]

#: The C name kernels call: ``int minijax_blas_threads_local(int n)``.
SYMBOL = "minijax_blas_threads_local"

_PROTOTYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)


def _openblas_function():
    """SciPy's OpenBLAS's ``openblas_set_num_threads_local``, or ``None``."""
    try:
        import scipy
        import scipy.linalg  # noqa: F401  (loads SciPy's BLAS)
    except ImportError:
        return None
    folder = os.path.join(os.path.dirname(scipy.__file__), os.pardir, "scipy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
        try:
            return ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
    return None


@_PROTOTYPE
def _no_op(n):
    return 0


_function = _openblas_function()
#: Does the BLAS have a thread-local thread count (else the calls do nothing)?
have_local_threads = _function is not None
llvm.add_symbol(SYMBOL, ctypes.cast(_function if have_local_threads else _no_op,
                                    ctypes.c_void_p).value)
