"""Chapter 09 — one BLAS thread inside a parallel loop.

(Most float32 products no longer reach OpenBLAS: :mod:`.small_gemm`, our own
product, computes them on the calling thread, and passes only the biggest on
to BLAS. What follows is about those, and about the blocks of columns a big
product is cut into, which both share.)

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

**Every product of a kernel runs on one BLAS thread, in blocks fixed by its
shape** (:func:`column_blocks`). OpenBLAS on two threads cuts a product into
other pieces than on one, and the edges of its pieces are summed in another
order (its micro-kernel has special paths for the last rows and columns of
a piece): on the project's 2-core machine about 8% of the elements of the
digits MLP's products (100x256 @ 256x256) changed their last bits between one
and two threads. The thread budget gives OpenBLAS fewer threads when the
machine is busy, so a jitted function's bits depended on the load. Now a
product runs whole on one thread; a very big one (:data:`BLOCK_WORK`) is cut
by the kernel itself, into blocks of columns of the output whose number
depends on the shapes alone, run in a ``prange`` loop, each block one
single-threaded sgemm: the threads (Numba's, fitted to the free cores) only
decide which block runs where, never what is summed with what. Cutting the
*columns* costs one thread little (2% for 2 blocks of the MLP's 100x256 @
256x256: each block packs its own columns of the right operand, and the left
one again); cutting the rows would pack the whole right operand once per
block (15-20%).

The price: on an idle 2-core machine OpenBLAS used to run the MLP's
products on both cores; they now take one (the products of the MLP step
took about 450 us on one thread, 370-400 on two). Running every product in
blocks on both cores would win that back, but each ``prange`` loop costs
compiling (see :data:`BLOCK_WORK`).
"""
from __future__ import annotations

import ctypes
import glob
import os

import llvmlite.binding as llvm

__all__ = ["SYMBOL", "have_local_threads", "get_threads", "set_threads", "default_threads", "column_blocks",
           "BLOCK_WORK", "MAX_BLOCKS", "MIN_BLOCK_COLUMNS", "COLUMN_ALIGN"]

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


def get_threads() -> int:
    """OpenBLAS's thread count for the next products (1 without a setter)."""
    return int(_getter()) if _getter is not None else 1


def set_threads(n: int) -> int:
    """Ask OpenBLAS for ``n`` threads in the products that follow; the previous count.

    In SciPy's OpenBLAS (a pthreads build) this count is the whole process's,
    whichever thread sets it, despite the function's name.
    """
    return _function(n) if have_local_threads else 0


#: OpenBLAS's own thread count: the most :func:`set_threads` is ever asked for.
default_threads = _default_threads()
_getter = None if not have_local_threads else next(
    (getattr(_library, name) for name in ("scipy_openblas_get_num_threads",
                                          "openblas_get_num_threads")
     if getattr(_library, name, None) is not None), None)


# =============================================================================
# A product's blocks: a function of its shape alone
# =============================================================================
#: A product with fewer multiply-adds than this is one block: one thread, no
#: ``prange``. Not for the thread start (a microsecond) but for the compile:
#: Numba compiles each ``prange`` loop as a function of its own, about 0.9 s
#: on the project's 2-core machine (the digits MLP's step with its five
#: products in blocks took 11 s to compile instead of 7.5). 2**24 multiply-adds
#: take about 0.25 ms on one thread: a second core saves a tenth of a
#: millisecond per call, worth a second of compiling for a long computation;
#: the MLP's products (at most 6.5 million) run whole, on one thread.
BLOCK_WORK = 1 << 24
#: At most this many blocks per product (a power of two), ...
MAX_BLOCKS = 8
#: ... each at least this many columns wide (each block packs the left operand
#: again: measured on the digits MLP's 100x256 @ 256x256 on one thread, 4 blocks
#: of 64 columns cost 8% more than one call, 2 blocks of 128 about 2%) ...
MIN_BLOCK_COLUMNS = 128
#: ... and a multiple of this many (sgemm's widest micro-kernel takes 16
#: columns at a time: a block edge elsewhere adds an edge path mid-matrix).
COLUMN_ALIGN = 16


def column_blocks(m: int, n: int, k: int) -> tuple[int, int]:
    """How a float32 product ``(m, k) @ (k, n)`` is cut: ``(blocks, width)``, the
    output's ``n`` columns in ``blocks`` blocks of ``width`` (the last one may be
    narrower). One block, ``(1, n)``, for a small product.

    The answer depends on the shape alone, never on the machine's load nor its
    cores, so the bits of a jitted product do not either: one block per
    ``BLOCK_WORK`` multiply-adds, rounded down to a power of two, at most
    ``MAX_BLOCKS`` and at most one per ``MIN_BLOCK_COLUMNS`` columns.

    >>> column_blocks(100, 256, 256)   # 6.5 million multiply-adds: one block
    (1, 256)
    >>> column_blocks(256, 512, 512)   # 67 million: 4 blocks of 128 columns
    (4, 128)
    >>> column_blocks(1000, 1024, 1000)
    (8, 128)
    >>> column_blocks(100, 10, 256)    # 10 columns: one block
    (1, 10)
    """
    blocks = min(MAX_BLOCKS, n // MIN_BLOCK_COLUMNS, (m * n * k) // BLOCK_WORK)
    if blocks < 2:
        return 1, n
    blocks = 1 << (blocks.bit_length() - 1)
    width = -(-n // blocks)
    width = -(-width // COLUMN_ALIGN) * COLUMN_ALIGN
    return -(-n // width), width
