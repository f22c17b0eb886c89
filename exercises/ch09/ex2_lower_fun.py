"""Chapter 09, exercise 2: lower a primitive as the jaxpr of a function.

Not every primitive needs a rule that writes kernel source. JAX lowers many as
the jaxpr of a Python function written with other primitives
(``mlir.lower_fun``); minijax's planner does the same
(``minijax.backends.plan.passes.register_lower_fun``; chapter 13's
``random_gamma`` is lowered so): before it groups equations, the planner traces
the function on the equation's operand types and inlines its jaxpr, whose
equations then fuse like any others. No target needs a rule of its own.

This module adds ``hard_swish(x) = x * relu6(x + 3) / 6`` (MobileNetV3's
activation; ``relu6(y) = min(max(y, 0), 6)``) as a primitive with its impl
and abstract-eval rules, and registers ``hard_swish_lowering`` as its lowering
function, for the CPU target too (``rules.register_lower_fun_lowering``
records in the CPU rule table that the primitive is lowered by expansion).
Write ``hard_swish_lowering(x)``: the same function, with ``jnp`` or ``lax``
operations, on a traced ``x``.

When it works, ``jit`` of a function calling ``hard_swish`` compiles through
the CPU backend without a fallback, its kernel plan is ONE loop nest (the
``hard_swish`` equation is gone, its pieces fused with the ``exp`` after it),
and the results are NumPy's.

Check: ``make exercise-ch09`` (or ``pytest exercises/ch09/test_ex2_lower_fun.py``).
Hint: keep float32 float32: ``x + 3.0`` and ``jnp.clip(y, 0.0, 6.0)`` take
Python scalars as weak types (chapter 00), so the result stays float32.
"""
import numpy as np

import minijax.numpy as jnp  # noqa: F401  (for your lowering)
from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu import rules
from minijax.backends.plan.passes import register_lower_fun
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

hard_swish_p = Primitive("hard_swish", kind="elementwise")


def hard_swish(x):
    """``x * relu6(x + 3) / 6``, elementwise, for floating-point ``x``."""
    return hard_swish_p.bind(x)


def _impl(x):
    x = np.asarray(x)
    t = x.dtype.type
    return np.asarray(x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6))


def _abstract_eval(x):
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"hard_swish takes floating-point numbers, got {x.dtype}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


impl_rules[hard_swish_p] = _impl
abstract_eval_rules[hard_swish_p] = _abstract_eval


def hard_swish_lowering(x):
    """``hard_swish`` of a traced ``x``, written with other primitives."""
    raise NotImplementedError("exercise 2 of chapter 09: hard_swish as the jaxpr of a function")


register_lower_fun(hard_swish_p, hard_swish_lowering)
rules.register_lower_fun_lowering(hard_swish_p)
