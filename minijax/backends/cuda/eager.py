"""Chapter 10 — eager operations on GPU arrays, run as kernels.

``x_gpu + 1`` outside ``jit`` binds ``add`` eagerly. On the CPU, chapter 00
runs the primitive's NumPy impl; on a GPU that would copy the operands back to
the host. So a GPU device runs an eager primitive as JAX does, as a tiny
compiled program: ``jit`` of that one primitive, on the CUDA backend (one
jitted wrapper per primitive and parameters, which ``jit``'s cache then
compiles once per argument types).

A primitive the CUDA target does not lower yet (``sort``, say) runs its
NumPy impl on the host values instead, and the result is copied to the GPU:
the answer is right, only slower (chapter 10 lists what is not lowered yet
in ``tests/test_rules.py``).
"""
from __future__ import annotations

import warnings

from minijax import dispatch

__all__ = ["run_primitive"]

#: (primitive, parameters) -> its jitted program for the GPU, or None: run on the host
_programs: dict = {}


def _program(prim, params):
    key = (prim, tuple(sorted(params.items())))
    hash(key)  # a TypeError for unhashable parameters: the caller runs on the host
    if key not in _programs:
        from minijax.jit import jit

        def apply(*args):
            return prim.bind(*args, **params)
        apply.__name__ = prim.name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            _programs[key] = jit(apply, backend="cuda")
    return key, _programs[key]


def run_primitive(device, prim, args, params, avals_out):
    """``prim`` on ``args`` (some of them GPU arrays), on ``device``."""
    try:
        key, program = _program(prim, params)
    except TypeError:
        program = None
    if program is not None:
        try:
            return program(*args)
        except NotImplementedError:  # not lowered for CUDA: the host impl, from now on
            _programs[key] = None
    return dispatch.run_impl(prim, args, params, avals_out, device)
