"""Check of exercise 2 of chapter 03: leaves by name (``ex2_named_leaves.py``)."""
import collections
import dataclasses

import numpy as np
import pytest

from minijax import tree_util
from _load import load

ex = load(__file__, "ex2_named_leaves")

Point = collections.namedtuple("Point", ["x", "y"])


@tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
    w: object
    b: object
    act: str = dataclasses.field(default="relu", metadata=dict(static=True))


def model():
    return {"scale": (np.float32(6.0),), "dense": [Layer(np.ones((2, 3)), np.zeros(3)),
                                                   Layer(np.ones((3, 1)), np.zeros(1), "tanh")],
            "out": Point(np.arange(2.0), None)}


def test_names_in_flatten_order():
    # from JAX 0.10.2: keystr(path, simple=True, separator='/') of each leaf of this tree
    names = ["dense/0/w", "dense/0/b", "dense/1/w", "dense/1/b", "out/x", "scale/0"]
    named = ex.named_leaves(model())
    assert list(named) == names
    for name, leaf in zip(names, tree_util.tree_leaves(model())):
        np.testing.assert_array_equal(named[name], leaf)


def test_round_trip_in_any_order():
    m = model()
    named = ex.named_leaves(tree_util.tree_map(lambda x: x + 1, m))
    shuffled = dict(reversed(list(named.items())))
    back = ex.load_named(m, shuffled)
    assert tree_util.tree_structure(back) == tree_util.tree_structure(m)
    assert back["dense"][1].act == "tanh"
    np.testing.assert_array_equal(back["dense"][1].w, np.ones((3, 1)) + 1)
    np.testing.assert_array_equal(back["out"].x, np.arange(2.0) + 1)


def test_missing_name():
    named = ex.named_leaves(model())
    del named["dense/1/b"]
    with pytest.raises(KeyError, match="dense/1/b"):
        ex.load_named(model(), named)


def test_wrong_shape():
    named = ex.named_leaves(model())
    named["dense/0/w"] = np.ones((3, 2))
    with pytest.raises(ValueError, match="dense/0/w"):
        ex.load_named(model(), named)


def test_unexpected_name():
    named = ex.named_leaves(model())
    named["dense/2/w"] = np.ones(1)
    with pytest.raises(ValueError, match="dense/2/w"):
        ex.load_named(model(), named)
