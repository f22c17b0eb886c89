"""Chapter 09 — how many BLAS threads a kernel may use *now*: one on a busy machine.

A kernel's matrix products call OpenBLAS's ``sgemm``, which splits a product
over a pool of threads of its own (as many as the machine has cores). The
threads of one product work as a *gang*: they share packed panels of the
matrices and, many times per product, each waits for the others by spinning
on a flag (``sched_yield`` in a loop). After a product the pool's threads
keep spinning, for about a tenth of a second, waiting for the next one.

On a machine with free cores that is quick. On a busy one it collapses. Say
another program keeps both cores of a 2-core machine busy. The operating
system gives each runnable thread its share in turn, a few milliseconds at
a time; our two BLAS threads are seldom on the cores *together*, so at each
meeting point one of them spins away its whole turn waiting for the other,
and the spinning makes them look CPU-hungry, so they wait longer for the
next turn. Measured on the project's 2-core machine, with a NumPy matrix
loop on both cores beside it: the small MLP training step (64-256-256-10,
batch 100; nine small products) took 15-250 ms instead of 0.4 ms, in the
asynchronous and the synchronous loop alike (a median over single steps can
hide it: most steps are quick, a few take a whole stall); with one BLAS
thread, 0.6-2 ms (JAX: 0.5-1). XLA's thread pool does not suffer this way:
its tasks are independent blocks that any free thread takes, and idle
threads sleep. (The same program with SciPy's ``sgemm`` alone, no minijax,
collapses the same way: it is OpenBLAS's, not the executor's.)

So before each kernel call the CPU backend asks :func:`fit_to_machine`,
which tells OpenBLAS how many threads to use: all of them on an idle
machine (nothing changes there), fewer as other programs' threads become
runnable, one when the cores are taken. How busy the machine is comes from
the kernel's run queue (Linux's ``/proc/loadavg``: the number of runnable
threads right now) minus this process's own runnable threads (its own BLAS
pool spinning must not count as "busy"); it is sampled at most every
:data:`SAMPLE_SECONDS` (a sample reads a few small files, 50-150 us).

What it does not see: this process's *other* busy threads (a Python thread
loading data beside the training loop) are not counted, and in a container
``/proc/loadavg`` may count the whole host's threads (then minijax uses
fewer threads than it could: slower, never the collapse).

``config.update('minijax_adaptive_blas_threads', False)`` (or the environment
variable ``MINIJAX_ADAPTIVE_BLAS_THREADS=0``) leaves OpenBLAS's own count
alone. Where there is no ``/proc`` (not Linux) or no OpenBLAS setter, nothing
changes either.

OpenBLAS's setter, ``openblas_set_num_threads_local``, despite its name,
sets one count for the whole process in SciPy's (pthreads) build: a call
from a stream's worker thread sets it for the caller thread too. That is
fine here: every thread sets the same value, the machine's budget.

**The bits must not follow the load.** OpenBLAS on two threads cuts a
product into other pieces than on one, and sums their edges in another
order: with the count following the load, a jitted training step gave other
bits on a busy machine than on an idle one. So a kernel's own matrix
products no longer use OpenBLAS's threads: each runs on one BLAS thread, a
big one in blocks of columns fixed by its shape, the blocks spread over
Numba's threads (``blas_threads.column_blocks``); the count given to OpenBLAS
here still serves what else calls it (Numba's LAPACK calls), and the backend
gives it back after a kernel whose products set it to one
(:func:`after_one_thread_products`).

**Numba's threads too.** A kernel with ``prange`` loops runs them on Numba's
OpenMP threads, and a busy machine hurts them the same way, if less often:
each parallel loop ends with every thread waiting for the last one, and on
a 2-core machine whose cores are taken the other thread may not get a core
for a while. Measured there, with three other programs at work, the digits
CNN's training step (``bench/bench_w6_train_digits.py``: six parallel loops)
took 1.6 ms with two Numba threads and 1.25 ms with one (JAX: 0.83); on the
idle machine two threads win (1.15 ms against 1.4). So :func:`fit_to_machine`
also gives Numba's thread count of the *calling thread* (Numba's count is
per thread) the free cores, for kernels that have parallel loops. (A count
the program sets itself with ``numba.set_num_threads`` is then overridden
before such kernels; the option off leaves it alone.) The results do not
change: the writer cuts every parallel loop into a fixed number of chunks in
the source (a reduction's partial sums too), whatever the number of threads
that run them.
"""
from __future__ import annotations

import os
import threading
import time

import numba

from minijax.backends.cpu import blas_threads
from minijax.config import bool_state, config

__all__ = ["SAMPLE_SECONDS", "adaptive_blas_threads", "after_one_thread_products", "cores", "threads_for",
           "others_running", "budget", "fit_to_machine", "fit_numba_threads", "numba_threads_for"]

#: How often (at most) the run queue is sampled.
SAMPLE_SECONDS = 0.05

_enabled = True


def _set_enabled(value: bool) -> None:
    """The option's hook: a plain global, quicker to read than the option per call."""
    global _enabled
    _enabled = bool(value)


