"""Shared pytest set-up: one marker per chapter, taken from the test's folder.

A test in ``tests/ch04_vmap/`` is marked ``ch04``, so ``pytest -m ch04`` (or
``make test-ch04``) runs one chapter. Tests outside chapter folders (the
layering and rule-coverage checks) carry no chapter marker.
"""
import functools
import logging
import re

import pytest

_CHAPTER_DIR = re.compile(r"[/\\]tests[/\\]ch(\d\d)_")


def pytest_collection_modifyitems(config, items):
    for item in items:
        m = _CHAPTER_DIR.search(str(item.path))
        if m:
            item.add_marker(getattr(pytest.mark, f"ch{m.group(1)}"))


# Property tests stay small so the whole suite stays fast on two cores.
try:
    from hypothesis import settings

    # derandomize: the same examples every run, so CI never fails by chance
    settings.register_profile("minijax", max_examples=25, deadline=None, derandomize=True)
    settings.load_profile("minijax")
except ImportError:  # pragma: no cover
    pass


# --- one suite, every backend --------------------------------------------------------
# As MiniTorch runs one test suite on every backend, each test module of
# chapters 00-08 and 13 that uses ``jit`` runs twice: once with chapter 09's
# Numba backend ("cpu", the default) and once with chapter 06's interpreter.
# The test ids end in ``[cpu]`` / ``[interpreter]``; ``-k interpreter`` picks one.
JIT_BACKENDS = ("cpu", "interpreter")
_BACKEND_CHAPTERS = {f"{n:02d}" for n in range(9)} | {"13"}


def _runs_jitted_code(module) -> bool:
    return _file_runs_jitted_code(str(getattr(module, "__file__", "")))


@functools.lru_cache(maxsize=None)
def _file_runs_jitted_code(path: str) -> bool:
    """Read once per test file (pytest asks once per test function)."""
    m = _CHAPTER_DIR.search(path)
    if not m or m.group(1) not in _BACKEND_CHAPTERS:
        return False
    with open(path) as f:
        return "jit" in f.read()


def pytest_generate_tests(metafunc):
    if not _runs_jitted_code(metafunc.module):
        return
    if "jit_backend" not in metafunc.fixturenames:
        metafunc.fixturenames.append("jit_backend")
    metafunc.parametrize("jit_backend", JIT_BACKENDS)


@pytest.fixture(autouse=True)
def _use_jit_backend(request):
    """Make the test's ``jit_backend`` parameter (if any) the default backend of ``jit``."""
    callspec = getattr(request.node, "callspec", None)
    backend = callspec.params.get("jit_backend") if callspec else None
    if backend is None:
        yield None
        return
    from minijax.backends.registry import default_backend_option
    with default_backend_option(backend):
        yield backend


@pytest.fixture(autouse=True, scope="session")
def _compile_cache_dir(tmp_path_factory):
    """One temporary compile cache for the session, so the user's cache stays clean."""
    import minijax
    path = tmp_path_factory.getbasetemp() / "minijax-cache"
    minijax.config.update("minijax_cache_dir", str(path))
    yield path
    minijax.config.update("minijax_cache_dir", None)


class _CompileFailures(logging.Handler):
    """Collects the warnings the CPU backend logs when Numba fails on a kernel."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        if record.getMessage().startswith("minijax: Numba could not compile"):
            self.messages.append(record.getMessage().splitlines()[0])


@pytest.fixture(autouse=True)
def _no_silent_fallback(request):
    """A kernel Numba fails to compile runs on the interpreter, with a warning, so a
    program still runs. In the tests that would hide a lowering bug behind the
    interpreter's right answer: such a warning fails the test, unless it is marked
    ``@pytest.mark.numba_fallback`` (the tests of the fallback itself)."""
    handler = _CompileFailures()
    logger = logging.getLogger("minijax.backends.cpu.backend")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    if handler.messages and request.node.get_closest_marker("numba_fallback") is None:
        pytest.fail("Numba failed to compile a kernel (it ran on the interpreter): "
                    + "; ".join(handler.messages), pytrace=False)
