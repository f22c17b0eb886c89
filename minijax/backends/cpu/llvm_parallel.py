"""Chapter 09 — ``prange`` loops in our own LLVM IR, run on Numba's thread pool.

A kernel of chapter 09 runs its big loops as ``for i0 in prange(N):``. When
Numba compiles such a loop (``parallel=True``) it *outlines* the loop's body
into a function of its own and hands that function to its **threading
layer**, a small C library with one entry point::

    void numba_parallel_for(void *fn, char **args, size_t *dimensions,
                            size_t *steps, void *data, size_t inner_ndim,
                            size_t array_count, int num_threads);

``fn`` is a function of NumPy's *generalized ufunc* shape,
``void fn(char **args, size_t *dimensions, size_t *steps, void *data)``.
The pool splits the outer dimension, ``dimensions[0]``, into pieces and calls
``fn`` once per piece, on its threads, with ``dimensions[0]`` set to the
piece's length and each ``args[j]`` moved on by ``steps[j]`` times the
piece's first index. Each of Numba's three layers splits differently (read
in Numba's C sources):

* **omp** (OpenMP, the one Linux uses when TBB is absent): ``#pragma omp
  for`` over ``r`` in ``[0, dimensions[0])``, one call *per index* ``r``
  (``dimensions[0]`` set to 1, ``args[j] = base + steps[j] * r``); each
  thread gets a contiguous block of indices (the static schedule).
* **workqueue** (Numba's own pthreads pool): ``num_threads`` calls, one per
  thread, of ``dimensions[0] / num_threads`` indices each (the last thread
  takes the remainder).
* **tbb**: ``tbb::parallel_for`` over a ``blocked_range``, ranges of any length.

This module builds the same thing with :mod:`llvmlite.ir`, for the
translator (:mod:`.llvm_translate`) to call. The translator writes the body of
a ``prange`` loop as an LLVM function ``void body(i64 start, i64 stop, ptr
data)`` that runs iterations ``[start, stop)`` and reads the values it needs
from the kernel (array pointers, scalars) out of ``data``, a struct the
kernel fills (:func:`pack_captures`, :func:`unpack_captures`). Then
:func:`parallel_for` emits, in the kernel:

1. a **trampoline**, ``void body.gufunc(char **args, i64 *dims, i64 *steps,
   ptr data)``, of the shape the pool calls, which turns "the pieces
   ``[first, first + dims[0])``" back into iterations and calls ``body``;
2. the **call**: ask for the calling thread's thread count
   (``get_num_threads``, which ``numba.set_num_threads`` sets per Python
   thread), and call ``numba_parallel_for`` with the trampoline.

**How the iterations are split.** The ``N`` iterations are cut into ``P =
min(N, threads)`` *parts* of contiguous iterations, as equal as possible
(the first ``N mod P`` parts one longer), and the pool's outer dimension is
``P``, so that each thread runs one part with one call of ``body``, which
then loops over its own range. This is what Numba's parfors do too (their
schedule, ``do_scheduling_signed``, gives each thread one range). The
alternative, ``P = N`` (one call of ``body`` per iteration, the pool's own
split; ``per_iteration=True``), costs the pool's bookkeeping and a call per
iteration and cuts ``body``'s loop into one-iteration pieces. Measured with
two threads on a busy 2-core machine (``bench/bench_llvm_parallel.py``: the
two ways interleaved, best of 3,000 calls of the whole kernel): no
difference for 64 chunks (1.4-2.1 us a call either way, most of it the
pool's wake-up), 2 to 4.5 us more per call for 1,000 rows of 16 floats (1.8
against 3.9 us), 1.5 to 2 us more for 1,000 rows of 256. (Waking the pool
costs about 1.5 us while its threads still spin after the last loop, tens
of microseconds once they sleep; Numba's kernels pay the same, it is the
same pool.) The split never changes a result:
the kernels fix their chunks in the source (each ``prange`` iteration is a
whole chunk, with its own partial results), so which thread runs an
iteration does not matter.

To find the first iteration of a piece, the trampoline is given one
"array" whose base is the null pointer and whose step is 1: the pool then
hands it ``args[0] = 0 + 1 * first``, the piece's first part index, as a
pointer, whatever its splitting. A second "array" with step 0 points at a
small struct ``{N, P}`` (each piece sees the same pointer).

**When no pool is used.** With one thread (or ``N <= 1``) the kernel calls
the trampoline itself, for one part ``[0, N)``: no wake-up of the pool, the
same result. The trampoline is ``noinline`` and the body has no other
caller, so LLVM inlines the body into the trampoline, once: the loop's code
is optimized and emitted once (compile time is what this path is for), and
one thread and many run the same machine code. (Inlined into the kernel as
well, with its bounds known, LLVM vectorized a loop of the tests *across*
rows with gathers, five times slower than the trampoline's.)

**Several Python threads at once.** The executor runs kernels from several
Python threads, and the kernel's entry releases the GIL, so two kernels can
reach ``numba_parallel_for`` together. OpenMP and TBB allow that (Numba
calls them *threadsafe*: each calling thread gets a team of its own).
Numba's workqueue layer does not: it aborts the process ("Concurrent access
has been detected"). Numba leaves that to the user (pick another layer);
here, when the layer is workqueue, :func:`parallel_for` guards the call with
one process-wide flag taken by an atomic compare-and-swap: a kernel that
finds the pool taken runs its loop in its own thread instead (the same
result, as above). A Numba-compiled parallel kernel running at the same
moment does not look at that flag, and still aborts as Numba does.

:func:`ensure_threads` starts Numba's threading layer, the same one Numba's
own kernels use (``numba.config.THREADING_LAYER``), which registers the pool's
symbols with LLVM; :func:`parallel_for` calls it, so any kernel that has a
parallel loop was translated in a process where the symbols exist before
its machine code is loaded. A kernel whose object file is loaded without
being translated in this process (from a cache of translations) needs
:func:`ensure_threads_for` first: MCJIT resolves ``numba_parallel_for`` when
the object is loaded, and an unresolved symbol there ends the process.

Numba's thread count is the calling thread's (``numba.set_num_threads``);
chapter 09's :func:`.thread_budget.fit_to_machine` sets it before each call
of a kernel with parallel loops, which for these kernels is one whose IR
declares ``numba_parallel_for`` (:func:`has_parallel_loops`).
"""
from __future__ import annotations

