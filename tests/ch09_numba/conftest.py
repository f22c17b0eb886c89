"""Chapter 09 tests: helpers to jit on the Numba backend and inspect the result.

(The session-wide temporary compile cache is set up in ``tests/conftest.py``.)
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
import minijax.backends.numba_cpu as numba_cpu


@pytest.fixture
def cache_dir(_compile_cache_dir):
    """The session's temporary compile cache directory."""
    return _compile_cache_dir


def cpu_jit(f, **kw):
    """``jit`` on the Numba backend, named explicitly (JAX deprecates ``backend=``)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend="cpu", **kw)


def lowering_of(jitted, *args):
    return jitted.lower(*args)._lowering


def is_fallback(jitted, *args) -> bool:
    return isinstance(lowering_of(jitted, *args), numba_cpu.FallbackLowering)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many float32s apart: 0 for equal values (and for two NaNs)."""
    def ordered(v):  # the bit patterns, made monotonic in the value
        i = v.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    d = np.abs(ordered(np.where(nan_a, 0, a)) - ordered(np.where(nan_b, 0, b)))
    return np.where(nan_a | nan_b, np.where(nan_a & nan_b, 0, 2 ** 40), d)


def run_script(script: str, *args: str) -> list[str]:
    """Run ``script`` in a fresh Python process (this checkout on its path);
    its standard output, split into words."""
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                         text=True, env=env, check=True)
    return out.stdout.split()
