"""Chapter 00 — ``minijax.scipy.integrate``: numerical integration of samples."""
from __future__ import annotations

import minijax.numpy as jnp

__all__ = ["trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The trapezoid rule along ``axis``: ``sum((y[i] + y[i+1]) / 2 * (x[i+1] - x[i]))``
    (spacing ``dx`` without ``x``); the same as ``jnp.trapezoid``."""
    return jnp.trapezoid(y, x, dx, axis)
