"""Chapter 09, exercise 2 (a solution): ``hard_swish`` lowered as the jaxpr of a function."""
import numpy as np

import minijax.numpy as jnp
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
    return x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


register_lower_fun(hard_swish_p, hard_swish_lowering)
rules.register_lower_fun_lowering(hard_swish_p)
