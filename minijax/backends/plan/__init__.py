"""Chapter 09 — the kernel plan: the part of lowering every target shares.

A jaxpr becomes a kernel in two halves. This package is the first, and it
knows nothing of Numba or CUDA:

- :mod:`.passes` rewrites the jaxpr (inline nested calls, drop dead code,
  fold transposes into matrix products, hoist constants);
- :mod:`.kernel_plan` groups its equations into *steps*: fused loop nests
  (elementwise chains, ending in a reduction or not), matrix products and
  calls, deciding from each primitive's kind, and asks the :class:`Target`
  whether it can lower every equation;
- :mod:`.buffers` decides which loop nests may reuse a dead input's memory.

The second half is a target's: ``backends/cpu/`` writes a plan as a Numba
module (chapter 09), ``backends/cuda/`` as CUDA kernels (chapter 10).
The cost model (:mod:`minijax.backends.cost`) is chapter 06's.
"""
from minijax.backends.plan.buffers import buffer_donors, step_inputs  # noqa: F401
from minijax.backends.plan.kernel_plan import (Call, Dot, KernelPlan, LoopNest,  # noqa: F401
                                               Target, eqn_header, eqn_text, group,
                                               is_fused, is_reduction, kernel_outputs,
                                               make_plan, output_sources, rule_problem,
                                               sub_plan)
from minijax.backends.plan.passes import (all_eqns, eqn_subjaxprs, hoist_consts,  # noqa: F401
                                          inline_calls, map_subjaxprs, prepare)
