"""Exercise 1 of chapter 04, a solution: ``running_max``'s batching rule."""
import numpy as np

from minijax.interpreters.batching import batching_rules
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

running_max_p = Primitive("running_max", kind="cumulative")


def _running_max_impl(x, *, axis):
    return np.maximum.accumulate(np.asarray(x), axis=axis)


def _running_max_abstract_eval(aval, *, axis):
    if not 0 <= axis < aval.ndim:
        raise ValueError(f"running_max: axis {axis} is out of bounds for {aval}")
    return aval


impl_rules[running_max_p] = _running_max_impl
abstract_eval_rules[running_max_p] = _running_max_abstract_eval


def running_max(x, axis=0):
    """The running maximum of ``x`` along ``axis`` (a non-negative axis number)."""
    return running_max_p.bind(x, axis=axis)


def running_max_batching_rule(batched_args, batch_dims, *, axis):
    (x,), (bdim,) = batched_args, batch_dims
    batch_axis = axis if axis < bdim else axis + 1   # skip over the batch axis
    return running_max_p.bind(x, axis=batch_axis), bdim   # the batch axis stays put


batching_rules[running_max_p] = running_max_batching_rule
