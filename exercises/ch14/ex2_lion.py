"""Exercise 2 of chapter 14: an optimizer of your own, Lion.

An optimizer in ``minijax.example_libraries.optimizers`` is a triple of
functions ``(init, update, get_params)``. With the ``@optimizer`` decorator
you write them for *one* array, and the decorator makes them work on any
pytree of parameters (the state becomes an ``OptimizerState``). Write Lion
(Chen et al., 2023, "Symbolic Discovery of Optimization Algorithms"), which
keeps one running average ``m`` per parameter, starting at zeros, and steps
by the *sign* of an interpolation:

    c = b1 * m + (1 - b1) * g
    x = x - step_size(i) * (sign(c) + weight_decay * x)
    m = b2 * m + (1 - b2) * g

``lion(step_size, b1=0.9, b2=0.99, weight_decay=0.0)``:

1. ``step_size`` is a number or a schedule (a function of the step ``i``):
   ``make_schedule`` turns either into a schedule;
2. ``init(x0)`` returns the state of one array, ``(x0, zeros like x0)``;
3. ``update(i, g, state)`` returns the next state, with the formulas above;
4. ``get_params(state)`` returns ``x``.

Everything in ``jnp``, so that the chapter's ``jit``-ted ``update`` step can
use it as it uses ``adam``.

Check it: ``make exercise-ch14`` (or ``pytest exercises/ch14/test_ex2_lion.py``):
it runs your optimizer beside a NumPy version of the formulas.

Hint: read ``optimizers.momentum`` and ``optimizers.adam``.
"""
import minijax.numpy as jnp  # noqa: F401
from minijax.example_libraries.optimizers import make_schedule, optimizer


@optimizer
def lion(step_size, b1=0.9, b2=0.99, weight_decay=0.0):
    """Construct optimizer triple for Lion (see the module docstring)."""
    raise NotImplementedError("exercise 2 of chapter 14: the Lion optimizer")
