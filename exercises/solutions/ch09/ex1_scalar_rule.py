"""Chapter 09, exercise 1 (a solution): the CPU lowering rule of ``softsign``."""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu.rules import register
from minijax.backends.cpu.syntax import literal
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
    return f"{x} / ({literal(1, c.out_dtype)} + np.abs({x}))"


register(softsign_p, softsign_cpu_rule, "scalar")
