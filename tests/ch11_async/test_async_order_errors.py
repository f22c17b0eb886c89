"""In-order streams, strict outputs, and errors that surface where values are read."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
import minijax.runtime as runtime
from minijax.backends.registry import Executable, execute


def test_work_on_one_device_runs_in_dispatch_order(probes, hold):
    probes.log.clear()
    x = jnp.zeros(3)
    with hold():
        outs = [probes.probe(x, tag=i) for i in range(50)]   # independent of each other
    minijax.block_until_ready(outs)
    assert probes.log == list(range(50))
    np.testing.assert_array_equal(outs[-1], np.ones(3, np.float32))


def test_a_chain_through_eager_jit_and_device_put(probes, hold):
    f = minijax.jit(lambda a: a * 10)
    with hold():
        a = probes.probe(jnp.zeros(2), tag="a")
        b = f(a)
        c = minijax.device_put(b, minijax.devices()[0])
        d = probes.probe(c, tag="d")
    np.testing.assert_array_equal(d, [11.0, 11.0])


def test_all_outputs_of_one_computation_become_ready_together(hold):
    f = minijax.jit(lambda a: (a + 1, a.sum(), a * 2))
    with hold():
        outs = f(jnp.arange(4.0))
        assert len({id(o._buffer._completion) for o in outs}) == 1  # one signal for all
        assert not any(o.is_ready() for o in outs)
    outs[1].block_until_ready()
    assert all(o.is_ready() for o in outs)


def test_an_error_surfaces_when_the_value_is_read(probes, hold):
    with hold():
        y = probes.fail(jnp.array([1.0, -1.0]))   # fails on the device, later
        z = y * 2                                  # depends on the failure
        ok = jnp.arange(3) + 1                     # unrelated work
    with pytest.raises(ValueError, match="negative input") as info:
        np.asarray(y)
    original = info.value.__cause__
    assert isinstance(original, ValueError) and original is not info.value
    assert original.__traceback__ is not None          # the worker's traceback, kept
    with pytest.raises(ValueError, match="negative input") as info2:
        y.block_until_ready()                           # again: never lost, never hangs
    assert info2.value.__cause__ is original
    assert y.is_ready()                                 # failed is "done"
    with pytest.raises(ValueError, match="negative input") as info3:
        float(z[0])                                     # dependents fail the same way
    assert info3.value.__cause__ is original
    np.testing.assert_array_equal(ok, [1, 2, 3])       # the executor keeps serving
    np.testing.assert_array_equal(jnp.arange(2) * 3, [0, 3])


def test_an_error_in_an_inline_run_is_stored_too(probes):
    runtime.synchronize()
    y = probes.fail(jnp.array([-1.0]))     # tiny, idle device: runs inline
    assert y.is_ready()
    with pytest.raises(ValueError, match="negative input"):
        y.block_until_ready()
    with pytest.raises(ValueError, match="negative input"):
        minijax.block_until_ready({"y": y})


class _Exploding(Executable):
    """An executable whose kernel raises, as a crashing compiled program would."""

    def __init__(self, aval):
        self.name, self.in_avals, self.out_avals = "exploding", [aval], [aval]

    def __call__(self, *args):
        raise ZeroDivisionError("kernel exploded")


def test_an_error_in_a_jitted_executable(hold):
    f = minijax.jit(lambda a: a + 1)
    x = jnp.arange(3.0)
    with hold():
        (y,) = execute(_Exploding(x.aval), [x])   # what jit does with an executable
        w = f(y)
    with pytest.raises(ZeroDivisionError, match="kernel exploded"):
        w.block_until_ready()
    np.testing.assert_array_equal(f(x), [1, 2, 3])


def test_a_failure_on_device_does_not_hang_readers_in_other_threads(probes, hold):
    import threading
    errors = []

    def read(y):
        try:
            y.block_until_ready()
        except ValueError as e:
            errors.append(e)
    with hold():
        y = probes.fail(jnp.array([-2.0]))
        threads = [threading.Thread(target=read, args=(y,)) for _ in range(4)]
        for t in threads:
            t.start()   # they wait on the pending future
    for t in threads:
        t.join(30)
    assert len(errors) == 4
