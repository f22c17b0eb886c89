"""Exercise 1 of chapter 07, a solution: the transpose rule of ``running_sum``."""
import numpy as np

from minijax import lax
from minijax.interpreters import ad
from minijax.interpreters.transpose import deflinear2
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

running_sum_p = Primitive("running_sum", kind="cumulative", linear_in=(0,))
impl_rules[running_sum_p] = lambda x, *, axis: np.cumsum(np.asarray(x), axis=axis, dtype=x.dtype)
abstract_eval_rules[running_sum_p] = lambda aval, *, axis: aval
ad.deflinear(running_sum_p)          # d running_sum(x) = running_sum(dx)


def running_sum(x, axis=0):
    """The running sum of ``x`` along ``axis`` (a non-negative axis number)."""
    return running_sum_p.bind(x, axis=axis)


def running_sum_transpose(ct, x, *, axis):
    """``[the cotangent of x]``, given the cotangent ``ct`` of ``running_sum(x, axis)``."""
    # L^T ct: the running sum from the far end = reverse, running sum, reverse
    return [lax.rev(running_sum(lax.rev(ct, (axis,)), axis), (axis,))]


deflinear2(running_sum_p, running_sum_transpose)
