"""What the distribution modules share: argument promotion and the -inf of
points outside a support."""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.numpy.util import promote_args_inexact

__all__ = ["promote", "outside", "standardize", "check_nan_policy"]


def promote(name: str, *args):
    """The arguments as arrays of one inexact dtype (JAX's promotion, weak types kept)."""
    return promote_args_inexact(name, *args)


def outside(condition, logp):
    """``logp``, and ``-inf`` where ``condition`` (a point outside the support) holds."""
    return jnp.where(condition, -np.inf, logp)


def standardize(x, loc, scale):
    """``(x - loc) / scale``."""
    return (x - loc) / scale


def check_nan_policy(name: str, nan_policy: str) -> None:
    """JAX's checks of ``nan_policy`` for a function that only propagates NaNs
    (a jitted function cannot know whether its input holds any)."""
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains "
            f"nans. Please check if nans exist in `x` outside of the `{name}` function.")
