"""Chapter 09 — the CPU target: jaxprs lowered to fused Numba kernels.

The pipeline, stage for stage against JAX's::

    JAX:      jaxpr -> StableHLO            -> XLA              -> executable
    minijax:  jaxpr -> Python kernel source -> Numba / LLVM     -> machine code
                       (Lowered.as_text())     (Compiled.as_text() is the LLVM IR)

1. :func:`minijax.backends.plan.make_plan` rewrites the jaxpr and groups its
   equations into fused loop nests, matrix products and calls, asking
   :class:`CpuTarget` whether this target can lower each equation (its rule
   table, :mod:`.rules`, says so);
2. :mod:`.writer` writes ONE Python module with ONE ``@njit(nogil=True)``
   entry function: loops over static shapes, a local per jaxpr variable
   (named as the printed jaxpr names it), each line commented with the
   equation it comes from;
3. :mod:`.compile` writes the module to the compile cache and has Numba
   compile it (``cache=True``: a second process loads the machine code).

What the target cannot lower (a primitive without a rule, a dtype it does
not handle) runs, for that whole jaxpr, on chapter 06's interpreter, and the
backend reports it (:func:`minijax.backends.registry.report_fallback`).
Threefry keys passed in as arguments are handed to the kernel as their key
data, so ``random.bits`` / ``uniform`` / ``normal`` compile to one loop.
"""
from __future__ import annotations

import logging

import numpy as np

from minijax import lax
from minijax.array import Array
from minijax.backends.cpu import compile as compiler  # (first: it sets up OpenMP, then Numba)
from minijax.backends.cpu import conv  # noqa: F401  (registers the convolution lowering)
from minijax.backends.cpu import host_calls, kernel_compiler
from minijax.backends.cpu.thread_budget import after_one_thread_products, fit_to_machine
from minijax.backends.cpu import windowed  # noqa: F401  (registers the pooling lowerings)
from minijax.backends.cpu.rules import LOWERINGS
from minijax.backends.cpu.syntax import is_half, is_threefry_key
from minijax.backends.cpu.tiered import TieredExecutable, background_compile_option, is_cached
from minijax.backends.cpu.writer import entry_name, generate_source, imported_helpers_text
from minijax.backends.interpreter import (InterpreterExecutable, InterpreterLowering,
                                          as_output_array)
from minijax.backends.plan import Target, make_plan, output_sources, rule_problem
from minijax.backends.registry import (Backend, Executable, Lowering, register_backend,
                                       report_fallback)
from minijax.buffers import Buffer
from minijax.dispatch import to_numpy

import numba  # noqa: E402,I001  (after .compile, which configures OpenMP first)

__all__ = ["NumbaCPUBackend", "NumbaLowering", "NumbaExecutable", "FallbackLowering",
           "CpuTarget"]

logger = logging.getLogger(__name__)


# =============================================================================
# What this target lowers
# =============================================================================
class CpuTarget(Target):
    """The planner's questions, answered from the rule table :data:`.rules.LOWERINGS`."""

    def eqn_problem(self, eqn) -> str | None:
        problem = rule_problem(eqn, LOWERINGS)
        if problem is not None:
            return problem
        rule = LOWERINGS[eqn.primitive]
        avals = [a.aval for a in [*eqn.invars, *eqn.outvars]]
        if any(is_half(a.dtype) for a in avals) and not self._half_ok(eqn, rule, avals):
            half = next(a.dtype for a in avals if is_half(a.dtype))
            return f"{eqn.primitive.name} on {half}"  # float16 or bfloat16
        return None

    @staticmethod
    def _half_ok(eqn, rule, avals) -> bool:
        """float16 (and bfloat16) values are float32 variables in a loop nest (any scalar rule
        takes them) and bits (uint16) in memory: a call must only move bits, on
        arrays (``bitcast_convert_type`` converts scalars itself)."""
        if rule.form == "scalar":
            return True
        if rule.form != "call" or not rule.bits:
            return False
        return eqn.primitive is lax.bitcast_convert_type_p or all(
            a.shape for a in avals if is_half(a.dtype))

    def dtype_problem(self, dtype) -> str | None:
        """bool, integers, float16/32/64, bfloat16 (as float16: see ``syntax``) and
        complex. The 8-, 6- and 4-bit floats are not lowered: the interpreter runs them."""
        ok = (dtype.kind in "biufc" and not (dtype.kind == "f" and dtype.itemsize < 2)
              or is_half(dtype))
        return None if ok else f"dtype {dtype}"

    def extended_problem(self, dtype, eqns) -> str | None:
        """Threefry keys, as long as only rules marked ``bits`` touch them: the
        kernel holds their key data, a uint32 array with a trailing axis of 2."""
        if is_threefry_key(dtype) and all(LOWERINGS[e.primitive].bits or _carries(e)
                                          for e in eqns if e.primitive in LOWERINGS):
            return None
        return f"dtype {dtype}"


