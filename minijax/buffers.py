"""Chapter 00 — buffers: the storage behind an ``Array``.

An ``Array`` never touches memory directly; it holds a ``Buffer``. Here a
buffer is a read-only NumPy array on the CPU that is ready at once. Chapter 11
makes buffers *futures* (``is_ready()`` may be false, ``result()`` waits) and
chapter 10 puts them on a GPU, without ``Array`` changing at all.
"""
from __future__ import annotations

import numpy as np

from minijax.devices import Device, default_device


class Buffer:
    """A ready, immutable NumPy array on a device."""
    __slots__ = ("_data", "device")

    def __init__(self, data: np.ndarray, device: Device | None = None):
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        if data.flags.writeable:
            # A read-only *view*: whoever else holds ``data`` may still write it.
            data = data.view()
            data.setflags(write=False)
        self._data = data
        self.device = device if device is not None else default_device()

    def is_ready(self) -> bool:
        return True

    def result(self) -> np.ndarray:
        """The buffer's contents as a read-only NumPy array (waits if not ready)."""
        return self._data

    def block(self) -> None:
        """Wait until the buffer is ready (it always is, in this chapter)."""
