"""Chapter 09 — LLVM optimizes each kernel once, not twice.

Numba hands every piece of generated code to LLVM in two stages:

1. as each LLVM module is added to a code library (the kernel's own code,
   each ``prange`` loop's body, each helper), Numba runs LLVM's *function*
   pipeline over every function in it, at the full optimization level (-O3),
   "to reduce memory usage and improve module-level optimization";
2. when the library is finalized, after every library it calls has been
   linked in, Numba runs LLVM's whole *module* pipeline over the result,
   again at -O3 (and that pipeline contains the function pipeline of stage 1:
   SROA, instcombine, GVN, loop rotation and vectorization...). Then LLVM
   emits the machine code.

So each function of a kernel is optimized at -O3 twice, and stage 2 is the
one that decides the machine code. For a big kernel, stage 1 is a large
share of the compile: the digits CNN's training step (one 870-line kernel)
spent 3.3 s of its 13 s in stage 1. With stage 1 at -O0 (LLVM's pipeline
at -O0 does next to nothing) the same step compiled in 11.6-11.8 s of CPU
instead of 13.8-14.7, and its steps ran as fast (3.1-3.3 ms against
3.2-3.4 on a busy machine); the MLP step: 3.2 s instead of 3.6.

The results cannot change: without fast-math flags (minijax never asks for
them) LLVM may not reassociate, contract or otherwise change floating-point
arithmetic at any level, so every optimization level computes the same bits.

Numba has no option for stage 1 alone (``NUMBA_OPT`` sets both stages, and
the machine code generator's level), so :func:`one_optimization` replaces
the method that runs it, ``CPUCodeLibrary._optimize_functions``, with one
that asks for an -O0 pipeline *while this thread compiles a minijax kernel*,
and calls Numba's own otherwise: the user's own ``numba.njit`` functions
compile as before. If a Numba version lacks the method, nothing is replaced
and kernels compile as Numba does by default.
"""
from __future__ import annotations

import contextlib
import threading

__all__ = ["one_optimization", "FUNCTION_PASS_LEVEL", "HELPER_MODULE_PREFIX", "installed"]

#: The LLVM optimization level of stage 1 (the per-function pipeline) while a
#: minijax kernel compiles. Stage 2 (the module pipeline) keeps Numba's level.
FUNCTION_PASS_LEVEL = 0

#: The shared helper module's name starts with this (``compile.set_up_helper_library``
#: names it); Numba's mangled names of its functions contain the module's name.
HELPER_MODULE_PREFIX = "minijax_helpers_"

_state = threading.local()  # .depth: how many one_optimization() blocks this thread is in


def _in_kernel_compile() -> bool:
    return getattr(_state, "depth", 0) > 0


def _is_helper_module(ll_module) -> bool:
    """A module of the shared helpers (``cpu/helpers``): optimized fully in stage 1.

    A helper left at -O0 is too big for stage 2's inliner: the kernel keeps a
    call to it, and a loop with a call is not vectorized (a float32 ``log1p``
    inside a fused loop stayed scalar). Helpers compile once and are cached,
    so stage 1 costs them little.
    """
    return any(HELPER_MODULE_PREFIX in f.name for f in ll_module.functions)


def _install():
    """Wrap Numba's stage 1; returns Numba's own method (``None`` if absent)."""
    try:
        from numba.core.codegen import CPUCodeLibrary
    except ImportError:
        return None
    numba_stage_1 = getattr(CPUCodeLibrary, "_optimize_functions", None)
    if numba_stage_1 is None or getattr(numba_stage_1, "_minijax", False):
        return numba_stage_1

    def _optimize_functions(self, ll_module):
        if not _in_kernel_compile() or _is_helper_module(ll_module):
            return numba_stage_1(self, ll_module)
        ll_module.data_layout = self._codegen._data_layout  # as Numba's own does
        for func in ll_module.functions:
            fpm, pb = self._codegen._function_pass_manager(opt=FUNCTION_PASS_LEVEL)
            with self._recorded_timings.record(f"Function passes on {func.name!r}", pb):
                fpm.run(func, pb)

    _optimize_functions._minijax = True
    _optimize_functions.__doc__ = numba_stage_1.__doc__
    CPUCodeLibrary._optimize_functions = _optimize_functions
    return numba_stage_1


_numba_stage_1 = _install()


def installed() -> bool:
    """Whether Numba's stage 1 was found and wrapped."""
    return _numba_stage_1 is not None


@contextlib.contextmanager
def one_optimization():
    """Within this block, this thread's compiles run stage 1 at
    :data:`FUNCTION_PASS_LEVEL`: kernels and their ``prange`` bodies (the shared
    helpers they compile keep Numba's level: see :func:`_is_helper_module`)."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
