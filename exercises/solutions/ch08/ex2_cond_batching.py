"""Chapter 08, exercise 2 (a solution): ``vmap`` of ``toy_cond`` is a ``select``."""
import numpy as np

import minijax
from minijax import lax
from minijax.core import get_aval
from minijax.interpreters.batching import batch_size, batching_rules, bdim_at_front
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr, jaxpr_as_fun
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
    size = batch_size(args, dims)
    index, x = (bdim_at_front(a, d, size) for a, d in zip(args, dims))
    outs = [minijax.vmap(jaxpr_as_fun(branch))(x)[0] for branch in branches]
    which = lax.broadcast_in_dim(index, outs[0].shape, (0,))
    return [lax.select_n(which, *outs)], [0]


batching_rules[toy_cond_p] = toy_cond_batching_rule
