"""Chapter 10, exercise 1: a lowering rule on the CUDA target.

This module adds a primitive, ``squareplus(x) = (x + sqrt(x * x + 4)) / 2`` (a
smooth ReLU), with its impl and abstract-eval rules. It is
``kind="elementwise"``, so chapter 09's planner fuses it into a loop nest,
which the CUDA writer turns into a grid-stride kernel. What is missing is its
line in that kernel: the CUDA rule table (``minijax.backends.cuda.rules``,
``lowering[cuda]`` in ``minijax.primitives.rules_of``) has no entry, so
``jit(f, backend="cuda")`` refuses it at lowering time, naming the primitive.
Write the rule.

A ``"scalar"`` rule is ``rule(c, x) -> str``, as on the CPU (chapter 09): ``x``
is the expression of one element of the operand and the rule returns the
expression of one element of the result. What differs is the language: the
kernel is compiled by ``numba.cuda``, where NumPy's functions on scalars
(``np.sqrt(x)``) do not compile; ``math.sqrt(x)`` does (numba.cuda maps it to
CUDA's libdevice: ``sqrtf`` for a float32, so float32 stays float32 on the
GPU). The simulator runs the same source in Python, where ``math.sqrt``
returns a Python float: cast the result back with
``syntax.cast(c.out_dtype, expr)`` (``np.float32(...)``), and write constants
with ``syntax.literal(4, c.out_dtype)``, as the table's ``_math`` rule does.

When it works, ``jit(f, backend="cuda").lower(x)`` writes one fused kernel with
your line, its PTX (made without a GPU) has a float32 square root and no
float64 arithmetic, and on the simulator the results are NumPy's.

Check: ``make exercise-ch10`` (or ``pytest exercises/ch10/test_ex1_cuda_rule.py``).
Hint: read ``_math`` and ``_rsqrt`` in ``minijax/backends/cuda/rules.py``.
"""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu.syntax import cast, literal  # noqa: F401  (for your rule)
from minijax.backends.cuda.rules import register
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

squareplus_p = Primitive("squareplus", kind="elementwise")


def squareplus(x):
    """``(x + sqrt(x * x + 4)) / 2``, elementwise, for floating-point ``x``."""
    return squareplus_p.bind(x)


def _impl(x):
    x = np.asarray(x)
    t = x.dtype.type
    return np.asarray((x + np.sqrt(x * x + t(4))) / t(2))


def _abstract_eval(x):
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"squareplus takes floating-point numbers, got {x.dtype}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


impl_rules[squareplus_p] = _impl
abstract_eval_rules[squareplus_p] = _abstract_eval


def squareplus_cuda_rule(c, x):
    """The CUDA kernel-source expression of one element of ``squareplus(x)``."""
    raise NotImplementedError("exercise 1 of chapter 10: the CUDA lowering rule of squareplus")


register(squareplus_p, squareplus_cuda_rule, "scalar")
