"""Chapter 09: ``prange`` loops in our own LLVM IR, on Numba's thread pool (``llvm_parallel``).

The kernels here are built by hand with ``llvmlite.ir``, as the translator
builds them: a loop body ``void body(i64 start, i64 stop, ptr data)`` that
reads its arrays and scalars from the captured struct, and a kernel that
packs the captures and calls :func:`llvm_parallel.parallel_for`. They are
compiled and called through ``llvm_compile`` and checked against NumPy, with
one and two Numba threads, with the iterations cut one part per thread (the
default) and one call per iteration, and from two Python threads at once.
"""
import contextlib
import os
import subprocess
import sys
import threading

import numba
import numpy as np
import pytest
from llvmlite import ir

from minijax.backends.cpu import llvm_compile, llvm_parallel
from minijax.backends.cpu.llvm_translate import ArgSpec, TranslatedKernel

i1, i32, i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
f32, f64 = ir.FloatType(), ir.DoubleType()
ptr = ir.PointerType(ir.IntType(8))
void = ir.VoidType()

#: Numba's thread counts the tests run with (2 only where Numba started two threads).
THREADS = [1] + ([2] if numba.config.NUMBA_NUM_THREADS >= 2 else [])


Spec, Translated = ArgSpec, TranslatedKernel  # what the translator gives llvm_compile


@contextlib.contextmanager
def counted_loop(builder, start, stop):
    """``for i in range(start, stop):`` in IR (nothing when ``start >= stop``); yields ``i``."""
    function = builder.function
    before = builder.basic_block
    body = function.append_basic_block("loop")
    after = function.append_basic_block("after")
    builder.cbranch(builder.icmp_signed("<", start, stop), body, after)
    builder.position_at_end(body)
    i = builder.phi(i64, name="i")
    i.add_incoming(start, before)
    yield i
    following = builder.add(i, i64(1), flags=["nsw"])
    i.add_incoming(following, builder.basic_block)
    builder.cbranch(builder.icmp_signed("<", following, stop), body, after)
    builder.position_at_end(after)


def element(builder, base, index, type_):
    """A pointer to ``base[index]`` for elements of ``type_``."""
    return builder.gep(builder.bitcast(base, type_.as_pointer()), [index])


def kernel_function(module, name, n_params):
    fn = ir.Function(module, ir.FunctionType(void, [ptr] * n_params), name)
    for arg in fn.args:
        arg.add_attribute("noalias")
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def run_parallel(module, builder, name, captures, fill, n, per_iteration=False):
    """Outline ``fill(builder, i, captured_values)`` as a body over ``range(n)``; run it in parallel."""
    data, struct = llvm_parallel.pack_captures(builder, captures)
    body = llvm_parallel.declare_body(module, name)
    b = ir.IRBuilder(body.append_basic_block("entry"))
    start, stop, body_data = body.args
    values = llvm_parallel.unpack_captures(b, body_data, struct)
    with counted_loop(b, start, stop) as i:
        fill(b, i, values)
    b.ret_void()
    llvm_parallel.parallel_for(module, builder, body, n, data, per_iteration=per_iteration)


def doubling_kernel(size, per_iteration=False) -> Translated:
    """``out[:] = -1; for i in prange(n): out[i] = 2 * a[i]``, ``n`` a run-time 0-d int64 input."""
    module = ir.Module("doubling")
    kernel, b = kernel_function(module, "doubling", 3)
    a, n_ptr, out = kernel.args
    with counted_loop(b, i64(0), i64(size)) as i:
        b.store(f64(-1.0), element(b, out, i, f64))
    n = b.load(b.bitcast(n_ptr, i64.as_pointer()))

    def fill(b, i, values):
        a, out = values
        b.store(b.fmul(b.load(element(b, a, i, f64)), f64(2.0)), element(b, out, i, f64))

    run_parallel(module, b, "doubling.body", [a, out], fill, n, per_iteration)
    b.ret_void()
    return Translated(str(module), "doubling", [Spec(np.float64, (size,))])


def doubling_inputs(size):
    return [Spec(np.float64, (size,)), Spec(np.int64, ())]


def expected_doubling(a, n):
    expected = np.full(a.shape, -1.0)
    expected[:max(n, 0)] = 2 * a[:max(n, 0)]
    return expected


