"""Chapter 07 — ``jax.custom_gradient``: a function that returns its own pull-back.

The TensorFlow-style way to state a derivative: the function returns its
value *and* a function that maps an output cotangent to the input
cotangents::

    @custom_gradient
    def clip_gradient(x):
        return x, lambda g: (jnp.clip(g, -1., 1.),)

It is ``custom_vjp`` in disguise: ``fwd`` runs the function, and the
residuals must be values, not a Python closure, so the returned pull-back is
*traced* right away into a jaxpr; its closed-over values (``x`` above, for
``lambda g: (g * x,)``) become the jaxpr's constants, and those are the
residuals ``bwd`` evaluates the jaxpr with.
"""
from __future__ import annotations

import functools
from typing import Callable

from minijax.core import get_aval
from minijax.custom_derivatives import custom_vjp
from minijax.interpreters.ad import tangent_aval
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import eval_jaxpr
from minijax.tree_util import register_pytree_node, tree_flatten, tree_unflatten

__all__ = ["custom_gradient"]


class _TracedPullBack:
    """The user's pull-back as residuals: a jaxpr (static) and its constants (leaves)."""
    __slots__ = ("jaxpr", "cts_in_tree", "cts_out_tree", "consts")

    def __init__(self, jaxpr, cts_in_tree, cts_out_tree, consts):
        self.jaxpr, self.consts = jaxpr, consts
        self.cts_in_tree, self.cts_out_tree = cts_in_tree, cts_out_tree


register_pytree_node(
    _TracedPullBack, lambda r: ((r.consts,), (r.jaxpr, r.cts_in_tree, r.cts_out_tree)),
    lambda static, children: _TracedPullBack(*static, *children))


def custom_gradient(fun: Callable) -> Callable:
    """Give ``fun`` the derivative it states itself (``jax.custom_gradient``).

    ``fun(*args)`` returns ``(output, vjp)``, where ``vjp(output_cotangent)``
    returns the cotangents of ``args`` (a tuple, or one value for a function
    of one argument).
    """
    @functools.wraps(fun)
    def value(*args):
        return fun(*args)[0]

    def fwd(*args):
        ans, pull_back = fun(*args)
        ct_leaves, ct_tree = tree_flatten((ans,))
        found = []

        def flat_pull_back(*cts):
            out_leaves, out_tree = tree_flatten(pull_back(*tree_unflatten(ct_tree, cts)))
            found.append(out_tree)
            return out_leaves

        avals = [tangent_aval(get_aval(x)) for x in ct_leaves]
        jaxpr, _, consts = trace_to_jaxpr_dynamic(flat_pull_back, avals)
        return ans, _TracedPullBack(jaxpr, ct_tree, found[0], consts)

    def bwd(res: _TracedPullBack, ct):
        ct_leaves, ct_tree = tree_flatten((ct,))
        if ct_tree != res.cts_in_tree:
            raise TypeError(f"{res.cts_in_tree}\n!=\n{ct_tree}")
        cts_out = tree_unflatten(res.cts_out_tree, eval_jaxpr(res.jaxpr, res.consts, *ct_leaves))
        return (cts_out,) if res.cts_out_tree.num_nodes == 1 else cts_out

    wrapped = custom_vjp(value)
    wrapped.defvjp(fwd, bwd)
    return wrapped
