"""Check of exercise 1 of chapter 04: ``vmap`` of ``running_max`` equals a NumPy loop."""
import numpy as np
import pytest
from _load import load

import minijax
from minijax.interpreters.batching import vmap

ex = load(__file__, "ex1_running_max")

X = np.random.RandomState(0).randn(4, 5, 6).astype(np.float32)


def loop(xs, in_axis, axis):
    """The loop vmap stands for: one running maximum per example."""
    return np.stack([np.maximum.accumulate(x, axis=axis) for x in np.moveaxis(xs, in_axis, 0)])


@pytest.mark.parametrize("in_axis", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_vmap_equals_loop(in_axis, axis):
    out = vmap(lambda x: ex.running_max(x, axis), in_axes=in_axis)(X)
    np.testing.assert_array_equal(np.asarray(out), loop(X, in_axis, axis))


def test_batch_axis_does_not_move():
    jaxpr = minijax.make_jaxpr(vmap(lambda x: ex.running_max(x, 1), in_axes=1, out_axes=1))(X)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names == ["running_max"], f"expected one running_max and no transpose: {names}"


def test_nested_vmap_and_unbatched_operand():
    # two batch axes (outer over axis 2, inner over axis 0 of what is left), and a
    # second operand shared by every example (in_axes None)
    f = vmap(vmap(lambda x, y: ex.running_max(x, 0) + y, in_axes=(0, None)), in_axes=(2, None))
    y = np.float32(1.5)
    want = np.stack([np.stack([np.maximum.accumulate(r) + y for r in X[:, :, k]])
                     for k in range(X.shape[2])])
    np.testing.assert_array_equal(np.asarray(f(X, y)), want)