_OPTION = "minijax_adaptive_blas_threads"
adaptive_blas_threads = config._value_holders.get(_OPTION) or bool_state(
    _OPTION, True,
    "Fit the number of OpenBLAS threads of a kernel's matrix products (and of Numba's "
    "threads of its parallel loops) to the machine's free cores before each call (one "
    "thread when other programs keep the cores busy). False: OpenBLAS's and Numba's own "
    "thread counts, always.", update_hook=_set_enabled)
_set_enabled(adaptive_blas_threads.value)  # the environment variable, read at import


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads_for(others: int, n_cores: int, most: int) -> int:
    """The BLAS threads to use when ``others`` threads of other programs are runnable
    on ``n_cores`` cores: the free cores, at least one, at most ``most``."""
    return max(1, min(most, n_cores - others))


def _own_running() -> int:
    """How many of this process's threads are runnable now (state ``R``)."""
    n = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        if stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] == b"R":
            n += 1
    return n


def others_running() -> int | None:
    """Runnable threads of *other* programs right now, or None where ``/proc`` is missing.

    ``/proc/loadavg`` reads like ``0.52 0.58 0.59 3/412 12345``: the fourth field is
    "runnable now / all"; this process's own runnable threads are taken off.
    """
    try:
        with open("/proc/loadavg", "rb") as f:
            total = int(f.read().split()[3].split(b"/")[0])
        return max(0, total - _own_running())
    except (OSError, ValueError, IndexError):
        return None


class _Sample:
    """The last decision and when it was taken (shared by every thread)."""
    at = -1.0
    threads: int | None = None
    told: int | None = None   # the count last given to OpenBLAS
    free: int | None = None   # the free cores (at least one), for Numba's threads
    own: int | None = None    # the option off: OpenBLAS's count before the last kernel


_sample = _Sample()
_sample_lock = threading.Lock()
_cores = cores()
_can_set = blas_threads.have_local_threads


def budget(now: float | None = None) -> int | None:
    """The BLAS threads to use now (None: leave OpenBLAS's count alone).

    Sampled at most every :data:`SAMPLE_SECONDS`; between samples the last answer.
    """
    now = time.monotonic() if now is None else now
    if now - _sample.at >= SAMPLE_SECONDS:
        _take_sample(now)
    return _sample.threads


def _take_sample(now: float) -> None:
    with _sample_lock:
        if now - _sample.at >= SAMPLE_SECONDS:
            others = others_running()
            _sample.threads = (None if others is None else
                               threads_for(others, _cores, blas_threads.default_threads))
            _sample.free = None if others is None else threads_for(others, _cores, _cores)
            _sample.at = now
            _sample.told = None  # tell OpenBLAS again at the next call (see fit_to_machine)


def fit_to_machine(parallel: bool = False) -> None:
    """Before a kernel runs: give OpenBLAS the thread count the machine can take now,
    and, for a kernel with parallel loops (``parallel``), Numba's threads the same.

    OpenBLAS is told when the count changes, and once after each sample (a
    convolution's kernel sets it to one for its threaded blocks, and
    :func:`after_one_thread_products` gives it back), so most calls cost a
    clock read and two comparisons.
    """
    if not _enabled or not (_can_set or parallel):
        if not _enabled and _can_set:  # the program's own count, put back after the kernel
            _sample.own = blas_threads.get_threads()
        if parallel:
            fit_numba_threads(None)  # the option off: Numba's own count
        return
    n = budget()
    if _can_set and n is not None and n != _sample.told:
        blas_threads.set_threads(n)
        _sample.told = n
    if parallel:
        fit_numba_threads(_sample.free)


#: Numba's thread count, as this module last set it, per calling thread (Numba's
#: count is the calling thread's own, and asking it costs a microsecond or two).
_numba_told = threading.local()


def numba_threads_for(free: int | None) -> int | None:
    """The Numba threads for a parallel kernel when ``free`` cores are free (None: Numba's
    own count): the free cores, at most the threads Numba started (``NUMBA_NUM_THREADS``)."""
    if free is None:
        return None
    return max(1, min(free, numba.config.NUMBA_NUM_THREADS))


def fit_numba_threads(free: int | None) -> None:
    """Give the calling thread's next parallel loops ``free`` cores' worth of threads.

    ``None`` (the option off, or no ``/proc``): Numba's own count, that is, the
    count this thread had before this module first changed it (all of Numba's
    threads); a count the program set itself is then left alone.
    """
    told = getattr(_numba_told, "n", None)
    n = numba_threads_for(free)
    if n is None:
        if told is not None:  # undo what this module did, once
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            _numba_told.n = None
        return
    if told != n:
        numba.set_num_threads(n)
        _numba_told.n = n


def after_one_thread_products() -> None:
    """After a kernel whose products set OpenBLAS to one thread
    (``gemm_helper(..., one_thread=True)``): give it back the machine's count
    (the option off: the count it had before the kernel, the program's own)."""
    if not _can_set:
        return
    if not _enabled:
        blas_threads.set_threads(blas_threads.default_threads if _sample.own is None
                                 else _sample.own)
        return
    n = budget()
    blas_threads.set_threads(blas_threads.default_threads if n is None else n)
    _sample.told = n


def _forget_sample() -> None:
    """Sample afresh at the next call (tests; after ``fork``)."""
    _sample.at = -1.0
    _sample.threads = None
    _sample.told = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_sample)