import ctypes
import re
import threading

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = ["BODY_TYPE", "ensure_threads", "ensure_threads_for", "has_parallel_loops",
           "threading_layer", "declare_body",
           "pack_captures", "unpack_captures", "parallel_for"]

_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_byte_ptr = ir.PointerType(ir.IntType(8))
_void = ir.VoidType()

#: The type of a loop body: ``void body(i64 start, i64 stop, ptr data)``.
BODY_TYPE = ir.FunctionType(_void, [_i64, _i64, _byte_ptr])
#: The function type the pool calls (a gufunc's inner loop):
#: ``void(char **args, i64 *dims, i64 *steps, ptr data)``.
_GUFUNC_TYPE = ir.FunctionType(_void, [_byte_ptr.as_pointer(), _i64.as_pointer(),
                                       _i64.as_pointer(), _byte_ptr])
#: ``numba_parallel_for``: (fn, args, dims, steps, data, inner_ndim, array_count, num_threads).
_PARALLEL_FOR_TYPE = ir.FunctionType(_void, [_byte_ptr] * 5 + [_i64, _i64, _i32])
#: ``{N, P}``: the iterations and the parts they are cut into, for the trampoline.
_SCHEDULE_TYPE = ir.LiteralStructType([_i64, _i64])

#: The process-wide flag that serializes kernels on Numba's workqueue layer.
BUSY_SYMBOL = "minijax_parallel_pool_busy"

#: The pool's function as IR text names it (llvmlite quotes names: ``@"numba_parallel_for"``).
_POOL_CALL = re.compile(r'@"?numba_parallel_for"?\(')

_lock = threading.Lock()
_state: dict = {}


# =============================================================================
# The threading layer
# =============================================================================
def ensure_threads() -> str:
    """Start Numba's threading layer (once per process) and return its name.

    ``numba.np.ufunc.parallel._launch_threads`` picks the layer as Numba's
    own kernels get it (``NUMBA_THREADING_LAYER``: tbb, then omp, then
    workqueue by default), starts its threads and registers its C functions
    with LLVM under the names the IR uses (``numba_parallel_for``,
    ``get_num_threads``, ``get_thread_id``...). This also registers
    :data:`BUSY_SYMBOL`, the flag the workqueue guard takes.
    """
    with _lock:
        if "layer" not in _state:
            import numba
            from numba.np.ufunc import parallel
            parallel._launch_threads()
            flag = ctypes.c_int32(0)  # kept alive for the whole process in _state
            llvm.add_symbol(BUSY_SYMBOL, ctypes.addressof(flag))
            _state["flag"] = flag
            _state["layer"] = numba.threading_layer()
        return _state["layer"]


def has_parallel_loops(ir_text: str) -> bool:
    """Whether a kernel's LLVM IR runs loops on Numba's pool (declares ``numba_parallel_for``)."""
    return _POOL_CALL.search(ir_text) is not None


