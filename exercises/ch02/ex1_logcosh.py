"""Exercise 1 of chapter 02: the JVP rule of a new primitive, ``logcosh``.

``logcosh(x) = log(cosh(x))`` is a smooth version of ``|x|`` (a robust
loss). Its primitive, impl and abstract-eval rules and its ``jnp``-style
function are written below, as chapter 00 taught; it has no derivative yet:
``jvp(logcosh, ...)`` raises ``NotImplementedError: Differentiation rule for
'logcosh' not implemented``.

Write ``_logcosh_jvp(primals, tangents)``: given the primal ``(x,)`` and the
tangent ``(t,)``, return ``(logcosh(x), d logcosh(x) / dx * t)``. The
derivative of ``log(cosh(x))`` is ``tanh(x)``. The module registers it in
chapter 02's rule table, ``ad.jvp_rules[logcosh_p]``.

Write the rule with ``lax`` (or ``jnp``) operations, not NumPy: the rule
runs under the parent trace, so if the parent is another ``jvp`` it is
differentiated in turn and ``jvp`` of ``jvp`` gives the second derivative,
``1 - tanh(x) ** 2``, with no more code. Then ``jacfwd(logcosh)`` works too.

Check it: ``make exercise-ch02`` (or ``pytest exercises/ch02/test_ex1_logcosh.py``).

Hint: ``sin``'s rule in ``minijax/interpreters/jvp_rules.py``; the helpers
``defjvp``/``defjvp2`` of ``minijax.interpreters.ad`` write the rule for you
from the partial derivative (then remove the assignment below).
"""
import numpy as np

from minijax.interpreters import ad
from minijax.lax.base import INEXACT, unop
from minijax.numpy.util import promote_args_inexact


def _logcosh_impl(x):
    wide = x.astype(np.float64)                       # log(cosh(x)) without overflow:
    return (np.logaddexp(wide, -wide) - np.log(2.0)).astype(x.dtype)   # log((e^x + e^-x) / 2)


logcosh_p = unop("logcosh", _logcosh_impl, INEXACT, transcendental=True)


def logcosh(x):
    """``log(cosh(x))``, elementwise."""
    return logcosh_p.bind(*promote_args_inexact("logcosh", x))


def _logcosh_jvp(primals, tangents):
    raise NotImplementedError("exercise 1 of chapter 02: the jvp rule of logcosh")


ad.jvp_rules[logcosh_p] = _logcosh_jvp
