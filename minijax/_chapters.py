"""The chapter map: which chapter builds each module of the package.

``tests/test_layering.py`` reads this table and fails when a module imports a
module of a *later* chapter (chapter k may only use chapters <= k; later
chapters extend earlier ones by registering rules, backends and hooks), or
when a module of the package is missing from it. ``minijax/__init__.py`` is
the one assembly point allowed to import everything.
"""

CHAPTERS = {
    0: "Arrays, dtypes, primitives",
    1: "Tracing and the interpreter",
    2: "Forward-mode AD",
    3: "Pytrees",
    4: "Vectorization",
    5: "The jaxpr IR",
    6: "jit",
    7: "Reverse-mode AD",
    8: "Control flow",
    9: "Lowering to Numba (CPU)",
    10: "CUDA with numba.cuda",
    11: "Asynchronous dispatch",
    12: "Side effects",
    13: "Random numbers",
    14: "Putting it together",
}

#: module name -> chapter number. Packages are listed by their ``__init__``.
MODULES = {
    # chapter 00
    "minijax._chapters": 0,
    "minijax.dtypes": 0,
    "minijax.abstract_arrays": 0,
    "minijax.primitives": 0,
    "minijax.devices": 0,
    "minijax.buffers": 0,
    "minijax.array": 0,
    "minijax.dispatch": 0,
    "minijax.transfers": 0,
    "minijax.lax": 0,
    "minijax.lax.base": 0,
    "minijax.lax.elementwise": 0,
    "minijax.lax.shapes": 0,
    "minijax.lax.reductions": 0,
    "minijax.lax.dot": 0,
    "minijax.lax.sorting": 0,
    "minijax.lax.slicing": 0,
    "minijax.lax.linalg": 0,
    "minijax.numpy": 0,
    "minijax.numpy.util": 0,
    "minijax.numpy.scalar_types": 0,
    "minijax.numpy.creation": 0,
    "minijax.numpy.ufuncs": 0,
    "minijax.numpy.array_methods": 0,
    "minijax.numpy.shapes": 0,
    "minijax.numpy.sorting": 0,
    "minijax.numpy.reductions": 0,
    "minijax.numpy.tensor_contractions": 0,
    "minijax.numpy.linalg": 0,
    "minijax.numpy.indexing": 0,
    "minijax.numpy.set_ops": 0,
    "minijax.numpy.statistics": 0,
    "minijax.numpy.index_tricks": 0,
    "minijax.numpy.misc": 0,
    "minijax.nn": 0,
    "minijax.scipy": 0,
    "minijax.scipy.special": 0,
    # chapter 01
    "minijax.errors": 1,
    "minijax.core": 1,
    "minijax.interpreters": 1,
    "minijax.interpreters.printing": 1,
    # chapter 02
    "minijax.api_util": 2,
    "minijax.interpreters.ad": 2,
    "minijax.interpreters.jvp_rules": 2,
    # chapter 03
    "minijax.tree_util": 3,
    "minijax.tree": 3,
    # chapter 04
    "minijax.interpreters.batching": 4,
    "minijax.interpreters.batching_rules": 4,
    # chapter 05
    "minijax.pretty_printer": 5,
    "minijax.jaxpr": 5,
    "minijax.interpreters.partial_eval": 5,
    "minijax.extend": 5,
    "minijax.extend.core": 5,
    # chapter 06
    "minijax.config": 6,
    "minijax.backends": 6,
    "minijax.backends.registry": 6,
    "minijax.backends.interpreter": 6,
    "minijax.backends.cost": 6,
    "minijax.stages": 6,
    "minijax.jit": 6,
    # chapter 07
    "minijax.interpreters.linearize": 7,
    "minijax.interpreters.transpose": 7,
    "minijax.interpreters.transpose_rules": 7,
    "minijax.autodiff": 7,
    "minijax.custom_derivatives": 7,
    "minijax.checkpoint": 7,
    # chapter 08
    "minijax.control_flow": 8,
    "minijax.control_flow.common": 8,
    "minijax.control_flow.conditionals": 8,
    "minijax.control_flow.loops": 8,
    "minijax.control_flow.associative": 8,
    # chapter 09: the kernel plan (every target's), and the CPU target
    "minijax.backends.plan": 9,
    "minijax.backends.plan.passes": 9,
    "minijax.backends.plan.kernel_plan": 9,
    "minijax.backends.plan.buffers": 9,
    "minijax.backends.cpu": 9,
    "minijax.backends.cpu.syntax": 9,
    "minijax.backends.cpu.helpers": 9,
    "minijax.backends.cpu.math_helpers": 9,
    "minijax.backends.cpu.trig_helpers": 9,
    "minijax.backends.cpu.loops": 9,
    "minijax.backends.cpu.rules": 9,
    "minijax.backends.cpu.writer": 9,
    "minijax.backends.cpu.compile": 9,
    "minijax.backends.cpu.tiered": 9,
    "minijax.backends.cpu.backend": 9,
    "minijax.backends.cpu.host_calls": 9,
    # chapter 10: the CUDA target
    "minijax.backends.cuda": 10,
    "minijax.backends.cuda.platform": 10,
    "minijax.backends.cuda.memory": 10,
    "minijax.backends.cuda.helpers": 10,
    "minijax.backends.cuda.rules": 10,
    "minijax.backends.cuda.writer": 10,
    "minijax.backends.cuda.compile": 10,
    "minijax.backends.cuda.backend": 10,
    "minijax.backends.cuda.eager": 10,
    # chapter 11 (the runtime helper adds its modules here)
    "minijax.runtime": 11,
    "minijax.runtime.futures": 11,
    "minijax.runtime.streams": 11,
    "minijax.runtime.executor": 11,
    "minijax.profiler": 11,
    # chapter 12: effects, callbacks, runtime tokens
    "minijax.effects": 12,
    "minijax.callback": 12,
    "minijax.debugging": 12,
    "minijax.debug": 12,
    "minijax.debugger": 12,
    "minijax.experimental": 12,
    "minijax.runtime.tokens": 12,
    # chapter 13
    "minijax.prng": 13,
    "minijax.random": 13,
    "minijax.nn.initializers": 13,
}

#: The assembly point: may import any chapter.
ASSEMBLY = "minijax"
