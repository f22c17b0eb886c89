"""Background compilation (``backends/cpu/tiered.py``): with ``minijax_background_compile``
on, a kernel missing from the disk cache runs on the interpreter while a child
process compiles it; calls switch to the compiled kernel once it is ready.
Results are checked against NumPy on both sides of the switch."""
import os

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.backends.cpu import backend as numba_cpu
from minijax.backends.cpu import compile as cpu_compile
from minijax.backends.interpreter import InterpreterExecutable
from minijax.backends.cpu.tiered import TieredExecutable, background_compile_option
from tests.ch09_numba.conftest import cpu_jit, lowering_of

# compiling in the background is for the kernels Numba compiles (ours compiles quickly)
pytestmark = pytest.mark.usefixtures("numba_compiler")

X = np.linspace(-2, 2, 1000, dtype=np.float32)


def f(x):
    return jnp.tanh(x) * 3.0 + jnp.sum(x * x)


def expected(x):
    x = x.astype(np.float64)
    return np.tanh(x) * 3 + np.sum(x * x)


def compile_with_background(fun, *args):
    lowering = lowering_of(cpu_jit(fun), *args)
    with background_compile_option(True):
        return numba_cpu.NumbaCPUBackend().compile(lowering)


def test_calls_run_interpreted_until_the_child_has_compiled(tmp_path):
    with _cache_dir(tmp_path):
        executable = compile_with_background(f, X)
    assert isinstance(executable, TieredExecutable)
    first = executable(X)[0]                      # interpreted, or compiled if it was quick
    np.testing.assert_allclose(np.asarray(first), expected(X), rtol=1e-5)
    compiled = executable.wait()                  # the child wrote the disk cache
    assert executable.ready and not isinstance(compiled, InterpreterExecutable)
    assert compiled.cache_hit                     # loaded, not compiled in this process
    np.testing.assert_allclose(np.asarray(executable(X)[0]), expected(X), rtol=1e-5)


def test_a_kernel_already_in_the_disk_cache_is_loaded_at_once(tmp_path):
    def g(x):
        return jnp.exp(x) - 0.25
    with _cache_dir(tmp_path):
        numba_cpu.NumbaCPUBackend().compile(lowering_of(cpu_jit(g), X))  # compiles, caches
        cpu_compile._modules.clear()
        executable = compile_with_background(g, X)
    assert not isinstance(executable, TieredExecutable)
    np.testing.assert_allclose(np.asarray(executable(X)[0]), np.exp(X) - 0.25, rtol=1e-6, atol=1e-6)


class _cache_dir:
    """Point the compile cache at a fresh directory for the block."""

    def __init__(self, path):
        self.path = str(path)

    def __enter__(self):
        self.old = cpu_compile.cache_dir_option.value
        minijax.config.update("minijax_cache_dir", self.path)

    def __exit__(self, *exc):
        minijax.config.update("minijax_cache_dir", self.old)
        assert os.listdir(self.path)
