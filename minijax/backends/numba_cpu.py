"""Chapter 09 — lowering jaxprs to Numba: one fused, compiled kernel per jaxpr.

The pipeline, stage for stage against JAX's::

    JAX:      jaxpr -> StableHLO            -> XLA              -> executable
    minijax:  jaxpr -> Python kernel source -> Numba / LLVM     -> machine code
                       (Lowered.as_text())     (Compiled.as_text() is the LLVM IR)

1. :func:`minijax.backends.fusion.make_plan` groups the equations into fused
   loop nests, BLAS calls and per-primitive calls (``numba_calls.make_plan``
   restricts it to what this backend lowers).
2. ``numba_writer`` writes ONE Python module with ONE
   ``@njit(nogil=True)`` entry function: loops over static shapes, a local
   per jaxpr variable (named as the printed jaxpr names it), each line
   commented with the equation it comes from.
3. The module is written to the compile cache directory under a name made of
   the hash of its source and imported; Numba compiles it with
   ``cache=True``, so a second process loads the machine code from disk
   instead of compiling again. Numba itself is started when this module is
   imported (see :func:`_start_numba`), so that a first call with a warm
   cache costs milliseconds.

Semantics follow XLA, as chapter 00's impl rules do: float32 stays float32
(every literal is written ``np.float32(...)``, since Numba would promote a
bare ``2.0`` to float64), integer arithmetic wraps (results are cast back to
their dtype: Numba computes integers in 64 bits), integer division
truncates, max/min propagate NaN. Float32 transcendental functions are
branch-free polynomial approximations (``numba_math``) that LLVM inlines and
vectorizes, as XLA's are; they are within 1 ulp of the correctly rounded
result (``erf_inv``: XLA's own algorithm).

Threefry keys passed in as arguments are handed to the kernel as their key
data, so ``random.bits`` / ``uniform`` / ``normal`` compile to one loop.
The rules live in their own modules: ``numba_scalar`` (one expression per
elementwise primitive), ``numba_calls`` (everything else). What the plan
cannot lower (see :data:`CALL_LOWERINGS` and :data:`SCALAR_RULES` for what it can) falls back,
for that whole jaxpr, to chapter 06's interpreter.
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
import threading

import numpy as np

from minijax.array import Array
from minijax.backends.interpreter import (InterpreterExecutable, InterpreterLowering,
                                          as_output_array)
# Importing these registers their rules into SCALAR_RULES / CALL_LOWERINGS / HELPERS.
from minijax.backends import (numba_control_flow, numba_indexing, numba_linalg,  # noqa: F401
                              numba_math, numba_scalar_more, numba_trig)
from minijax.backends.numba_calls import CALL_LOWERINGS, _is_threefry_key, make_plan
from minijax.backends.numba_scalar import SCALAR_RULES
from minijax.backends.numba_writer import (_entry_name, generate_source, helper_library_source,
                                           kernel_outputs, use_helper_library)
from minijax.backends.registry import (Backend, Executable, Lowering, register_backend,
                                       report_fallback)
from minijax.buffers import Buffer
from minijax.config import optional_string_state
from minijax.dispatch import to_numpy
from minijax.jaxpr import Literal

__all__ = ["NumbaCPUBackend", "NumbaLowering", "NumbaExecutable", "generate_source",
           "cache_dir", "SCALAR_RULES", "CALL_LOWERINGS", "clear_cache"]

logger = logging.getLogger(__name__)

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

from minijax.backends.numba_tiered import (  # noqa: E402  (imports Numba too)
    TieredExecutable, background_compile_option, is_cached)


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


#: The helper module all kernels import from (``numba_writer.helper_library_source``):
#: written, like a kernel, into the cache directory under the hash of its source.
_HELPER_LIBRARY: dict[str, str] = {}


def _set_up_helper_library() -> None:
    """Name the shared helper module; kernels generated from now on import from it."""
    source = helper_library_source()
    name = _module_name(source, prefix="minijax_helpers_")
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


def _forget(mod_name: str) -> None:
    """Drop a loaded module and Numba's disk cache of it (a corrupt cache entry)."""
    module = _modules.pop(mod_name, None)
    sys.modules.pop(mod_name, None)
    if module is not None:
        _purge_numba_cache(os.path.dirname(module.__file__), mod_name)


