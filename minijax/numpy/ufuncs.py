"""Chapter 00 — ``jnp`` elementwise functions: promote, broadcast, call lax.

Every binary function here is the same three steps (:func:`promote_args`):
check the arguments are array-like, promote their dtypes through JAX's
lattice, give them a common rank; then one lax call. Unary functions that are
only defined on floats (``sin``, ``exp``) first promote integers to float32,
as JAX does (``jnp.sin(1)`` is a weak float32).
"""
from __future__ import annotations

from minijax import lax
from minijax.numpy.util import promote_args, promote_args_inexact, check_arraylike

__all__ = ["add", "subtract", "multiply", "negative", "sin", "cos", "exp", "log"]


def _binary(name: str, lax_fn, promote=promote_args):
    def fn(x, y, /):
        return lax_fn(*promote(name, x, y))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of two arrays, with NumPy broadcasting and JAX type promotion."
    return fn


def _unary(name: str, lax_fn, promote=promote_args):
    def fn(x, /):
        check_arraylike(name, x)
        return lax_fn(*promote(name, x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of an array."
    return fn


add = _binary("add", lax.add)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lax.mul)
negative = _unary("negative", lax.neg)
sin = _unary("sin", lax.sin, promote_args_inexact)
cos = _unary("cos", lax.cos, promote_args_inexact)
exp = _unary("exp", lax.exp, promote_args_inexact)
log = _unary("log", lax.log, promote_args_inexact)
