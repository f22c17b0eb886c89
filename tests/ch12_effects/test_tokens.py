"""Runtime tokens: ordered effects in program order, ``effects_barrier``, errors.

The design note's promises, checked without timing: a device held with
``runtime.hold`` (chapter 11) or a callback blocked on an ``Event`` makes
"this has not run yet" observable. Several virtual devices need a fresh
interpreter (their number is fixed at first use), so those checks run a script.
"""
import json
import threading
from collections import Counter

import pytest

import minijax as jax
import minijax.runtime as runtime
from minijax.backends.registry import default_backend_option
from minijax.errors import JaxRuntimeError
from minijax.experimental import io_callback

from effect_helpers import run_python


# --- effects_barrier ------------------------------------------------------------------------
def test_a_program_with_an_effect_runs_before_the_call_returns_when_it_can(jit_backend):
    """As JAX's CPU client does (a jitted callback that sleeps blocks the call, in JAX
    0.10.2): with the device idle and nothing to wait for, the call runs it inline."""
    log = []
    f = jax.jit(lambda x: jax.debug.callback(lambda v: log.append(float(v)), x))
    runtime.synchronize()  # the device idle
    f(1.0)
    f(2.0)
    assert log == [1.0, 2.0]


def test_effects_barrier_waits_for_a_slow_callback(jit_backend):
    gate, log = threading.Event(), []

    def slow(x):
        gate.wait(10)
        log.append(float(x))

    f = jax.jit(lambda x: jax.debug.callback(slow, x))  # unordered, no output at all
    with runtime.inline_dispatch(False):  # through the queue, as on an accelerator
        f(1.0)
    assert log == []  # dispatched: the call returned before the callback could finish
    gate.set()
    jax.effects_barrier()
    assert log == [1.0]


def test_effects_barrier_with_nothing_pending_returns():
    jax.effects_barrier()
    jax.effects_barrier()


# --- errors -----------------------------------------------------------------------------------
def _raises_above_one(x):
    if x > 1:
        raise ValueError(f"boom {x}")


def _chain(e):
    while e is not None:
        yield e
        e = e.__cause__


@pytest.mark.parametrize("ordered", [False, True])
def test_a_failed_callback_surfaces_at_read_and_at_the_barrier(jit_backend, ordered):
    f = jax.jit(lambda x: (jax.debug.callback(_raises_above_one, x, ordered=ordered), x + 1)[1])
    y = f(2.0)  # dispatch never raises
    with pytest.raises(JaxRuntimeError) as info:
        float(y)  # strict execution: every output of the failed program fails
    assert str(info.value).splitlines()[-1] == "ValueError: boom 2.0"
    assert [type(e) for e in _chain(info.value)][-1] is ValueError  # the original, chained
    with pytest.raises(JaxRuntimeError) as info:
        jax.effects_barrier()
    assert any(isinstance(e, ValueError) and str(e) == "boom 2.0" for e in _chain(info.value))
    jax.effects_barrier()  # reported once, then forgotten
    # a token carries order, not errors: the next dispatch with the effect runs
    assert float(f(0.5)) == 1.5
    jax.effects_barrier()


def test_an_error_only_the_barrier_can_report_is_not_lost(jit_backend):
    g = jax.jit(lambda x: io_callback(_raises_above_one, None, x))  # no output to read
    g(3.0)
    for _ in range(5):  # later effectful dispatches on the same device succeed...
        g(0.0)
    with pytest.raises(JaxRuntimeError, match="ValueError: boom 3.0"):  # ...the error stays
        jax.effects_barrier()


def test_an_eager_debug_callback_raises_the_functions_own_error():
    # recorded from JAX 0.10.2: eagerly the callback's exception itself
    with pytest.raises(ValueError, match="boom 5.0"):
        jax.debug.callback(_raises_above_one, 5.0)


# --- ordering on one device, and with eager effects -------------------------------------
def test_an_eager_ordered_effect_waits_for_earlier_ordered_dispatches(jit_backend):
    gate, log = threading.Event(), []

    def first(x):
        gate.wait(10)
        log.append("jit")

    f = jax.jit(lambda x: jax.debug.callback(first, x, ordered=True))
    f(1.0)
    threading.Timer(0.1, gate.set).start()
    jax.debug.callback(lambda: log.append("eager"), ordered=True)  # blocks until "jit" ran
    assert log == ["jit", "eager"]
    jax.effects_barrier()


