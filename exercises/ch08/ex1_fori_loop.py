"""Chapter 08, exercise 1: ``fori_loop`` written with ``while_loop``.

``lax.fori_loop(lower, upper, body_fun, init_val)`` means::

    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val

Write it with ``lax.while_loop(cond_fun, body_fun, init_val)``, the one loop
primitive whose trip count may be a traced value: the loop's *carry* must hold
everything the condition and the body need from one iteration to the next
(the counter ``i`` as well as ``val``; and, when ``upper`` is a traced value,
``upper`` too, or close over it: ``while_loop`` turns a closed-over tracer
into an operand of the ``while`` primitive, as ``cond`` does in section 2).

When you are done, the function works with Python bounds and with traced ones
(under ``jit``, under ``vmap`` with a different trip count per example), its
jaxpr holds one ``while`` equation and no ``scan``, and ``jvp`` goes through
it. (The real ``lax.fori_loop`` makes a ``scan`` when the bounds are Python
numbers, so that ``grad`` works: this one need not.)

Check: ``make exercise-ch08`` (or ``pytest exercises/ch08/test_ex1_fori_loop.py``).
Hint: the counter starts as ``lower``; the condition is ``i < upper``; the body
returns ``(i + 1, body_fun(i, val))``.
"""
from minijax import lax  # noqa: F401  (lax.while_loop is what you need)


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, as a ``while`` loop."""
    raise NotImplementedError("exercise 1 of chapter 08: write fori_loop with lax.while_loop")
