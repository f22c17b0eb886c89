"""Exercise 1 of chapter 14: two ``stax`` layers of your own.

In ``minijax.example_libraries.stax`` a layer is a pair of functions:
``init_fun(rng, input_shape) -> (output_shape, params)`` and
``apply_fun(params, inputs, **kwargs) -> outputs``. ``stax.serial`` and the
other combinators take such pairs and return one. Write two more:

1. ``LayerNorm(epsilon=1e-5)``: a layer that normalizes each example over its
   last axis: ``(x - mean) / sqrt(var + epsilon) * scale + bias``, where
   ``mean`` and ``var`` (the biased variance, as ``np.var``) are taken over
   the last axis, and ``scale`` and ``bias`` are its parameters, of shape
   ``(input_shape[-1],)``, initialised to ones and zeros. Its ``params`` are
   the tuple ``(scale, bias)``; the output has the input's shape; ``rng`` is
   not used.
2. ``Residual(*layers)``: a *combinator*: ``x + F(x)``, where ``F`` is
   ``stax.serial(*layers)``. Its ``params`` are ``F``'s params, its output
   shape the input shape. If ``F``'s output shape is not its input shape
   (``Residual(Dense(8))`` on 5 features), ``init_fun`` raises
   ``ValueError``. Pass the ``**kwargs`` of ``apply_fun`` (a ``rng`` for
   ``Dropout``) on to ``F``.

Because the parameters are a pytree and both functions use ``jnp``, a
network built with them can be jitted, differentiated and trained with the
chapter's ``update`` step as it is.

Check it: ``make exercise-ch14`` (or ``pytest exercises/ch14/test_ex1_layers.py``).

Hints: read ``stax.Dense``, ``stax.serial`` and ``stax.BatchNorm``; shapes
use ``-1`` for the batch axis, which you pass through unchanged.
"""
import minijax.numpy as jnp  # noqa: F401
from minijax.example_libraries import stax  # noqa: F401


def LayerNorm(epsilon=1e-5):
    """Layer normalization over the last axis, with a learned scale and bias."""
    raise NotImplementedError("exercise 1 of chapter 14: the LayerNorm layer")


def Residual(*layers):
    """``x + serial(*layers)(x)``: a residual connection around ``layers``."""
    raise NotImplementedError("exercise 1 of chapter 14: the Residual combinator")
