"""Chapter 07 — ``jax.ad_checkpoint``: policies, names, and which residuals are saved.

:mod:`minijax.checkpoint` builds ``checkpoint`` and its policies; this module
is the public face JAX gives them (``jax.ad_checkpoint.checkpoint_name``,
``checkpoint_policies``, the policy answers ``Saveable``, ``Recompute``,
``Offloadable``) plus the tool that shows what a policy does:
:func:`print_saved_residuals`.

It works on the pull-back of :func:`~minijax.autodiff.vjp`, which is a pytree
whose leaves are the residuals. Tracing ``lambda *args: vjp(f, *args)`` to a
jaxpr makes those leaves outputs of the jaxpr, and each one is then traced
back to where it comes from: an argument, a constant, or the equation that
computed it (with its source line and, for ``checkpoint_name``, its name).
"""
from __future__ import annotations

from typing import Callable

from minijax.abstract_arrays import ShapedArray
from minijax.autodiff import vjp
from minijax.checkpoint import (Offloadable, Recompute, Saveable, checkpoint_name,  # noqa: F401
                                checkpoint_policies, name_p)
from minijax.interpreters.partial_eval import debug_info, make_jaxpr
from minijax.jaxpr import Literal
from minijax.lax.elementwise import reduce_precision_p
from minijax.tree_util import tree_flatten, tree_structure, tree_unflatten

__all__ = ["checkpoint_name", "checkpoint_policies", "print_saved_residuals",
           "saved_residuals", "Saveable", "Recompute", "Offloadable"]


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple[ShapedArray, str]]:
    """The residuals ``vjp(f, *args)`` saves: ``[(aval, where it comes from), ...]``."""
    in_leaves, in_tree = tree_flatten((args, kwargs))

    def flat_f(*leaves):
        a, kw = tree_unflatten(in_tree, leaves)
        return f(*a, **kw)

    arg_names = debug_info("saved_residuals", f, args, kwargs).arg_names
    closed, out_shape = make_jaxpr(lambda *xs: vjp(flat_f, *xs), return_shape=True)(*in_leaves)
    jaxpr = closed.jaxpr
    num_res = tree_structure(out_shape[1]).num_leaves
    res_outs = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    # a rounding (reduce_precision) of a residual is not where it comes from: look through
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    res_vars = {through.get(v, v) for v in res_outs if not isinstance(v, Literal)}

    found = [(v.aval, "from a literal") for v in res_outs if isinstance(v, Literal)]
    found += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            name = arg_names[i] if arg_names else None
            found.append((v.aval, f"from the argument {name}" if name else
                          f"from the argument at flattened index {i}"))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v not in res_vars:
                continue
            src = eqn.source_info or ""
            if eqn.primitive is name_p:
                found.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
            elif eqn.primitive.name == "jit":
                found.append((v.aval, f"output of jitted function '{eqn.params['name']}' "
                                      f"from {src}"))
            else:
                found.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return found


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
    """Print one line per residual ``vjp(f, *args)`` saves: its type and its origin::

        f32[5,4] from the argument W1
        f32[5] output of sin from model.py:3:9 (g)
    """
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {src}")
