"""Exercise 1 of chapter 05, a solution: dead-code elimination."""
from minijax.extend.core import Jaxpr, Literal


def dce_jaxpr(jaxpr, used_outputs):
    outvars = [v for v, used in zip(jaxpr.outvars, used_outputs) if used]
    live = {v for v in outvars if not isinstance(v, Literal)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if not isinstance(v, Literal))
    used_inputs = [v in live for v in jaxpr.invars]
    invars = [v for v, used in zip(jaxpr.invars, used_inputs) if used]
    return Jaxpr(jaxpr.constvars, invars, outvars, kept[::-1]), used_inputs
