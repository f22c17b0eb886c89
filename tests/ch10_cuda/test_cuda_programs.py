"""Chapter 10: every program of ``programs.py`` on the CUDA target.

On the simulator (or a GPU) each runs and matches NumPy and the
interpreter; without it, each kernel compiles to PTX (compute capability 8.0) and ``ptxas``
assembles it, which proves it valid for a real GPU (the simulator does no
type checking: a kernel it runs may still not compile)."""
import numpy as np
import pytest

from minijax.tree_util import tree_leaves

from tests.ch10_cuda.conftest import cuda_jit, interpreted, needs_extra, ptx_only, runs_kernels
from tests.ch10_cuda.programs import PROGRAMS

pytestmark = needs_extra

IDS = [p[0] for p in PROGRAMS]


def _close(got, want, dtype):
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, want)


@runs_kernels
@pytest.mark.parametrize("name, f, args, numpy_f", PROGRAMS, ids=IDS)
def test_runs_on_the_gpu(name, f, args, numpy_f):
    out = cuda_jit(f)(*args)
    leaves = tree_leaves(out)
    cpu = tree_leaves(interpreted(f)(*args))  # chapter 06's reference semantics
    if numpy_f is None:  # random bits, float16 roundings: the interpreter's (JAX's)
        wants = [np.asarray(c) for c in cpu]
    else:
        wants = numpy_f(*args)
        wants = list(wants) if isinstance(wants, tuple) else [wants]
    assert len(leaves) == len(wants) == len(cpu)
    for got, want, on_cpu in zip(leaves, wants, cpu):
        assert got.device.platform == "gpu"
        assert got.dtype == on_cpu.dtype and got.shape == np.shape(want)
        _close(np.asarray(got), np.asarray(want, dtype=got.dtype), got.dtype)
        _close(np.asarray(got), np.asarray(on_cpu), got.dtype)


@ptx_only
@pytest.mark.parametrize("name, f, args, numpy_f", PROGRAMS, ids=IDS)
def test_every_kernel_compiles_to_ptx_and_assembles(name, f, args, numpy_f):
    from minijax.backends.cuda import compile as compiler
    executable = cuda_jit(f).lower(*args).compile()._executable
    kernels = executable.lowering.module.kernels
    assert kernels
    for kernel in kernels:
        ptx = compiler.kernel_ptx(executable.module, kernel, (8, 0))
        assert ".entry" in ptx and ".target sm_80" in ptx
        report = compiler.assemble(ptx, (8, 0))
        assert "Used" in report  # ptxas -v: registers (and shared memory) of the kernel


@ptx_only
@pytest.mark.parametrize("name", ["selu", "softmax", "batched_matmul", "scatter_add", "sort"])
def test_kernels_assemble_for_hopper_too(name):
    """The same kernels for compute capability 9.0 (an H100), through ptxas -arch=sm_90."""
    from minijax.backends.cuda import compile as compiler
    _, f, args, _ = next(p for p in PROGRAMS if p[0] == name)
    executable = cuda_jit(f).lower(*args).compile()._executable
    for kernel in executable.lowering.module.kernels:
        ptx = compiler.kernel_ptx(executable.module, kernel, (9, 0))
        assert ".target sm_90" in ptx
        assert "Used" in compiler.assemble(ptx, (9, 0))