def _numba_type(aval):
    if _is_threefry_key(aval.dtype):  # the key data: uint32, one more axis
        return types.Array(types.uint32, len(aval.shape) + 1, "C", readonly=True)
    dtype = from_dtype(aval.dtype)
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
            dispatcher.compile(signature)
            break
        except Exception as e:
            if attempt:
                raise  # not the cache: the kernel itself does not compile
            first_failure = e
            _forget(module.__name__)
            if _HELPER_LIBRARY.get("name") in _modules:  # its helpers may be the corrupt part
                _forget(_HELPER_LIBRARY["name"])
    if first_failure is not None:  # said only now that the second try showed the cause
        logger.warning("minijax: recompiled %s after a failure to load it from the cache",
                       module.__name__, exc_info=first_failure)
    hit = sum(dispatcher.stats.cache_hits.values()) > 0
    return dispatcher, signature, hit


# =============================================================================
# The backend
# =============================================================================
class NumbaLowering(Lowering):
    """The generated kernel module: ``as_text()`` is its Python source."""

    def __init__(self, backend, closed_jaxpr, name: str, plan, source: str):
        super().__init__(backend, closed_jaxpr, name)
        self.plan = plan
        self.source = source
        self.fn_name = _entry_name(name)

    def as_text(self) -> str:
        return self.source

    def cost_analysis(self) -> dict[str, float]:
        return self.plan.cost_analysis()


class FallbackLowering(InterpreterLowering):
    """A jaxpr this backend cannot lower: it runs on the interpreter."""

    def __init__(self, backend, closed_jaxpr, name: str, reason: str):
        super().__init__(backend, closed_jaxpr, name)
        self.reason = reason

    def as_text(self) -> str:
        return (f"# not lowered to Numba ({self.reason}); run by the interpreter:\n"
                + super().as_text())


def _prepare(x, aval):
    """An argument as the kernel takes it: a read-only C array, or a NumPy scalar."""
    value = to_numpy(x)
    if _is_threefry_key(aval.dtype):  # the kernel takes the key data
        value = np.ascontiguousarray(value["threefry2x32"])
        value.flags.writeable = False
        return value
    if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
    if not aval.shape:
        return value[()]
    value = np.ascontiguousarray(value)
    if value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def _as_keys(data: np.ndarray, aval) -> np.ndarray:
    """Key data (uint32, a trailing axis of 2) as the typed keys of chapter 13:
    the inverse of what :func:`_prepare` does to a key argument."""
    keys = np.empty(aval.shape, dtype=np.dtype(aval.dtype))
    keys["threefry2x32"] = data
    return keys


class NumbaExecutable(Executable):
    """The compiled kernel, and how to call it on minijax values."""

    def __init__(self, lowering: NumbaLowering):
        super().__init__(lowering)
        closed = lowering.plan.closed_jaxpr
        jaxpr = closed.jaxpr
        self.kernel, self.signature, self.cache_hit = compile_kernel(
            lowering.source, lowering.fn_name, kernel_signature(lowering.plan))
        self._consts = [_prepare(c, v.aval) for c, v in zip(closed.consts, jaxpr.constvars)]
        self._const_avals = [v.aval for v in jaxpr.constvars]
        computed = kernel_outputs(jaxpr)
        # where each output comes from: ("kernel", k), ("arg", i), ("const", i), ("lit", val)
        self._sources = []
        for v in jaxpr.outvars:
            if isinstance(v, Literal):
                self._sources.append(("lit", v.val))
            elif v in computed:
                self._sources.append(("kernel", computed.index(v)))
            elif v in jaxpr.invars:
                self._sources.append(("arg", jaxpr.invars.index(v)))
            else:
                self._sources.append(("const", jaxpr.constvars.index(v)))

    def __call__(self, *flat_args) -> list:
        args = [_prepare(x, a) for x, a in zip(flat_args, self.in_avals)]
        results = self.kernel(*self._consts, *args)
        outs = []
        for (kind, k), aval in zip(self._sources, self.out_avals):
            if kind == "kernel":
                value = results[k]
                if _is_threefry_key(aval.dtype):  # the kernel computed key data
                    value = _as_keys(value, aval)
                elif not isinstance(value, np.ndarray):
                    value = np.asarray(value, dtype=aval.dtype)
                outs.append(Array(aval, Buffer(value)))
            elif kind == "arg":
                outs.append(as_output_array(flat_args[k], aval))
            elif kind == "const":
                outs.append(as_output_array(self.lowering.plan.closed_jaxpr.consts[k], aval))
            else:
                outs.append(as_output_array(k, aval))
        return outs

    def as_text(self, assembly: bool = False) -> str:
        """The optimized LLVM IR of the entry function (Numba's ``inspect_llvm``),
        or with ``assembly=True`` its machine code (``inspect_asm``)."""
        kernel = self.kernel
        if not kernel.stats.cache_misses:  # loaded from the disk cache: no IR kept
            options = {k: v for k, v in kernel.targetoptions.items() if k != "nopython"}
            kernel = numba.njit(**options)(kernel.py_func)  # njit implies nopython
            kernel.compile(self.signature)
        if assembly:
            return kernel.inspect_asm(self.signature)
        return _entry_ir(kernel.inspect_llvm(self.signature), self.lowering.fn_name)

    def cost_analysis(self) -> dict[str, float]:
        return self.lowering.plan.cost_analysis()