def test_an_unordered_eager_effect_does_not_wait(jit_backend):
    gate, log = threading.Event(), []
    f = jax.jit(lambda x: jax.debug.callback(lambda v: gate.wait(10) and log.append("jit"),
                                             x, ordered=True))
    with runtime.inline_dispatch(False):  # through the queue, as on an accelerator
        f(1.0)
    jax.debug.callback(lambda: log.append("eager"))  # unordered: not sequenced
    assert log == ["eager"]
    gate.set()
    jax.effects_barrier()
    assert log == ["eager", "jit"]


def test_unordered_prints_from_many_threads_all_appear(printed, jit_backend):
    f = jax.jit(lambda t, i: jax.debug.print("t{} i{}", t, i))

    def worker(t):
        with default_backend_option(jit_backend):  # (a per-thread option)
            for i in range(20):
                f(t, i)
        jax.effects_barrier()  # (each thread waits for its own effects)

    with runtime.inline_dispatch(False):
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
    lines = printed()
    assert Counter(lines) == Counter(f"t{t} i{i}" for t in range(4) for i in range(20))


# --- several devices and threads (a fresh interpreter) -------------------------------------
DEVICES_AND_THREADS = r"""
import json, threading, time
import numpy as np
import minijax as jax, minijax.numpy as jnp, minijax.runtime as runtime
from minijax.experimental import io_callback
jax.config.update("jax_num_cpu_devices", 3)
ds = jax.devices()
out = {}
log = []
record = lambda tag: (lambda x: log.append((tag, float(x))))

def on(i, x):  # a value living on device i: its computations run there
    return jax.device_put(np.float32(x), ds[i])

ordered = jax.jit(lambda x: (jax.debug.callback(record("o"), x, ordered=True), x + 1)[1])
unordered = jax.jit(lambda x: (jax.debug.callback(record("u"), x), x + 1)[1])
ordered_io = jax.jit(lambda x: io_callback(record("io"), None, x, ordered=True))

# 1. an ordered effect on device 1 waits for the one on the held device 0 (and, as a
#    device runs in order, so does what follows it on device 1); on device 2 an
#    unordered effect and another ordered effect (OrderedIO: its own token) do not
with runtime.hold(ds[0]):
    a = ordered(on(0, 1)); b = ordered(on(1, 2))
    unordered(on(2, 12)); ordered_io(on(2, 20))
    c = ordered(on(2, 3))
    deadline = time.time() + 10
    while len(log) < 2 and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    out["held"] = sorted(log)
    out["pending"] = [a.is_ready(), b.is_ready(), c.is_ready()]
jax.effects_barrier()
out["after"] = [v for tag, v in log if tag == "o"]
out["all"] = sorted(v for _, v in log)

# 2. many dispatches, round robin over the devices, all through the queues
log.clear()
with runtime.inline_dispatch(False):
    for k in range(30):
        ordered(on(k % 3, k))
jax.effects_barrier()
out["round_robin"] = [v for _, v in log]

# 3. threads: each thread's ordered effects in its own order; tokens are per thread
per_thread = {t: [] for t in range(3)}
append = jax.jit(lambda t, x: jax.debug.callback(
    lambda t, v: per_thread[int(t)].append(float(v)), t, x, ordered=True))
def worker(t):
    for k in range(20):
        append(t, on((k + t) % 3, k))
    jax.effects_barrier()
with runtime.inline_dispatch(False):
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(3)]
    for th in threads: th.start()
    for th in threads: th.join(60)
out["threads"] = per_thread

# 4. a thread's ordered effect does not wait for another thread's token
log.clear()
with runtime.hold(ds[0]):
    ordered(on(0, 1))                        # main thread: its token is stuck on device 0
    th = threading.Thread(target=lambda: (ordered(on(1, 2)), jax.effects_barrier()))
    th.start(); th.join(10)
    out["other_thread_ran"] = [v for _, v in log]
jax.effects_barrier()
print(json.dumps(out))
"""


def test_ordered_effects_across_devices_and_threads(jit_backend, _compile_cache_dir):
    proc = run_python(DEVICES_AND_THREADS, env={"MINIJAX_DEFAULT_BACKEND": jit_backend,
                                                "MINIJAX_CACHE_DIR": str(_compile_cache_dir)})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # while device 0 is held: the ordered calls on devices 1 and 2 wait for its token;
    # the unordered one and the OrderedIO call (another effect, another token) ran
    assert out["held"] == [["io", 20.0], ["u", 12.0]]
    assert out["pending"] == [False, False, False]
    assert out["after"] == [1.0, 2.0, 3.0]
    assert out["all"] == [1.0, 2.0, 3.0, 12.0, 20.0]
    assert out["round_robin"] == [float(k) for k in range(30)]
    assert out["threads"] == {str(t): [float(k) for k in range(20)] for t in range(3)}
    assert out["other_thread_ran"] == [2.0]
