"""Chapter 10 tests: run twice by ``make test``.

- Without the simulator (the ordinary run): ``test_ptx.py`` compiles every
  kernel of :data:`programs.PROGRAMS` to PTX and assembles it with ``ptxas``
  (no GPU needed, only the ``cuda`` extra); the simulator tests skip.
- With ``NUMBA_ENABLE_CUDASIM=1`` (set before Python starts, as Numba reads
  it at import): the simulator tests run the kernels, on tiny arrays, and
  compare with NumPy and with the CPU backend; the PTX tests skip (the
  simulator has no ``compile_ptx``).

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
simulator_only = pytest.mark.skipif(
    not SIMULATOR, reason="run on the CUDA simulator: NUMBA_ENABLE_CUDASIM=1 (make test does)")
ptx_only = pytest.mark.skipif(
    SIMULATOR, reason="the CUDA simulator compiles no PTX (run without NUMBA_ENABLE_CUDASIM)")


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