def ensure_threads_for(ir_text: str) -> None:
    """Before loading the machine code of the kernel whose IR is ``ir_text``: start the
    threading layer if the kernel uses it (its symbols must exist when the object is loaded)."""
    if has_parallel_loops(ir_text):
        ensure_threads()


def threading_layer() -> str:
    """The name of Numba's threading layer in this process: "omp", "tbb" or "workqueue"."""
    return ensure_threads()


# =============================================================================
# Captured values: the struct the kernel fills and the body reads
# =============================================================================
def declare_body(module: ir.Module, name: str) -> ir.Function:
    """A new, empty loop body ``void @name(i64 %start, i64 %stop, ptr %data)`` in ``module``
    (internal: only the trampoline calls it, so LLVM may inline it there)."""
    body = ir.Function(module, BODY_TYPE, name)
    body.linkage = "internal"
    for arg, arg_name in zip(body.args, ("start", "stop", "data")):
        arg.name = arg_name
    return body


def pack_captures(builder: ir.IRBuilder, values) -> tuple[ir.Value, ir.LiteralStructType]:
    """Store ``values`` (any first-class LLVM values: pointers, ints, floats) in a struct
    on the calling function's stack; return a pointer to it (``i8*``) and its type.

    The struct is allocated in the function's entry block, once, however many
    times the code at the builder's position runs (an ``alloca`` inside a loop
    would grow the stack at every turn); the values are stored where the
    builder is, which must be the end of its block (as when appending code).
    """
    values = list(values)
    struct_type = ir.LiteralStructType([v.type for v in values])
    with builder.goto_entry_block():
        slot = builder.alloca(struct_type, name="captures")
    for i, value in enumerate(values):
        builder.store(value, builder.gep(slot, [_i32(0), _i32(i)], inbounds=True))
    return builder.bitcast(slot, _byte_ptr), struct_type


def unpack_captures(builder: ir.IRBuilder, data: ir.Value,
                    struct_type: ir.LiteralStructType) -> list[ir.Value]:
    """Load the values :func:`pack_captures` stored, from ``data`` (the body's third parameter)."""
    slot = builder.bitcast(data, struct_type.as_pointer())
    return [builder.load(builder.gep(slot, [_i32(0), _i32(i)], inbounds=True),
                         name=f"capture{i}")
            for i in range(len(struct_type.elements))]