def _entry_ir(ir: str, fn_name: str) -> str:
    """The ``define`` of the entry function (not the Python wrappers) out of a module."""
    blocks, current = [], None
    for line in ir.splitlines():
        if line.startswith("define "):
            current = [line] if fn_name in line and "cpython" not in line \
                and "cfunc" not in line else None
        elif current is not None:
            current.append(line)
            if line.startswith("}"):
                blocks.append("\n".join(current))
                current = None
    return "\n\n".join(blocks) if blocks else ir


class NumbaCPUBackend(Backend):
    """Fused kernels compiled by Numba; the interpreter for what it cannot lower."""
    name = "cpu"
    platform = "cpu"
    ir_name = "numba kernel source"
    compiler_name = "numba"

    def lower(self, closed_jaxpr, *, name: str, **options):
        plan = make_plan(closed_jaxpr)
        if not plan.supported:
            logger.debug("jit(%s) runs on the interpreter: %s", name, plan.unsupported)
            report_fallback("cpu", name, "unsupported: " + ", ".join(plan.unsupported))
            return FallbackLowering(self, closed_jaxpr, name,
                                    "unsupported: " + ", ".join(plan.unsupported))
        try:
            source = generate_source(plan, name)
        except NotImplementedError as e:
            report_fallback("cpu", name, f"unsupported: {e}")
            return FallbackLowering(self, closed_jaxpr, name, f"unsupported: {e}")
        return NumbaLowering(self, closed_jaxpr, name, plan, source)

    def compile(self, lowering, **options):
        if isinstance(lowering, InterpreterLowering):
            return InterpreterExecutable(lowering)
        if background_compile_option.value:
            module = load_module(lowering.source)
            if not is_cached(module):  # warm: loading is faster than interpreting
                interpreted = FallbackLowering(self, lowering.closed_jaxpr, lowering.name,
                                               "being compiled in the background")
                library = _modules.get(_HELPER_LIBRARY.get("name"))
                return TieredExecutable(lowering, interpreted, module,
                                        kernel_signature(lowering.plan),
                                        lambda: self._compile_now(lowering),
                                        helper_module=library)
        return self._compile_now(lowering)

    def _compile_now(self, lowering):
        try:
            return NumbaExecutable(lowering)
        except Exception as e:  # a bug in code generation must not break the program
            if not isinstance(e, numba.core.errors.NumbaError):
                raise
            logger.warning("minijax: Numba could not compile jit(%s); running it on the "
                           "interpreter instead:\n%s", lowering.name, e)
            report_fallback("cpu", lowering.name, f"Numba error: {str(e).splitlines()[0]}")
            return InterpreterExecutable(lowering)


#: Above the interpreter's 0: Numba is the default backend of ``jit``.
#: ``jit(f, backend="interpreter")`` or ``config.update("minijax_default_backend",
#: "interpreter")`` picks the interpreter.
PRIORITY = 1


def _register() -> None:
    _set_up_helper_library()
    from minijax.jit import register_cache
    register_cache(clear_cache)
    register_backend("cpu", NumbaCPUBackend(), priority=PRIORITY)


_register()
