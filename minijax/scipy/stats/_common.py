"""What the distribution modules share: argument promotion and the -inf of
points outside a support."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.numpy.util import promote_args_inexact

__all__ = ["promote", "outside", "standardize"]


def promote(name: str, *args):
    """The arguments as arrays of one inexact dtype (JAX's promotion, weak types kept)."""
    return promote_args_inexact(name, *args)


def outside(condition, logp):
    """``logp``, and ``-inf`` where ``condition`` (a point outside the support) holds."""
    return jnp.where(condition, -np.inf, logp)


def standardize(x, loc, scale):
    """``(x - loc) / scale``."""
    return (x - loc) / scale
