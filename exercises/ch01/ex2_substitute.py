"""Exercise 2 of chapter 01: a ``Trace`` that swaps one primitive for a function.

``substitute(f, rules)`` returns a function that runs ``f`` with some
primitives replaced: ``rules`` maps a primitive to a Python function of the
same operands and params, ``rule(*args, **params)``, that computes something
else in its place. Every other primitive means what it always meant. For
example, with a second-order Taylor polynomial in place of ``exp``::

    taylor_exp = lambda x: 1.0 + x + x * x / 2.0
    g = substitute(lambda x: jnp.exp(x) * 2.0, {lax.exp_p: taylor_exp})
    g(jnp.float32(0.5))      # 2 * (1 + 0.5 + 0.125) = 3.25

This is how a trace changes what a program means without changing the
program. Two things to get right, both about *which interpreter runs what*:

- a replacement runs under the trace's **parent**, so the primitives it
  binds (``add``, ``mul``...) are evaluated, or seen by an outer trace, but
  not substituted again (a rule that calls ``jnp.exp`` must not loop);
- it composes both ways, as every trace must: ``jvp`` of a substituted
  function is the derivative of the *replacement* (``d/dx`` of the Taylor
  polynomial is ``1 + x``), and substituting inside a function that calls
  ``jvp`` replaces what the inner jvp rules bind too (``exp``'s jvp rule binds
  ``exp`` for its primal; its tangent ``t * ans`` then uses the substitute).
  A value that is not one of the trace's own tracers (a constant, a tracer
  of an outer trace) is passed to the replacement or to the primitive as it is.

``substitute`` wraps ``f``'s arguments (positional, arrays or scalars) and
unwraps its result (an array, or a tuple or list of them).

Check it: ``make exercise-ch01`` (or ``pytest exercises/ch01/test_ex2_substitute.py``).

You also need a tracer class for this trace (write one like the chapter's
``LoggingTracer``, with a ``to_concrete_value`` so that Python control flow
on its values still works).

Hint: start from the chapter's ``LoggingTrace``; a replacement is called
where ``primitive.bind`` would have been.
"""
from minijax import core


class SubstituteTrace(core.Trace):
    def __init__(self, parent, rules):
        self.parent = parent
        self.rules = rules

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError("exercise 2 of chapter 01: SubstituteTrace.process_primitive")


def substitute(f, rules):
    """``f`` with each primitive ``p`` in ``rules`` computed by ``rules[p](*args, **params)``."""
    raise NotImplementedError("exercise 2 of chapter 01: substitute")
