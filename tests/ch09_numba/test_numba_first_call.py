"""The first call of a jitted function in a fresh process (issue 7, workload 5).

With a warm disk cache the first call only traces, writes the kernel source,
and loads Numba's machine code: no Numba compile of any function (not even
of Numba's own helpers such as ``np.empty``), and no Numba module imported
lazily (Numba's start-up happens at ``import minijax``). And the kernel is
compiled for one signature, which the calls then use: no second compile
when the arguments arrive as NumPy arrays, minijax arrays or Python scalars.
"""
import sys
import textwrap

import numpy as np

import minijax
import minijax.numpy as jnp

from tests.ch09_numba.conftest import cpu_jit, run_script

_SCRIPT = textwrap.dedent("""
    import sys, warnings, numpy as np
    warnings.simplefilter("ignore")
    import minijax, minijax.numpy as jnp
    from numba.core import event
    minijax.config.update("minijax_cache_dir", sys.argv[1])
    x = minijax.device_put(np.linspace(-2, 2, 7, dtype=np.float32))
    f = minijax.jit(lambda x, s: jnp.where(x > 0, x, jnp.exp(x) * s) - jnp.sum(x), backend="cpu")
    modules = set(sys.modules)
    compiles = event.RecordingListener()
    with event.install_listener("numba:compile", compiles):
        out = minijax.block_until_ready(f(x, 2.0))
    new_numba = sorted(m for m in set(sys.modules) - modules if m.startswith("numba"))
    print(len(compiles.buffer) // 2, len(new_numba), *np.asarray(out).tolist())
""")


def _first_call(cache: str) -> list[str]:
    return run_script(_SCRIPT, cache)


def test_a_warm_first_call_compiles_nothing_and_imports_no_numba_module(tmp_path):
    cache = str(tmp_path / "cache")
    cold = _first_call(cache)
    assert int(cold[0]) > 0                  # the entry function, its helpers, np.empty ...
    warm = _first_call(cache)
    assert warm[:2] == ["0", "0"]            # all loaded from the disk cache
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    expected = np.where(x > 0, x, np.exp(x) * 2) - x.sum()
    np.testing.assert_allclose([float(v) for v in warm[2:]], expected, rtol=1e-6, atol=1e-6)
    assert warm[2:] == cold[2:]


def test_numba_is_started_at_import():
    assert "numba" in sys.modules
    from numba.core.registry import cpu_target
    assert cpu_target.typing_context._registries  # the registries are installed


def _compiled_signatures(jitted, *args) -> int:
    executable = jitted.lower(*args).compile()._executable
    for _ in range(2):
        executable(*[minijax.device_put(a) for a in args])
    return len(executable.kernel.overloads)


def test_the_kernel_is_compiled_for_one_signature_only(numba_compiler):
    f = cpu_jit(lambda x, n, k: (x * n + k, jnp.sum(x)))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert _compiled_signatures(f, x, np.int32(3), 1.5) == 1
    out = f(minijax.device_put(x), 3, 1.5)       # a minijax array, Python scalars
    np.testing.assert_allclose(np.asarray(out[0]), x * 3 + 1.5)
    np.testing.assert_allclose(float(out[1]), 15.0)
