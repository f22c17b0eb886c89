"""Exercise 2 of chapter 00: a binary primitive and JAX's promotion, ``sqdist``.

``sqdist(x, y) = (x - y) ** 2``, elementwise. As in JAX, the work is split in
two layers:

- the primitive ``sqdist_p`` is strict, as every ``lax`` primitive is: both
  operands must have the *same* inexact dtype (float or complex), and their
  shapes broadcast the way lax broadcasts (equal ranks, each dimension equal
  or 1; a rank-0 operand broadcasts against anything). The output is weakly
  typed only when both operands are.
- ``sqdist(x, y)``, the ``jnp``-style function, is friendly: it promotes
  both arguments through JAX's lattice and, when the common type is not
  inexact (integers, bools), on to the default float, exactly as
  ``jnp.true_divide`` does; it gives them a common rank the NumPy way; then
  it binds ``sqdist_p``. So ``sqdist(int8 array, 2.0)`` is a *weak* float32,
  ``sqdist(int32 array, float16 array)`` is float16, and
  ``sqdist(bfloat16 array, float16 array)`` is float32.

Write the bodies of the three functions below. The errors are JAX's:
``_sqdist_abstract_eval`` raises ``TypeError("lax.sqdist requires arguments to
have the same dtypes, got float32, float16.")`` for mixed dtypes,
``TypeError("sqdist does not accept dtype int32 at position 0. ...")`` for
a non-inexact operand, and ``TypeError("sqdist got incompatible shapes for
broadcasting: (2,), (3,).")`` for shapes that do not broadcast.

Check it: ``make exercise-ch00`` (or ``pytest exercises/ch00/test_ex2_sqdist.py``).

Hints: ``minijax.lax.base`` has ``broadcast_shapes_or_error``,
``check_same_dtypes``, ``check_family`` and ``INEXACT``;
``minijax.numpy.util`` has the promotion helpers every ``jnp`` function
uses (read ``promote_args_inexact``). How is ``jnp.true_divide`` written?
"""
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

sqdist_p = Primitive("sqdist", kind="elementwise")


def _sqdist_impl(x, y):
    raise NotImplementedError("exercise 2 of chapter 00: the impl rule of sqdist")


def _sqdist_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    raise NotImplementedError("exercise 2 of chapter 00: the abstract-eval rule of sqdist")


impl_rules[sqdist_p] = _sqdist_impl
abstract_eval_rules[sqdist_p] = _sqdist_abstract_eval


def sqdist(x, y):
    """``(x - y) ** 2``, elementwise, with JAX's promotion and broadcasting."""
    raise NotImplementedError("exercise 2 of chapter 00: sqdist(x, y), promoting as jnp does")
