"""Chapter 09 — compiling a kernel module, and the on-disk cache that makes it fast.

The writer gives Python source; this module turns it into machine code:

1. The module is written to the compile cache directory under a name made
   of the hash of its source (and Numba's and Python's versions) and
   imported as a real module: Numba's ``cache=True`` cannot cache source
   given to ``exec``, but it caches an imported file's functions beside it.
2. Numba compiles the entry function for the argument types of the plan
   (:func:`kernel_signature`), LLVM optimizing it once rather than twice
   (:mod:`.llvm_passes`). A second process finds the file and Numba's
   cached machine code, and loads the kernel in milliseconds.
3. All kernels import their helpers from ONE shared helper module, written
   and cached the same way (:func:`set_up_helper_library`).

Numba itself is started when this module is imported (:func:`_start_numba`),
as ``import jax`` loads XLA, so that a first call with a warm cache costs
milliseconds.
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
import threading

# Kernels with ``prange`` loops run on Numba's OpenMP threads; matrix products
# run on OpenBLAS's threads. By default OpenMP's threads spin for a while after
# each parallel loop (300,000 rounds), waiting for the next one, and on a
# 2-core machine they then steal the cores OpenBLAS needs: a 1000x1000 matmul
# followed by a prange loop took 20 ms instead of 10 (bench/bench_w3_dot.py;
# the MLP step of bench_w4 28 ms instead of 5). Sleeping at once (a passive
# wait) cures that but makes every parallel loop pay for waking its threads
# (selu on 1e6 floats: 0.45 ms against 0.36). A *short* spin of 1,000 rounds
# (libgomp's own choice when threads outnumber cores) keeps the quick hand-over
# and gives the cores back before BLAS needs them. libgomp reads this when
# Numba first loads it (the first parallel kernel), so setting it here, at
# import, is early enough; a user's own setting wins.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = "1000"

import numba  # noqa: E402  (after the OpenMP setting above; see _start_numba)
from numba import from_dtype, types  # noqa: E402

from minijax.backends.cpu.helpers import helper_library_source, use_helper_library  # noqa: E402
from minijax.backends.cpu import small_gemm  # noqa: E402
from minijax.backends.cpu.llvm_passes import HELPER_MODULE_PREFIX, one_optimization  # noqa: E402
from minijax.backends.cpu.syntax import is_half, is_threefry_key  # noqa: E402
from minijax.config import optional_string_state  # noqa: E402


__all__ = ["cache_dir", "clear_cache", "load_module", "compile_kernel", "kernel_signature",
           "set_up_helper_library", "helper_module", "forget"]

logger = logging.getLogger(__name__)


def _start_numba() -> None:
    """Numba's own start-up, done at import, as ``import jax`` loads XLA.

    Numba fills its typing and lowering registries (a few hundred modules of
    rules for Python and NumPy) lazily, on the first compile *or cache load*
    of a process: 0.2–0.4 s here. Done now, a program's first ``jit`` call
    only does its own work: compile, or load the machine code from the disk
    cache (then a few milliseconds: ``bench/bench_w5_first_call.py``).
    ``refresh`` is incremental: rules registered later are still picked up.
    """
    from numba.core.registry import cpu_target
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


_start_numba()


cache_dir_option = optional_string_state(
    "minijax_cache_dir", None,
    "Directory of the on-disk compile cache of the Numba backends (generated kernel "
    "modules and Numba's cached machine code). Default: ~/.cache/minijax "
    "(or $XDG_CACHE_HOME/minijax).")


def cache_dir() -> str:
    """The compile cache directory: ``minijax_cache_dir`` or the user's cache dir."""
    configured = cache_dir_option.value
    if configured:
        return os.path.abspath(os.path.expanduser(configured))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "minijax")


# =============================================================================
# Compiling: the on-disk module cache and Numba
# =============================================================================
_modules: dict[str, object] = {}   # module name -> imported kernel module (in memory)
_lock = threading.Lock()
_fallback_dir: list[str] = []


def clear_cache() -> None:
    """Forget the kernels loaded in this process (the disk cache stays)."""
    _modules.clear()


def _module_name(source: str, prefix: str = "minijax_kernel_") -> str:
    """The module name of ``source``: ``prefix`` and the hash of the source and Numba's version."""
    key = f"{source}\n{numba.__version__}\n{sys.version}".encode()
    return prefix + hashlib.sha256(key).hexdigest()[:24]


