"""Chapter 09 — one BLAS thread inside a parallel loop.

OpenBLAS runs a matrix product on a pool of threads of its own. Called from
a kernel's ``prange`` loop, where Numba's OpenMP threads already occupy every
core, each call would wake that pool too: more threads than cores, spinning
against each other (on this project's 2-core machine, with other programs
running, a convolution's products took 16 ms instead of 0.7). A kernel that
splits its work over threads itself therefore asks each call for one thread.

OpenBLAS (0.3.27 and later, as SciPy ships it) has a setting for that,
``openblas_set_num_threads_local(n)``, which returns the previous value.
Despite its name, in SciPy's build (OpenBLAS on pthreads, not OpenMP) the
count it sets is the whole process's, not the calling thread's: a second
thread calling it reads back the first one's value. Kernels call it by the
name ``minijax_blas_threads_local``, whose address this module gives LLVM at
import (so kernels that use it can be cached on disk, as for
:mod:`.host_calls`). With another BLAS (no such function) the name points to
a function that does nothing. Python sets the same count with
:func:`set_threads` (:mod:`.thread_budget` does, before every kernel call).
"""
from __future__ import annotations

import ctypes
import glob
import os

import llvmlite.binding as llvm

__all__ = ["SYMBOL", "have_local_threads", "set_threads", "default_threads"]

#: The C name kernels call: ``int minijax_blas_threads_local(int n)``.
SYMBOL = "minijax_blas_threads_local"

_PROTOTYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)


def _openblas_library():
    """SciPy's OpenBLAS (a ``ctypes.CDLL``) if it has ``openblas_set_num_threads_local``."""
    try:
        import scipy
        import scipy.linalg  # noqa: F401  (loads SciPy's BLAS)
    except ImportError:
        return None
    folder = os.path.join(os.path.dirname(scipy.__file__), os.pardir, "scipy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
        try:
            library = ctypes.CDLL(path)
            library.openblas_set_num_threads_local  # noqa: B018  (raises if it is missing)
            return library
        except (OSError, AttributeError):
            continue
    return None


def _openblas_function():
    """SciPy's OpenBLAS's ``openblas_set_num_threads_local``, or ``None``."""
    return None if _library is None else _library.openblas_set_num_threads_local


@_PROTOTYPE
def _no_op(n):
    return 0


_library = _openblas_library()
_function = _openblas_function()
#: Does the BLAS have a thread-local thread count (else the calls do nothing)?
have_local_threads = _function is not None
llvm.add_symbol(SYMBOL, ctypes.cast(_function if have_local_threads else _no_op,
                                    ctypes.c_void_p).value)


# =============================================================================
# From Python: the count for the next products (thread_budget.py)
# =============================================================================
def _default_threads() -> int:
    """OpenBLAS's own thread count (``OPENBLAS_NUM_THREADS``, else its core count)."""
    if not have_local_threads:
        return 1
    for name in ("scipy_openblas_get_num_threads", "openblas_get_num_threads"):
        getter = getattr(_library, name, None)
        if getter is not None:
            return max(1, int(getter()))
    return max(1, os.cpu_count() or 1)


def set_threads(n: int) -> int:
    """Ask OpenBLAS for ``n`` threads in the products that follow; the previous count.

    In SciPy's OpenBLAS (a pthreads build) this count is the whole process's,
    whichever thread sets it, despite the function's name.
    """
    return _function(n) if have_local_threads else 0


#: OpenBLAS's own thread count: the most :func:`set_threads` is ever asked for.
default_threads = _default_threads()
