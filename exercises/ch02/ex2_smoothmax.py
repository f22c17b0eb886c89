"""Exercise 2 of chapter 02: the JVP rule of a binary primitive, ``smoothmax``.

``smoothmax(x, y) = log(exp(x) + exp(y))`` (NumPy's ``logaddexp``) is a
smooth ``max``. Its primitive broadcasts the way ``lax.add`` does (a rank-0
operand against anything) and requires both operands to share one float
dtype; ``smoothmax`` below promotes as ``jnp`` does. It has no derivative yet.

Write ``_smoothmax_jvp(primals, tangents)``, returning ``(smoothmax(x, y),
tangent_out)``. With ``ans = smoothmax(x, y)`` the partial derivatives are
``exp(x - ans)`` and ``exp(y - ans)`` (the two weights of a softmax; they
add up to 1), so ``tangent_out = tx * exp(x - ans) + ty * exp(y - ans)``.

Two things a binary rule must handle:

- **symbolic zeros**: when only ``x`` is differentiated (``y`` is a constant,
  or an integer), ``ty`` is an ``ad.Zero``, a tangent with an aval and no
  numbers. Skip its term; do not multiply by it. (``JVPTrace`` only calls the
  rule when at least one tangent is not a ``Zero``.)
- **broadcasting**: ``smoothmax(x_vector, y_scalar)`` has the vector's
  shape, and so must ``tangent_out``, even when only the scalar moves.

Check it: ``make exercise-ch02`` (or ``pytest exercises/ch02/test_ex2_smoothmax.py``).

Hint: ``minijax.interpreters.ad`` has ``Zero``, ``add_tangents``,
``maybe_broadcast`` and the helpers ``defjvp``/``defjvp2``, which do both
for you: read how ``_sum_of_terms`` builds the rule. ``max``'s rule in
``jvp_rules.py`` is a close relative.
"""
import numpy as np

from minijax.interpreters import ad
from minijax.lax.base import FLOAT, naryop
from minijax.numpy.util import promote_args_inexact

smoothmax_p = naryop("smoothmax", np.logaddexp, [FLOAT, FLOAT], transcendental=True)


def smoothmax(x, y):
    """``log(exp(x) + exp(y))``, elementwise, broadcasting as NumPy does."""
    return smoothmax_p.bind(*promote_args_inexact("smoothmax", x, y))


def _smoothmax_jvp(primals, tangents):
    raise NotImplementedError("exercise 2 of chapter 02: the jvp rule of smoothmax")


ad.jvp_rules[smoothmax_p] = _smoothmax_jvp
