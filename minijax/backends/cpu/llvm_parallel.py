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
split), costs an indirect call and the pool's bookkeeping per iteration and
keeps ``body``'s loop from being vectorized across iterations; measured (see
the tests' notes and the report of issue 21) it is slower for 1000 rows and
no better for 64 chunks. The split never changes a result: the kernels fix
their chunks in the source (each ``prange`` iteration is a whole chunk, with
its own partial results), so which thread runs an iteration does not matter.

To find the first iteration of a piece, the trampoline is given one
"array" whose base is the null pointer and whose step is 1: the pool then
hands it ``args[0] = 0 + 1 * first``, the piece's first part index, as a
pointer, whatever its splitting. A second "array" with step 0 points at a
small struct ``{N, P}`` (each piece sees the same pointer).

**When no pool is used.** With one thread (or ``N <= 1``) the kernel calls
``body(0, N, data)`` itself: no wake-up of the pool, the same result.

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
its machine code is loaded.
"""
from __future__ import annotations

import ctypes
import threading

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = ["BODY_TYPE", "ensure_threads", "threading_layer", "declare_body",
           "pack_captures", "unpack_captures", "parallel_for"]

_i1 = ir.IntType(1)
_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_byte_ptr = ir.PointerType(ir.IntType(8))
_void = ir.VoidType()

#: The type of a loop body: ``void body(i64 start, i64 stop, ptr data)``.
BODY_TYPE = ir.FunctionType(_void, [_i64, _i64, _byte_ptr])
#: The pool's function type (a gufunc's inner loop): ``void(char **args, i64 *dims, i64 *steps, ptr data)``.
_GUFUNC_TYPE = ir.FunctionType(_void, [_byte_ptr.as_pointer(), _i64.as_pointer(),
                                       _i64.as_pointer(), _byte_ptr])
#: ``numba_parallel_for``: (fn, args, dims, steps, data, inner_ndim, array_count, num_threads).
_PARALLEL_FOR_TYPE = ir.FunctionType(_void, [_byte_ptr] * 5 + [_i64, _i64, _i32])
#: ``{N, P}``: the iterations and the parts they are cut into, for the trampoline.
_SCHEDULE_TYPE = ir.LiteralStructType([_i64, _i64])

#: The process-wide flag that serializes kernels on Numba's workqueue layer.
BUSY_SYMBOL = "minijax_parallel_pool_busy"

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
    builder is.
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
    ``n`` an ``i64`` (the iteration count; nothing runs if it is at most 0);
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
    body_data = builder.bitcast(data, body.args[2].type)
    pool_data = builder.bitcast(data, _byte_ptr)

    with builder.goto_entry_block():  # the pool's arguments, allocated once per call of the kernel
        pool_args = builder.alloca(_byte_ptr, size=2, name="pool_args")
        pool_dims = builder.alloca(_i64, size=2, name="pool_dims")
        pool_steps = builder.alloca(_i64, size=2, name="pool_steps")
        schedule = builder.alloca(_SCHEDULE_TYPE, name="pool_schedule")

    threads = builder.sext(builder.call(get_num_threads, []), _i64, name="threads")
    parts = n if per_iteration else builder.select(
        builder.icmp_signed("<", n, threads), n, threads)
    # The pool wakes min(parts, threads) threads.
    team = builder.trunc(builder.select(builder.icmp_signed("<", parts, threads), parts, threads), _i32)
    use_pool = builder.and_(builder.icmp_signed(">", threads, _i64(1)),
                            builder.icmp_signed(">", n, _i64(1)))
    busy = None
    if layer == "workqueue":  # not reentrant: take the process-wide flag or run serially
        busy = module.globals.get(BUSY_SYMBOL) or ir.GlobalVariable(module, _i32, BUSY_SYMBOL)

    function = builder.function
    serial_block = function.append_basic_block("prange.serial")
    pool_block = function.append_basic_block("prange.pool")
    done_block = function.append_basic_block("prange.done")
    if busy is not None:
        try_block = function.append_basic_block("prange.try_pool")
        builder.cbranch(use_pool, try_block, serial_block)
        builder.position_at_end(try_block)
        exchanged = builder.cmpxchg(busy, _i32(0), _i32(1), "acq_rel", "monotonic")
        builder.cbranch(builder.extract_value(exchanged, 1), pool_block, serial_block)
    else:
        builder.cbranch(use_pool, pool_block, serial_block)

    builder.position_at_end(pool_block)
    builder.store(builder.inttoptr(_i64(0), _byte_ptr), pool_args)
    builder.store(builder.bitcast(schedule, _byte_ptr), builder.gep(pool_args, [_i64(1)]))
    builder.store(parts, pool_dims)
    builder.store(_i64(1), builder.gep(pool_dims, [_i64(1)]))
    builder.store(_i64(1), pool_steps)   # args[0] advances by 1 per part: the part's index
    builder.store(_i64(0), builder.gep(pool_steps, [_i64(1)]))  # args[1]: the same {N, P} for all
    builder.store(n, builder.gep(schedule, [_i32(0), _i32(0)], inbounds=True))
    builder.store(parts, builder.gep(schedule, [_i32(0), _i32(1)], inbounds=True))
    builder.call(pool_for, [builder.bitcast(trampoline, _byte_ptr), builder.bitcast(pool_args, _byte_ptr),
                            builder.bitcast(pool_dims, _byte_ptr), builder.bitcast(pool_steps, _byte_ptr),
                            pool_data, _i64(1), _i64(2), team])
    if busy is not None:
        builder.store_atomic(_i32(0), busy, "release", align=4)
    builder.branch(done_block)

    builder.position_at_end(serial_block)
    with builder.if_then(builder.icmp_signed(">", n, _i64(0))):
        builder.call(body, [_i64(0), n, body_data])
    builder.branch(done_block)

    builder.position_at_end(done_block)
