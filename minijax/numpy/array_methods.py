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

import numpy as np

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


def _copy(self):
    """``x.copy()``: a new array with the same values (``jnp.copy``; a ``copy`` equation)."""
    return _jnp().copy(self)


def _view(self, dtype=None, type=None):
    """``x.view(dtype)``: the same bytes read as another dtype (``bitcast_convert_type``).

    A narrower dtype splits each element into ``k`` along the last axis, a
    wider one joins ``k`` neighbours, so the last axis shrinks or grows by
    ``k``; bools and complex numbers, which a bitcast does not take, go
    through ``uint8`` and their (real, imag) float pairs.
    """
    jnp = _jnp()
    from minijax import lax
    from minijax.numpy.creation import _user_dtype
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = _user_dtype(dtype, "view")
    bits_in, bits_out = 8 * self.dtype.itemsize, 8 * dtype.itemsize
    if self.ndim == 0:
        if bits_in != bits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is "
                             "unchanged.")
        return _view(lax.expand_dims(self, (0,)), dtype).squeeze()
    if (self.shape[-1] * bits_in) % bits_out != 0:
        raise ValueError("When changing to a larger dtype, its size must be a divisor "
                         "of the total size in bytes of the last axis of the array.")
    if self.dtype == dtype:
        return self
    if self.dtype == np.bool_:
        return _view(self.astype(np.uint8), dtype)
    if np.issubdtype(self.dtype, np.complexfloating):  # interleave (real, imag)
        part = jnp.finfo(self.dtype).dtype
        pairs = jnp.stack([jnp.real(self), jnp.imag(self)], axis=-1)
        return _view(pairs.reshape(*self.shape[:-1], 2 * self.shape[-1]).astype(part), dtype)
    if dtype == np.bool_:
        return _view(self, np.uint8).astype(np.bool_)
    if np.issubdtype(dtype, np.complexfloating):
        parts = _view(self, jnp.finfo(dtype).dtype).astype(dtype)
        return parts[..., 0::2] + 1j * parts[..., 1::2]
    if bits_in < bits_out:  # join k neighbours into one element
        k = bits_out // bits_in
        return lax.bitcast_convert_type(
            self.reshape(*self.shape[:-1], self.shape[-1] // k, k), dtype)
    out = lax.bitcast_convert_type(self, dtype)  # a new last axis of k parts
    if bits_in > bits_out:
        out = out.reshape(*out.shape[:-2], out.shape[-2] * out.shape[-1])
    return out


def _byteswap(self):
    """``x.byteswap()``: each element's bytes in reverse order (little- <-> big-endian)."""
    from minijax import lax
    if np.issubdtype(self.dtype, np.complexfloating):
        return lax.complex(_byteswap(self.real), _byteswap(self.imag))
    if self.dtype.itemsize == 1:
        return self.copy()
    as_bytes = lax.bitcast_convert_type(self, np.dtype(np.uint8))
    return lax.bitcast_convert_type(lax.rev(as_bytes, (self.ndim,)), self.dtype)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    """``x.compress(condition, axis)``: ``jnp.compress(condition, x, axis)``
    (in the function the array comes second)."""
    return _jnp().compress(condition, self, axis=axis, out=out, size=size, fill_value=fill_value)


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
    cls.copy, cls.view, cls.byteswap = _copy, _view, _byteswap
    cls.compress = _compress
    cls.__round__ = _round_op
    getitem = get("_getitem")
    if getitem is not None:
        cls.__getitem__ = getitem
    at = get("_IndexUpdateHelper")
    if at is not None:
        cls.at = property(at)
