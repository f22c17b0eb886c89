"""Chapter 00 — ``Array``: an immutable n-dimensional array, as in JAX.

An ``Array`` is two things: an abstract value (``aval``: shape, dtype, weak
type), known the moment the array is created, and a :class:`Buffer` holding
the numbers. Everything that only needs the shape (``.shape``, ``.dtype``,
``.ndim``) reads the aval; everything that needs numbers (``repr``,
``np.asarray``, ``float()``) asks the buffer. Keeping the two apart is what
lets chapter 11 make the buffer a future without touching this class.

Arithmetic operators and NumPy-style methods (``x + y``, ``x.sum()``,
``x[1:]``, ``x.at[0].set(1)``) are installed on this class by
:mod:`minijax.numpy`, the way ``jax.numpy`` installs them on ``jax.Array``;
this module only knows about storage and printing.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray
from minijax.buffers import Buffer
from minijax.devices import Device


class Array:
    """An immutable array living on a device. Create one with ``jnp.array``."""
    __slots__ = ("aval", "_buffer", "__weakref__")
    __array_priority__ = 100  # NumPy defers ``ndarray + Array`` to us

    def __init__(self, aval: ShapedArray, buffer: Buffer):
        self.aval = aval
        self._buffer = buffer

    # --- metadata: from the aval, never waits -------------------------------
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    weak_type = property(lambda self: self.aval.weak_type)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    @property
    def device(self) -> Device:
        return self._buffer.device

    def devices(self) -> set[Device]:
        return {self._buffer.device}

    # --- values: from the buffer ---------------------------------------------
    @property
    def _value(self) -> np.ndarray:
        """The contents as a read-only NumPy array (waits for the buffer)."""
        return self._buffer.result()

    def block_until_ready(self) -> "Array":
        self._buffer.block()
        return self

    def is_ready(self) -> bool:
        return self._buffer.is_ready()

    def __array__(self, dtype=None, copy=None):
        value = self._value
        if copy is False and dtype is not None and np.dtype(dtype) != value.dtype:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        if dtype is not None:
            value = value.astype(dtype, copy=False)
        return value.copy() if copy else value

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self):
        return bool(self._value)

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        if not np.issubdtype(self.dtype, np.integer):
            raise TypeError(f"Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __setitem__(self, idx, value):
        raise TypeError(
            f"'{type(self).__name__}' object does not support item assignment. JAX "
            "arrays are immutable. Instead of ``x[idx] = y``, use "
            "``x = x.at[idx].set(y)`` or another .at[] method: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")

    # --- printing, exactly as JAX prints ---------------------------------------
    def __repr__(self):
        prefix = "Array("
        dtype_str = f"dtype={self.dtype.name}"
        if self.weak_type:
            dtype_str += ", weak_type=True"
        line_width = np.get_printoptions()["linewidth"]
        if self.size == 0:
            s = f"[], shape={self.shape}"
        else:
            s = np.array2string(self._value, prefix=prefix, suffix=",",
                                separator=", ", max_line_width=line_width)
        last_line_len = len(s) - s.rfind("\n") + 1
        sep = " "
        if last_line_len + len(dtype_str) + 2 > line_width:
            sep = " " * len(prefix)
        return f"{prefix}{s},{sep}{dtype_str})"

    def __str__(self):
        return str(self._value)

    def __format__(self, format_spec):
        return format(self._value if self.ndim else self._value[()], format_spec)

    def __reduce__(self):
        return (_reconstruct, (self._value, self.weak_type))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _reconstruct(value, weak_type):
    return array_from_numpy(value, weak_type)


def array_from_numpy(value, weak_type: bool = False, device: Device | None = None) -> Array:
    """Wrap a NumPy array (canonicalizing 64-bit dtypes to 32-bit) as an ``Array``."""
    value = np.asarray(value)
    dt = dtypes.canonicalize_dtype(value.dtype)
    if dt != value.dtype:
        value = value.astype(dt)
    return Array(ShapedArray(value.shape, dt, weak_type), Buffer(value, device))
