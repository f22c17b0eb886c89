"""Chapter 09 — the CPU target: fused Numba kernels (the default backend of ``jit``).

The modules, in pipeline order (the target-independent kernel plan is
:mod:`minijax.backends.plan`):

- :mod:`.rules` — the rule table: every primitive's lowering, keyed by primitive;
- :mod:`.syntax` — how constants and casts are spelled in kernel source;
- :mod:`.helpers`, :mod:`.math_helpers`, :mod:`.trig_helpers` — the small
  jitted functions rules call, shared by all kernels through one module;
- :mod:`.loops` — loop-writing utilities shared by rules and the writer;
- :mod:`.writer` — a plan as ONE Python module with ONE ``@njit`` function;
- :mod:`.compile` — the on-disk module cache, and Numba;
- :mod:`.llvm_passes` — LLVM optimizes each kernel once (at -O3), not twice;
- :mod:`.tiered` — optional background compilation (interpret first);
- :mod:`.backend` — the ``Backend`` registered as ``"cpu"``.
"""
from minijax.backends.cpu.backend import (CpuTarget, FallbackLowering,  # noqa: F401
                                          NumbaCPUBackend, NumbaExecutable, NumbaLowering)
from minijax.backends.cpu.compile import cache_dir, clear_cache  # noqa: F401
from minijax.backends.cpu.writer import generate_source  # noqa: F401
