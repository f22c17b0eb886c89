"""Chapter 09 — a float32 matrix product of our own, written in LLVM IR.

Every float32 product of a kernel used to be one call of OpenBLAS's sgemm on
one thread (:mod:`.blas_threads` says why one). SciPy's OpenBLAS runs its
Haswell kernels on this project's machines (AVX2: eight floats a vector),
while the CPU has AVX-512: sixteen. XLA, under JAX, uses all sixteen, which is
most of why the digits MLP's training step took 1.7x JAX's time. This module
builds the product itself, with ``llvmlite.ir``, for the vector width of the
host, and kernels call it instead of sgemm (through the same C signature,
:data:`SYMBOL`), whichever compiler (ours or Numba) compiled the kernel.

How it computes ``c = op(a) @ op(b)`` (row-major; ``op(x)`` is ``x`` or ``x.T``):

- the output is cut into tiles of ``MR`` rows and ``NR`` columns
  (``NR = VECTORS * width``); a tile's ``MR * VECTORS`` vectors stay in
  registers while ``p`` runs over the whole inner dimension: each step loads
  ``VECTORS`` vectors of row ``p`` of ``op(b)`` and, for each row ``i`` of the
  tile, multiplies them by ``op(a)[i, p]`` (one number, broadcast) and adds
  (one ``fma`` each);
- ``op(b)`` with ``b`` transposed would be read down columns: it is first
  copied to a row-major buffer (the "packing" every BLAS does);
- the last tile of a row has fewer columns: its loads and stores are masked;
  the last tiles of the rows have their own, smaller row counts.

**The bits.** Each element is ``fma(a[i, p], b[p, j], s)`` for ``p = 0, 1, ...,
k - 1`` in order, starting from ``s = 0``: one rounding per step, the order
fixed by the definition of the product and nothing else. So the bits do not
depend on the tile sizes, the vector width (AVX2 or AVX-512 give the same
numbers), the threads or the load; and they are what XLA's CPU backend
computes for the products of small models (checked on the MLP's shapes in
``tests/ch09_numba/test_small_gemm.py``).

Products outside :func:`handles` (float64, other ``alpha``/``beta``, or too big
for a tile loop without cache blocking) go on to OpenBLAS (``numba_xxgemm``)
unchanged.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import threading

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = ["SYMBOL", "install", "handles", "matmul", "gemm_ir", "tile_shape", "host_width", "MAX_K", "MAX_WORK"]

#: The name kernels call, with ``numba_xxgemm``'s C signature (column-major BLAS).
SYMBOL = "minijax_xxgemm"

#: Products with a longer inner dimension go to BLAS: the ``k x NR`` slice of
#: ``op(b)`` a tile streams through must stay in the core's caches.
MAX_K = 2048
#: ... and so do products of more multiply-adds than this (BLAS blocks for
#: the caches; a kernel already cuts a big product into blocks of columns,
#: each well below it: a 2000x2000 product is 8 blocks of 256 columns, 2**30
#: multiply-adds each, 43 ms on two cores against OpenBLAS's 85 and JAX's 46).
MAX_WORK = 1 << 30

_F32 = ir.FloatType()
_I1, _I8, _I32, _I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
_FP = ir.PointerType(_F32)
_I8P = ir.PointerType(_I8)

_lock = threading.Lock()
_state: dict = {}


def handles(kind: int, alpha: float, beta: float, m: int, n: int, k: int) -> bool:
    """Does our product compute this sgemm call (else BLAS does)? Decided by the
    arguments alone, never by the machine's state, so the bits never depend on it.
    (The test the entry makes in IR, :meth:`_Gemm._entry`, written here in Python.)"""
    return (kind == ord("s") and alpha == 1.0 and beta in (0.0, 1.0)
            and k <= MAX_K and m * n * k <= MAX_WORK)


def tile_shape(width: int) -> tuple[int, int]:
    """``(MR, VECTORS)`` for a vector of ``width`` floats: as many accumulators as
    the registers hold beside the loads (32 registers with AVX-512, 16 with AVX2)."""
    return (4, 4) if width >= 16 else (6, 2)


# =============================================================================
# The IR
# =============================================================================
class _Gemm:
    """Builds the module: one tile function per row count and vector count, the
    row-major driver, and the BLAS-signature entry."""

    def __init__(self, width: int):
        self.width = width
        self.mr, self.vectors = tile_shape(width)
        self.vec = ir.VectorType(_F32, width)
        self.module = ir.Module(name="minijax_small_gemm")
        m = self.module
        self.fma = ir.Function(m, ir.FunctionType(self.vec, [self.vec] * 3), f"llvm.fma.v{width}f32")
        mask_ty = ir.VectorType(_I1, width)
        vptr = ir.PointerType(self.vec)
        self.masked_load = ir.Function(m, ir.FunctionType(self.vec, [vptr, _I32, mask_ty, self.vec]),
                                       f"llvm.masked.load.v{width}f32.p0v{width}f32")
        self.masked_store = ir.Function(m, ir.FunctionType(ir.VoidType(), [self.vec, vptr, _I32, mask_ty]),
                                        f"llvm.masked.store.v{width}f32.p0v{width}f32")
        self.malloc = ir.Function(m, ir.FunctionType(_I8P, [_I64]), "malloc")
        self.free = ir.Function(m, ir.FunctionType(ir.VoidType(), [_I8P]), "free")
        self.blas = ir.Function(m, ir.FunctionType(_I32, [_I8, _I8, _I8, _I64, _I64, _I64, _I8P, _I8P, _I64,
                                                          _I8P, _I64, _I8P, _I8P, _I64]), "numba_xxgemm")
        self.gather = ir.Function(m, ir.FunctionType(self.vec, [ir.VectorType(_FP, width), _I32, mask_ty,
                                                                 self.vec]),
                                  f"llvm.masked.gather.v{width}f32.v{width}p0f32")
        self.tiles = {(rows, vectors): self._tile(rows, vectors)
                      for rows in range(1, self.mr + 1) for vectors in range(1, self.vectors + 1)}
        self._rowmajor()
        self._entry()

    # --- one tile: rows x NR of the output, p over the whole inner dimension -----
    def _tile(self, rows: int, vectors: int) -> ir.Function:
        """``tile_<rows>x<vectors>(k, a, sa_i, sa_p, b, ldb, c, ldc, cols, accumulate)``:
        ``c[i, j] (+)= sum_p a[i*sa_i + p*sa_p] * b[p*ldb + j]`` for ``i < rows``,
        ``j < cols``, ``cols <= vectors * width`` (fewer: masked loads and stores)."""
        fnty = ir.FunctionType(ir.VoidType(), [_I64, _FP, _I64, _I64, _FP, _I64, _FP, _I64, _I64, _I1])
        fn = ir.Function(self.module, fnty, f"minijax_gemm_tile_{rows}x{vectors}")
        fn.linkage = "internal"
        fn.attributes.add("noinline")  # 16 loops, each optimized once (half the compile)
        entry = fn.append_basic_block("entry")
        bld = ir.IRBuilder(entry)
        if self.width >= 16:  # AVX-512: a masked load costs what a load does, one body
            self._tile_body(bld, fn, rows, vectors, True)
            return fn
        full, masked = fn.append_basic_block("full"), fn.append_basic_block("masked")
        cols = fn.args[8]
        bld.cbranch(bld.icmp_signed("==", cols, ir.Constant(_I64, self.width * vectors)), full, masked)
        for block, use_mask in ((full, False), (masked, True)):
            bld.position_at_end(block)
            self._tile_body(bld, fn, rows, vectors, use_mask)
        return fn

    def _masks(self, bld, cols, vectors):
        """One mask per vector of the tile's columns: lane ``l`` of vector ``v`` is
        column ``v * width + l``, on while it is below ``cols``."""
        lanes = ir.Constant(ir.VectorType(_I64, self.width), list(range(self.width)))
        masks = []
        for v in range(vectors):
            left = bld.sub(cols, ir.Constant(_I64, v * self.width))
            splat = self._splat(bld, left, ir.VectorType(_I64, self.width))
            masks.append(bld.icmp_signed("<", lanes, splat))
        return masks

    def _splat(self, bld, value, vty):
        undef = ir.Constant(vty, ir.Undefined)
        one = bld.insert_element(undef, value, ir.Constant(_I32, 0))
        return bld.shuffle_vector(one, undef, ir.Constant(ir.VectorType(_I32, vty.count), [0] * vty.count))

    def _vector_at(self, bld, base, offset):
        return bld.bitcast(bld.gep(base, [offset]), ir.PointerType(self.vec))

    def _tile_body(self, bld, fn, rows, vectors, use_mask):
        k, a, sa_i, sa_p, b, ldb, c, ldc, cols, accumulate = fn.args
        zero = ir.Constant(self.vec, [0.0] * self.width)
        masks = self._masks(bld, cols, vectors) if use_mask else None
        head_block = bld.block
        loop = fn.append_basic_block("loop" + "_m" * use_mask)
        done = fn.append_basic_block("store" + "_m" * use_mask)
        has_work = bld.icmp_signed(">", k, ir.Constant(_I64, 0))
        bld.cbranch(has_work, loop, done)
        # the loop over p: the accumulators are phis
        bld.position_at_end(loop)
        p = bld.phi(_I64, "p")
        p.add_incoming(ir.Constant(_I64, 0), head_block)
        accs = [[bld.phi(self.vec, f"acc{i}_{v}") for v in range(vectors)] for i in range(rows)]
        for row in accs:
            for acc in row:
                acc.add_incoming(zero, head_block)
        b_row = bld.mul(p, ldb)
        bs = []
        for v in range(vectors):
            at = self._vector_at(bld, b, bld.add(b_row, ir.Constant(_I64, v * self.width)))
            if use_mask:
                bs.append(bld.call(self.masked_load, [at, ir.Constant(_I32, 4), masks[v], zero]))
            else:
                bs.append(bld.load(at, align=4))
        a_col = bld.mul(p, sa_p)
        new = []
        for i in range(rows):
            x = bld.load(bld.gep(a, [bld.add(a_col, bld.mul(ir.Constant(_I64, i), sa_i))]), align=4)
            xs = self._splat(bld, x, self.vec)
            new.append([bld.call(self.fma, [xs, bs[v], accs[i][v]]) for v in range(vectors)])
        p_next = bld.add(p, ir.Constant(_I64, 1))
        p.add_incoming(p_next, loop)
        for i in range(rows):
            for v in range(vectors):
                accs[i][v].add_incoming(new[i][v], loop)
        bld.cbranch(bld.icmp_signed("<", p_next, k), loop, done)
        # the stores: c = s, or c = c + s
        bld.position_at_end(done)
        finals = [[bld.phi(self.vec) for v in range(vectors)] for i in range(rows)]
        for i in range(rows):
            for v in range(vectors):
                finals[i][v].add_incoming(zero, head_block)
                finals[i][v].add_incoming(new[i][v], loop)
        for i in range(rows):
            row = bld.mul(ir.Constant(_I64, i), ldc)
            for v in range(vectors):
                at = self._vector_at(bld, c, bld.add(row, ir.Constant(_I64, v * self.width)))
                old = (bld.call(self.masked_load, [at, ir.Constant(_I32, 4), masks[v], zero]) if use_mask
                       else bld.load(at, align=4))
                value = bld.select(accumulate, bld.fadd(old, finals[i][v]), finals[i][v])
                if use_mask:
                    bld.call(self.masked_store, [value, at, ir.Constant(_I32, 4), masks[v]])
                else:
                    bld.store(value, at, align=4)
        bld.ret_void()

    # --- the row-major product: pack op(b) if transposed, then the tiles ----------
    def _rowmajor(self) -> None:
        """``minijax_gemm_rowmajor(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate)``."""
        fnty = ir.FunctionType(ir.VoidType(), [_I1, _I1, _I64, _I64, _I64, _FP, _I64, _FP, _I64, _FP, _I64, _I1])
        fn = ir.Function(self.module, fnty, "minijax_gemm_rowmajor")
        fn.linkage = "internal"
        ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate = fn.args
        start = fn.append_basic_block("entry")
        bld = ir.IRBuilder(start)
        one, zero = ir.Constant(_I64, 1), ir.Constant(_I64, 0)
        # op(b) transposed: copy b.T (k x n) to a buffer, ``width`` columns at a time:
        # buffer[p, j:j + width] gathers b[j:j + width, p] (16 rows of b, read
        # along p, stay in the cache; the buffer is written in whole vectors)
        pack, tiles = fn.append_basic_block("pack"), fn.append_basic_block("tiles")
        bld.cbranch(tb, pack, tiles)
        bld.position_at_end(pack)
        buffer = bld.bitcast(bld.call(self.malloc, [bld.mul(bld.mul(k, n), ir.Constant(_I64, 4))]), _FP)
        width = ir.Constant(_I64, self.width)
        lanes = ir.Constant(ir.VectorType(_I64, self.width), list(range(self.width)))
        with _loop(bld, fn, zero, n, "pj", step=width) as j:
            rows_of_b = bld.add(self._splat(bld, j, lanes.type), lanes)
            mask = bld.icmp_signed("<", rows_of_b, self._splat(bld, n, lanes.type))
            base = self._splat(bld, bld.ptrtoint(b, _I64), lanes.type)
            four = self._splat(bld, ir.Constant(_I64, 4), lanes.type)
            starts = bld.add(base, bld.mul(bld.mul(rows_of_b, self._splat(bld, ldb, lanes.type)), four))
            with _loop(bld, fn, zero, k, "pp") as p:
                addresses = bld.add(starts, self._splat(bld, bld.mul(p, ir.Constant(_I64, 4)), lanes.type))
                pointers = bld.inttoptr(addresses, ir.VectorType(_FP, self.width))
                zeros = ir.Constant(self.vec, [0.0] * self.width)
                values = bld.call(self.gather, [pointers, ir.Constant(_I32, 4), mask, zeros])
                at = self._vector_at(bld, buffer, bld.add(bld.mul(p, n), j))
                bld.call(self.masked_store, [values, at, ir.Constant(_I32, 4), mask])
        packed_block = bld.block
        bld.branch(tiles)
        bld.position_at_end(tiles)
        b_used = bld.phi(_FP)
        b_used.add_incoming(b, start)
        b_used.add_incoming(buffer, packed_block)
        ldb_used = bld.phi(_I64)
        ldb_used.add_incoming(ldb, start)
        ldb_used.add_incoming(n, packed_block)
        sa_i = bld.select(ta, one, lda)
        sa_p = bld.select(ta, lda, one)
        nr = ir.Constant(_I64, self.width * self.vectors)
        mr = ir.Constant(_I64, self.mr)
        with _loop(bld, fn, zero, n, "j0", step=nr) as j0:
            cols = _min(bld, nr, bld.sub(n, j0))
            with _loop(bld, fn, zero, m, "i0", step=mr) as i0:
                rows = _min(bld, mr, bld.sub(m, i0))
                a_tile = bld.gep(a, [bld.mul(i0, sa_i)])
                b_tile = bld.gep(b_used, [j0])
                c_tile = bld.gep(c, [bld.add(bld.mul(i0, ldc), j0)])
                args = [k, a_tile, sa_i, sa_p, b_tile, ldb_used, c_tile, ldc, cols, accumulate]
                self._call_tile(bld, fn, rows, cols, args)
        free_block, end = fn.append_basic_block("free"), fn.append_basic_block("end")
        bld.cbranch(tb, free_block, end)
        bld.position_at_end(free_block)
        bld.call(self.free, [bld.bitcast(b_used, _I8P)])
        bld.branch(end)
        bld.position_at_end(end)
        bld.ret_void()

    def _call_tile(self, bld, fn, rows, cols, args) -> None:
        """Call the tile function for ``rows`` rows and ``ceil(cols / width)`` vectors."""
        width = ir.Constant(_I64, self.width)
        vectors = bld.sdiv(bld.add(cols, ir.Constant(_I64, self.width - 1)), width)
        after = fn.append_basic_block("after_tile")
        by_vectors = bld.switch(vectors, after)
        for v in range(1, self.vectors + 1):
            block = fn.append_basic_block(f"vectors{v}")
            by_vectors.add_case(ir.Constant(_I64, v), block)
            with bld.goto_block(block):
                by_rows = bld.switch(rows, after)
                for r in range(1, self.mr + 1):
                    tile_block = fn.append_basic_block(f"tile{r}x{v}")
                    by_rows.add_case(ir.Constant(_I64, r), tile_block)
                    with bld.goto_block(tile_block):
                        bld.call(self.tiles[r, v], args)
                        bld.branch(after)
        bld.position_at_end(after)

    # --- the entry kernels call: numba_xxgemm's signature --------------------------
    def _entry(self) -> None:
        """``minijax_xxgemm(kind, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
        c, ldc)``: BLAS's column-major call. A column-major ``C = op(A) op(B)`` is the
        row-major ``C.T = op(B).T op(A).T``: our row-major product with ``B`` as
        its left operand and ``A`` as its right one."""
        fn = ir.Function(self.module, self.blas.function_type, SYMBOL)
        kind, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc = fn.args
        bld = ir.IRBuilder(fn.append_basic_block("entry"))
        ours, blas = fn.append_basic_block("ours"), fn.append_basic_block("blas")
        alpha_v = bld.load(bld.bitcast(alpha, _FP))
        beta_v = bld.load(bld.bitcast(beta, _FP))
        f = lambda x: ir.Constant(_F32, x)  # noqa: E731
        checks = [bld.icmp_unsigned("==", kind, ir.Constant(_I8, ord("s"))),
                  bld.fcmp_ordered("==", alpha_v, f(1.0)),
                  bld.or_(bld.fcmp_ordered("==", beta_v, f(0.0)), bld.fcmp_ordered("==", beta_v, f(1.0))),
                  bld.icmp_signed("<=", k, ir.Constant(_I64, MAX_K)),
                  bld.icmp_signed("<=", bld.mul(bld.mul(m, n), k), ir.Constant(_I64, MAX_WORK))]
        ok = checks[0]
        for check in checks[1:]:
            ok = bld.and_(ok, check)
        bld.cbranch(ok, ours, blas)
        bld.position_at_end(ours)
        transposed = lambda t: bld.icmp_unsigned("!=", t, ir.Constant(_I8, ord("N")))  # noqa: E731
        bld.call(self.module.get_global("minijax_gemm_rowmajor"),
                 [transposed(transb), transposed(transa), n, m, k, bld.bitcast(b, _FP), ldb,
                  bld.bitcast(a, _FP), lda, bld.bitcast(c, _FP), ldc,
                  bld.fcmp_ordered("==", beta_v, f(1.0))])
        bld.ret(ir.Constant(_I32, 0))
        bld.position_at_end(blas)
        bld.ret(bld.call(self.blas, list(fn.args)))


class _loop:
    """``for i in range(start, stop, step)`` in IR, as a context manager: the body
    is built inside the ``with``; the builder is after the loop afterwards."""

    def __init__(self, bld, fn, start, stop, name, step=None):
        self.bld, self.fn, self.start, self.stop, self.name = bld, fn, start, stop, name
        self.step = step if step is not None else ir.Constant(_I64, 1)

    def __enter__(self):
        bld, fn = self.bld, self.fn
        before = bld.block
        self.head = fn.append_basic_block(self.name + "_head")
        self.body = fn.append_basic_block(self.name + "_body")
        self.exit = fn.append_basic_block(self.name + "_exit")
        bld.branch(self.head)
        bld.position_at_end(self.head)
        self.i = bld.phi(_I64, self.name)
        self.i.add_incoming(self.start, before)
        bld.cbranch(bld.icmp_signed("<", self.i, self.stop), self.body, self.exit)
        bld.position_at_end(self.body)
        return self.i

    def __exit__(self, *exc):
        bld = self.bld
        nxt = bld.add(self.i, self.step)
        self.i.add_incoming(nxt, bld.block)
        bld.branch(self.head)
        bld.position_at_end(self.exit)
        return False


def _min(bld, x, y):
    return bld.select(bld.icmp_signed("<", x, y), x, y)


def gemm_ir(width: int) -> str:
    """The module's IR for vectors of ``width`` floats."""
    return str(_Gemm(width).module)


