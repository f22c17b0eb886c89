"""Chapter 08, exercise 3: the JVP of a ``switch`` is a ``switch`` of JVPs.

This module makes ``toy_switch``, an n-way ``cond``: the primitive holds one
jaxpr per branch and runs the one at ``index`` (impl and abstract-eval rules
below; the jaxprs take any number of operands and return a list). What it
lacks is a **JVP rule**, so ``minijax.jvp`` of a function calling it fails.
Write it.

A JVP rule (chapter 02) receives the primals and their tangents and returns
the outputs and theirs::

    toy_switch_jvp([index, x], [index_dot, x_dot], *, branches)
        -> ([out], [out_dot])

``index`` is an int32 (its tangent is a symbolic zero: ignore it); ``x_dot``
may be a symbolic ``Zero`` (``ad.instantiate_zeros`` makes it an array). The
rule runs under the outer trace, so what it binds is recorded there.

The idea, as ``lax.cond``'s own rule: differentiate *each branch* into a new
jaxpr that takes ``(x, x_dot)`` and returns ``[out, out_dot]``, and bind ONE
``toy_switch`` of those jaxprs on ``(index, x, x_dot)``. Only the chosen
branch runs, primal and tangent together; evaluating every branch and
selecting would be a different (and, for a ``nan`` in the branch not taken,
a wrong) program, and the check looks for exactly one ``toy_switch``.

Check: ``make exercise-ch08`` (or ``pytest exercises/ch08/test_ex3_switch_jvp.py``).
Hint: ``trace_to_jaxpr_dynamic(lambda x, t: list(minijax.jvp(fun, (x,), (t,))),
[aval, aval])`` traces a branch's JVP, where ``fun = lambda x: jaxpr_as_fun(branch)(x)[0]``;
wrap the result in a ``ClosedJaxpr(jaxpr, consts)`` as ``toy_switch`` does.
"""
import numpy as np

from minijax import lax
from minijax.core import get_aval
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr
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
    raise NotImplementedError("exercise 3 of chapter 08: the JVP rule of toy_switch")


jvp_rules[toy_switch_p] = toy_switch_jvp
