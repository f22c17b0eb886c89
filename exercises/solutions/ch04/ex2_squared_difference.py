"""Exercise 2 of chapter 04, a solution: ``squared_difference``'s batching rule."""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.interpreters import batching
from minijax.interpreters.batching import batching_rules
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

squared_difference_p = Primitive("squared_difference", kind="elementwise")


def _impl(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        raise ValueError(f"squared_difference: shapes differ: {x.shape} and {y.shape}")
    return np.square(x - y)


def _abstract_eval(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f"squared_difference: operands must have the same type, got {x} and {y}")
    return ShapedArray(x.shape, x.dtype)


impl_rules[squared_difference_p] = _impl
abstract_eval_rules[squared_difference_p] = _abstract_eval


def squared_difference(x, y):
    """``(x - y) ** 2`` for ``x`` and ``y`` of the same shape and dtype."""
    return squared_difference_p.bind(x, y)


def squared_difference_batching_rule(batched_args, batch_dims):
    (x, y), (xd, yd) = batched_args, batch_dims
    size = batching.batch_size(batched_args, batch_dims)
    if xd is None:                       # shared x: every example sees the same values
        x, xd = batching.broadcast(x, size, yd), yd
    elif yd is None:
        y, yd = batching.broadcast(y, size, xd), xd
    elif xd != yd:                       # batched along different axes: line them up
        y, yd = batching.moveaxis(y, yd, xd), xd
    return squared_difference_p.bind(x, y), xd


batching_rules[squared_difference_p] = squared_difference_batching_rule
