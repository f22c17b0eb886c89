"""Chapter 00 — transfers: moving data onto and off devices.

The data-moving half of the device API of the ``jax`` namespace:
``device_put`` (host data or an ``Array`` -> an ``Array`` on a device),
``device_get`` (arrays -> NumPy) and ``block_until_ready`` (wait for
arrays). They need arrays, buffers and dispatch, which in turn need the
device model, so they live here rather than in :mod:`minijax.devices`:
``devices`` -> ``buffers`` -> ``array`` -> ``dispatch`` -> ``transfers``,
with no way back.

Synchronous versions: in chapter 00 every buffer is already on the host, so
``device_put`` just makes an Array and ``block_until_ready`` has nothing to
wait for. Chapter 10 adds CUDA devices and chapter 11 makes transfers
asynchronous (through :func:`set_transfer_hook`); the signatures stay the same.
"""
from __future__ import annotations

import numpy as np

from minijax import dispatch
from minijax.abstract_arrays import HasAval
from minijax.array import Array, array_from_numpy


def _map_leaves(f, x):
    """Apply ``f`` to the leaves of nested tuples/lists/dicts (``None`` is an empty node).

    A tiny stand-in for ``tree_map``: pytrees arrive in chapter 03, but
    ``device_put`` and friends are chapter-00 functions.
    """
    if x is None:
        return None
    if isinstance(x, dict):
        return type(x)((k, _map_leaves(f, v)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # a namedtuple
        return type(x)(*(_map_leaves(f, v) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(_map_leaves(f, v) for v in x)
    return f(x)


#: Chapter 11: ``hook(source, weak_type, device)`` returns the ``Array`` on
#: ``device`` (its buffer a future filled by the device's queue), where
#: ``source`` is an ``Array`` or a NumPy array. ``None``: copy right now.
_transfer_hook = None


def set_transfer_hook(hook) -> None:
    global _transfer_hook
    _transfer_hook = hook


def _transfer(source, weak: bool, device):
    """``source`` (an ``Array`` or a NumPy array) as a new ``Array`` on ``device``."""
    if _transfer_hook is not None:
        return _transfer_hook(source, weak, device)
    value = source._value if isinstance(source, Array) else source
    return array_from_numpy(value, weak, device)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put every leaf of ``x`` on ``device`` as an ``Array``.

    Dtypes are canonicalized (float64 -> float32) and Python scalars become
    weakly typed arrays, as with ``jnp.asarray``. Tracers pass through.
    With chapter 11's runtime the copy is queued and the result is a future.
    """
    def put(leaf):
        if isinstance(leaf, Array):
            if device is None or device == leaf.device:
                return leaf
            return _transfer(leaf, leaf.aval.weak_type, device)
        if isinstance(leaf, HasAval):  # a tracer: nothing to move
            return leaf
        if isinstance(leaf, str):
            raise TypeError(f"Argument {leaf!r} of type {type(leaf)} is not a valid JAX type")
        weak = type(leaf) in (int, float, complex)  # Python scalars are weak
        if not weak and type(leaf) is not bool and not hasattr(leaf, "dtype"):
            raise TypeError(f"Cannot interpret value of type {type(leaf)} as an abstract "
                            "array; it does not have a dtype attribute")
        return _transfer(dispatch.to_numpy(leaf), weak, device)
    return _map_leaves(put, x)


def device_get(x):
    """Copy every array leaf of ``x`` to the host as a NumPy array; other leaves as they are."""
    def get(leaf):
        if hasattr(leaf, "copy_to_host_async"):
            leaf.copy_to_host_async()
        return np.asarray(leaf) if hasattr(leaf, "__array__") else leaf
    return _map_leaves(get, x)


def block_until_ready(x):
    """Wait for every array leaf of ``x``; returns ``x``."""
    def block(leaf):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    _map_leaves(block, x)
    return x
