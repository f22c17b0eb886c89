"""Chapter 09 tests: helpers to jit on the Numba backend and inspect the result.

(The session-wide temporary compile cache is set up in ``tests/conftest.py``.)
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import minijax
import minijax.backends.cpu as numba_cpu


@pytest.fixture
def cache_dir(_compile_cache_dir):
    """The session's temporary compile cache directory."""
    return _compile_cache_dir


@pytest.fixture
def numba_compiler():
    """The test is about Numba's compile of the kernel source (its cache, its
    dispatcher, its passes): Numba compiles, not minijax's own translator."""
    old = minijax.config.read("minijax_cpu_compiler")
    minijax.config.update("minijax_cpu_compiler", "numba")
    yield
    minijax.config.update("minijax_cpu_compiler", old)


def cpu_jit(f, **kw):
    """``jit`` on the Numba backend, named explicitly (JAX deprecates ``backend=``)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend="cpu", **kw)


def lowering_of(jitted, *args):
    return jitted.lower(*args)._lowering


def kernel_source(jitted, *args) -> str:
    """The generated kernel module alone (``as_text()`` appends the shared helpers it imports)."""
    lowering = lowering_of(jitted, *args)
    return getattr(lowering, "source", None) or lowering.as_text()  # (a fallback: the jaxpr)


def is_fallback(jitted, *args) -> bool:
    return isinstance(lowering_of(jitted, *args), numba_cpu.FallbackLowering)


def outputs_by_name(jitted, names, x, keep: int | None = None) -> dict:
    """``jitted(x)``'s outputs, one per name, as NumPy arrays (their first ``keep``
    elements only, when given)."""
    return {name: np.asarray(out)[:keep] for name, out in zip(names, jitted(x))}


def padded(x, size: int) -> np.ndarray:
    """The float32 points ``x`` padded with NaN to ``size`` elements: a sweep
    kernel evaluated at a few points keeps its one shape (one compile)."""
    return np.concatenate([np.asarray(x, np.float32), np.full(size - len(x), np.nan, np.float32)])


def rounded(fn, x) -> np.ndarray:
    """``fn`` computed in float64 at ``x`` and rounded once to float32: the
    correctly rounded result the compiled helpers are measured against."""
    with np.errstate(all="ignore"):
        return fn(np.asarray(x, np.float64)).astype(np.float32)


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
