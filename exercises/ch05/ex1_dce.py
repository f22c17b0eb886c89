"""Exercise 1 of chapter 05: dead-code elimination, a pass over a jaxpr.

Tracing records every primitive a function binds, even those whose results
nobody reads. A compiler drops them: that is *dead-code elimination* (DCE),
and JAX's version, ``dce_jaxpr``, runs after every transformation that can
leave dead code behind (chapter 07's ``grad`` leaves plenty).

Write :func:`dce_jaxpr` with the signature of JAX's::

    dce_jaxpr(jaxpr, used_outputs) -> (new_jaxpr, used_inputs)

- ``used_outputs`` is one bool per output of ``jaxpr``: the outputs the
  caller still needs. ``new_jaxpr`` returns only those.
- ``new_jaxpr`` keeps an equation only if one of its outputs is needed (by a
  kept equation or a kept output), or if it has effects (``eqn.effects``
  non-empty: chapter 12's ``debug.print`` must run even if it returns nothing
  anyone reads). Keep the kept equations in their order.
- ``used_inputs`` is one bool per input (``jaxpr.invars``): is it read by a
  kept equation or returned? ``new_jaxpr`` has only the used inputs.
  The constvars stay as they are.

Build the result with ``Jaxpr(constvars, invars, outvars, eqns)`` from
``minijax.extend.core`` (JAX: ``jax.extend.core``); ``Literal`` operands are
not variables and are never "used".

Check: ``make exercise-ch05`` (``pytest exercises/ch05``); the expected
jaxprs are JAX 0.10.2's, printed.
Hint: walk the equations *backwards*, carrying the set of live variables;
start with the variables of the used outputs.
"""
from minijax.extend.core import Jaxpr, Literal  # noqa: F401


def dce_jaxpr(jaxpr, used_outputs):
    """``(jaxpr without dead code and unused outputs, one bool per input: used?)``."""
    raise NotImplementedError("exercise 1 of chapter 05: write dce_jaxpr")