# =============================================================================
# Compiling it once, and telling LLVM where it is
# =============================================================================
def host_width() -> int:
    """Floats in a vector register of this CPU: 16 with AVX-512, else 8."""
    from minijax.backends.cpu.llvm_helpers import host_cpu
    features = host_cpu()[1]
    return 16 if "+avx512f" in features.split(",") else 8


def install(engine=None) -> int:
    """Compile the product (or read it from the object cache) into this process
    once, and give LLVM its address under :data:`SYMBOL`; returns the address.

    ``engine``: the MCJIT engine to load it into (by default chapter 09's, see
    :func:`.llvm_compile._engine`, which calls this when it is made)."""
    if "address" in _state:
        return _state["address"]
    from minijax.backends.cpu import llvm_compile
    if engine is None:  # making the engine installs the product into it
        llvm_compile._engine()
        return _state["address"]
    with _lock:
        if "address" in _state:
            return _state["address"]
        from minijax.backends.cpu.llvm_helpers import library_key
        _blas_symbol()
        width = host_width()
        with open(__file__, "rb") as f:  # the IR is made by this file, for this width
            made_by = hashlib.sha256(f.read()).hexdigest()
        key = hashlib.sha256(f"{made_by}\n{width}\n{library_key()}".encode()).hexdigest()[:32]
        path = os.path.join(llvm_compile.object_cache_dir(), f"small_gemm_{key}.o")
        body = llvm_compile._read_cached(path)
        if body is None:
            machine = llvm_compile.host_machine()
            module = llvm.parse_assembly(gemm_ir(width))
            module.triple = llvm.get_process_triple()
            module.data_layout = str(machine.target_data)
            module.verify()
            llvm_compile.optimize(module, machine)
            body = machine.emit_object(module)
            llvm_compile._write_cached(path, body)
        engine.add_object_file(llvm.ObjectFileRef.from_data(body))
        engine.finalize_object()
        address = engine.get_function_address(SYMBOL)
        llvm.add_symbol(SYMBOL, address)
        _state["address"] = address
        return address


