"""A kernel's parallel loops use as many Numba threads as the machine has free cores,
and a kernel's arguments are passed to it without copies.

Two mechanisms of the CPU backend's call path (``minijax.backends.cpu``):

- ``thread_budget.fit_to_machine(parallel=True)``, called before a kernel that
  has ``prange`` loops, sets Numba's thread count *of the calling thread* to the
  free cores (one on a busy machine), as it sets OpenBLAS's. The writer cuts
  every parallel loop into a fixed number of chunks, so the results do not
  depend on that count: checked bit for bit.
- ``NumbaExecutable._arguments`` passes an Array's read-only C buffer as it is
  (the common case of a training step's many small parameters), and falls back
  to ``_prepare`` for the rest (keys, float16, scalars, NumPy inputs).

These test the mechanisms, not the time.
"""
import threading

import numba
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.backends.cpu import backend, thread_budget
from minijax.backends.cpu.loops import ELEMENTWISE_PARALLEL_THRESHOLD, PARALLEL_THRESHOLD

from tests.ch09_numba.conftest import cpu_jit

ALL_THREADS = numba.config.NUMBA_NUM_THREADS


@pytest.fixture
def fresh_budget():
    """A fresh sample before and after; this thread's Numba count restored afterwards."""
    thread_budget._forget_sample()
    yield
    thread_budget._forget_sample()
    thread_budget.fit_numba_threads(None)


def compiled(f, *args):
    """The compiled program of ``cpu_jit(f)`` and its executable. Numba's thread count is
    per thread, so the tests call the executable itself, which runs on this thread (a
    call of the program may run on the executor's thread or inline, as its queue says)."""
    program = cpu_jit(f).lower(*args).compile()
    executable = program._executable
    wait = getattr(executable, "wait", None)  # a background compile: its Numba kernel
    return program, (wait() if wait is not None else executable)


# =============================================================================
# Numba's thread count
# =============================================================================
@pytest.mark.parametrize("free, expected", [
    (None, None),                   # no /proc: Numba's own count
    (1, 1),                         # a busy machine: one thread
    (0, 1),                         # never zero
    (ALL_THREADS + 5, ALL_THREADS),  # never more than Numba started
])
def test_numba_threads_for_is_the_free_cores_between_one_and_numba_own(free, expected):
    assert thread_budget.numba_threads_for(free) == expected


def test_a_busy_machine_leaves_a_parallel_kernel_one_numba_thread(fresh_budget, monkeypatch):
    monkeypatch.setattr(thread_budget, "others_running", lambda: thread_budget.cores())
    numba.set_num_threads(ALL_THREADS)
    _, executable = compiled(lambda x: x * 2.0 + 1.0,
                             np.ones(ELEMENTWISE_PARALLEL_THRESHOLD * 2, np.float32))
    assert executable._parallel, "this kernel no longer has a parallel loop"
    x = np.arange(ELEMENTWISE_PARALLEL_THRESHOLD * 2, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(executable(x)[0]), x * 2 + 1)
    assert numba.get_num_threads() == 1


def test_an_idle_machine_gives_a_parallel_kernel_every_numba_thread(fresh_budget, monkeypatch):
    monkeypatch.setattr(thread_budget, "others_running", lambda: 0)
    numba.set_num_threads(1)
    thread_budget._numba_told.n = 1
    _, executable = compiled(lambda x: x * 2.0 + 1.0,
                             np.ones(ELEMENTWISE_PARALLEL_THRESHOLD * 2, np.float32))
    executable(np.ones(ELEMENTWISE_PARALLEL_THRESHOLD * 2, np.float32))
    assert numba.get_num_threads() == min(ALL_THREADS, thread_budget.cores())


def test_a_serial_kernel_leaves_numba_count_alone(fresh_budget, monkeypatch):
    monkeypatch.setattr(thread_budget, "others_running", lambda: thread_budget.cores())
    numba.set_num_threads(ALL_THREADS)
    thread_budget._numba_told.n = ALL_THREADS
    _, executable = compiled(lambda x: x * 2.0 + 1.0, np.ones(8, np.float32))
    assert not executable._parallel
    executable(np.ones(8, np.float32))
    assert numba.get_num_threads() == ALL_THREADS


