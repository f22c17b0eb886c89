"""Exercise 1 of chapter 07: the transpose rule of a new linear primitive, ``running_sum``.

``running_sum(x, axis=k)`` is the running sum of ``x`` along axis ``k``
(``np.cumsum(x, axis=k)``). It is *linear* in ``x``: the primitive below is
created with ``linear_in=(0,)``, and chapter 02's ``deflinear`` gives it its
JVP rule (the tangent's running sum). So ``jvp`` and ``linearize`` already
work. But ``grad`` transposes the linear jaxpr, and without a transpose rule
it fails with JAX's message::

    NotImplementedError: Transpose rule (for reverse-mode differentiation) for
    'running_sum' not implemented

Your task: write :func:`running_sum_transpose` (until you do, it raises
``NotImplementedError`` itself), registered below with
``deflinear2`` into the real table
(``minijax.interpreters.transpose.transpose_rules``). It is called as
``rule(ct, x, *, axis)``: ``ct`` is the cotangent of the output (an array of
the output's shape), ``x`` an ``UndefinedPrimal`` (the linear input: its
``aval`` is known, its value is not). Return a list with one cotangent, that
of ``x``, computed with primitives (``lax`` functions, or ``running_sum``
itself), so that the backward pass can be traced, jitted and differentiated
again.

What is the transpose of a running sum? Along the axis, ``running_sum`` is
the lower-triangular matrix of ones ``L`` (``out[i] = sum_{j <= i} x[j]``).
Its transpose ``L^T`` gives ``ct_x[j] = sum_{i >= j} ct[i]``: a running sum
taken from the other end.

Check: ``make exercise-ch07`` (``pytest exercises/ch07``): against
``L^T`` built with NumPy, the dot-product test and finite differences.
Hint: ``lax.rev(x, (axis,))`` reverses ``x`` along ``axis``.
"""
import numpy as np

from minijax import lax  # noqa: F401
from minijax.interpreters import ad
from minijax.interpreters.transpose import deflinear2
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

running_sum_p = Primitive("running_sum", kind="cumulative", linear_in=(0,))
impl_rules[running_sum_p] = lambda x, *, axis: np.cumsum(np.asarray(x), axis=axis, dtype=x.dtype)
abstract_eval_rules[running_sum_p] = lambda aval, *, axis: aval
ad.deflinear(running_sum_p)          # d running_sum(x) = running_sum(dx)


def running_sum(x, axis=0):
    """The running sum of ``x`` along ``axis`` (a non-negative axis number)."""
    return running_sum_p.bind(x, axis=axis)


def running_sum_transpose(ct, x, *, axis):
    """``[the cotangent of x]``, given the cotangent ``ct`` of ``running_sum(x, axis)``."""
    raise NotImplementedError("exercise 1 of chapter 07: write running_sum's transpose rule")


deflinear2(running_sum_p, running_sum_transpose)
