"""Chapter 06 — backends: where jitted programs are lowered, compiled and run.

See :mod:`minijax.backends.registry` for the interface and
:mod:`minijax.backends.interpreter` for the first backend (NumPy, one
primitive at a time). Chapter 09 adds Numba, chapter 10 CUDA.
"""
from minijax.backends.registry import (Backend, Executable, Lowering,  # noqa: F401
                                       backends, default_backend, get_backend,
                                       register_backend, unregister_backend)
