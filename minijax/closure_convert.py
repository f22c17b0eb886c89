"""Chapter 07 — ``jax.closure_convert``: turn the values a function closes over into arguments.

``custom_vjp`` differentiates only with respect to explicit arguments (its
rules cannot see a closed-over value's tangent). A function that closes over
a value being differentiated, typically a ``lambda`` defined inside the
function being differentiated, must hand that value over explicitly.
``closure_convert(fun, *example_args)`` does it mechanically: it traces
``fun`` to a jaxpr, where every closed-over value is a constant, and splits
the constants in two:

- those that may carry a derivative (tracers of a ``grad``/``jvp``, or of a
  ``jit`` being traced) are *hoisted*: returned, to be passed as extra
  arguments;
- the rest (plain arrays, integer values) stay inside.

It returns ``(converted_fun, hoisted_consts)`` with
``converted_fun(*args, *hoisted_consts) == fun(*args)``.
"""
from __future__ import annotations

from typing import Callable

from minijax.core import Tracer, get_aval
from minijax.interpreters.ad import JVPTracer, float0, tangent_aval
from minijax.interpreters.batching import BatchTracer
from minijax.interpreters.partial_eval import DynamicJaxprTracer, trace_to_jaxpr_dynamic
from minijax.jaxpr import eval_jaxpr
from minijax.tree_util import tree_flatten, tree_unflatten

__all__ = ["closure_convert"]


def _maybe_perturbed(x) -> bool:
    """Could ``x`` carry a nonzero tangent, now or once a staged program is differentiated?"""
    if not isinstance(x, Tracer):
        return False  # a plain value never has a tangent
    if isinstance(x, JVPTracer):
        return True
    if isinstance(x, DynamicJaxprTracer):  # staged: only inexact values can be perturbed
        return tangent_aval(x.aval).dtype != float0
    if isinstance(x, BatchTracer):
        return _maybe_perturbed(x.val)
    return True  # any other transformation's value: assume it may be


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list]:
    """``(converted_fun, hoisted_consts)``: ``fun`` with its differentiable closure as
    arguments. ``example_args`` give the arguments' shapes and dtypes (and tree)."""
    leaves, in_tree = tree_flatten(example_args)
    out_trees = []

    def flat_fun(*flat_args):
        out, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, flat_args)))
        out_trees.append(out_tree)
        return out

    jaxpr, _, consts = trace_to_jaxpr_dynamic(flat_fun, [get_aval(x) for x in leaves])
    out_tree = out_trees[0]
    hoist = [_maybe_perturbed(c) for c in consts]
    kept = [c for c, h in zip(consts, hoist) if not h]
    hoisted = [c for c, h in zip(consts, hoist) if h]

    def converted_fun(*args_and_consts):
        n_args = len(args_and_consts) - len(hoisted)
        args, given = args_and_consts[:n_args], iter(args_and_consts[n_args:])
        kept_it = iter(kept)
        all_consts = [next(given) if h else next(kept_it) for h in hoist]
        arg_leaves, tree = tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError("The inputs to the closure produced by closure_convert must have "
                            "the same Pytree structure as the example arguments passed when "
                            f"closure_convert was called. Expected {in_tree}, but got {tree}")
        return tree_unflatten(out_tree, eval_jaxpr(jaxpr, all_consts, *arg_leaves))

    return converted_fun, hoisted
