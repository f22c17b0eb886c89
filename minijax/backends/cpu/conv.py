"""Chapter 09 — the CPU lowering of ``conv_general_dilated``: im2col, then BLAS.

A convolution is a matrix product in disguise. Write every window of the
input as one row of a matrix ``P`` (*im2col*: rows are (batch, output
position), columns are (kernel position, input feature)), and the kernel as a
matrix ``K`` (rows are output features, columns are (kernel position, input
feature)); then ``out = P @ K.T`` is ONE call of BLAS's sgemm, the fastest
loop nest a CPU has. Building ``P`` copies each input element once per kernel
position that reads it (9 times for a 3x3 kernel), a price the matrix
product repays many times over when there are more than a few features.

Everything the convolution's parameters do happens while ``P`` is built:

- ``padding``, ``lhs_dilation`` (holes between input elements) and negative
  padding (cropping) decide, for each (output position, kernel position),
  whether the input element exists: position ``q = o * stride + k *
  rhs_dilation - pad_low`` of the dilated input is element ``q // lhs_dilation``
  of the real one when ``q`` is a multiple of ``lhs_dilation`` in range,
  else a zero;
- ``dimension_numbers``: the operands are first copied into one layout,
  features last (``(N, spatial..., C)`` and ``(O, spatial..., I)``), so the
  innermost copy of ``P`` reads contiguous features; the result
  ``(N, spatial..., O)`` is permuted into the output's layout at the end;
- ``feature_group_count`` / ``batch_group_count``: one ``P`` and one product
  per group, from the group's slice of features (or of the batch) and of the
  kernel's output features.

``P`` is never built whole: it is built and multiplied a *block* at a time
(about 64 KiB, so the block is still in the core's cache when sgemm reads
it), the blocks spread over threads, each sgemm on its own thread
(:mod:`.blas_threads`). A forward convolution has many rows (batch x output
positions) and few columns: its blocks are rows, each product writes its own
rows of the output. The kernel's gradient is the opposite (its "rows" are the
kernel's positions, its columns the whole batch): its blocks are columns, each
thread accumulates its share of the sum in a partial result, and the partial
results are added in a fixed order (8 of them whatever the number of threads,
so the result does not depend on the machine).

float32 goes through sgemm; other dtypes (integers, complex64, bool) through
plain loops. ``preferred_element_type`` converts the operands first, so the
products accumulate in the wider type, as XLA does.

Direct loops (each output element the dot product of its window with the
kernel, no P) were measured slower, even with one output feature, where the
product is a matrix-vector product: each sum is a chain of dependent adds
that does not vectorize.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minijax import lax
from minijax.backends.cpu import blas_threads
from minijax.backends.cpu.helpers import register
from minijax.backends.cpu.loops import PARALLEL_THRESHOLD, permuted_copy
from minijax.backends.cpu.rules import lowering
from minijax.backends.cpu.syntax import np_dtype

__all__ = []

register("_matmul_nt_acc", """
def _matmul_nt_acc(a, b, out):
    \"\"\"out += a @ b.T with plain loops (dtypes BLAS has no routine for).\"\"\"
    for m in range(out.shape[0]):
        for n in range(out.shape[1]):
            acc = out[m, n]
            for k in range(a.shape[1]):
                acc += a[m, k] * b[n, k]
            out[m, n] = acc
