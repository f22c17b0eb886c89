"""Chapter 12 — ``minijax.experimental``: what JAX keeps under ``jax.experimental``.

So far only ``io_callback`` (defined in :mod:`minijax.callback`), the callback
for Python functions with side effects.
"""
from minijax.callback import io_callback  # noqa: F401

__all__ = ["io_callback"]
