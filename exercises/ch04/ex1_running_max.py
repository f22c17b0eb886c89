"""Exercise 1 of chapter 04: the batching rule of a new primitive, ``running_max``.

``running_max(x, axis=k)`` is the running maximum of ``x`` along its axis
``k``: NumPy's ``np.maximum.accumulate(x, axis=k)``. The primitive, its impl
(NumPy) and its abstract-eval rule (the result has ``x``'s type) are written
for you below, and eager calls work. But ``vmap`` of it needs a batching
rule; without one, ``vmap`` fails with JAX's message::

    NotImplementedError: Batching rule for 'running_max' not implemented

Your task: write :func:`running_max_batching_rule` (until you do, it raises
``NotImplementedError`` itself). It is already registered
in the real table, ``minijax.interpreters.batching.batching_rules``, so once
it works every ``vmap`` of ``running_max`` uses it. A batching rule is
called as ``rule(batched_args, batch_dims, **params)``: here one batched
value ``x`` (the whole batch), its batch axis ``bdim`` and the parameter
``axis``, which numbers the axes of *one example*. It returns
``(out, out_bdim)``: the batched result, computed by binding
``running_max_p`` once on the whole batch, and where its batch axis is.

Do not move the batch axis (no ``transpose``): the running maximum along
one axis does not mix examples, wherever the batch axis is. Only the
``axis`` parameter must be renumbered, as the reduction rule of the
chapter's section 2 renumbers ``axes``.

Check: ``make exercise-ch04`` (``pytest exercises/ch04``).
Hint: the example's axis ``k`` is the batch's axis ``k`` when ``k < bdim``,
and ``k + 1`` otherwise.
"""
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
    """``(running_max of the whole batch, its batch axis)``."""
    raise NotImplementedError("exercise 1 of chapter 04: write running_max's batching rule")


batching_rules[running_max_p] = running_max_batching_rule