""")

register("_sgemm_nt_acc", """
def _sgemm_nt_acc(a, b, out):
    \"\"\"out += a @ b.T by one sgemm call on the calling thread alone (see
    blas_threads): called from every thread of a kernel's threaded loop, it must
    not wake OpenBLAS's own pool. Each row of a, b and out is contiguous; the rows may
    be further apart (a block of columns of a bigger matrix).\"\"\"
    m, n = out.shape
    k = a.shape[1]
    alpha_beta = np.ones(2, np.float32)
    previous = _blas_threads_local(1)
    status = _xxgemm(115, 84, 78, n, m, k, alpha_beta[0:].ctypes, b.ctypes,
                     b.strides[0] // 4, a.ctypes, a.strides[0] // 4,
                     alpha_beta[1:].ctypes, out.ctypes, out.strides[0] // 4)
    _blas_threads_local(previous)
    if status < 0:
        raise RuntimeError("no BLAS for matrix products: minijax needs SciPy installed")
""", prelude=f"""
from numba.core import types as _types

#: BLAS's gemm through Numba's C helper, by name (see helpers._GEMM_PRELUDE).
_xxgemm = _types.ExternalFunction("numba_xxgemm", _types.intc(
    _types.char, _types.char, _types.char, _types.intp, _types.intp, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp, _types.voidptr, _types.intp,
    _types.voidptr, _types.voidptr, _types.intp))
#: OpenBLAS's thread-local thread count (minijax.backends.cpu.blas_threads), by name.
_blas_threads_local = _types.ExternalFunction("{blas_threads.SYMBOL}", _types.intc(_types.intc))
""")

#: The size of one block of the im2col matrix: small enough to stay in a
#: core's cache between being written and being read by sgemm.
BLOCK_BYTES = 1 << 16
#: Row blocks need at least this many rows for sgemm to reuse each element of
#: the kernel it loads; with longer rows (the kernel's gradient: its columns
#: are the whole batch) the blocks are columns instead.
MIN_BLOCK_ROWS = 8
#: The number of partial sums of a column-blocked product (fixed, so the
#: order of the additions, hence the result, is the same on every machine).
PARTIAL_SUMS = 8


@dataclass(frozen=True)
class _Geometry:
    """One convolution in the canonical layouts, as the generated loops need it."""
    name: str
    rank: int
    space: tuple        # input spatial sizes
    kernel: tuple       # kernel spatial sizes
    out_space: tuple    # output spatial sizes
    features: int       # input features per group (the kernel's I)
    rows: int           # rows of the im2col matrix: batch x output positions (per group)
    positions: int      # kernel positions: columns of P are (position, feature)
    params: dict

    @property
    def cols(self) -> int:
        return self.positions * self.features


def _canonical(w, x: str, aval, perm, name: str, dtype) -> str:
    """``x`` as a C-contiguous array with its axes in the order ``perm``, in ``dtype``."""
    shape = tuple(aval.shape[d] for d in perm)
    if list(perm) == sorted(perm):
        w.emit(f"{name} = np.ascontiguousarray({x})")
    else:
        permuted_copy(w, name, x, shape, np_dtype(aval.dtype), list(perm))
    if np.dtype(aval.dtype) != np.dtype(dtype):
        w.emit(f"{name} = {name}.astype({np_dtype(dtype)})")
    return name


@lowering(lax.conv_general_dilated_p, complex=True)
def _conv_general_dilated(w, eqn, lhs, rhs) -> None:
    """Canonical layouts, then blocked im2col + products per group (see the module)."""
    p = eqn.params
    out = eqn.outvars[0]
    name, dtype = w.var(out), np.dtype(out.aval.dtype)
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    lv, rv = eqn.invars
    rank = len(lhs_spec) - 2
    N = lv.aval.shape[lhs_spec[0]]
    O, I = rv.aval.shape[rhs_spec[0]], rv.aval.shape[rhs_spec[1]]
    G, B = p["feature_group_count"], p["batch_group_count"]
    groups, n_out = max(G, B), N // B
    og = O // groups
    out_space = tuple(out.aval.shape[d] for d in out_spec[2:])
    kernel = tuple(rv.aval.shape[d] for d in rhs_spec[2:])
    geo = _Geometry(name, rank, tuple(lv.aval.shape[d] for d in lhs_spec[2:]), kernel,
                    out_space, I, n_out * int(np.prod(out_space, dtype=np.int64)),
                    int(np.prod(kernel, dtype=np.int64)), p)
    w.emit(f"# {w.text(eqn)}")
    if geo.rows * O == 0:
        w.emit(f"{name} = np.zeros({tuple(out.aval.shape)}, dtype={np_dtype(dtype)})")
        return
    x = _canonical(w, lhs, lv.aval, (lhs_spec[0], *lhs_spec[2:], lhs_spec[1]), f"{name}_x", dtype)
    k = _canonical(w, rhs, rv.aval, (rhs_spec[0], *rhs_spec[2:], rhs_spec[1]), f"{name}_k", dtype)
    w.emit(f"{name}_k2 = {k}.reshape(({O}, {geo.cols}))")
    w.emit(f"{name}_o = np.zeros(({geo.rows}, {O}), dtype={np_dtype(dtype)})")
    if groups > 1:
        w.emit(f"for {name}_g in range({groups}):  # one im2col and one product per group")
        w.depth += 1
        group = f"{name}_g"
        kg = f"{name}_k2[{group} * {og}:({group} + 1) * {og}]"
        target = f"{name}_o[:, {group} * {og}:({group} + 1) * {og}]"
    else:
        group, kg, target = "0", f"{name}_k2", f"{name}_o"
    n0 = f"{group} * {n_out}" if B > 1 else "0"
    c0 = f"{group} * {I}" if G > 1 else "0"
    gemm = w.helper("_sgemm_nt_acc" if dtype == np.float32 else "_matmul_nt_acc")
    if geo.cols == 0:
        pass
    elif BLOCK_BYTES // (geo.cols * dtype.itemsize) >= MIN_BLOCK_ROWS or geo.positions == 1:
        _row_blocks(w, geo, x, n0, c0, dtype, gemm, kg, target)
    else:
        _column_blocks(w, geo, x, n0, c0, dtype, gemm, kg, target, og)
    if groups > 1:
        w.depth -= 1
    # (N, spatial..., O) -> the output's layout
    position = {0: 0, 1: rank + 1, **{j: j - 1 for j in range(2, rank + 2)}}
    perm = [0] * (rank + 2)
    for j, d in enumerate(out_spec):
        perm[d] = position[j]
    w.emit(f"{name}_oc = {name}_o.reshape({(n_out, *out_space, O)})")
    if perm == sorted(perm):
        w.emit(f"{name} = {name}_oc")
    else:
        permuted_copy(w, name, f"{name}_oc", tuple(out.aval.shape), np_dtype(dtype), perm)


def _row_blocks(w, geo, x, n0, c0, dtype, gemm, kg, target) -> None:
    """Blocks of whole rows of P: each block's product is its rows of the output."""
    name = geo.name
    block = max(1, min(geo.rows, BLOCK_BYTES // (geo.cols * dtype.itemsize)))
    blocks = -(-geo.rows // block)
    parallel = blocks > 1 and geo.rows * geo.cols >= PARALLEL_THRESHOLD
    w.parallel |= parallel
    w.emit(f"for {name}_b in {'prange' if parallel else 'range'}({blocks}):"
           f"  # blocks of {block} rows of P: im2col, then their product")
    w.depth += 1
    w.emit(f"{name}_r0 = {name}_b * {block}")
    w.emit(f"{name}_nr = min({block}, {geo.rows} - {name}_r0)")
    w.emit(f"{name}_p = np.empty(({block}, {geo.cols}), dtype={np_dtype(dtype)})")
    _im2col(w, geo, x, n0, c0, "0", str(geo.positions))
    w.emit(f"{gemm}({name}_p[:{name}_nr], {kg}, {target}[{name}_r0:{name}_r0 + {name}_nr])"
           f"  # += P @ kernel.T")
    w.depth -= 1


def _column_blocks(w, geo, x, n0, c0, dtype, gemm, kg, target, og) -> None:
    """Blocks of kernel positions (columns of P), in PARTIAL_SUMS shares: each
    share accumulates its products into a partial result; the partial results
    are added in order at the end."""
    name = geo.name
    shares = min(PARTIAL_SUMS, geo.positions)
    per_share = -(-geo.positions // shares)
    step = max(1, min(per_share, BLOCK_BYTES // (geo.rows * geo.features * dtype.itemsize)))
    parallel = geo.rows * geo.cols >= PARALLEL_THRESHOLD
    w.parallel |= parallel
    w.emit(f"{name}_part = np.zeros(({shares}, {geo.rows}, {og}), dtype={np_dtype(dtype)})")
    w.emit(f"for {name}_s in {'prange' if parallel else 'range'}({shares}):"
           f"  # {shares} shares of the kernel positions, a partial sum each")
    w.depth += 1
    w.emit(f"{name}_end = min(({name}_s + 1) * {per_share}, {geo.positions})")
    w.emit(f"{name}_p = np.empty(({geo.rows}, {step * geo.features}), dtype={np_dtype(dtype)})")
    w.emit(f"for {name}_kp0 in range({name}_s * {per_share}, {name}_end, {step}):")
    w.depth += 1
    w.emit(f"{name}_kn = min({step}, {name}_end - {name}_kp0)")
    w.emit(f"{name}_r0, {name}_nr = 0, {geo.rows}")
    _im2col(w, geo, x, n0, c0, f"{name}_kp0", f"{name}_kn")
    cols = f"{name}_kp0 * {geo.features}:({name}_kp0 + {name}_kn) * {geo.features}"
    w.emit(f"{gemm}({name}_p[:, :{name}_kn * {geo.features}], {kg}[:, {cols}], {name}_part[{name}_s])")
    w.depth -= 2
    w.emit(f"for {name}_s in range({shares}):  # the partial sums, in order")
    w.emit(f"    for {name}_rr in range({geo.rows}):")
    w.emit(f"        for {name}_cc in range({og}):")
    w.emit(f"            {target}[{name}_rr, {name}_cc] += {name}_part[{name}_s, {name}_rr, {name}_cc]")


def _decode_row(w, geo, row: str, o) -> None:
    """Emit ``{name}_at`` (the batch index) and ``o`` (the output position) of P's row ``row``."""
    name = geo.name
    at = row
    for d in reversed(range(geo.rank)):
        w.emit(f"{o[d]} = ({at}) % {geo.out_space[d]}")
        w.emit(f"{name}_a{d} = ({at}) // {geo.out_space[d]}")
        at = f"{name}_a{d}"
    w.emit(f"{name}_at = {at}")


def _window_position(w, geo, o, kp: str) -> str:
    """Emit the input index ``{name}_i{d}`` that kernel position ``kp`` reads from
    output position ``o``; returns the condition that it exists (not padding,
    not a hole of the input dilation)."""
    name, rank, p = geo.name, geo.rank, geo.params
    strides, pads = p["window_strides"], p["padding"]
    lhs_dil, rhs_dil = p["lhs_dilation"], p["rhs_dilation"]
    kk = [f"{name}_kk{d}" for d in range(rank)]
    w.emit(f"{name}_kr = {kp}")
    for d in reversed(range(rank)):  # the kernel position -> its spatial indices
        w.emit(f"{name}_kr, {kk[d]} = {name}_kr // {geo.kernel[d]}, {name}_kr % {geo.kernel[d]}")
    terms = []
    for d in range(rank):
        q = f"{o[d]} * {strides[d]} + {kk[d]} * {rhs_dil[d]} - {pads[d][0]}"
        if lhs_dil[d] == 1:
            w.emit(f"{name}_i{d} = {q}")
            terms.append(f"0 <= {name}_i{d} < {geo.space[d]}")
        else:
            w.emit(f"{name}_q{d} = {q}")
            w.emit(f"{name}_i{d} = {name}_q{d} // {lhs_dil[d]}")
            terms.append(f"{name}_q{d} >= 0 and {name}_q{d} % {lhs_dil[d]} == 0 "
                         f"and {name}_i{d} < {geo.space[d]}")
    return " and ".join(f"({t})" for t in terms)


def _im2col(w, geo, x, n0, c0, kp0, kn) -> None:
    """Emit the loops that fill ``{name}_p`` with rows ``r0 .. r0 + nr`` of P and
    its kernel positions ``kp0 .. kp0 + kn``: row (n, output position), column
    (kernel position, feature) holds the input element that kernel position
    reads from that output position, or a zero (padding, a hole of the input
    dilation)."""
    name, rank = geo.name, geo.rank
    o = [f"{name}_op{d}" for d in range(rank)]
    w.emit(f"for {name}_rr in range({name}_nr):")
    w.depth += 1
    _decode_row(w, geo, f"{name}_r0 + {name}_rr", o)
    w.emit(f"for {name}_kp in range({kp0}, {kp0} + {kn}):")
    w.depth += 1
    ok = _window_position(w, geo, o, f"{name}_kp")
    w.emit(f"{name}_col = ({name}_kp - {kp0}) * {geo.features}")
    element = (f"{x}[{n0} + {name}_at, {', '.join(f'{name}_i{d}' for d in range(rank))}, "
               f"{c0} + {name}_c]")
    w.emit(f"if {ok}:")
    w.emit(f"    for {name}_c in range({geo.features}):")
    w.emit(f"        {name}_p[{name}_rr, {name}_col + {name}_c] = {element}")
    w.emit("else:")
    w.emit(f"    for {name}_c in range({geo.features}):")
    w.emit(f"        {name}_p[{name}_rr, {name}_col + {name}_c] = 0")
    w.depth -= 2
