"""LLVM optimizes a kernel once (``backends/cpu/llvm_passes.py``): while a minijax
kernel compiles, Numba's per-function -O3 pipeline (stage 1) runs at -O0, and the
module pipeline after linking (stage 2) keeps Numba's level; the user's own
``numba.njit`` functions compile as Numba does by default. Results are checked
against NumPy."""
import numba
import numpy as np
import pytest
from numba.core import codegen

import minijax
import minijax.numpy as jnp
from minijax.backends.cpu import llvm_passes
from tests.ch09_numba.conftest import cpu_jit

# these tests are about Numba's compile of a kernel: Numba compiles them
pytestmark = pytest.mark.usefixtures("numba_compiler")


@pytest.fixture
def levels(monkeypatch):
    """The optimization level of every LLVM pipeline Numba builds meanwhile:
    ("function" or "module", level)."""
    seen = []
    function_pm = codegen.JITCPUCodegen._function_pass_manager
    module_pm = codegen.JITCPUCodegen._module_pass_manager

    def spy_function(self, **kw):
        seen.append(("function", kw.get("opt", numba.config.OPT)))
        return function_pm(self, **kw)

    def spy_module(self, **kw):
        if kw.get("cost") != "cheap":  # (the cheap pre-pass is always at -O0)
            seen.append(("module", kw.get("opt", numba.config.OPT)))
        return module_pm(self, **kw)

    monkeypatch.setattr(codegen.JITCPUCodegen, "_function_pass_manager", spy_function)
    monkeypatch.setattr(codegen.JITCPUCodegen, "_module_pass_manager", spy_module)
    return seen


@pytest.fixture
def fresh_cache(tmp_path, cache_dir):
    """An empty compile cache, so that the kernels really compile."""
    minijax.config.update("minijax_cache_dir", str(tmp_path))
    minijax.backends.cpu.clear_cache()
    yield
    minijax.config.update("minijax_cache_dir", str(cache_dir))


def test_numbas_stage_1_is_wrapped():
    assert llvm_passes.installed()
    assert getattr(codegen.CPUCodeLibrary._optimize_functions, "_minijax", False)


def test_a_kernel_runs_the_function_pipeline_at_O0_and_the_module_pipeline_at_numbas_level(
        levels, fresh_cache):
    x = np.linspace(-3, 3, 4000, dtype=np.float32).reshape(40, 100)
    out = cpu_jit(lambda a: jnp.sum(jnp.exp(a) * 2.0 + a, axis=1))(x)
    np.testing.assert_allclose(np.asarray(out),
                               np.sum(np.exp(x.astype(np.float64)) * 2 + x, axis=1), rtol=2e-6)
    function_levels = {lvl for stage, lvl in levels if stage == "function"}
    module_levels = {lvl for stage, lvl in levels if stage == "module"}
    # the kernel's own functions at -O0; the shared helpers it compiles (exp here,
    # from an empty cache) keep Numba's level, or stage 2 would not inline them
    assert function_levels == {llvm_passes.FUNCTION_PASS_LEVEL, numba.config.OPT}
    assert llvm_passes.FUNCTION_PASS_LEVEL == 0
    assert module_levels == {numba.config.OPT}


def test_a_fused_loop_with_helpers_still_vectorizes(fresh_cache):
    # a helper optimized at -O0 stayed a call, and the loop scalar (float32 log1p)
    f = cpu_jit(lambda a: jnp.log1p(a) + jnp.tanh(a) * jnp.exp(a))
    x = np.linspace(0.0, 3.0, 1000, dtype=np.float32)
    ir = f.lower(x).compile().as_text()
    calls = {line.split("@")[1].split("(")[0] for line in ir.splitlines()
             if " call " in line and "@" in line}
    assert not [c for c in calls if "minijax_helpers" in c], calls
    assert any(f"<{n} x float>" in ir for n in (4, 8, 16))


def test_the_users_own_numba_functions_compile_as_numba_does(levels):
    @numba.njit
    def user_function(a):
        return a * 2.0 + 1.0

    np.testing.assert_array_equal(user_function(np.arange(3.0)), [1.0, 3.0, 5.0])
    assert levels and {lvl for _, lvl in levels} == {numba.config.OPT}


def test_the_level_is_per_thread_and_nests():
    assert not llvm_passes._in_kernel_compile()
    with llvm_passes.one_optimization():
        with llvm_passes.one_optimization():
            assert llvm_passes._in_kernel_compile()
        assert llvm_passes._in_kernel_compile()
    assert not llvm_passes._in_kernel_compile()
