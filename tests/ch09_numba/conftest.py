"""Chapter 09 tests: helpers to jit on the Numba backend and inspect the result.

(The session-wide temporary compile cache is set up in ``tests/conftest.py``.)
"""
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
