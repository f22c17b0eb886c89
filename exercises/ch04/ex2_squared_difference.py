"""Exercise 2 of chapter 04: a batching rule with two operands, ``squared_difference``.

``squared_difference(x, y)`` is ``(x - y) ** 2`` for two arrays of the *same*
shape. Unlike ``lax.sub``, it does not broadcast: its impl and abstract-eval
rule (written for you below) reject operands whose shapes differ. So its
batching rule must hand it two operands of the same shape, and that is the
whole exercise: line the batch axes up.

Write :func:`squared_difference_batching_rule` (already registered in
``minijax.interpreters.batching.batching_rules``). It receives the two
batched values and their batch axes ``(xd, yd)``; at least one is batched,
the other may be ``None`` (an operand every example shares, ``in_axes=None``)
or batched along a different axis. Cases:

- both batched along the same axis: bind as is, nothing moves;
- one not batched: give it the batch axis, at the other one's batch
  position, by broadcasting (every example sees the same values);
- batched along different axes: move one batch axis to where the other is.

Return ``(out, out_bdim)``. Move data only when you must.

Check: ``make exercise-ch04`` (``pytest exercises/ch04``).
Hint: ``minijax.interpreters.batching`` has the vocabulary:
``batch_size(args, dims)``, ``broadcast(x, size, axis)`` and
``moveaxis(x, src, dst)``.
"""
import numpy as np

from minijax.abstract_arrays import ShapedArray
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
    """``(squared_difference of the batches, its batch axis)``."""
    raise NotImplementedError("exercise 2 of chapter 04: write squared_difference's batching rule")


batching_rules[squared_difference_p] = squared_difference_batching_rule
