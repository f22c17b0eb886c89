"""Exercise 1 of chapter 00: add a primitive, ``cube``.

A primitive is an object with a name; what it *means* lives in rule tables
keyed by it (``minijax.primitives.impl_rules`` and ``abstract_eval_rules``).
This module creates ``cube_p`` and registers two rules for it; you write
their bodies, and a ``jnp``-style function that uses it.

1. ``_cube_impl(x)``: the impl rule. ``x`` is a NumPy array (or NumPy
   scalar); return ``x ** 3`` computed in ``x``'s dtype (``x * x * x``: an
   int8 cube wraps around as NumPy's does).
2. ``_cube_abstract_eval(x)``: the abstract-evaluation rule. ``x`` is a
   ``ShapedArray``; return the output's ``ShapedArray``: the same shape, the
   same dtype, the same weak type. Integers, floats and complex numbers are
   accepted; any other dtype (bool) raises JAX's ``TypeError``:
   ``cube does not accept dtype bool. Accepted dtypes are subtypes of
   integer, floating, complexfloating.``
3. ``cube(x)``: the function a user calls, like ``jnp.square``: it accepts
   anything array-like (an ``Array``, a NumPy array, a Python scalar), raises
   JAX's ``TypeError`` for anything else (a list), and binds ``cube_p``.
   A Python scalar stays weakly typed: ``cube(2.0)`` is a weak float32.

Check it: ``make exercise-ch00`` (or ``pytest exercises/ch00/test_ex1_cube.py``).

Hints: ``minijax.lax.base`` has ``check_family`` and the dtype families
(``NUM``...); ``minijax.numpy.util`` has ``check_arraylike``. Eager
evaluation (``minijax.dispatch.apply_primitive``) calls your abstract rule
first and your impl second; read ``lax.sin_p``'s rules with
``minijax.primitives.rules_of("sin")``.
"""
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

cube_p = Primitive("cube", kind="elementwise")


def _cube_impl(x):
    raise NotImplementedError("exercise 1 of chapter 00: the impl rule of cube")


def _cube_abstract_eval(x: ShapedArray) -> ShapedArray:
    raise NotImplementedError("exercise 1 of chapter 00: the abstract-eval rule of cube")


impl_rules[cube_p] = _cube_impl
abstract_eval_rules[cube_p] = _cube_abstract_eval


def cube(x):
    """``x ** 3``, elementwise, in ``x``'s dtype."""
    raise NotImplementedError("exercise 1 of chapter 00: cube(x), binding cube_p")
