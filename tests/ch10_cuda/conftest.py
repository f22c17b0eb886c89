"""Chapter 10 tests: run twice by ``make test``.

- Without the simulator (the ordinary run): ``test_ptx.py`` compiles every
  kernel of :data:`programs.PROGRAMS` to PTX and assembles it with ``ptxas``
  (no GPU needed, only the ``cuda`` extra); the simulator tests skip.
- With ``NUMBA_ENABLE_CUDASIM=1`` (set before Python starts, as Numba reads
  it at import): the simulator tests run the kernels, on tiny arrays, and
  compare with NumPy and with the CPU backend; the PTX tests skip (the
  simulator has no ``compile_ptx``).

- On a real GPU, with ``MINIJAX_TEST_GPU=1`` (``make test-cuda-gpu``): the
  kernels run on the GPU instead of the simulator, and the PTX tests run too
  (for the GPU's own compute capability where they ask for it).

Everything skips when the ``cuda`` extra is not installed.
"""
import importlib.util
import os
import warnings

import pytest

import minijax

HAVE_CUDA_EXTRA = importlib.util.find_spec("numba_cuda") is not None
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

needs_extra = pytest.mark.skipif(not HAVE_CUDA_EXTRA, reason="the cuda extra is not installed")
REAL_GPU = os.environ.get("MINIJAX_TEST_GPU", "0") not in ("", "0") and not SIMULATOR
RUNS_KERNELS = SIMULATOR or REAL_GPU

runs_kernels = pytest.mark.skipif(
    not RUNS_KERNELS, reason="runs kernels: on the CUDA simulator (NUMBA_ENABLE_CUDASIM=1, "
    "make test does) or on a GPU (MINIJAX_TEST_GPU=1, make test-cuda-gpu)")
simulator_only = pytest.mark.skipif(
    not SIMULATOR, reason="what the CUDA simulator does: NUMBA_ENABLE_CUDASIM=1 (make test does)")
gpu_only = pytest.mark.skipif(
    not REAL_GPU, reason="what a real GPU does: MINIJAX_TEST_GPU=1 (make test-cuda-gpu)")
ptx_only = pytest.mark.skipif(
    SIMULATOR, reason="the CUDA simulator compiles no PTX (run without NUMBA_ENABLE_CUDASIM)")
no_gpu_only = pytest.mark.skipif(
    RUNS_KERNELS, reason="what a machine without a GPU does")


if HAVE_CUDA_EXTRA:
    from tests.ch10_cuda import kernel_record
    kernel_record.install()  # MINIJAX_RECORD_CUDA=<dir>: the PTX check's input


def cuda_jit(f, **kw):
    """``jit`` on the CUDA backend, named explicitly (JAX deprecates ``backend=``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend="cuda", **kw)


def interpreted(f, **kw):
    """``jit`` on chapter 06's interpreter: the reference the CUDA results must match."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend="interpreter", **kw)


def pytest_collection_modifyitems(config, items):
    """On the simulator a kernel runs on NumPy scalars, which warn where integer
    arithmetic wraps (a GPU wraps silently, as XLA and the CPU backend do)."""
    if SIMULATOR:
        for item in items:
            if "ch10_cuda" in str(item.fspath):
                item.add_marker(pytest.mark.filterwarnings(
                    "ignore:overflow encountered:RuntimeWarning"))