def _blas_symbol() -> None:
    """Make sure LLVM knows ``numba_xxgemm`` (Numba registers it with its C helpers)."""
    if not llvm.address_of_symbol("numba_xxgemm"):
        from numba.core.runtime import nrt  # noqa: F401
        from numba import _helperlib
        for name, address in _helperlib.c_helpers.items():
            llvm.add_symbol("numba_" + name, address)


#: The C signature of :data:`SYMBOL` (``numba_xxgemm``'s), for calling it from Python.
_PROTOTYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char, ctypes.c_char, ctypes.c_char, ctypes.c_int64,
                              ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_int64)


def matmul(a, b, *, trans_a: bool = False, trans_b: bool = False, out=None, accumulate: bool = False):
    """``op(a) @ op(b)`` (or ``out += ...``) through :data:`SYMBOL`, as a kernel
    calls it: float32 matrices with contiguous rows, whose rows may be apart
    (``a[:, :5]`` of a wider array). For the tests and the notebook."""
    import numpy as np
    for x in (a, b) + ((out,) if out is not None else ()):
        if x.dtype != np.float32 or x.ndim != 2 or (x.strides[1] != 4 and x.shape[1] > 1 and x.size):
            raise TypeError("float32 matrices with contiguous rows only")
    m, k = (a.shape[::-1] if trans_a else a.shape)
    n = b.shape[0] if trans_b else b.shape[1]
    if out is None:
        out = np.zeros((m, n), np.float32)
    alpha_beta = np.array([1, 1 if accumulate else 0], np.float32)
    lead = lambda x: max(x.strides[0] // 4, x.shape[1], 1)  # noqa: E731 (BLAS's leading dimension)
    # column-major BLAS: out.T = op(b).T @ op(a).T
    gemm = _PROTOTYPE(install())
    gemm(b"s", b"T" if trans_b else b"N", b"T" if trans_a else b"N", n, m, k,
         alpha_beta.ctypes.data, b.ctypes.data, lead(b), a.ctypes.data, lead(a),
         alpha_beta[1:].ctypes.data, out.ctypes.data, lead(out))
    return out