@pytest.fixture(scope="module")
def doubling():
    return {split: llvm_compile.load_kernel(doubling_kernel(1000, split), doubling_inputs(1000))
            for split in (False, True)}


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("per_iteration", [False, True], ids=["parts", "per_iteration"])
def test_every_iteration_runs_once(doubling, threads, per_iteration):
    a = np.random.default_rng(0).standard_normal(1000)
    numba.set_num_threads(threads)
    try:
        for n in (-1, 0, 1, 2, 3, 63, 64, 65, 999, 1000):
            (out,) = doubling[per_iteration](a, np.int64(n))
            np.testing.assert_array_equal(out, expected_doubling(a, n), err_msg=f"n={n}")
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def chunk_sums_kernel(chunks, rows) -> Translated:
    """Each prange iteration ``c`` sums its chunk of ``rows`` float32 values, in order, into
    a float64 partial result of its own: ``parts[c] = x[c*rows] + ... + x[c*rows + rows-1]``."""
    module = ir.Module("chunk_sums")
    kernel, b = kernel_function(module, "chunk_sums", 2)
    x, parts = kernel.args

    def fill(b, c, values):
        x, parts = values
        slot = element(b, parts, c, f64)
        b.store(f64(0.0), slot)
        first = b.mul(c, i64(rows))
        with counted_loop(b, first, b.add(first, i64(rows))) as r:
            value = b.fpext(b.load(element(b, x, r, f32)), f64)
            b.store(b.fadd(b.load(slot), value), slot)

    run_parallel(module, b, "chunk_sums.body", [x, parts], fill, i64(chunks))
    b.ret_void()
    return Translated(str(module), "chunk_sums", [Spec(np.float64, (chunks,))])


@pytest.mark.parametrize("threads", THREADS)
def test_partial_sums_per_chunk_match_sequential_sums(threads):
    chunks, rows = 64, 37
    kernel = llvm_compile.load_kernel(chunk_sums_kernel(chunks, rows),
                                      [Spec(np.float32, (chunks * rows,))])
    x = np.random.default_rng(1).standard_normal(chunks * rows).astype(np.float32)
    # np.cumsum adds left to right: its last element is the chunk's sum in the loop's order
    expected = np.cumsum(x.astype(np.float64).reshape(chunks, rows), axis=1)[:, -1]
    numba.set_num_threads(threads)
    try:
        (parts,) = kernel(x)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(parts, expected)


def mixed_captures_kernel(size) -> Translated:
    """Captures of every kind the translator passes: pointers, float64, float32, int32,
    bool, int64. ``out[i] = float64(a[i] * f) * s + k + flag + m``."""
    module = ir.Module("mixed")
    kernel, b = kernel_function(module, "mixed", 2)
    a, out = kernel.args
    captures = [a, out, f64(1.5), f32(-0.25), i32(-7), i1(1), i64(1 << 40)]

    def fill(b, i, values):
        a, out, s, f, k, flag, m = values
        y = b.fmul(b.fpext(b.fmul(b.load(element(b, a, i, f32)), f), f64), s)
        y = b.fadd(b.fadd(y, b.sitofp(k, f64)), b.uitofp(flag, f64))
        b.store(b.fadd(y, b.sitofp(m, f64)), element(b, out, i, f64))

    run_parallel(module, b, "mixed.body", captures, fill, i64(size))
    b.ret_void()
    return Translated(str(module), "mixed", [Spec(np.float64, (size,))])


def test_captured_scalars_of_every_type_arrive():
    kernel = llvm_compile.load_kernel(mixed_captures_kernel(300), [Spec(np.float32, (300,))])
    a = np.linspace(-4, 4, 300, dtype=np.float32)
    (out,) = kernel(a)
    expected = (a * np.float32(-0.25)).astype(np.float64) * 1.5 + -7.0 + 1.0 + float(1 << 40)
    np.testing.assert_array_equal(out, expected)


def thread_ids_kernel(size, per_iteration=False) -> Translated:
    """``for i in prange(size): ids[i] = the id of the pool thread that ran i``."""
    module = ir.Module("thread_ids")
    kernel, b = kernel_function(module, "thread_ids", 1)
    get_thread_id = ir.Function(module, ir.FunctionType(i32, []), "get_thread_id")

    def fill(b, i, values):
        b.store(b.call(get_thread_id, []), element(b, values[0], i, i32))

    run_parallel(module, b, "thread_ids.body", [kernel.args[0]], fill, i64(size), per_iteration)
    b.ret_void()
    return Translated(str(module), "thread_ids", [Spec(np.int32, (size,))])


