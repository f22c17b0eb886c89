"""Chapter 10 — the CUDA lowering of ``conv_general_dilated``: one thread per output.

On a GPU the simplest convolution is already a reasonable one: every output
element is independent, so each thread computes one (grid-stride, as every
kernel of this target) as the dot product of its window with the kernel,
reading both operands in place through their dimension numbers (no layout
copies). Neighbouring threads compute neighbouring outputs and read
neighbouring inputs, which the GPU's caches share.

The window arithmetic is the CPU's (:mod:`minijax.backends.cpu.conv`):
position ``q = o * stride + k * rhs_dilation - pad_low`` of the dilated,
padded input is element ``q // lhs_dilation`` of the real one when ``q`` is a
multiple of ``lhs_dilation`` in range, else a zero that is skipped. Feature
groups read their slice of the input features, batch groups their slice of
the batch. Each thread sums its terms in the order (feature, kernel
position...), in the output dtype (the operands converted first when
``preferred_element_type`` is wider).

A tiled kernel (the matrix-multiply kernel's shared-memory tiles over the
im2col view) would reuse each loaded element; it is left for when a GPU can
measure the difference.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.backends.cpu.syntax import cast
from minijax.backends.cuda.rules import _grid_kernel, register, unravel

__all__ = []


def _conv_general_dilated(w, eqn) -> None:
    p = eqn.params
    lhs, rhs = eqn.invars
    out = eqn.outvars[0]
    dtype = out.aval.dtype
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    rank = len(lhs_spec) - 2
    shape = tuple(out.aval.shape)
    O, I = rhs.aval.shape[rhs_spec[0]], rhs.aval.shape[rhs_spec[1]]
    G, B = p["feature_group_count"], p["batch_group_count"]
    og = O // max(G, B)
    n_out = lhs.aval.shape[lhs_spec[0]] // B
    space = [lhs.aval.shape[d] for d in lhs_spec[2:]]
    kernel = [rhs.aval.shape[d] for d in rhs_spec[2:]]
    w.allocate(out)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return

    def body():
        idx = unravel("t_flat", shape)
        n, f = idx[out_spec[0]], idx[out_spec[1]]
        o = [idx[d] for d in out_spec[2:]]
        w.emit(f"f_v = {f}", w.text(eqn))
        batch = f"(f_v // {og}) * {n_out} + {n}" if B > 1 else n
        base = f"(f_v // {og}) * {I} + " if G > 1 else ""
        w.emit(f"acc_v = {cast(dtype, '0')}")
        w.emit(f"for c_v in range({I}):")
        depth = 1
        ok = []
        for d in range(rank):
            w.emit("    " * depth + f"for k{d}_v in range({kernel[d]}):")
            depth += 1
            q = (f"{o[d]} * {p['window_strides'][d]} + k{d}_v * {p['rhs_dilation'][d]} "
                 f"- {p['padding'][d][0]}")
            ld = p["lhs_dilation"][d]
            w.emit("    " * depth + f"q{d}_v = {q}")
            w.emit("    " * depth + (f"i{d}_v = q{d}_v // {ld}" if ld > 1 else f"i{d}_v = q{d}_v"))
            ok.append(f"q{d}_v >= 0 and i{d}_v < {space[d]}"
                      + (f" and q{d}_v % {ld} == 0" if ld > 1 else ""))
        x_idx = [None] * (rank + 2)
        x_idx[lhs_spec[0]], x_idx[lhs_spec[1]] = batch, f"{base}c_v"
        k_idx = [None] * (rank + 2)
        k_idx[rhs_spec[0]], k_idx[rhs_spec[1]] = "f_v", "c_v"
        for d in range(rank):
            x_idx[lhs_spec[2 + d]], k_idx[rhs_spec[2 + d]] = f"i{d}_v", f"k{d}_v"
        x_el, k_el = w.read(lhs, x_idx), w.read(rhs, k_idx)
        if lhs.aval.dtype != dtype:
            x_el, k_el = cast(dtype, x_el), cast(dtype, k_el)
        w.emit("    " * depth + f"if {' and '.join(f'({t})' for t in ok)}:")
        w.emit("    " * depth + f"    acc_v += {x_el} * {k_el}")
        w.emit(f"{w.read(out, idx)} = acc_v")

    _grid_kernel(w, "conv_general_dilated: one output element per thread", size,
                 [lhs, rhs, out], body)


register(lax.conv_general_dilated_p, _conv_general_dilated, "kernel", complex=True)
