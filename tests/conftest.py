"""Shared pytest set-up: one marker per chapter, taken from the test's folder.

A test in ``tests/ch04_vmap/`` is marked ``ch04``, so ``pytest -m ch04`` (or
``make test-ch04``) runs one chapter. Tests outside chapter folders (the
layering and rule-coverage checks) carry no chapter marker.
"""
import os
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
# As MiniTorch runs one test suite on every backend, a test that runs jitted code
# asks for the ``jit_backend`` fixture, and runs twice: once with chapter 09's Numba
# backend ("cpu", the default) and once with chapter 06's interpreter. Its ids end in
# ``[cpu]`` / ``[interpreter]``; ``-k interpreter`` picks one. "Runs jitted code"
# means it compiles or runs an executable: it calls a jitted function (``jit``,
# ``@jit``, the samplers of ``minijax.random``...) or evaluates a jaxpr with a ``jit``
# equation in it (the inner jits of jnp functions inside an eager ``lax.while_loop``,
# ``eval_jaxpr``...). Tracing alone (``make_jaxpr``, ``grad``, ``vmap``) does not.
#
# Chapter 10: under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set before Python
# starts) the suite gains a third backend, "cuda": ``make test`` runs a chosen,
# fast subset of the shared suite with it (SIMULATOR_SUBSET in the Makefile).
# On a real GPU, ``MINIJAX_TEST_GPU=1`` (``make test-cuda-gpu``) does the same.
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
REAL_GPU = os.environ.get("MINIJAX_TEST_GPU", "0") not in ("", "0")
JIT_BACKENDS = ("cpu", "interpreter") + (("cuda",) if SIMULATOR or REAL_GPU else ())


@pytest.fixture(params=JIT_BACKENDS)
def jit_backend(request):
    """The name of the backend that is the default of ``jit`` during the test."""
    from minijax.backends.registry import default_backend_option
    with default_backend_option(request.param):
        yield request.param


@pytest.fixture(autouse=True, scope="session")
def _compile_cache_dir(tmp_path_factory):
    """One temporary compile cache for the session, so the user's cache stays clean."""
    import minijax
    path = tmp_path_factory.getbasetemp() / "minijax-cache"
    minijax.config.update("minijax_cache_dir", str(path))
    yield path
    minijax.config.update("minijax_cache_dir", None)


# --- no silent fallback ----------------------------------------------------------------
# A kernel a backend cannot lower (or Numba fails to compile) runs on the interpreter,
# so a program still runs; the backend says so through ``registry.report_fallback``.
# In the tests that would hide a missing or broken lowering behind the interpreter's
# right answer: a fallback fails the test, unless it is marked
# ``@pytest.mark.numba_fallback`` (the tests of the fallback itself, and the kernels
# that are known to fall back today).
_FALLBACKS = pytest.StashKey[list]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Collect the fallbacks reported from the test's set-up to its teardown."""
    from minijax.backends import registry
    fallbacks = item.stash[_FALLBACKS] = []

    def listener(backend, name, reason):
        fallbacks.append(f"jit({name}): {reason}")
    registry.add_fallback_listener(listener)
    try:
        return (yield)
    finally:
        registry.remove_fallback_listener(listener)


def _fail_on_fallbacks(item) -> None:
    fallbacks = item.stash.get(_FALLBACKS, None)
    if not fallbacks or item.get_closest_marker("numba_fallback") is not None:
        return
    reasons = "; ".join(dict.fromkeys(fallbacks))  # each once, in order
    fallbacks.clear()  # reported once: in the call, else in the teardown
    pytest.fail(f"a kernel ran on the interpreter: {reasons}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        result = yield
    except BaseException:  # the test failed (or skipped) already, for its own reason
        item.stash.get(_FALLBACKS, []).clear()
        raise
    _fail_on_fallbacks(item)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    _fail_on_fallbacks(item)
    return result
