"""Chapter 09, exercise 1: a lowering rule on the CPU target.

This module adds a primitive, ``softsign(x) = x / (1 + |x|)``, with its impl
and abstract-eval rules (chapter 00), so it runs eagerly and traces. Under
``jit`` the CPU backend plans it: it is ``kind="elementwise"``, so the planner
puts it in a fused loop nest with its neighbours, and then asks the CPU rule
table (``minijax.backends.cpu.rules.LOWERINGS``) for the line of kernel source
that computes one element. The rule registered below raises, so the backend
gives up on the whole function and runs it on the interpreter (a *fallback*,
reported by ``minijax.backends.registry.report_fallback``). Write the rule.

A ``"scalar"`` rule is ``rule(c, x) -> str``: ``x`` is the *expression* of one
element of the operand (``"a[i0]"``, or ``"b_i"``, the variable a fused
equation before it assigned), and the rule returns the expression of one
element of the result, which the writer assigns to a variable::

    c_i = <your expression>  # c:f32[8] = softsign b

``c`` is a ``ScalarContext``: ``c.out_dtype`` is the dtype the kernel computes
in. The source must keep float32 in float32 (Numba would turn a bare ``1.0``
into a float64 and the whole expression with it), so write constants with
``syntax.literal(1, c.out_dtype)``, which gives ``np.float32(1.0)``. Read
``_abs`` and ``_div`` in ``minijax/backends/cpu/rules.py`` for the functions
the kernel language has (``np.abs``...).

When it works, ``jit`` of a function using ``softsign`` compiles through the
CPU backend without a fallback, ``softsign`` sits in the same loop nest as the
``sin`` after it, ``lower(x).as_text()`` shows your line, and the results are
NumPy's.

Check: ``make exercise-ch09`` (or ``pytest exercises/ch09/test_ex1_scalar_rule.py``).
Hint: look at the generated source of ``jit(jnp.abs).lower(x).as_text()``.
"""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu.rules import register
from minijax.backends.cpu.syntax import literal  # noqa: F401  (for your rule)
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

softsign_p = Primitive("softsign", kind="elementwise")


def softsign(x):
    """``x / (1 + |x|)``, elementwise, for floating-point ``x``."""
    return softsign_p.bind(x)


def _impl(x):
    x = np.asarray(x)
    return np.asarray(x / (x.dtype.type(1) + np.abs(x)))


def _abstract_eval(x):
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"softsign takes floating-point numbers, got {x.dtype}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


impl_rules[softsign_p] = _impl
abstract_eval_rules[softsign_p] = _abstract_eval


def softsign_cpu_rule(c, x):
    """The kernel-source expression of one element of ``softsign(x)``."""
    raise NotImplementedError("exercise 1 of chapter 09: the CPU lowering rule of softsign")


register(softsign_p, softsign_cpu_rule, "scalar")