@pytest.mark.parametrize("per_iteration", [False, True], ids=["parts", "per_iteration"])
def test_the_loop_runs_on_as_many_pool_threads_as_asked(per_iteration):
    kernel = llvm_compile.load_kernel(thread_ids_kernel(64, per_iteration), [])
    numba.set_num_threads(1)
    try:
        (ids,) = kernel()
        assert set(ids.tolist()) == {0}  # one thread: the caller's loop
        if 2 in THREADS:
            numba.set_num_threads(2)
            (ids,) = kernel()
            assert set(ids.tolist()) <= {0, 1}
            if llvm_parallel.threading_layer() == "omp":
                # OpenMP's static schedule: thread 0 runs the first half, thread 1 the second
                np.testing.assert_array_equal(ids, np.repeat(np.int32([0, 1]), 32))
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def call_from_two_threads(kernel, size, calls=40):
    """Call ``kernel`` (a doubling kernel) from two Python threads at once, one with one
    Numba thread and one with two; return the number of wrong results."""
    barrier = threading.Barrier(2)
    wrong = []

    def worker(seed, threads):
        numba.set_num_threads(threads)  # Numba's count is per calling thread
        rng = np.random.default_rng(seed)
        barrier.wait()
        for _ in range(calls):
            a = rng.standard_normal(size)
            n = int(rng.integers(0, size + 1))
            (out,) = kernel(a, np.int64(n))
            if not np.array_equal(out, expected_doubling(a, n)):
                wrong.append((seed, n))

    workers = [threading.Thread(target=worker, args=(seed, threads))
               for seed, threads in ((1, max(THREADS)), (2, 1 if len(THREADS) == 1 else 2))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return len(wrong)


def test_two_python_threads_call_a_parallel_kernel_at_once():
    size = 200_000
    kernel = llvm_compile.load_kernel(doubling_kernel(size), doubling_inputs(size))
    assert call_from_two_threads(kernel, size) == 0


def test_the_layer_is_numbas_and_the_ir_guards_only_workqueue():
    assert llvm_parallel.threading_layer() == numba.threading_layer()
    text = doubling_kernel(10).ir
    assert "numba_parallel_for" in text and "get_num_threads" in text
    assert ("cmpxchg" in text) == (numba.threading_layer() == "workqueue")


_WORKQUEUE_SCRIPT = """
import sys, numba
sys.path.insert(0, {tests!r})
from minijax import config
config.update("minijax_cache_dir", {cache!r})
import test_llvm_parallel as t
from minijax.backends.cpu import llvm_compile, llvm_parallel
assert llvm_parallel.threading_layer() == "workqueue", llvm_parallel.threading_layer()
size = 200_000
kernel = llvm_compile.load_kernel(t.doubling_kernel(size), t.doubling_inputs(size))
assert "cmpxchg" in t.doubling_kernel(10).ir
import numpy as np, numba
numba.set_num_threads(2)
each = llvm_compile.load_kernel(t.doubling_kernel(1000, True), t.doubling_inputs(1000))
a = np.arange(1000.0)
for n in (2, 3, 7, 64, 999, 1000):  # workqueue: N / 2 iterations per piece, the rest to the last
    assert np.array_equal(each(a, np.int64(n))[0], t.expected_doubling(a, n)), n
print("wrong", t.call_from_two_threads(kernel, size, calls=25))
"""


def test_workqueue_layer_two_python_threads_do_not_abort(tmp_path):
    """Numba's workqueue pool aborts the process when two threads enter it at once;
    our kernels take turns (the one that finds the pool busy runs its loop itself)."""
    script = _WORKQUEUE_SCRIPT.format(tests=os.path.dirname(__file__), cache=str(tmp_path))
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue", NUMBA_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "wrong 0"


_FRESH_PROCESS_SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, {tests!r})
from minijax import config
config.update("minijax_cache_dir", {cache!r})
import test_llvm_parallel as t
from minijax.backends.cpu import llvm_compile, llvm_parallel
text = open({ir_path!r}).read()  # translated by another process: no parallel_for call here
llvm_parallel.ensure_threads_for(text)
kernel = llvm_compile.load_kernel(t.Translated(text, "doubling", [t.Spec(np.float64, (100,))]),
                                  t.doubling_inputs(100))
a = np.arange(100.0)
(out,) = kernel(a, np.int64(70))
print(kernel.cache_hit, np.array_equal(out, t.expected_doubling(a, 70)))
"""


def test_a_cached_kernel_loads_in_a_fresh_process_after_ensure_threads_for(tmp_path):
    """The pool's symbols must exist before the object file is loaded: a process that
    loads a cached kernel without translating it calls ``ensure_threads_for`` first
    (without it, LLVM ends the process: numba_parallel_for cannot be resolved)."""
    from minijax import config
    old = config.read("minijax_cache_dir")
    config.update("minijax_cache_dir", str(tmp_path))
    try:
        translated = doubling_kernel(100)
        llvm_compile.load_kernel(translated, doubling_inputs(100))  # writes the object file
    finally:
        config.update("minijax_cache_dir", old)
    assert llvm_parallel.has_parallel_loops(translated.ir)
    assert not llvm_parallel.has_parallel_loops(translated.ir.replace("numba_parallel_for", "f"))
    ir_path = tmp_path / "kernel.ll"
    ir_path.write_text(translated.ir)
    script = _FRESH_PROCESS_SCRIPT.format(tests=os.path.dirname(__file__), cache=str(tmp_path),
                                          ir_path=str(ir_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
