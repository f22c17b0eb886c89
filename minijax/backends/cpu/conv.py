"""Chapter 09 — the CPU lowering of ``conv_general_dilated``: matrix products.

A convolution is a matrix product in disguise. Write every window of the
input as one row of a matrix ``P`` (*im2col*: rows are (batch, output
position), columns are (kernel position, input feature)), and the kernel as a
matrix ``K`` (rows are output features, columns are (kernel position, input
feature)); then ``out = P @ K.T`` is ONE call of BLAS's sgemm, the fastest
loop nest a CPU has. Building ``P`` copies each input element once per kernel
position that reads it (9 times for a 3x3 kernel), a price the matrix
product repays many times over when there are more than a few features.

That is one of three ways to write the same sum; the lowering picks one by
the operands' layouts and the numbers of features (:func:`_choose_form`):

``"im2col"``
    ``out = P @ K.T`` as above, ``P`` built and multiplied a *block* of rows
    at a time (about 64 KiB, so the block is still in the core's cache when
    sgemm reads it). The general form: grouped convolutions, dilations,
    anything.
``"batch sum"``
    The gradient of a convolution with respect to its kernel is a
    convolution too, whose *contraction* runs over the batch and the image
    (JAX writes it with the batch and feature dimensions swapped in its
    ``dimension_numbers``), and whose output is a kernel, small. Its ``P`` is
    the forward convolution's im2col matrix, and the product is ``P.T @ G``
    (``G`` the cotangent, one row per (batch, position)): both operands are
    read in the layout they have (NHWC), nothing is transposed. The rows are
    cut in ``PARTIAL_SUMS`` fixed shares, each summed into a partial result
    on its own thread; the partial results are added in order.
``"kernel-position products"``
    When a convolution has fewer output features than input features (the
    gradient with respect to a one-channel image), ``P`` would be big (9
    copies of each input) and the product thin. Instead, one product
    ``Y = X @ K`` gives, for every *input* position, its contribution to each
    output feature through each kernel position (``X`` is the input itself:
    one row per (batch, position)); each output element then adds the 9
    values of ``Y`` its window reads.

A fourth way was measured and left out: *direct* loops, each output row the
sum over its window of input element times kernel row (vectorized over the
output features), for one to four input features. With one input feature
and 32 output features it took twice im2col's time: sgemm keeps its sums in
registers, the loop reads and writes the output row for each kernel
position; and im2col's ``P`` is small there anyway (9 columns).

Everything the convolution's parameters do happens while ``P`` (or the sum
over a window) is read:

- ``padding``, ``lhs_dilation`` (holes between input elements) and negative
  padding (cropping) decide, for each (output position, kernel position),
  whether the input element exists: position ``q = o * stride + k *
  rhs_dilation - pad_low`` of the dilated input is element ``q // lhs_dilation``
  of the real one when ``q`` is a multiple of ``lhs_dilation`` in range,
  else a zero;
- ``dimension_numbers``: each form reads its operands in one layout (the
  im2col form: features last, ``(N, spatial..., C)`` and ``(O, spatial...,
  I)``); an operand in another layout is copied into it first, and the
  result permuted into the output's layout at the end. The form is chosen so
  that the big arrays (activations, cotangents) need no copy;
- ``feature_group_count`` / ``batch_group_count``: one ``P`` and one product
  per group (im2col form), from the group's slice of features (or of the
  batch) and of the kernel's output features.

Threads: the blocks (or shares) are spread over the cores with ``prange``,
each product on its own thread with BLAS told to use that thread alone
(:func:`.helpers.gemm_helper`'s ``one_thread``). Every block's arithmetic is
fixed by the shapes, never by the number of threads, so the result is the
same on every machine.

float32 goes through sgemm; other dtypes (integers, complex64, bool) through
plain loops. ``preferred_element_type`` converts the operands first, so the
products accumulate in the wider type, as XLA does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minijax import lax
from minijax.backends.cpu.helpers import gemm_helper, register
from minijax.backends.cpu.loops import PARALLEL_THRESHOLD, permuted_copy
from minijax.backends.cpu.rules import lowering
from minijax.backends.cpu.syntax import np_dtype

__all__ = []


def _loop_product_name(trans_a: bool, trans_b: bool, accumulate: bool) -> str:
    return f"_matmul_{'nt'[trans_a]}{'nt'[trans_b]}{'_acc' if accumulate else ''}"


def _loop_product_source(trans_a: bool, trans_b: bool, accumulate: bool) -> str:
    a = "a[k, m]" if trans_a else "a[m, k]"
    b = "b[n, k]" if trans_b else "b[k, n]"
    op = f"{'a.T' if trans_a else 'a'} @ {'b.T' if trans_b else 'b'}"
    return f'''
def {_loop_product_name(trans_a, trans_b, accumulate)}(a, b, out):
    """out {"+=" if accumulate else "="} {op} with plain loops (dtypes BLAS has no routine for)."""
    for m in range(out.shape[0]):
        for n in range(out.shape[1]):
{"" if accumulate else "            out[m, n] = 0" + chr(10)}            acc = out[m, n]
            for k in range(a.shape[{0 if trans_a else 1}]):
                acc += {a} * {b}
            out[m, n] = acc
'''


for _flags in ((False, True, False), (False, True, True), (True, False, True),
               (False, False, False)):
    register(_loop_product_name(*_flags), _loop_product_source(*_flags))


def _product(w, dtype, trans_a: bool, trans_b: bool, accumulate: bool) -> str:
    """The helper for one block's product: sgemm on this thread alone for
    float32, plain loops for other dtypes."""
    if dtype == np.float32:
        return w.helper(gemm_helper(trans_a, trans_b, accumulate=accumulate, one_thread=True))
    return w.helper(_loop_product_name(trans_a, trans_b, accumulate))


#: The size of one block of the im2col matrix: small enough to stay in a
#: core's cache between being written and being read by sgemm.
BLOCK_BYTES = 1 << 16
#: Row blocks need at least this many rows for sgemm to reuse each element of
#: the kernel it loads; with longer rows the blocks are columns instead.
MIN_BLOCK_ROWS = 8
#: The number of partial sums of a product cut along its contraction (fixed,
#: so the order of the additions, hence the result, is the same on every machine).
PARTIAL_SUMS = 8


@dataclass(frozen=True)
class _Geometry:
    """One convolution (one group of it), as the generated loops need it."""
    name: str
    rank: int
    space: tuple        # input spatial sizes
    kernel: tuple       # kernel spatial sizes
    out_space: tuple    # output spatial sizes
    batch: int          # batch per group (the output's batch)
    features: int       # input features per group (the kernel's I)
    out_features: int   # output features per group
    params: dict

    @property
    def positions(self) -> int:
        """Kernel positions."""
        return int(np.prod(self.kernel, dtype=np.int64))

    @property
    def out_positions(self) -> int:
        return int(np.prod(self.out_space, dtype=np.int64))

    @property
    def in_positions(self) -> int:
        return int(np.prod(self.space, dtype=np.int64))

    @property
    def rows(self) -> int:
        """Rows of the im2col matrix: batch x output positions."""
        return self.batch * self.out_positions

    @property
    def cols(self) -> int:
        """Columns of the im2col matrix: (kernel position, input feature)."""
        return self.positions * self.features


# =============================================================================
# Layouts, and the choice of a form
# =============================================================================
def _layouts(form: str, specs) -> tuple:
    """The dimension orders each form reads the operands in and writes the output in.

    ``specs`` are the dimension numbers: ``(batch, feature, spatial...)`` of
    the input and the output, ``(out feature, in feature, spatial...)`` of the
    kernel.
    """
    (lb, lc, *ls), (ro, ri, *rs), (ob, of, *os_) = specs
    if form == "batch sum":  # x (C, S, B), g (C, K, O) -> (S, B, O)
        return (lc, *ls, lb), (ri, *rs, ro), (*os_, ob, of)
    kernel = {"im2col": (ro, *rs, ri), "kernel-position products": (ri, *rs, ro)}[form]
    return (lb, *ls, lc), kernel, (ob, *os_, of)


def _copied(form: str, specs, sizes) -> int:
    """How many elements the form's layout copies cost (operands not already in it)."""
    return sum(size for order, size in zip(_layouts(form, specs), sizes)
               if list(order) != sorted(order))


