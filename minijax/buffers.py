"""Chapter 00 — buffers: the storage behind an ``Array``.

An ``Array`` never touches memory directly; it holds a ``Buffer``. Here a
buffer is a read-only NumPy array on the CPU that is ready at once. Chapter 11
makes buffers *futures* (``is_ready()`` may be false, ``result()`` waits) and
chapter 10 puts them on a GPU, without ``Array`` changing at all: a platform
registers the kind of buffer its devices hold (:func:`register_buffer_kind`),
and :func:`buffer_on` makes that kind for a device of that platform.
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


#: Chapter 10: platform -> the Buffer subclass its devices hold (a GPU's holds
#: device memory). Every other platform's buffers are plain host buffers.
_buffer_kinds: dict[str, type] = {}


def register_buffer_kind(platform: str, kind: type) -> None:
    """Chapter 10: devices of ``platform`` hold their data in ``kind(data, device)``."""
    _buffer_kinds[platform] = kind


def buffer_on(data: np.ndarray, device: Device | None) -> Buffer:
    """``data`` copied onto ``device``: the buffer kind of its platform (a plain
    ``Buffer`` on the CPU, where the data already is)."""
    if device is None or not _buffer_kinds:
        return Buffer(data, device)
    return _buffer_kinds.get(device.platform, Buffer)(data, device)
