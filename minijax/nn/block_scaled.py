"""Chapter 00 — ``jax.nn.scaled_dot_general``: block-scaled low-precision matmuls.

Newer GPUs multiply matrices stored in 8- or 4-bit floats: each block of 32
(``mxfp8``) or 16 (``nvfp4``) consecutive elements along the contracted axis
shares one scale factor, kept in a tiny float type of its own
(``float8_e8m0fnu``: a power of two; or ``float8_e4m3fn``). A
:class:`BlockScaleConfig` says which: the mode, the block size, the element
and scale types, and (``nvfp4``) a global scale.

JAX runs such a product only as a cuDNN kernel; on the CPU its
``scaled_matmul`` primitive has no lowering and the call raises
``NotImplementedError``. minijax has no such kernel on any target, so it
raises the same error whenever ``configs`` are given; without them
``scaled_dot_general`` is plain :func:`minijax.lax.dot_general`, as in JAX.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from minijax import dtypes, lax

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general"]


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How one operand of a block-scaled matmul is quantized."""
    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """The :class:`BlockScaleConfig` of ``mode``: ``"mxfp8"`` (blocks of 32
    ``float8_e4m3fn`` sharing a power-of-two ``float8_e8m0fnu`` scale) or
    ``"nvfp4"`` (blocks of 16 ``float4_e2m1fn`` sharing a ``float8_e4m3fn``
    scale, times ``global_scale``, default ``[1.]``)."""
    if mode == "nvfp4":
        from minijax.numpy.creation import ones
        return BlockScaleConfig(
            mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
            scale_type=dtypes.float8_e4m3fn,
            global_scale=ones((1,), np.float32) if global_scale is None else global_scale,
            infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(
            mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn,
            scale_type=dtypes.float8_e8m0fnu, global_scale=None, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` of operands quantized block by block as ``configs`` say
    (one config for ``lhs``, one for ``rhs``, one for the gradients).

    Without ``configs`` it is ``lax.dot_general``. With them it needs a cuDNN
    block-scaled matmul kernel, which neither minijax nor JAX's CPU backend has.
    """
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    raise NotImplementedError(
        "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu "
        "(minijax: block-scaled matmuls need a cuDNN kernel, which minijax does not have)")
