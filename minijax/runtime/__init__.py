"""Chapter 11 — asynchronous dispatch: an executor that returns futures.

Until this chapter every minijax operation ran to completion before
returning. Importing this package changes that, without touching ``Array``:

- :mod:`~minijax.runtime.futures`: ``FutureBuffer``, a buffer whose numbers
  arrive later (``is_ready()`` never waits, ``result()`` does);
- :mod:`~minijax.runtime.streams`: one in-order queue per device (a
  *stream*), served by a worker thread;
- :mod:`~minijax.runtime.executor`: the hooks that eager dispatch, ``jit``
  and ``device_put`` call: compute the output types now, enqueue the work,
  return Arrays whose buffers are futures.

It also adds three options::

    minijax.config.update("minijax_num_cpu_devices", 4)   # before first use
    minijax.config.update("jax_num_cpu_devices", 4)       # JAX's name for it
    minijax.config.update("minijax_inline_dispatch", False)  # always queue

(environment variables ``MINIJAX_NUM_CPU_DEVICES``, ``JAX_NUM_CPU_DEVICES``,
``MINIJAX_INLINE_DISPATCH``). ``with minijax.runtime.inline_dispatch(False):``
switches inline runs off for a block (for the whole process, not one thread). Several CPU devices are *virtual*: they share
the machine's cores, but each has its own stream, so work on two of them
runs side by side.
"""
from __future__ import annotations

from minijax.config import bool_state as _bool_state
from minijax.config import config as _config
from minijax.config import int_state as _int_state
from minijax.devices import _cpu_devices, devices_initialized, set_cpu_device_count_hook
from minijax.transfers import set_transfer_hook
from minijax import dispatch as _dispatch
from minijax.backends import registry as _registry
from minijax.runtime import executor
from minijax.runtime.executor import (INLINE_MAX_ELEMENTS, INLINE_MAX_SECONDS,
                                      dispatch_primitive, execute_executable, transfer)
from minijax.runtime.futures import Completion, FutureBuffer
from minijax.runtime.streams import (Stream, WorkItem, all_streams, hold, in_runtime, shutdown,
                                     stream_for, synchronize)

__all__ = ["install", "uninstall", "installed", "synchronize", "FutureBuffer", "Completion",
           "Stream", "WorkItem", "stream_for", "all_streams", "hold", "in_runtime", "shutdown",
           "INLINE_MAX_ELEMENTS", "INLINE_MAX_SECONDS", "num_cpu_devices", "inline_dispatch"]


# --- options ----------------------------------------------------------------------------
def _check_device_count(value: int) -> None:
    if devices_initialized() and value > 0 and value != len(_cpu_devices):
        raise RuntimeError(
            "jax_num_cpu_devices config should be updated before backends are initialized "
            "i.e. before any JAX operation is executed. You should initialize this config "
            "immediately after `import jax`.")


def _option(kind, name, default, help, hook):
    """Define an option once (a second import of this module must not fail)."""
    holder = _config._value_holders.get(name)
    return holder if holder is not None else kind(name, default, help, update_hook=hook)


num_cpu_devices = _option(
    _int_state, "minijax_num_cpu_devices", -1,
    "Number of virtual CPU devices (each with its own queue). Set it before first use.",
    _check_device_count)
_jax_num_cpu_devices = _option(
    _int_state, "jax_num_cpu_devices", -1,
    "Number of CPU devices to use (JAX's name for minijax_num_cpu_devices).",
    _check_device_count)
inline_dispatch = _option(
    _bool_state, "minijax_inline_dispatch", True,
    "Run tiny work inline on the calling thread when its device's queue is idle. "
    "False: every dispatch goes through the device queue.", executor.set_inline)


def _cpu_device_count() -> int:
    return max(1, num_cpu_devices.value, _jax_num_cpu_devices.value)


# --- installing the hooks --------------------------------------------------------------
def install() -> None:
    """Make every dispatch asynchronous (done when this package is imported)."""
    set_cpu_device_count_hook(_cpu_device_count)
    _dispatch.set_executor(dispatch_primitive)
    _registry.set_executor(execute_executable)
    set_transfer_hook(transfer)


def uninstall() -> None:
    """Back to chapter 00's synchronous dispatch (work already queued still runs)."""
    synchronize()
    _dispatch.set_executor(None)
    _registry.set_executor(None)
    set_transfer_hook(None)


def installed() -> bool:
    return _dispatch._executor is dispatch_primitive


install()
