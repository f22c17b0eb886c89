"""Chapter 09 tests: every test compiles into a temporary cache directory."""
import pytest

import minijax
import minijax.backends.numba_cpu as numba_cpu


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory, monkeypatch):
    """One temporary compile cache for the session, so the user's cache stays clean."""
    path = tmp_path_factory.getbasetemp() / "minijax-cache"
    minijax.config.update("minijax_cache_dir", str(path))
    yield path
    minijax.config.update("minijax_cache_dir", None)


def cpu_jit(f, **kw):
    """``jit`` on the Numba backend (opt-in while the interpreter is the default)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return minijax.jit(f, backend="cpu", **kw)


def lowering_of(jitted, *args):
    return jitted.lower(*args)._lowering


def is_fallback(jitted, *args) -> bool:
    return isinstance(lowering_of(jitted, *args), numba_cpu.FallbackLowering)
