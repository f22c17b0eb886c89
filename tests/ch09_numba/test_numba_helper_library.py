"""The helper module all kernels share (``backends/cpu/helpers.helper_library_source``).

The scalar rules of the transcendental functions call small ``@njit``
helpers (``_exp32``, ``_tanh32``, ``_sin_end`` ...). Kernels import them from
one generated module instead of each carrying a copy, so a helper is compiled
once per process (and once per machine, through Numba's disk cache), not once
per kernel. Results are checked against NumPy.
"""
import re
import sys

import numpy as np

import minijax.numpy as jnp
from minijax.backends.cpu import compile as cpu_compile
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback, run_script

X = np.linspace(-3, 3, 101, dtype=np.float32)


def _imports(src: str) -> tuple[str, set[str]]:
    found = re.search(r"^from (minijax_helpers_\w+) import (.*)$", src, re.M)
    assert found, src
    return found.group(1), set(found.group(2).split(", "))


def test_two_kernels_share_one_compiled_helper():
    f = cpu_jit(lambda x: jnp.exp(x) * 2.0)
    g = cpu_jit(lambda x: jnp.exp(-x) + jnp.tanh(x))
    for jitted in (f, g):
        assert not is_fallback(jitted, X)
    module_f, names_f = _imports(kernel_source(f, X))
    module_g, names_g = _imports(kernel_source(g, X))
    assert module_f == module_g and "_exp32" in names_f & names_g
    assert "def _exp32(" not in kernel_source(f, X)
    np.testing.assert_allclose(np.asarray(f(X)), np.exp(X.astype(np.float64)) * 2, rtol=2e-7)
    np.testing.assert_allclose(np.asarray(g(X)), np.exp(-X.astype(np.float64)) + np.tanh(X),
                               rtol=2e-7, atol=1e-7)
    helper = getattr(sys.modules[module_f], "_exp32")
    assert len(helper.signatures) == 1  # float32, compiled once for both kernels


def test_the_helper_module_holds_every_registered_helper_with_its_options():
    library = cpu_compile._HELPER_LIBRARY["source"]  # the module the kernels import
    for name in ("_sin_end", "_cos_end", "_rem_pio2_32", "_erf_inv_poly"):
        assert re.search(rf'@njit\([^)]*fastmath=\{{"contract"\}}\)\ndef {name}\(', library)
    # XLA's algorithms fuse exactly where they call fma32: no contraction flag
    for name in ("_exp32", "_tanh32", "_log32", "_erf32"):
        assert re.search(rf'@njit\([^)]*no_cfunc_wrapper=True\)\ndef {name}\(', library)
    assert "from minijax.backends.cpu.math_helpers import fma32" in library
    assert "parallel" not in library and "prange" not in library


def test_a_helper_written_for_one_plan_stays_in_the_kernel():
    """Sort helpers are written for the number of keys a plan needs, after the
    helper module was made: the kernel defines its own."""
    v = np.array([3.0, np.nan, -1.0, 2.0, -0.0, 0.0], np.float32)
    jitted = cpu_jit(lambda v: jnp.sort(v))
    src = kernel_source(jitted, v)
    assert "def _sort_perm_1(" in src
    assert "def _sort_perm_1(" not in cpu_compile._HELPER_LIBRARY["source"]
    np.testing.assert_array_equal(np.asarray(jitted(v)), np.sort(v))


_SCRIPT = """
import sys, warnings, numpy as np
warnings.simplefilter("ignore")
import minijax, minijax.numpy as jnp
minijax.config.update("minijax_cache_dir", sys.argv[1])
minijax.config.update("minijax_cpu_compiler", "numba")
minijax.config.update("minijax_default_backend", "cpu")
x = np.linspace(-3, 3, 11, dtype=np.float32)
outs = [minijax.jit(lambda x, k=k: jnp.tanh(x) * k)(x) for k in (1.0, 2.0)]
compiled = minijax.jit(lambda x: jnp.tanh(x) * 3.0).lower(x).compile()
print(compiled._executable.cache_hit, float(np.asarray(outs[1])[0]))
"""


def test_a_second_process_loads_kernels_and_helpers_from_the_disk_cache(tmp_path):
    cache = str(tmp_path / "cache")
    first = run_script(_SCRIPT, cache)
    assert first[0] == "False"
    libraries = [f for f in (tmp_path / "cache").iterdir() if f.name.startswith("minijax_helpers_")]
    assert len(libraries) == 1
    second = run_script(_SCRIPT, cache)
    assert second == ["True", first[1]]
    np.testing.assert_allclose(float(second[1]), np.tanh(-3.0) * 2, rtol=1e-6)