def _choose_form(geo: _Geometry, groups: int, specs, sizes) -> str:
    """The form of the module docstring for this convolution."""
    if groups > 1:
        return "im2col"
    # the batch sum's partial results cost about as much as copies
    partials = PARTIAL_SUMS * sizes[2]
    if _copied("batch sum", specs, sizes) + partials < _copied("im2col", specs, sizes):
        return "batch sum"
    if 2 * geo.out_features <= geo.features:
        return "kernel-position products"
    return "im2col"


def _canonical(w, x: str, aval, order, name: str, dtype) -> str:
    """``x`` as a C-contiguous array with its axes in the order ``order``, in ``dtype``."""
    shape = tuple(aval.shape[d] for d in order)
    if list(order) == sorted(order):
        w.emit(f"{name} = np.ascontiguousarray({x})")
    else:
        permuted_copy(w, name, x, shape, np_dtype(aval.dtype), list(order))
    if np.dtype(aval.dtype) != np.dtype(dtype):
        w.emit(f"{name} = {name}.astype({np_dtype(dtype)})")
    return name


@lowering(lax.conv_general_dilated_p, complex=True)
def _conv_general_dilated(w, eqn, lhs, rhs) -> None:
    """The operands in the chosen form's layouts, its loops, the output's layout."""
    p = eqn.params
    out = eqn.outvars[0]
    name, dtype = w.var(out), np.dtype(out.aval.dtype)
    specs = p["dimension_numbers"]
    lhs_spec, rhs_spec, out_spec = specs
    lv, rv = eqn.invars
    rank = len(lhs_spec) - 2
    N = lv.aval.shape[lhs_spec[0]]
    O, I = rv.aval.shape[rhs_spec[0]], rv.aval.shape[rhs_spec[1]]
    G, B = p["feature_group_count"], p["batch_group_count"]
    groups = max(G, B)
    geo = _Geometry(name, rank, tuple(lv.aval.shape[d] for d in lhs_spec[2:]),
                    tuple(rv.aval.shape[d] for d in rhs_spec[2:]),
                    tuple(out.aval.shape[d] for d in out_spec[2:]), N // B, I, O // groups, p)
    w.emit(f"# {w.text(eqn)}")
    if geo.rows * O * geo.cols == 0:  # an empty output, or an empty sum
        w.emit(f"{name} = np.zeros({tuple(out.aval.shape)}, dtype={np_dtype(dtype)})")
        return
    sizes = (lv.aval.size, rv.aval.size, out.aval.size)
    form = _choose_form(geo, groups, specs, sizes)
    lhs_order, rhs_order, out_order = _layouts(form, specs)
    x = _canonical(w, lhs, lv.aval, lhs_order, f"{name}_x", dtype)
    k = _canonical(w, rhs, rv.aval, rhs_order, f"{name}_k", dtype)
    if form == "batch sum":
        _batch_sum(w, geo, x, k, dtype)
    elif form == "kernel-position products":
        _kernel_position_products(w, geo, x, k, dtype)
    else:
        _im2col_form(w, geo, x, k, dtype, G, B)
    # the form's output layout -> the output's
    shape = tuple(out.aval.shape[d] for d in out_order)
    w.emit(f"{name}_oc = {name}_o.reshape({shape})")
    perm = [list(out_order).index(d) for d in range(rank + 2)]
    if perm == sorted(perm):
        w.emit(f"{name} = {name}_oc")
    else:
        permuted_copy(w, name, f"{name}_oc", tuple(out.aval.shape), np_dtype(dtype), perm)


def _prange(w, parallel: bool) -> str:
    w.parallel |= parallel
    return "prange" if parallel else "range"


# =============================================================================
# The im2col form
# =============================================================================
def _im2col_form(w, geo, x, k, dtype, G: int, B: int) -> None:
    """``{name}_o`` (rows (batch, position), columns O) = P @ K.T, per group."""
    name = geo.name
    groups, og = max(G, B), geo.out_features
    O = og * groups
    w.emit(f"{name}_k2 = {k}.reshape(({O}, {geo.cols}))")
    rows_fit = BLOCK_BYTES // (geo.cols * dtype.itemsize) >= MIN_BLOCK_ROWS
    by_rows = rows_fit or geo.positions == 1
    # row blocks write each element of the output once; column blocks add to it
    w.emit(f"{name}_o = np.{'empty' if by_rows else 'zeros'}(({geo.rows}, {O}), "
           f"dtype={np_dtype(dtype)})")
    if groups > 1:
        w.emit(f"for {name}_g in range({groups}):  # one im2col and one product per group")
        w.depth += 1
        group = f"{name}_g"
        kg = f"{name}_k2[{group} * {og}:({group} + 1) * {og}]"
        target = f"{name}_o[:, {group} * {og}:({group} + 1) * {og}]"
    else:
        group, kg, target = "0", f"{name}_k2", f"{name}_o"
    n0 = f"{group} * {geo.batch}" if B > 1 else "0"
    c0 = f"{group} * {geo.features}" if G > 1 else "0"
    if by_rows:
        _row_blocks(w, geo, x, n0, c0, dtype, kg, target)
    else:
        _column_blocks(w, geo, x, n0, c0, dtype, kg, target)
    if groups > 1:
        w.depth -= 1


def _row_blocks(w, geo, x, n0, c0, dtype, kg, target) -> None:
    """Blocks of whole rows of P: each block's product is its rows of the output."""
    name = geo.name
    block = max(1, min(geo.rows, BLOCK_BYTES // (geo.cols * dtype.itemsize)))
    blocks = -(-geo.rows // block)
    loop = _prange(w, blocks > 1 and geo.rows * geo.cols >= PARALLEL_THRESHOLD)
    gemm = _product(w, dtype, False, True, accumulate=False)
    w.emit(f"for {name}_b in {loop}({blocks}):  # blocks of {block} rows of P: im2col, "
           f"then their product")
    w.depth += 1
    w.emit(f"{name}_r0 = {name}_b * {block}")
    w.emit(f"{name}_nr = min({block}, {geo.rows} - {name}_r0)")
    w.emit(f"{name}_p = np.empty(({block}, {geo.cols}), dtype={np_dtype(dtype)})")
    _im2col(w, geo, x, n0, c0, "0", str(geo.positions))
    w.emit(f"{gemm}({name}_p[:{name}_nr], {kg}, {target}[{name}_r0:{name}_r0 + {name}_nr])"
           f"  # = P @ kernel.T")
    w.depth -= 1


def _column_blocks(w, geo, x, n0, c0, dtype, kg, target) -> None:
    """Blocks of kernel positions (columns of P), in PARTIAL_SUMS shares: each
    share accumulates its products into a partial result; the partial results
    are added in order at the end."""
    name, og = geo.name, geo.out_features
    shares = min(PARTIAL_SUMS, geo.positions)
    per_share = -(-geo.positions // shares)
    step = max(1, min(per_share, BLOCK_BYTES // (geo.rows * geo.features * dtype.itemsize)))
    loop = _prange(w, geo.rows * geo.cols >= PARALLEL_THRESHOLD)
    gemm = _product(w, dtype, False, True, accumulate=True)
    w.emit(f"{name}_part = np.zeros(({shares}, {geo.rows}, {og}), dtype={np_dtype(dtype)})")
    w.emit(f"for {name}_s in {loop}({shares}):"
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
    _decode(w, geo, f"{name}_r0 + {name}_rr", o)
    w.emit(f"for {name}_kp in range({kp0}, {kp0} + {kn}):")
    w.depth += 1
    _kernel_indices(w, geo, f"{name}_kp")
    ok = _input_index(w, geo, o)
    w.emit(f"{name}_col = ({name}_kp - {kp0}) * {geo.features}")
    element = _element(geo, x, f"{n0} + {name}_at", f"{c0} + {name}_c")
    _guarded_fill(w, ok, f"{name}_c", geo.features,
                  f"{name}_p[{name}_rr, {name}_col + {name}_c]", element)
    w.depth -= 2


def _guarded_fill(w, ok: str, index: str, count: int, target: str, element: str) -> None:
    """Emit ``target = element`` for ``index`` in ``range(count)`` where the input
    position is inside the image (``ok``), and ``target = 0`` (padding) elsewhere:
    one test per run of ``count`` elements, not one per element."""
    w.emit(f"if {ok}:")
    w.emit(f"    for {index} in range({count}):")
    w.emit(f"        {target} = {element}")
    w.emit("else:")
    w.emit(f"    for {index} in range({count}):")
    w.emit(f"        {target} = 0")


# =============================================================================
# The batch-sum form (the kernel's gradient)
# =============================================================================
def _batch_sum(w, geo, x, k, dtype) -> None:
    """``{name}_o`` (rows (output position, batch), columns O) = P'.T @ R, summed
    over P''s rows in shares.

    Here the convolution's *features* are the contraction: ``x`` is
    ``(C, spatial..., B)``, ``k`` is ``(C, kernel spatial..., O)``. Row (c,
    kernel position) of P' holds, for each (output position, b), the input
    element read: the rows of P' are the rows of ``k``, so the product needs
    no copy of ``k``. (For a kernel's gradient in NHWC, C is the batch, the
    "kernel" is the cotangent, and P' is the forward convolution's im2col.)
    """
    name, rank = geo.name, geo.rank
    C, O, bsz = geo.features, geo.out_features, geo.batch
    rows, rowlen = C * geo.positions, geo.out_positions * bsz
    shares = min(PARTIAL_SUMS, rows)
    per_share = -(-rows // shares)
    shares = -(-rows // per_share)
    block = max(1, min(per_share, BLOCK_BYTES // (rowlen * dtype.itemsize)))
    dt = np_dtype(dtype)
    loop = _prange(w, rows * rowlen >= PARALLEL_THRESHOLD)
    gemm = _product(w, dtype, True, False, accumulate=True)
    w.emit(f"{name}_k2 = {k}.reshape(({rows}, {O}))")
    w.emit(f"{name}_part = np.zeros({(shares, rowlen, O)}, dtype={dt})")
    w.emit(f"for {name}_s in {loop}({shares}):  # {shares} shares of the rows of P', "
           f"a partial sum each")
    w.depth += 1
    w.emit(f"{name}_end = min(({name}_s + 1) * {per_share}, {rows})")
    w.emit(f"{name}_p = np.empty(({block}, {rowlen}), dtype={dt})")
    w.emit(f"for {name}_r0 in range({name}_s * {per_share}, {name}_end, {block}):")
    w.depth += 1
    w.emit(f"{name}_nr = min({block}, {name}_end - {name}_r0)")
    w.emit(f"for {name}_rr in range({name}_nr):  # row (c, kernel position) of P'")
    w.depth += 1
    w.emit(f"{name}_c, {name}_kp = divmod({name}_r0 + {name}_rr, {geo.positions})")
    _kernel_indices(w, geo, f"{name}_kp")
    o = [f"{name}_op{d}" for d in range(rank)]
    _batch_sum_row(w, geo, x, o)
    w.emit(f"{gemm}({name}_p[:{name}_nr], {name}_k2[{name}_r0:{name}_r0 + {name}_nr], "
           f"{name}_part[{name}_s])  # += P'.T @ R")
    w.depth -= 2
    w.emit(f"{name}_o = {name}_part[0].copy()")
    w.emit(f"for {name}_s in range(1, {shares}):  # the partial sums, in order")
    w.emit(f"    for {name}_rr in range({rowlen}):")
    w.emit(f"        for {name}_cc in range({O}):")
    w.emit(f"            {name}_o[{name}_rr, {name}_cc] += {name}_part[{name}_s, {name}_rr, {name}_cc]")


def _batch_sum_row(w, geo, x, o) -> None:
    """Row ``{name}_rr`` (c, kernel position ``{name}_kk``) of P': for each output
    position, the batch of input elements it reads (zeros for padding)."""
    name, bsz = geo.name, geo.batch
    w.emit(f"for {name}_sp in range({geo.out_positions}):")
    w.depth += 1
    _decode(w, geo, f"{name}_sp", o)
    ok = _input_index(w, geo, o)
    element = _element(geo, x, f"{name}_c", f"{name}_bb")
    _guarded_fill(w, ok, f"{name}_bb", bsz, f"{name}_p[{name}_rr, {name}_sp * {bsz} + {name}_bb]",
                  element)
    w.depth -= 2


# =============================================================================
# The kernel-position-products form (fewer output features than input features)
# =============================================================================
def _kernel_position_products(w, geo, x, k, dtype) -> None:
    """``{name}_o`` (rows (batch, position), columns O): Y = X @ K for a block of
    whole images, then each output element the sum of the values of Y its
    window reads.

    ``x`` is ``(N, spatial..., C)``, one row of X per input position; ``k``
    is ``(C, kernel spatial..., O)``, so column (kernel position, o) of
    ``Y[row]`` is what input ``row`` gives output feature o through that
    kernel position. A block holds at least one whole image (its Y is
    positions x 9 x O: small, as O is).
    """
    name, rank = geo.name, geo.rank
    C, O, si, so = geo.features, geo.out_features, geo.in_positions, geo.out_positions
    width = geo.positions * O
    images = max(1, min(geo.batch, BLOCK_BYTES // (si * width * dtype.itemsize)))
    blocks = -(-geo.batch // images)
    dt = np_dtype(dtype)
    loop = _prange(w, blocks > 1 and geo.batch * si * width >= PARALLEL_THRESHOLD)
    gemm = _product(w, dtype, False, False, accumulate=False)
    w.emit(f"{name}_x2 = {x}.reshape(({geo.batch * si}, {C}))")
    w.emit(f"{name}_k2 = {k}.reshape(({C}, {width}))")
    w.emit(f"{name}_o = np.empty(({geo.rows}, {O}), dtype={dt})")
    w.emit(f"for {name}_b in {loop}({blocks}):  # blocks of {images} images: Y, then the sums")
    w.depth += 1
    w.emit(f"{name}_n0 = {name}_b * {images}")
    w.emit(f"{name}_nn = min({images}, {geo.batch} - {name}_n0)")
    w.emit(f"{name}_y = np.empty(({images * si}, {width}), dtype={dt})")
    w.emit(f"{gemm}({name}_x2[{name}_n0 * {si}:({name}_n0 + {name}_nn) * {si}], {name}_k2, "
           f"{name}_y[:{name}_nn * {si}])  # Y = X @ K")
    w.emit(f"for {name}_rr in range({name}_nn * {so}):  # output row (image, position)")
    w.depth += 1
    o = [f"{name}_op{d}" for d in range(rank)]
    _decode(w, geo, f"{name}_rr", o)
    w.emit(f"{name}_row = {name}_n0 * {so} + {name}_rr")
    w.emit(f"for {name}_cc in range({O}):")
    w.emit(f"    {name}_o[{name}_row, {name}_cc] = 0")
    w.emit(f"for {name}_kp in range({geo.positions}):")
    w.depth += 1
    _kernel_indices(w, geo, f"{name}_kp")
    ok = _input_index(w, geo, o)
    flat = " + ".join(f"{name}_i{d} * {int(np.prod(geo.space[d + 1:], dtype=np.int64))}"
                      for d in range(rank)) or "0"
    w.emit(f"if {ok}:")
    w.emit(f"    {name}_yr = {name}_at * {si} + {flat}")
    w.emit(f"    for {name}_cc in range({O}):")
    w.emit(f"        {name}_o[{name}_row, {name}_cc] += {name}_y[{name}_yr, {name}_kp * {O} + {name}_cc]")
    w.depth -= 3


# =============================================================================
# Window arithmetic, shared by the forms
# =============================================================================
def _decode(w, geo, row: str, o) -> None:
    """Emit ``{name}_at`` (the batch index) and ``o`` (the output position) of
    row ``row`` = (batch, output position)."""
    name = geo.name
    at = row
    for d in reversed(range(geo.rank)):
        w.emit(f"{o[d]} = ({at}) % {geo.out_space[d]}")
        w.emit(f"{name}_a{d} = ({at}) // {geo.out_space[d]}")
        at = f"{name}_a{d}"
    w.emit(f"{name}_at = {at}")


def _element(geo, x: str, first: str, last: str) -> str:
    """``x[first, {name}_i0, ..., last]``: an input element at the window's index."""
    return f"{x}[{', '.join([first, *(f'{geo.name}_i{d}' for d in range(geo.rank)), last])}]"


def _kernel_indices(w, geo, kp: str) -> None:
    """Emit ``{name}_kk{d}``, the spatial indices of kernel position ``kp``."""
    name = geo.name
    w.emit(f"{name}_kr = {kp}")
    for d in reversed(range(geo.rank)):
        w.emit(f"{name}_kr, {name}_kk{d} = {name}_kr // {geo.kernel[d]}, {name}_kr % {geo.kernel[d]}")


def _input_index(w, geo, o) -> str:
    """Emit the input index ``{name}_i{d}`` that kernel position ``{name}_kk``
    reads from output position ``o``; returns the condition that it exists
    (not padding, not a hole of the input dilation)."""
    name, p = geo.name, geo.params
    strides, pads = p["window_strides"], p["padding"]
    lhs_dil, rhs_dil = p["lhs_dilation"], p["rhs_dilation"]
    terms = []
    for d in range(geo.rank):
        q = f"{o[d]} * {strides[d]} + {name}_kk{d} * {rhs_dil[d]} - {pads[d][0]}"
        if lhs_dil[d] == 1:
            w.emit(f"{name}_i{d} = {q}")
            terms.append(f"0 <= {name}_i{d} < {geo.space[d]}")
        else:
            w.emit(f"{name}_q{d} = {q}")
            w.emit(f"{name}_i{d} = {name}_q{d} // {lhs_dil[d]}")
            terms.append(f"{name}_q{d} >= 0 and {name}_q{d} % {lhs_dil[d]} == 0 "
                         f"and {name}_i{d} < {geo.space[d]}")
    return " and ".join(f"({t})" for t in terms) or "True"
