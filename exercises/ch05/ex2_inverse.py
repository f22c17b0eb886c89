"""Exercise 2 of chapter 05: a custom jaxpr interpreter that inverts a function.

JAX's tutorial "Writing custom Jaxpr interpreters" builds ``inverse(f)``: a
function that computes ``x`` from ``y = f(x)``, for ``f`` a chain of
invertible unary primitives (``exp``, ``log``, ``tanh``...). It does not
trace ``f`` with a new kind of tracer; it traces ``f`` once to a jaxpr
(``make_jaxpr``) and then *interprets the jaxpr backwards*: start with
``y`` as the value of the output variable, walk the equations from last to
first, and for each equation ``out = prim in`` compute
``in = inverse_rules[prim](out)``.

Two things to write, both below, with the objects of ``minijax.extend.core``
(the names of ``jax.extend.core``: ``Literal``, ``Var``...):

1. :func:`inverse_jaxpr` (``jaxpr, consts, *args -> list of input values``):
   an environment maps each variable to its value; it starts with the
   jaxpr's outputs (``args``) and its constants; equations are processed in
   reverse; each of them must have one variable input (a ``Literal`` input
   is not supported: raise ``NotImplementedError`` naming the primitive) and
   its rule in ``inverse_rules`` (else ``NotImplementedError`` too).
   Return the values of ``jaxpr.invars``.
2. The inverse rules of ``tanh`` and ``log1p`` in :data:`inverse_rules`
   (``exp`` and ``log`` are given), written with ``lax`` functions, so that
   the inverse can itself be traced, jitted and batched.

:func:`inverse` (given) puts it together.

Check: ``make exercise-ch05`` (``pytest exercises/ch05``).
Hint: the interpreter of the chapter's section 5 (``my_eval_jaxpr``) runs
forward with ``read`` and an ``env``; yours runs backwards with the same two.
"""
from minijax import lax
from minijax.extend.core import Literal  # noqa: F401
from minijax.interpreters.partial_eval import make_jaxpr

#: primitive -> a function from the output's value to the input's value
inverse_rules = {
    lax.exp_p: lax.log,
    lax.log_p: lax.exp,
    # yours: lax.tanh_p and lax.log1p_p
}


def inverse_jaxpr(jaxpr, consts, *args):
    """The values of ``jaxpr``'s inputs, given the values ``args`` of its outputs."""
    raise NotImplementedError("exercise 2 of chapter 05: write inverse_jaxpr")


def inverse(fun):
    """``inverse(fun)(y)`` is the ``x`` with ``fun(x) == y`` (``fun``: one array in, one out)."""
    def wrapped(y):
        closed = make_jaxpr(fun)(y)          # trace fun on an argument of y's type
        (x,) = inverse_jaxpr(closed.jaxpr, closed.consts, y)
        return x
    return wrapped
