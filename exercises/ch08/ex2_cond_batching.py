"""Chapter 08, exercise 2: ``vmap`` of a ``cond`` is a ``select``.

Section 2 of the chapter built ``toy_cond``, a primitive that holds its two
branches as jaxprs and runs one of them. This module makes it again (the
primitive ``toy_cond``, its impl and abstract-eval rules, and the function
``toy_cond(pred, true_fun, false_fun, x)``); what it lacks is a **batching
rule**, so ``vmap`` of a function that calls it fails. Write it.

A batching rule (chapter 04) receives the operands with their batch
dimensions and returns the outputs with theirs::

    toy_cond_batching_rule([index, x], [index_dim, x_dim], *, branches)
        -> ([out], [out_dim])

``index`` is the int32 branch number (0: false, 1: true), ``x`` the operand;
a dimension is ``None`` (``batching.not_mapped``) when that operand is the same
for every example. ``branches`` is a tuple of two ``ClosedJaxpr``; the
primitive has ``multiple_results=True``, so the outputs are a list (of one).

When the index is batched, each example may want a different branch, and one
primitive call cannot take both: run *every* branch on the whole batch and pick
each example's result with ``lax.select_n(index, out_of_branch_0, out_of_branch_1)``
(the index broadcast to the outputs' shape). When only ``x`` is batched, you
may do the same (or, as ``lax.cond`` does, bind ``toy_cond`` with batched
branches).

Check: ``make exercise-ch08`` (or ``pytest exercises/ch08/test_ex2_cond_batching.py``).
Hints: ``batching.batch_size(args, dims)`` and
``batching.bdim_at_front(x, dim, size)`` put every batch axis first (an
unbatched operand is broadcast); ``minijax.vmap(jaxpr_as_fun(branch))`` runs a
branch on the batch; ``lax.broadcast_in_dim(index, shape, (0,))`` gives the
index the outputs' shape.
"""
import numpy as np

from minijax import lax
from minijax.core import get_aval
from minijax.interpreters.batching import batching_rules
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

toy_cond_p = Primitive("toy_cond", multiple_results=True)


def toy_cond(pred, true_fun, false_fun, x):
    """``true_fun(x)`` if ``pred`` else ``false_fun(x)``: both traced, one run."""
    branches = []
    for f in (false_fun, true_fun):                     # index 0 = false, 1 = true
        jaxpr, _, consts = trace_to_jaxpr_dynamic(lambda x: [f(x)], [get_aval(x)])
        branches.append(ClosedJaxpr(jaxpr, consts))
    index = lax.convert_element_type(pred, np.int32)
    return toy_cond_p.bind(index, x, branches=tuple(branches))[0]


def _impl(index, x, *, branches):
    branch = branches[int(index)]
    return [np.asarray(y) for y in eval_jaxpr(branch.jaxpr, branch.consts, x)]


impl_rules[toy_cond_p] = _impl
abstract_eval_rules[toy_cond_p] = lambda index, x, *, branches: list(branches[0].out_avals)


def toy_cond_batching_rule(args, dims, *, branches):
    """``toy_cond`` under ``vmap``: ``([out], [out_dim])``."""
    raise NotImplementedError("exercise 2 of chapter 08: the batching rule of toy_cond")


batching_rules[toy_cond_p] = toy_cond_batching_rule