# =============================================================================
# The trampoline and the call
# =============================================================================
def _declare(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    """``name`` in ``module``: the existing declaration, or a new one."""
    existing = module.globals.get(name)
    return existing if existing is not None else ir.Function(module, fnty, name)


def _part_bound(builder: ir.IRBuilder, k, quotient, remainder):
    """Where part ``k`` starts: ``k * q + min(k, r)`` for ``N = q * P + r`` (the first
    ``r`` parts have ``q + 1`` iterations, the others ``q``)."""
    smaller = builder.select(builder.icmp_unsigned("<", k, remainder), k, remainder)
    return builder.add(builder.mul(k, quotient), smaller)


def _trampoline(module: ir.Module, body: ir.Function) -> ir.Function:
    """The function the pool calls, for ``body``: runs the parts ``[first, first + dims[0])``.

    ``args[0]`` is the first part's index (the pool computed ``null + 1 * first``),
    ``args[1]`` points at ``{N, P}``; one call of ``body`` covers the parts' iterations.
    """
    name = f"{body.name}.gufunc"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    fn = ir.Function(module, _GUFUNC_TYPE, name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")  # one copy of the body's code: the serial path calls it too
    args, dims, _steps, data = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    first = b.ptrtoint(b.load(args), _i64, name="first")
    count = b.load(dims, name="count")
    schedule = b.bitcast(b.load(b.gep(args, [_i64(1)])), _SCHEDULE_TYPE.as_pointer())
    n = b.load(b.gep(schedule, [_i32(0), _i32(0)], inbounds=True), name="n")
    parts = b.load(b.gep(schedule, [_i32(0), _i32(1)], inbounds=True), name="parts")
    quotient, remainder = b.udiv(n, parts), b.urem(n, parts)
    start = _part_bound(b, first, quotient, remainder)
    stop = _part_bound(b, b.add(first, count), quotient, remainder)
    b.call(body, [start, stop, b.bitcast(data, body.args[2].type)])
    b.ret_void()
    return fn


def parallel_for(module: ir.Module, builder: ir.IRBuilder, body: ir.Function, n: ir.Value,
                 data: ir.Value, *, per_iteration: bool = False) -> None:
    """Emit, at ``builder``, the loop ``for i in prange(n): body`` on Numba's thread pool.

    ``body`` is ``void(i64 start, i64 stop, ptr data)`` (:func:`declare_body`);
    ``n`` a signed integer (the iteration count; nothing runs if it is at most 0);
    ``data`` the pointer :func:`pack_captures` returned, passed to every call of
    ``body``. When the emitted code has run, every iteration has.

    ``per_iteration=True`` makes the pool call ``body`` once per iteration
    (the split the module's notes measure against); the default cuts the
    iterations into one contiguous part per thread.
    """
    layer = ensure_threads()
    get_num_threads = _declare(module, "get_num_threads", ir.FunctionType(_i32, []))
    pool_for = _declare(module, "numba_parallel_for", _PARALLEL_FOR_TYPE)
    trampoline = _trampoline(module, body)
    data = builder.bitcast(data, _byte_ptr)
    if n.type.width < 64:
        n = builder.sext(n, _i64)

    with builder.goto_entry_block():  # the pool's arguments, allocated once per call of the kernel
        pool_args = builder.alloca(_byte_ptr, size=2, name="pool_args")
        pool_dims = builder.alloca(_i64, size=2, name="pool_dims")
        pool_steps = builder.alloca(_i64, size=2, name="pool_steps")
        schedule = builder.alloca(_SCHEDULE_TYPE, name="pool_schedule")

    function = builder.function
    run_block = function.append_basic_block("prange.run")
    pool_block = function.append_basic_block("prange.pool")
    serial_block = function.append_basic_block("prange.serial")
    done_block = function.append_basic_block("prange.done")
    builder.cbranch(builder.icmp_signed(">", n, _i64(0)), run_block, done_block)

    builder.position_at_end(run_block)
    threads = builder.sext(builder.call(get_num_threads, []), _i64, name="threads")
    use_pool = builder.and_(builder.icmp_signed(">", threads, _i64(1)),
                            builder.icmp_signed(">", n, _i64(1)), name="use_pool")
    most = n if per_iteration else builder.select(builder.icmp_signed("<", n, threads), n, threads)
    parts = builder.select(use_pool, most, _i64(1), name="parts")
    # What the trampoline reads: part indices counted from 0 (a null base, step 1), {N, P}.
    builder.store(builder.inttoptr(_i64(0), _byte_ptr), pool_args)
    builder.store(builder.bitcast(schedule, _byte_ptr), builder.gep(pool_args, [_i64(1)]))
    builder.store(parts, pool_dims)
    builder.store(_i64(1), builder.gep(pool_dims, [_i64(1)]))
    builder.store(_i64(1), pool_steps)
    builder.store(_i64(0), builder.gep(pool_steps, [_i64(1)]))
    builder.store(n, builder.gep(schedule, [_i32(0), _i32(0)], inbounds=True))
    builder.store(parts, builder.gep(schedule, [_i32(0), _i32(1)], inbounds=True))
    gufunc_args = [pool_args, pool_dims, pool_steps, data]

    busy = None
    if layer == "workqueue":  # not reentrant: take the process-wide flag, or run serially
        busy = module.globals.get(BUSY_SYMBOL) or ir.GlobalVariable(module, _i32, BUSY_SYMBOL)
        try_block = function.append_basic_block("prange.try_pool")
        builder.cbranch(use_pool, try_block, serial_block)
        builder.position_at_end(try_block)
        exchanged = builder.cmpxchg(busy, _i32(0), _i32(1), "acq_rel", "monotonic")
        builder.cbranch(builder.extract_value(exchanged, 1), pool_block, serial_block)
    else:
        builder.cbranch(use_pool, pool_block, serial_block)

    # The pool: it wakes min(parts, threads) threads (parts <= threads unless per_iteration).
    builder.position_at_end(pool_block)
    fewer = builder.icmp_signed("<", parts, threads)
    team = builder.trunc(builder.select(fewer, parts, threads), _i32)
    builder.call(pool_for, [builder.bitcast(trampoline, _byte_ptr)]
                 + [builder.bitcast(a, _byte_ptr) for a in gufunc_args] + [_i64(1), _i64(2), team])
    if busy is not None:
        builder.store_atomic(_i32(0), busy, "release", align=4)
    builder.branch(done_block)

    # Serially: the trampoline itself, for the one part [0, N) (with parts = 1), in this
    # thread; so the body has one call site, is inlined there once, and both ways run
    # the same machine code.
    builder.position_at_end(serial_block)
    if busy is not None:  # the pool was busy: one part
        builder.store(_i64(1), pool_dims)
        builder.store(_i64(1), builder.gep(schedule, [_i32(0), _i32(1)], inbounds=True))
    builder.call(trampoline, gufunc_args)
    builder.branch(done_block)

    builder.position_at_end(done_block)
