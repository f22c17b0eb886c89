"""Exercise 2 of chapter 13: from random bits to floats.

``random.bits`` gives uniformly random unsigned integers. Every other sampler
is a function of them. Write two, as JAX 0.10.2 writes them, so that they
give JAX's bits for the same key:

1. ``uniform(key, shape, dtype=jnp.float32, minval=0.0, maxval=1.0)``:
   draw ``nbits``-bit integers (``random.bits(key, shape, uint dtype of the
   same width)``: uint32 for float32, uint16 for float16). Keep the top
   ``nmant`` bits (``nmant = finfo(dtype).nmant``: 23 or 10) as the mantissa
   of a float in [1, 2): shift them right by ``nbits - nmant`` and ``or``
   them with the bits of ``1.0`` (``np.array(1.0, dtype).view(uint dtype)``);
   reinterpret the bits as a float (``lax.bitcast_convert_type``) and
   subtract 1. Then scale, in ``dtype``: ``u * (maxval - minval) + minval``,
   and clamp from below: ``lax.max(minval, ...)`` (rounding may otherwise go
   just under ``minval``).
2. ``exponential(key, shape, dtype=jnp.float32)``: the inverse of the
   exponential distribution's CDF: ``-log1p(-u)`` for ``u = uniform(key,
   shape, dtype)``. (``log1p`` keeps the small values accurate.)

Use only minijax operations (``jnp``, ``lax``, ``random.bits``), so that the
samplers also work under ``jit`` and ``vmap``.

Check it: ``make exercise-ch13`` (or ``pytest exercises/ch13/test_ex2_samplers.py``):
the draws must be JAX 0.10.2's bits, and their mean and variance right.

Hints: ``jnp.finfo``, ``jnp.uint32``, ``lax.shift_right_logical``,
``lax.bitcast_convert_type``; turn ``minval`` and ``maxval`` into arrays of
``dtype`` first (``jnp.asarray(minval, dtype)``).
"""
import numpy as np  # noqa: F401

import minijax.numpy as jnp
from minijax import lax, random  # noqa: F401


def uniform(key, shape=(), dtype=jnp.float32, minval=0.0, maxval=1.0):
    raise NotImplementedError("exercise 2 of chapter 13: uniform from bits")


def exponential(key, shape=(), dtype=jnp.float32):
    raise NotImplementedError("exercise 2 of chapter 13: exponential from uniform")
