"""Check of exercise 2 of chapter 04: ``vmap`` of ``squared_difference`` equals a NumPy loop."""
import numpy as np
import pytest
from _load import load

import minijax
from minijax.interpreters.batching import vmap

ex = load(__file__, "ex2_squared_difference")

rng = np.random.RandomState(1)
B, SHAPE = 3, (4, 5)


def batch(in_axis):
    """A batch of B examples of SHAPE, the batch along in_axis; one example if None."""
    if in_axis is None:
        return rng.randn(*SHAPE).astype(np.float32)
    return np.moveaxis(rng.randn(B, *SHAPE).astype(np.float32), 0, in_axis)


def example(x, in_axis, b):
    return x if in_axis is None else np.take(x, b, axis=in_axis)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 1), (0, 1), (2, 0), (None, 0), (1, None),
                                     (None, 2)])
def test_vmap_equals_loop(in_axes):
    x, y = batch(in_axes[0]), batch(in_axes[1])
    out = vmap(ex.squared_difference, in_axes=in_axes)(x, y)
    want = np.stack([np.square(example(x, in_axes[0], b) - example(y, in_axes[1], b))
                     for b in range(B)])
    np.testing.assert_array_equal(np.asarray(out), want)


def test_same_batch_axis_moves_nothing():
    x, y = batch(1), batch(1)
    jaxpr = minijax.make_jaxpr(vmap(ex.squared_difference, in_axes=1, out_axes=1))(x, y)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names == ["squared_difference"], f"nothing needs to move: {names}"


def test_shared_operand_is_broadcast_not_moved():
    x, y = batch(2), batch(None)
    jaxpr = minijax.make_jaxpr(vmap(ex.squared_difference, in_axes=(2, None), out_axes=2))(x, y)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "transpose" not in names and names[-1] == "squared_difference", names


def test_under_jit_and_nested():
    x, y = batch(0), rng.randn(2, *SHAPE).astype(np.float32)    # x: (B, 4, 5), y: (2, 4, 5)
    f = minijax.jit(vmap(vmap(ex.squared_difference, in_axes=(None, 0)), in_axes=(0, None)))
    want = np.square(x[:, None] - y[None, :])
    np.testing.assert_array_equal(np.asarray(f(x, y)), want)
