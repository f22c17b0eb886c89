"""Chapter 00 — ``Array``: an immutable n-dimensional array, as in JAX.

An ``Array`` is two things: an abstract value (``aval``: shape, dtype, weak
type), known the moment the array is created, and a :class:`Buffer` holding
the numbers. Everything that only needs the shape (``.shape``, ``.dtype``,
``.ndim``) reads the aval; everything that needs numbers (``repr``,
``np.asarray``, ``float()``) asks the buffer. Keeping the two apart is what
lets chapter 11 make the buffer a future without touching this class: there,
the aval is known at once and the numbers wait (``_value`` is the one place
that waits; ``is_ready()`` never does).

Arithmetic operators and NumPy-style methods (``x + y``, ``x.sum()``,
``x[1:]``, ``x.at[0].set(1)``) are installed on this class by
:mod:`minijax.numpy`, the way ``jax.numpy`` installs them on ``jax.Array``;
this module only knows about storage and printing.
"""
from __future__ import annotations

import importlib

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import HasAval, ShapedArray
from minijax.buffers import Buffer, buffer_on
from minijax.devices import Device
from minijax.sharding import SingleDeviceSharding


class Array(HasAval):
    """An immutable array living on a device. Create one with ``jnp.array``."""
    __slots__ = ("aval", "_buffer", "__weakref__")
    __array_priority__ = 100  # NumPy defers ``ndarray + Array`` to us

    def __init__(self, aval: ShapedArray, buffer: Buffer):
        self.aval = aval
        self._buffer = buffer

    # metadata (shape, dtype, ndim...) comes from the aval, via HasAval

    @property
    def device(self) -> Device:
        return self._live_buffer().device

    def devices(self) -> set[Device]:
        return {self._live_buffer().device}

    @property
    def sharding(self) -> SingleDeviceSharding:
        """Where the array lives: all of it on its one device (see :mod:`minijax.sharding`)."""
        return SingleDeviceSharding(self._live_buffer().device)

    # A single-device array: always addressable, never sharded or committed.
    committed = False
    is_fully_addressable = True
    is_fully_replicated = True

    # --- values: from the buffer ---------------------------------------------
    def _live_buffer(self) -> Buffer:
        if self._buffer is None:
            raise RuntimeError(f"Array has been deleted with shape={self.aval.str_short()}.")
        return self._buffer

    @property
    def _value(self) -> np.ndarray:
        """The contents as a read-only NumPy array (waits for the buffer)."""
        return self._live_buffer().result()

    def block_until_ready(self) -> "Array":
        """Wait until the array's value is computed; returns the array itself."""
        self._live_buffer().block()
        return self

    def is_ready(self) -> bool:
        return self._live_buffer().is_ready()

    def copy_to_host_async(self) -> None:
        """Start copying the value to the host.

        On the CPU a device's memory *is* host memory, so there is nothing to
        start: reading the value still waits until it has been computed. A GPU
        buffer (chapter 10) queues the device-to-host copy on its stream.
        """
        start = getattr(self._live_buffer(), "copy_to_host_async", None)
        if start is not None:
            start()

    def delete(self) -> None:
        """Free the buffer; any later use of the array raises ``RuntimeError``."""
        self._buffer = None

    def is_deleted(self) -> bool:
        return self._buffer is None

    def on_device_size_in_bytes(self) -> int:
        return self.nbytes

    def unsafe_buffer_pointer(self) -> int:
        return self._value.ctypes.data

    def __array__(self, dtype=None, context=None, copy=None):
        kwargs = {} if copy is None else {"copy": copy}
        return np.asarray(self._value, dtype=dtype, **kwargs)

    def __dlpack__(self, **kwargs):
        return self._value.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def __array_namespace__(self, *, api_version=None):
        return importlib.import_module("minijax.numpy")

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def tobytes(self, order="C") -> bytes:
        return self._value.tobytes(order)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")  # same as NumPy
        return self.shape[0]

    def __bool__(self):
        _check_bool_conversion(self)
        return bool(self._value)

    def __float__(self):
        _check_scalar_conversion(self)
        return self._value.__float__()

    def __int__(self):
        _check_scalar_conversion(self)
        return self._value.__int__()

    def __complex__(self):
        _check_scalar_conversion(self)
        return self._value.__complex__()

    def __index__(self):
        if self.shape != () or not np.issubdtype(self.dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value)

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

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
        # A new Array object; sharing the buffer is safe because it is immutable.
        return Array(self.aval, self._buffer)

    def __deepcopy__(self, memo):
        return Array(self.aval, self._buffer)


def _check_scalar_conversion(arr: Array) -> None:
    if arr.ndim > 0:
        raise TypeError("Only scalar arrays can be converted to Python scalars; "
                        f"got arr.ndim={arr.ndim}")


def _check_bool_conversion(arr: Array) -> None:
    if arr.size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use "
                         "`array.size > 0` to check that an array is not empty.")
    if arr.size > 1:
        raise ValueError("The truth value of an array with more than one element "
                         "is ambiguous. Use a.any() or a.all()")


def _reconstruct(value, weak_type):
    return array_from_numpy(value, weak_type)


def array_from_numpy(value, weak_type: bool = False, device: Device | None = None) -> Array:
    """Wrap a NumPy array (canonicalizing 64-bit dtypes to 32-bit) as an ``Array``."""
    value = np.asarray(value)
    dt = dtypes.canonicalize_dtype(value.dtype)
    if dt != value.dtype:
        value = value.astype(dt)
    return Array(ShapedArray(value.shape, dt, weak_type), buffer_on(value, device))
