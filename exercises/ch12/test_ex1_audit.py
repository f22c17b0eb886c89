"""Check of exercise 1 of chapter 12: the effect ``audit`` (``ex1_audit.py``)."""
import threading

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import grad, jit, lax, make_jaxpr
from minijax.effects import is_ordered
from minijax.experimental import io_callback
from minijax.interpreters.linearize import dce_jaxpr
from _load import load

ex = load(__file__, "ex1_audit")


@pytest.fixture(scope="module", autouse=True)
def registered():
    ex.register()


@pytest.fixture(autouse=True)
def log():
    minijax.effects_barrier()
    ex.AUDIT_LOG.clear()
    yield ex.AUDIT_LOG
    minijax.effects_barrier()


def test_eager(log):
    assert ex.audit("eager", jnp.arange(3.0)) is None
    ex.audit("scalar", 2.5)
    assert log == [("eager", [0.0, 1.0, 2.0]), ("scalar", 2.5)]


def test_effects_in_the_jaxpr():
    def f(x):
        ex.audit("plain", x)
        ex.audit("ordered", x * 2, ordered=True)
        return x + 1
    closed = make_jaxpr(f)(1.0)
    audits = [e for e in closed.jaxpr.eqns if e.primitive is ex.audit_p]
    assert [sorted(map(str, e.effects)) for e in audits] == [["Audit"], ["OrderedAudit"]]
    assert sorted(map(str, closed.effects)) == ["Audit", "OrderedAudit"]
    assert [is_ordered(e) for e in sorted(closed.effects, key=str)] == [False, True]
    assert audits[0].outvars == []


def test_dead_code_elimination_keeps_it():
    def only_audits(x):
        unused = jnp.sin(x) * 2   # noqa: F841  (dead code)
        ex.audit("kept", x)
    closed = make_jaxpr(only_audits)(1.0)
    kept, _ = dce_jaxpr(closed.jaxpr, used_outputs=[])
    assert [e.primitive.name for e in kept.eqns] == ["audit"]


def test_under_jit_every_call(log):
    f = jit(lambda x: (ex.audit("jit", x), x * 2)[1])
    outs = [float(f(v)) for v in (1.0, 2.0, 3.0)]
    minijax.effects_barrier()
    assert outs == [2.0, 4.0, 6.0]
    assert log == [("jit", 1.0), ("jit", 2.0), ("jit", 3.0)]
    assert "_host_call(" in jit(lambda x: ex.audit("src", x)).lower(1.0).as_text()
    assert jit(lambda x: ex.audit("nothing returned", x))(5.0) is None
    minijax.effects_barrier()
    assert log[-1] == ("nothing returned", 5.0)


def test_in_a_loop_and_under_grad(log):
    @jit
    def loop(x):
        def body(i, c):
            ex.audit("step", c)
            return c * 2
        return lax.fori_loop(0, 3, body, x)
    assert float(loop(1.0)) == 8.0
    minijax.effects_barrier()
    assert log == [("step", 1.0), ("step", 2.0), ("step", 4.0)]
    log.clear()
    g = grad(lambda x: (ex.audit("primal", x), x ** 3)[1])(2.0)
    assert float(g) == 12.0 and log == [("primal", 2.0)]


def _f_and_g(gate, ordered):
    """f: on device 0, busy until ``gate`` opens, then audits; g: audits at once."""
    def slow_step(x):
        if not gate.wait(timeout=10):
            raise TimeoutError("nobody opened the gate")
        return x
    scalar = minijax.ShapeDtypeStruct((), jnp.float32)

    @jit
    def f(x):
        x = io_callback(slow_step, scalar, x)
        ex.audit("f", x, ordered=ordered)
        return x + 2

    @jit
    def g(x):
        ex.audit("g", x, ordered=ordered)
        return x + 3
    return f, g


@pytest.mark.parametrize("ordered", [False, True])
def test_two_devices(log, ordered):
    d0, d1 = minijax.devices()[:2]
    x0 = minijax.device_put(np.float32(0), d0)
    x1 = minijax.device_put(np.float32(1), d1)
    gate = threading.Event()
    f, g = _f_and_g(gate, ordered)
    with minijax.runtime.inline_dispatch(False):
        try:
            a = f(x0)                        # device 0: stuck at the gate
            b = g(x1)                        # device 1: free
            if ordered:
                threading.Event().wait(0.2)  # every chance to run g: it must wait for f's token
                assert not b.is_ready()
            else:
                b.block_until_ready()        # unordered: nothing to wait for
                assert not a.is_ready()
        finally:
            gate.set()
        minijax.block_until_ready((a, b))
        minijax.effects_barrier()
    assert [tag for tag, _ in log] == (["f", "g"] if ordered else ["g", "f"])
