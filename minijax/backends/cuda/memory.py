"""Chapter 10 — GPU memory: buffers that live on a CUDA device.

A :class:`CudaBuffer` holds a Numba *device array* (GPU memory). Everything a
buffer promises chapter 00's ``Array`` still holds:

- ``result()`` is the data as a NumPy array: a device-to-host copy, made
  once (and kept) the first time anyone on the host reads the value;
- ``is_ready()`` / ``block()``: the work that fills the buffer was queued on
  the device's CUDA stream; a CUDA *event* recorded after it says when it
  is done. An error in that work (a failing kernel, a failing copy) is
  raised by ``block()``, where the value is read, as on the CPU;
- ``copy_to_host_async()`` queues the device-to-host copy on the stream now,
  so that a later ``np.asarray(x)`` finds it made (JAX's, for overlapping
  copies with computation).

A host-to-device copy (``device_put(x, gpu)``) is queued on the stream too
(:func:`to_device`): the call returns before the copy is done.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from minijax.backends.cuda.platform import numba_cuda, simulator
from minijax.backends.cpu.syntax import is_threefry_key
from minijax.buffers import Buffer
from minijax.dispatch import to_numpy

__all__ = ["CudaBuffer", "to_device", "device_array_of", "recorded_event"]


def recorded_event(stream):
    """A CUDA event recorded on ``stream`` now: it passes when the work queued
    before it is done (the simulator's events take no options)."""
    cuda = numba_cuda()
    event = cuda.event() if simulator() else cuda.event(timing=False)
    event.record(stream)
    return event


def _device_shape(shape) -> tuple:
    """Shapes as they are stored on the device: a scalar as one element (``(1,)``)."""
    return tuple(shape) if len(shape) else (1,)


def to_device(host: np.ndarray, device):
    """Queue a copy of ``host`` onto ``device`` (a scalar as shape ``(1,)``)."""
    host = np.ascontiguousarray(host).reshape(_device_shape(np.shape(host)))
    return numba_cuda().to_device(host, stream=device.stream)


class CudaBuffer(Buffer):
    """An array in a CUDA device's memory (see the module docstring)."""
    __slots__ = ("_device_data", "_shape", "_dtype", "_event", "_host_copy", "_error",
                 "_host_view")

    def __init__(self, data, device, *, shape=None, dtype=None, event=None, error=None,
                 host_view=None):
        """``data``: a host array (copied over now, on the stream) or a device array
        of ``shape`` and ``dtype``; ``host_view(host_array)`` makes the value a
        reader gets from the host copy (typed keys from their key data)."""
        if data is not None and (isinstance(data, np.ndarray) or np.isscalar(data)):
            # a host array: copy it over
            data = np.asarray(data)
            shape, dtype = data.shape, data.dtype
            if dtype.names == ("threefry2x32",):  # typed keys live as their key data
                host_view = partial(_as_keys, shape=shape, dtype=dtype)
                data = np.ascontiguousarray(data["threefry2x32"])
                shape = data.shape
            data = to_device(data, device)
        self._device_data = data
        self._shape, self._dtype = tuple(shape), np.dtype(dtype)
        self._data = None
        self.device = device
        self._host_copy = None  # (host array, event) of a queued device-to-host copy
        self._error = error
        self._host_view = host_view
        self._event = event if event is not None else recorded_event(device.stream)

    @property
    def device_data(self):
        """The device array (a scalar is stored with shape ``(1,)``)."""
        return self._device_data

    def is_ready(self) -> bool:
        if self._data is not None or self._error is not None:
            return True
        query = getattr(self._event, "query", None)  # the simulator ran the work already
        return query is None or query()

    def block(self) -> None:
        if self._data is None:
            self._event.synchronize()
        if self._error is not None:
            raise self._error

    def copy_to_host_async(self) -> None:
        """Queue the device-to-host copy now (``result()`` then waits for it only)."""
        if self._data is None and self._host_copy is None and self._error is None:
            stream = self.device.stream
            host = self._device_data.copy_to_host(stream=stream)
            self._host_copy = (host, recorded_event(stream))

    def result(self) -> np.ndarray:
        """The data on the host (copied once; errors of the work raised here)."""
        if self._data is None:
            self.block()
            self.copy_to_host_async()
            host, done = self._host_copy
            done.synchronize()
            data = host.reshape(self._shape)
            if self._host_view is not None:
                data = self._host_view(data)
            data.setflags(write=False)
            self._data = data
            self._host_copy = None
        return self._data

    def __repr__(self):
        return f"<CudaBuffer {self._dtype}{list(self._shape)} on {self.device}>"


def _as_keys(data: np.ndarray, shape, dtype) -> np.ndarray:
    """Key data (uint32, a trailing axis of 2) as typed keys of ``shape``."""
    keys = np.empty(shape, dtype=dtype)
    keys["threefry2x32"] = data
    return keys


def device_array_of(x, aval, device):
    """The device array of an argument for a kernel on ``device``: a GPU buffer's
    own memory, else a copy of the value queued onto the device."""
    buffer = getattr(x, "_buffer", None)
    if isinstance(buffer, CudaBuffer) and buffer.device == device:
        if buffer._error is not None:
            raise buffer._error
        return buffer.device_data
    value = to_numpy(x)
    if is_threefry_key(aval.dtype):  # a kernel takes a key array's key data
        return to_device(np.ascontiguousarray(value["threefry2x32"]), device)
    if value.dtype != aval.dtype:
        value = value.astype(aval.dtype)
    return to_device(value, device)
