"""Chapter 00 — operators and methods of ``Array`` (and, from chapter 01, ``Tracer``).

``x + y`` on an ``Array`` is ``jnp.add(x, y)``; ``x.sum()`` is ``jnp.sum(x)``.
Exactly as ``jax.numpy`` does, we define these once, in terms of ``jnp``
functions, and install them on every array-like class: ``Array`` here, and
chapter 01's ``Tracer``, so that traced code cannot tell the two apart.

Binary operators return ``NotImplemented`` for arguments that are not
array-like, so that Python can try the other operand's reflected method.
"""
from __future__ import annotations

import importlib

from minijax.numpy.util import is_arraylike, is_traced

# operator -> (jnp function, reflected?)
_binary_operators = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "divmod": "divmod",
    "pow": "power", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
}
_comparison_operators = {
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal",
}
_unary_operators = {
    "neg": "negative", "pos": "positive", "abs": "abs", "invert": "invert",
}
# x.method(...) -> jnp.function(x, ...)
_methods = {
    "all": "all", "any": "any", "argmax": "argmax", "argmin": "argmin",
    "argsort": "argsort", "astype": "astype", "clip": "clip", "conj": "conj",
    "conjugate": "conjugate", "cumprod": "cumprod", "cumsum": "cumsum",
    "diagonal": "diagonal", "dot": "dot", "flatten": "ravel", "max": "max",
    "mean": "mean", "min": "min", "nonzero": "nonzero", "prod": "prod",
    "ravel": "ravel", "repeat": "repeat", "round": "round", "sort": "sort",
    "squeeze": "squeeze", "std": "std", "sum": "sum", "swapaxes": "swapaxes",
    "take": "take", "trace": "trace", "var": "var", "searchsorted": "searchsorted",
    "ptp": "ptp", "cumulative_sum": "cumulative_sum",
}
_properties = {"T": "_transpose_property", "mT": "matrix_transpose",
               "real": "real", "imag": "imag"}


def _jnp():
    return importlib.import_module("minijax.numpy")


def _binop(fn, reflected: bool):
    if reflected:
        def op(self, other):
            if not is_arraylike(other):
                return NotImplemented
            return fn(other, self)
    else:
        def op(self, other):
            if not is_arraylike(other):
                return NotImplemented
            return fn(self, other)
    return op


def _reshape(self, *args, order="C", **kwargs):
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` both work, as in NumPy."""
    shape = kwargs.pop("shape", None)
    if shape is None:
        shape = args[0] if len(args) == 1 else args
    return _jnp().reshape(self, shape, order=order)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _jnp().transpose(self, axes or None)


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    if is_traced(self):  # as JAX's tracers: a slice with strides=(1,), then a squeeze
        from minijax.lax import index_in_dim
        return (index_in_dim(self, i, keepdims=False) for i in range(self.shape[0]))
    return (self[i] for i in range(self.shape[0]))


def _round_op(self, ndigits=None):
    """``round(x)`` rounds half to even and gives int32; ``round(x, n)`` keeps the dtype (JAX)."""
    jnp = _jnp()
    if ndigits is None:
        return jnp.round(self).astype(jnp.int32)
    return jnp.round(self, ndigits)


def install_array_methods(cls) -> None:
    """Give ``cls`` the operators and methods of a NumPy array, backed by ``jnp``."""
    jnp = _jnp()

    def get(name):
        return getattr(jnp, name, None)

    for op, name in _binary_operators.items():
        fn = get(name)
        if fn is not None:
            setattr(cls, f"__{op}__", _binop(fn, False))
            setattr(cls, f"__r{op}__", _binop(fn, True))
    for op, name in _comparison_operators.items():
        fn = get(name)
        if fn is not None:
            setattr(cls, f"__{op}__", _binop(fn, False))
    for op, name in _unary_operators.items():
        fn = get(name)
        if fn is not None:
            setattr(cls, f"__{op}__", fn)
    for meth, name in _methods.items():
        fn = get(name)
        if fn is not None:
            setattr(cls, meth, fn)
    for prop, name in _properties.items():
        fn = get(name)
        if fn is not None:
            setattr(cls, prop, property(fn))
    if get("transpose") is not None:
        cls.T = property(lambda self: jnp.transpose(self))
        cls.transpose = _transpose
    if get("reshape") is not None:
        cls.reshape = _reshape
    cls.__iter__ = _iter
    cls.__round__ = _round_op
    getitem = get("_getitem")
    if getitem is not None:
        cls.__getitem__ = getitem
    at = get("_IndexUpdateHelper")
    if at is not None:
        cls.at = property(at)
