"""Check of exercise 2 of chapter 12: runtime tokens of your own (``ex2_tokens.py``)."""
import threading

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import debug, jit
from minijax.errors import JaxRuntimeError
from minijax.experimental import io_callback
from minijax.runtime import executor
from minijax.runtime.tokens import runtime_tokens
from _load import load

ex = load(__file__, "ex2_tokens")
scalar = minijax.ShapeDtypeStruct((), jnp.float32)


@pytest.fixture
def tokens():
    """Your hook, installed in place of chapter 12's (and the queues always used)."""
    minijax.effects_barrier()
    ours = ex.Tokens()
    executor.set_effects_hook(ours)
    try:
        with minijax.runtime.inline_dispatch(False):
            yield ours
    finally:
        executor.set_effects_hook(runtime_tokens)


@pytest.fixture
def placed():
    d0, d1 = minijax.devices()[:2]
    return minijax.device_put(np.float32(0), d0), minijax.device_put(np.float32(1), d1)


def gated(gate):
    def slow_step(x):
        if not gate.wait(timeout=10):
            raise TimeoutError("nobody opened the gate")
        return x
    return slow_step


def test_ordered_dispatches_wait_across_devices(tokens, placed):
    log, gate = [], threading.Event()

    @jit
    def f(x):                                   # device 0: busy until the gate opens
        x = io_callback(gated(gate), scalar, x)
        debug.callback(lambda v: log.append("hello"), x, ordered=True)
        return x + 2

    @jit
    def g(x):
        debug.callback(lambda v: log.append("world"), x, ordered=True)
        return x + 3
    try:
        a = f(placed[0])
        b = g(placed[1])
        threading.Event().wait(0.2)             # device 1 is free, but g waits for f's token
        assert not b.is_ready() and log == []
    finally:
        gate.set()
    minijax.block_until_ready((a, b))
    assert log == ["hello", "world"]


def test_unordered_dispatches_do_not_wait(tokens, placed):
    log, gate = [], threading.Event()

    @jit
    def f(x):
        x = io_callback(gated(gate), scalar, x)
        debug.callback(lambda v: log.append("hello"), x)
        return x + 2

    @jit
    def g(x):
        debug.callback(lambda v: log.append("world"), x)
        return x + 3
    try:
        a = f(placed[0])
        g(placed[1]).block_until_ready()        # no token to wait for
        assert log == ["world"] and not a.is_ready()
    finally:
        gate.set()
    a.block_until_ready()
    assert log == ["world", "hello"]


def test_one_token_per_effect(tokens, placed):
    log, gate = [], threading.Event()

    @jit
    def f(x):                                   # holds the OrderedDebug token
        x = io_callback(gated(gate), scalar, x)
        debug.callback(lambda v: log.append("print"), x, ordered=True)
        return x

    @jit
    def h(x):                                   # OrderedIO: another effect, another token
        io_callback(lambda v: log.append("io"), None, x, ordered=True)
        return x + 1
    try:
        a = f(placed[0])
        h(placed[1]).block_until_ready()
        assert log == ["io"] and not a.is_ready()
    finally:
        gate.set()
    a.block_until_ready()


def test_the_barrier_waits_for_effects_without_outputs(tokens):
    log, gate = [], threading.Event()

    def slow_log(x):
        gate.wait(timeout=10)
        log.append(float(x))
    log_it = jit(lambda x: debug.callback(slow_log, x))   # returns nothing
    assert log_it(1.0) is None and log == []
    threading.Timer(0.1, gate.set).start()
    tokens.block_until_ready()
    assert log == [1.0]
    assert tokens.output_tokens == {} and tokens.current_tokens == {}


def test_the_barrier_raises_a_callback_error(tokens):
    def check_positive(x):
        if x <= 0:
            raise ValueError(f"expected a positive number, got {x}")
    report = jit(lambda x: io_callback(check_positive, None, x))   # no outputs
    report(-1.0)
    for v in (1.0, 2.0, 3.0):
        report(v)                               # later successes must not hide the failure
    with pytest.raises(JaxRuntimeError, match="got -1.0"):
        tokens.block_until_ready()
    tokens.block_until_ready()                  # reported once, then forgotten
