"""A kernel's matrix products use as many BLAS threads as the machine has free cores.

On a busy machine, OpenBLAS's threads spin against each other (see
``minijax.backends.cpu.thread_budget``): before each kernel call the CPU
backend sets OpenBLAS's thread count to the free cores, one when other
programs keep the cores busy. These tests check the mechanism, not the
time: the rule, the sampling of the run queue (with real busy processes),
and that a jitted call leaves OpenBLAS with the count the rule gives.
"""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import minijax
from minijax.backends.cpu import blas_threads, thread_budget

from tests.ch09_numba.conftest import cpu_jit

needs_setter = pytest.mark.skipif(not blas_threads.have_local_threads,
                                  reason="this BLAS cannot set its thread count")


def blas_count() -> int:
    """OpenBLAS's thread count now (set and put back: the setter returns the old one)."""
    n = blas_threads.set_threads(1)
    blas_threads.set_threads(n)
    return n


@pytest.fixture
def fresh_budget():
    """A fresh sample before and after; OpenBLAS's own count restored afterwards."""
    thread_budget._forget_sample()
    yield
    thread_budget._forget_sample()
    blas_threads.set_threads(blas_threads.default_threads)


def matmul_once():
    """Run a jitted matrix product on the Numba backend and wait for it."""
    f = cpu_jit(lambda a, b: a @ b)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = f(a, a.T)
    np.testing.assert_allclose(np.asarray(out), a @ a.T)


@pytest.mark.parametrize("others, n_cores, most, expected", [
    (0, 2, 2, 2),     # an idle 2-core machine: both cores
    (1, 2, 2, 1),     # one core taken: one thread
    (6, 2, 2, 1),     # more runnable threads than cores: still one, never zero
    (0, 16, 4, 4),    # never more than OpenBLAS's own count (OPENBLAS_NUM_THREADS)
    (13, 16, 4, 3),   # three cores free
    (0, 2, 1, 1),     # OPENBLAS_NUM_THREADS=1 is kept on an idle machine
])
def test_threads_for_is_the_free_cores_between_one_and_blas_own_count(
        others, n_cores, most, expected):
    assert thread_budget.threads_for(others, n_cores, most) == expected


def test_the_run_queue_is_sampled_at_most_every_sample_seconds(fresh_budget, monkeypatch):
    samples = []

    def fake_others():
        samples.append(1)
        return 0
    monkeypatch.setattr(thread_budget, "others_running", fake_others)
    t = 1000.0
    thread_budget.budget(now=t)
    thread_budget.budget(now=t + thread_budget.SAMPLE_SECONDS / 2)
    assert len(samples) == 1
    thread_budget.budget(now=t + 1.5 * thread_budget.SAMPLE_SECONDS)
    assert len(samples) == 2


@needs_setter
@pytest.mark.parametrize("inline", [True, False], ids=["inline", "on-the-stream-thread"])
def test_an_idle_machine_keeps_blas_own_count(fresh_budget, monkeypatch, inline):
    """Inline runs allowed or not (then the kernel runs on the device's worker thread),
    the kernel call sets the count (OpenBLAS's count is the process's: read here)."""
    monkeypatch.setattr(thread_budget, "others_running", lambda: 0)
    blas_threads.set_threads(1)
    minijax.config.update("minijax_inline_dispatch", inline)
    try:
        matmul_once()
    finally:
        minijax.config.update("minijax_inline_dispatch", True)
    assert blas_count() == min(blas_threads.default_threads, thread_budget.cores())


@needs_setter
def test_the_option_off_leaves_blas_count_alone(fresh_budget, monkeypatch):
    monkeypatch.setattr(thread_budget, "others_running", lambda: 0)
    blas_threads.set_threads(1)
    # config.update, not the context manager: the kernel may run on the stream's worker
    # thread, and a context manager's value is the calling thread's only
    minijax.config.update("minijax_adaptive_blas_threads", False)
    try:
        matmul_once()
    finally:
        minijax.config.update("minijax_adaptive_blas_threads", True)
    assert blas_count() == 1


@needs_setter
def test_busy_processes_leave_a_jitted_product_one_blas_thread(fresh_budget):
    """Real busy neighbours: as many spinning processes as cores, then a jitted product."""
    n_cores = thread_budget.cores()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(n_cores)]
    try:
        deadline = time.monotonic() + 10
        while (thread_budget.others_running() or 0) < n_cores:  # they are starting
            assert time.monotonic() < deadline, "the spinning processes never showed as runnable"
            time.sleep(0.05)
        thread_budget._forget_sample()
        blas_threads.set_threads(blas_threads.default_threads)
        matmul_once()
        assert blas_count() == 1
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def test_sleeping_threads_are_not_counted_as_running():
    """Only runnable threads count: the sampling thread is, three sleeping ones are not."""
    if thread_budget.others_running() is None:
        pytest.skip("no /proc here")
    gate = threading.Event()
    sleepers = [threading.Thread(target=gate.wait) for _ in range(3)]
    for t in sleepers:
        t.start()
    try:
        n_tasks = len(os.listdir("/proc/self/task"))
        assert 1 <= thread_budget._own_running() <= n_tasks - 3
    finally:
        gate.set()
        for t in sleepers:
            t.join()


@needs_setter
def test_a_convolution_gives_blas_its_count_back(fresh_budget, monkeypatch):
    # a convolution's threaded blocks each set OpenBLAS (process-wide) to one thread;
    # the backend restores the machine's count once, after the kernel returns
    monkeypatch.setattr(thread_budget, "others_running", lambda: 0)
    conv = cpu_jit(lambda x, w: minijax.lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    x = np.ones((8, 8, 8, 4), np.float32)
    w = np.ones((3, 3, 4, 16), np.float32)
    lowered = conv.lower(x, w).as_text()
    assert "_1t(" in lowered, "this convolution no longer uses one-thread products"
    out = np.asarray(conv(x, w))
    assert out[3, 3, 3, 0] == 36.0  # 3x3 window, 4 features of ones
    expected = thread_budget.threads_for(0, thread_budget.cores(), blas_threads.default_threads)
    assert blas_count() == expected