def _carries(eqn) -> bool:
    """Control flow (``cond``, ``while``, ``scan``) only passes values to its bodies and
    back, keys too (as their key data); the bodies' equations are checked themselves."""
    return eqn.primitive.kind == "control_flow"


TARGET = CpuTarget()


# =============================================================================
# The backend
# =============================================================================
class NumbaLowering(Lowering):
    """The generated kernel module: ``as_text()`` is its Python source."""

    def __init__(self, backend, closed_jaxpr, name: str, plan, source: str):
        super().__init__(backend, closed_jaxpr, name)
        self.plan = plan
        self.source = source
        self.fn_name = entry_name(name)

    def as_text(self) -> str:
        """The kernel module, then the source of the shared helpers it imports."""
        helpers = imported_helpers_text(self.source)
        return self.source + ("\n\n" + helpers if helpers else "")

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
    if is_threefry_key(aval.dtype):  # the kernel takes the key data
        value = np.ascontiguousarray(value["threefry2x32"])
        value.flags.writeable = False
        return value
    if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
    if is_half(aval.dtype):  # the kernel takes float16's bits (see ``syntax``)
        value = np.asarray(value).view(np.uint16)
    if not aval.shape:
        return value[()]
    value = np.ascontiguousarray(value)
    if value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def _is_plain(aval) -> bool:
    """Does :func:`_prepare` pass an array of ``aval`` as it is (when it is a read-only
    C array of its dtype)? Not for keys, float16's bits, nor scalars."""
    return bool(aval.shape) and not is_threefry_key(aval.dtype) and not is_half(aval.dtype)


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
        self.compiled = kernel_compiler.compile_kernel(lowering)
        self.kernel, self.signature = self.compiled.fn, self.compiled.signature
        self.cache_hit = self.compiled.cache_hit
        self._consts = [_prepare(c, v.aval) for c, v in zip(closed.consts, jaxpr.constvars)]
        self._const_avals = [v.aval for v in jaxpr.constvars]
        self._sources = output_sources(jaxpr)
        # threaded loops that call BLAS on one thread each (convolutions) leave
        # OpenBLAS's process-wide count at 1: restored after the call
        self._one_thread_blas = "_1t(" in lowering.source
        # parallel loops: Numba's thread count is fitted to the machine too (thread_budget)
        self._parallel = "prange(" in lowering.source
        self._plain = [_is_plain(a) for a in self.in_avals]
        self._plain_out = [not is_threefry_key(a.dtype) and not is_half(a.dtype)
                           for a in self.out_avals]

    def _arguments(self, flat_args) -> list:
        """The arguments as the kernel takes them (:func:`_prepare`). A training step
        takes many small arrays (parameters, optimizer state), so the common case is
        taken first: an Array of a plain dtype whose buffer already holds a read-only
        C array, which is passed as it is."""
        args = []
        for x, aval, plain in zip(flat_args, self.in_avals, self._plain):
            if plain and type(x) is Array:
                buf = x._buffer  # a plain Buffer is ready: its data, without three calls
                value = buf._data if type(buf) is Buffer else x._value
                flags = value.flags
                if flags.c_contiguous and not flags.writeable and value.dtype == aval.dtype:
                    args.append(value)
                    continue
            args.append(_prepare(x, aval))
        return args

    def __call__(self, *flat_args) -> list:
        args = self._arguments(flat_args)
        # as many BLAS (and, for parallel loops, Numba) threads as the machine has free cores
        fit_to_machine(self._parallel)
        error = None
        try:
            results = self.kernel(*self._consts, *args)
        except Exception:
            error = host_calls.take_error()  # a callback's own exception, kept by the trampoline
            if error is None:
                raise
        finally:
            if self._one_thread_blas:
                after_one_thread_products()
        if error is not None:  # raised here, outside the kernel's error, with its own chain
            raise error
        outs = []
        for (kind, k), aval, plain_out in zip(self._sources, self.out_avals, self._plain_out):
            if kind == "kernel":
                value = results[k]
                if plain_out:  # the common case: an array of the output's own dtype
                    if type(value) is not np.ndarray:
                        value = np.asarray(value, dtype=aval.dtype)
                elif is_threefry_key(aval.dtype):  # the kernel computed key data
                    value = _as_keys(value, aval)
                elif is_half(aval.dtype):  # the kernel computed float16's (bfloat16's) bits
                    value = np.asarray(value, dtype=np.uint16).view(aval.dtype)
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

    def as_text(self, assembly: bool = False, emitted: bool = False) -> str:
        """The kernel's optimized LLVM IR: for our compiler the whole module after
        LLVM's -O3 (``emitted=True``: the IR our translator emitted, before any
        optimization), for a kernel Numba compiled its entry function's
        (``inspect_llvm``); with ``assembly=True`` the machine code."""
        ours = self.compiled.llvm
        if ours is not None:
            if assembly:
                return ours.assembly()
            if emitted:
                return ours.translated.ir
            return _entry_ir(ours.optimized_ir, self.lowering.fn_name)
        kernel = self.compiled.numba
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
        plan = make_plan(closed_jaxpr, TARGET)
        if not plan.supported:
            return self._fall_back(closed_jaxpr, name, "unsupported: " + ", ".join(plan.unsupported))
        try:
            source = generate_source(plan, name)
        except NotImplementedError as e:
            return self._fall_back(closed_jaxpr, name, f"unsupported: {e}")
        return NumbaLowering(self, closed_jaxpr, name, plan, source)

    def _fall_back(self, closed_jaxpr, name: str, reason: str) -> FallbackLowering:
        report_fallback(self.name, name, reason)
        return FallbackLowering(self, closed_jaxpr, name, reason)

    def compile(self, lowering, **options):
        if isinstance(lowering, InterpreterLowering):
            return InterpreterExecutable(lowering)
        # compiling in the background pays for Numba's slow compiles; ours is quick
        if background_compile_option.value and kernel_compiler.needs_numba(lowering):
            module = compiler.load_module(lowering.source)
            if not is_cached(module):  # warm: loading is faster than interpreting
                interpreted = FallbackLowering(self, lowering.closed_jaxpr, lowering.name,
                                               "being compiled in the background")
                return TieredExecutable(lowering, interpreted, module,
                                        compiler.kernel_signature(lowering.plan),
                                        lambda: self._compile_now(lowering),
                                        helper_module=compiler.helper_module())
        return self._compile_now(lowering)

    def _compile_now(self, lowering):
        try:
            return NumbaExecutable(lowering)
        except Exception as e:  # a bug in code generation must not break the program
            if not isinstance(e, numba.core.errors.NumbaError):
                raise
            logger.warning("minijax: Numba could not compile jit(%s); running it on the "
                           "interpreter instead:\n%s", lowering.name, e)
            report_fallback(self.name, lowering.name, f"Numba could not compile it: {e}")
            return InterpreterExecutable(lowering)


#: Above the interpreter's 0: Numba is the default backend of ``jit``.
#: ``jit(f, backend="interpreter")`` or ``config.update("minijax_default_backend",
#: "interpreter")`` picks the interpreter.
PRIORITY = 1


def _register() -> None:
    compiler.set_up_helper_library()
    from minijax.jit import register_cache
    register_cache(compiler.clear_cache)
    register_backend("cpu", NumbaCPUBackend(), priority=PRIORITY)


_register()