def test_the_option_off_gives_back_numba_own_count_then_leaves_it_alone(fresh_budget,
                                                                          monkeypatch):
    monkeypatch.setattr(thread_budget, "others_running", lambda: thread_budget.cores())
    thread_budget.fit_to_machine(parallel=True)
    assert numba.get_num_threads() == 1
    minijax.config.update("minijax_adaptive_blas_threads", False)
    try:
        thread_budget.fit_to_machine(parallel=True)
        assert numba.get_num_threads() == ALL_THREADS  # what this module changed, undone
        numba.set_num_threads(1)  # the program's own choice
        thread_budget.fit_to_machine(parallel=True)
        assert numba.get_num_threads() == 1  # is kept
    finally:
        minijax.config.update("minijax_adaptive_blas_threads", True)
        numba.set_num_threads(ALL_THREADS)


def test_numba_count_is_set_in_the_thread_that_calls_the_kernel(fresh_budget, monkeypatch):
    """Numba's count is per thread: a stream's worker thread sets its own."""
    monkeypatch.setattr(thread_budget, "others_running", lambda: thread_budget.cores())
    numba.set_num_threads(ALL_THREADS)
    thread_budget._numba_told.n = ALL_THREADS
    seen = []

    def worker():
        thread_budget.fit_to_machine(parallel=True)
        seen.append(numba.get_num_threads())
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [1]
    assert numba.get_num_threads() == ALL_THREADS  # this thread's own is untouched


@pytest.mark.parametrize("f, reference", [
    (lambda x: jnp.sum(x.reshape(512, -1)), lambda x: np.sum(x)),  # full, in parallel chunks
    (lambda x: jnp.sum(x.reshape(512, -1), axis=1),
     lambda x: np.sum(x.reshape(512, -1), axis=1)),  # rows in parallel
    (lambda x: jnp.tanh(x) * 3.0 - x, lambda x: np.tanh(x) * 3.0 - x),  # elementwise
], ids=["sum", "row-sums", "elementwise"])
def test_results_are_the_same_bits_with_one_or_every_numba_thread(fresh_budget, monkeypatch,
                                                                   f, reference):
    if ALL_THREADS < 2:
        pytest.skip("Numba runs one thread here")
    x = np.random.default_rng(0).standard_normal(PARALLEL_THRESHOLD * 8).astype(np.float32)
    _, executable = compiled(f, x)
    assert executable._parallel
    results = []
    for busy in (True, False):
        monkeypatch.setattr(thread_budget, "others_running",
                            lambda busy=busy: thread_budget.cores() if busy else 0)
        thread_budget._forget_sample()
        results.append(np.asarray(executable(x)[0]))
        assert numba.get_num_threads() == (1 if busy else min(ALL_THREADS,
                                                               thread_budget.cores()))
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], reference(x.astype(np.float64)), rtol=1e-5,
                               atol=1e-3)


# =============================================================================
# Arguments passed as they are
# =============================================================================
def test_an_array_buffer_is_passed_to_the_kernel_as_it_is():
    x = minijax.device_put(np.arange(12, dtype=np.float32).reshape(3, 4))
    _, executable = compiled(lambda a: a + 1.0, x)
    (arg,) = executable._arguments([x])
    assert arg is x._value  # no copy, no view
    assert not arg.flags.writeable


def test_other_arguments_are_prepared_as_before():
    """NumPy input (writeable), a non-contiguous buffer, a scalar, float16: ``_prepare``."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    _, executable = compiled(lambda a: a + 1.0, data)
    (arg,) = executable._arguments([data])
    assert arg is not data and not arg.flags.writeable
    np.testing.assert_array_equal(arg, data)

    transposed = minijax.device_put(np.arange(12, dtype=np.float32).reshape(4, 3)).T
    (arg,) = executable._arguments([transposed])
    assert arg.flags.c_contiguous
    np.testing.assert_array_equal(arg, np.asarray(transposed))

    _, scalar_exe = compiled(lambda a: a + 1.0, np.float32(2.0))
    (arg,) = scalar_exe._arguments([minijax.device_put(np.float32(2.0))])
    assert np.ndim(arg) == 0 and arg == 2.0

    half = minijax.device_put(np.arange(4, dtype=np.float16))
    _, half_exe = compiled(lambda a: a + a, half)
    (arg,) = half_exe._arguments([half])
    assert arg.dtype == np.uint16  # the kernel takes float16's bits
    np.testing.assert_array_equal(arg, np.arange(4, dtype=np.float16).view(np.uint16))


def test_a_training_step_passes_every_parameter_as_it_is():
    """A pytree of many small parameters: each reaches the kernel as its own buffer."""
    params = [minijax.device_put(np.full((4, 3), i, np.float32)) for i in range(6)]
    _, executable = compiled(lambda ps: [p * 0.5 for p in ps], params)
    args = executable._arguments(params)
    assert all(a is p._value for a, p in zip(args, params))
    assert backend._is_plain(params[0].aval)