#: The helper module all kernels import from (:func:`.helpers.helper_library_source`):
#: written, like a kernel, into the cache directory under the hash of its source.
_HELPER_LIBRARY: dict[str, str] = {}


def set_up_helper_library() -> None:
    """Name the shared helper module; kernels generated from now on import from it."""
    source = helper_library_source()
    name = _module_name(source, prefix=HELPER_MODULE_PREFIX)
    _HELPER_LIBRARY.update(source=source, name=name)
    use_helper_library(name)


def _writable_cache_dir() -> str:
    path = cache_dir()
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    if not _fallback_dir:  # an unwritable cache dir costs speed, not correctness
        _fallback_dir.append(tempfile.mkdtemp(prefix="minijax-cache-"))
    return _fallback_dir[0]


def _write_atomically(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _purge_numba_cache(directory: str, mod_name: str) -> None:
    pycache = os.path.join(directory, "__pycache__")
    if os.path.isdir(pycache):
        for f in os.listdir(pycache):
            if f.startswith(mod_name):
                try:
                    os.remove(os.path.join(pycache, f))
                except OSError:
                    pass


def load_module(source: str):
    """Import the kernel module for ``source``: from memory, from disk, or written now.

    The file is named by the hash of its source, so a file with the right
    name and the wrong contents is corrupt: it is rewritten. A kernel that
    imports the shared helper module gets that module loaded first.
    """
    small_gemm.install()  # the matrix product the helpers call, before any module loads
    library = _HELPER_LIBRARY.get("name")
    if library and f"from {library} import" in source:
        _import_source(_HELPER_LIBRARY["source"], library)
    return _import_source(source, _module_name(source))


def _import_source(source: str, mod_name: str):
    """The module ``mod_name`` made of ``source`` (see :func:`load_module`)."""
    with _lock:
        module = _modules.get(mod_name)
        if module is not None:
            return module
        directory = _writable_cache_dir()
        path = os.path.join(directory, mod_name + ".py")
        try:
            with open(path) as f:
                intact = f.read() == source
        except (OSError, UnicodeDecodeError):
            intact = False
        if not intact:
            _purge_numba_cache(directory, mod_name)
            _write_atomically(path, source)
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module  # Numba's cache finds the module by name
        spec.loader.exec_module(module)
        _modules[mod_name] = module
        return module


def forget(mod_name: str) -> None:
    """Drop a loaded module and Numba's disk cache of it (a corrupt cache entry)."""
    module = _modules.pop(mod_name, None)
    sys.modules.pop(mod_name, None)
    if module is not None:
        _purge_numba_cache(os.path.dirname(module.__file__), mod_name)


def _numba_type(aval):
    if is_threefry_key(aval.dtype):  # the key data: uint32, one more axis
        return types.Array(types.uint32, len(aval.shape) + 1, "C", readonly=True)
    dtype = types.uint16 if is_half(aval.dtype) else from_dtype(aval.dtype)  # float16: bits
    if not aval.shape:
        return dtype
    return types.Array(dtype, len(aval.shape), "C", readonly=True)


def kernel_signature(plan) -> tuple:
    """The Numba types of the entry function's parameters: constants, then inputs."""
    jaxpr = plan.closed_jaxpr.jaxpr
    return tuple(_numba_type(v.aval) for v in [*jaxpr.constvars, *jaxpr.invars])


def compile_kernel(source: str, fn_name: str, signature):
    """Load the module and compile its entry function for ``signature``.

    Returns ``(dispatcher, signature, cache_hit)``. A corrupt Numba cache
    entry is deleted and the kernel compiled again.
    """
    first_failure = None
    for attempt in range(2):
        module = load_module(source)
        dispatcher = getattr(module, fn_name)
        try:
            with one_optimization():  # LLVM's -O3 once, not twice (see .llvm_passes)
                dispatcher.compile(signature)
            break
        except Exception as e:
            if attempt:
                raise  # not the cache: the kernel itself does not compile
            first_failure = e
            forget(module.__name__)
            if _HELPER_LIBRARY.get("name") in _modules:  # its helpers may be the corrupt part
                forget(_HELPER_LIBRARY["name"])
    if first_failure is not None:  # said only now that the second try showed the cause
        logger.warning("minijax: recompiled %s after a failure to load it from the cache",
                       module.__name__, exc_info=first_failure)
    hit = sum(dispatcher.stats.cache_hits.values()) > 0
    return dispatcher, signature, hit


def helper_module():
    """The shared helper module, once some kernel has loaded it (else ``None``)."""
    return _modules.get(_HELPER_LIBRARY.get("name"))
