"""Check of exercise 1 of chapter 11: a device stream of your own (``ex1_stream.py``)."""
import threading

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
import minijax.runtime  # noqa: F401  (chapter 11's executor)
from minijax import primitives
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.runtime.futures import Completion, FutureBuffer
from minijax.runtime.streams import WorkItem, stream_for
from _load import load

ex = load(__file__, "ex1_stream")
TIMEOUT = 10


def item(fn, inputs=(), n_out=1, after=(), name="work"):
    """A WorkItem computing ``n_out`` outputs with ``fn``, and its output futures."""
    done = Completion()
    outs = [FutureBuffer(None, done) for _ in range(n_out)]
    return WorkItem(name, fn, list(inputs), outs, done, after), outs


def wait(completion):
    finished = threading.Thread(target=completion.wait, daemon=True)
    finished.start()
    finished.join(TIMEOUT)
    assert completion.done, "the work never finished: is the worker running (and alive)?"


def test_enqueue_returns_at_once_and_runs_in_order():
    stream, log, gate = ex.Stream("test-device"), [], threading.Event()
    first, _ = item(lambda: (gate.wait(TIMEOUT), log.append(0), [np.float32(0)])[2])
    stream.enqueue(first)
    items = [item(lambda i=i: (log.append(i), [np.float32(i)])[1])[0] for i in range(1, 20)]
    for it in items:
        stream.enqueue(it)
    assert log == [] and not stream.idle()       # returned before anything ran
    gate.set()
    wait(items[-1].completion)
    assert log == list(range(20))                # in the order of enqueue
    for _ in range(100):                         # the worker counts the last one just after
        if stream.idle():
            break
        threading.Event().wait(0.01)
    assert stream.idle()


def test_outputs_inputs_and_errors():
    stream = ex.Stream("test-device")
    a, (a_out,) = item(lambda: [np.arange(3.0)])
    b, (b_out,) = item(lambda: [a_out._data * 2], inputs=[a_out])
    stream.enqueue(a)
    stream.enqueue(b)
    np.testing.assert_array_equal(b_out.result(), [0.0, 2.0, 4.0])

    calls = []
    bad, (bad_out,) = item(lambda: (_ for _ in ()).throw(ValueError("bad kernel")))
    dependent, (dep_out,) = item(lambda: (calls.append(1), [np.ones(2)])[1], inputs=[bad_out])
    fine, (fine_out,) = item(lambda: [np.full(2, 5.0)])
    for it in (bad, dependent, fine):
        stream.enqueue(it)                        # no error here: it surfaces at read time
    np.testing.assert_array_equal(fine_out.result(), [5.0, 5.0])   # the worker survived
    with pytest.raises(ValueError, match="bad kernel") as raised:
        bad_out.block()
    assert isinstance(raised.value.__cause__, ValueError)          # chained to the original
    with pytest.raises(ValueError, match="bad kernel"):
        dep_out.result()                          # a dependent fails with the same error
    assert calls == []                            # ...without running


def test_after_orders_but_does_not_fail():
    stream = ex.Stream("test-device")
    token, log = Completion(), []
    later, (out,) = item(lambda: (log.append("later"), [np.zeros(1)])[1], after=[token])
    stream.enqueue(later)
    threading.Event().wait(0.05)
    assert log == []                              # waits for the token...
    token.set(RuntimeError("an earlier effect failed"))
    wait(later.completion)
    assert log == ["later"] and later.completion.error is None   # ...whose error is not its own


@pytest.fixture
def plugged_in():
    device = minijax.devices()[0]
    ex.install(device)
    try:
        yield device
    finally:
        minijax.block_until_ready(jnp.zeros(()))
        ex.uninstall(device)


def test_minijax_runs_on_your_stream(plugged_in):
    stream = stream_for(plugged_in)
    assert isinstance(stream, ex.Stream)
    f = minijax.jit(lambda a, b: jnp.tanh(a @ b) + 1)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    with minijax.runtime.inline_dispatch(False):   # every dispatch through the queue
        before = stream.submitted
        a = minijax.device_put(x)
        b = a.T * 2.0
        c = f(a, b)
        assert stream.submitted - before >= 3 and isinstance(c._buffer, FutureBuffer)
        np.testing.assert_allclose(np.asarray(c), np.tanh(x @ (x.T * 2)) + 1, rtol=1e-5, atol=1e-6)


def test_an_error_surfaces_where_the_value_is_read(plugged_in):
    checked_log_p = Primitive("ch11_ex1_checked_log")

    def impl(x):
        if np.any(x < 0):
            raise ValueError("checked_log of a negative number")
        return np.log(x)
    impl_rules[checked_log_p] = impl
    abstract_eval_rules[checked_log_p] = lambda x: ShapedArray(x.shape, x.dtype)
    try:
        with minijax.runtime.inline_dispatch(False):
            bad = checked_log_p.bind(jnp.array([1.0, -2.0]))     # returns: nothing raised yet
            later = bad * 2
            fine = jnp.arange(3.0) + 1
            np.testing.assert_array_equal(np.asarray(fine), [1.0, 2.0, 3.0])
            with pytest.raises(ValueError, match="negative"):
                later.block_until_ready()
            with pytest.raises(ValueError, match="negative"):
                np.asarray(bad)
            np.testing.assert_array_equal(np.asarray(jnp.ones(2) * 3), [3.0, 3.0])
    finally:
        del impl_rules[checked_log_p], abstract_eval_rules[checked_log_p]
        primitives._registry.remove(checked_log_p)
