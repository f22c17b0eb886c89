"""Chapter 08, exercise 3 (a solution): the JVP of ``toy_switch`` is a ``toy_switch`` of JVPs."""
import numpy as np

import minijax
from minijax import lax
from minijax.core import get_aval
from minijax.interpreters.ad import instantiate_zeros, jvp_rules
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr, jaxpr_as_fun
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

toy_switch_p = Primitive("toy_switch", multiple_results=True)


def toy_switch(index, funs, x):
    """``funs[index](x)``, the index clamped to the branches: all traced, one run."""
    branches = []
    for f in funs:
        jaxpr, _, consts = trace_to_jaxpr_dynamic(lambda x: [f(x)], [get_aval(x)])
        branches.append(ClosedJaxpr(jaxpr, consts))
    index = lax.clamp(np.int32(0), lax.convert_element_type(index, np.int32),
                      np.int32(len(funs) - 1))
    return toy_switch_p.bind(index, x, branches=tuple(branches))[0]


def _impl(index, *xs, branches):
    branch = branches[int(index)]
    return [np.asarray(y) for y in eval_jaxpr(branch.jaxpr, branch.consts, *xs)]


impl_rules[toy_switch_p] = _impl
abstract_eval_rules[toy_switch_p] = lambda index, *xs, branches: list(branches[0].out_avals)


def toy_switch_jvp(primals, tangents, *, branches):
    """``toy_switch`` under ``jvp``: ``([out], [out_dot])``."""
    index, x = primals
    x_dot = instantiate_zeros(tangents[1])
    aval = get_aval(x)
    jvp_branches = []
    for branch in branches:
        fun = lambda x, branch=branch: jaxpr_as_fun(branch)(x)[0]
        jaxpr, _, consts = trace_to_jaxpr_dynamic(
            lambda x, t: list(minijax.jvp(fun, (x,), (t,))), [aval, aval])
        jvp_branches.append(ClosedJaxpr(jaxpr, consts))
    out, out_dot = toy_switch_p.bind(index, x, x_dot, branches=tuple(jvp_branches))
    return [out], [out_dot]


jvp_rules[toy_switch_p] = toy_switch_jvp
