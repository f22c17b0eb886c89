"""Chapter 03: the ``minijax.tree`` namespace (short names for tree_util).

# expected values from JAX 0.10.2 (the same calls on ``jax.tree``)
"""
import operator

from minijax import tree
from minijax.tree_util import DictKey, SequenceKey

# The public names of jax.tree in JAX 0.10.2.
JAX_TREE_NAMES = ['all', 'broadcast', 'flatten', 'flatten_with_path', 'leaves', 'leaves_with_path',
                  'map', 'map_with_path', 'reduce', 'reduce_associative', 'static', 'structure',
                  'transpose', 'unflatten']


def test_namespace_has_jax_names():
    assert all(callable(getattr(tree, name)) for name in JAX_TREE_NAMES)


def test_flatten_leaves_structure_unflatten():
    leaves, td = tree.flatten([1, {"b": 2, "a": None}])
    assert leaves == [1, 2] and repr(td) == "PyTreeDef([*, {'a': None, 'b': *}])"
    assert tree.leaves(({"z": 1, "y": [2, 3]}, 4)) == [2, 3, 1, 4]
    assert repr(tree.structure((1, [2]))) == "PyTreeDef((*, [*]))"
    assert tree.unflatten(tree.structure((1, [2])), "ab") == ("a", ["b"])


def test_map_reduce_all():
    assert tree.map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)}) == \
        {"a": 11, "b": (22, 33)}
    assert tree.reduce(operator.add, [1, (2, 3)], 10) == 16
    assert tree.reduce_associative(operator.add, [1, 2, 3, 4], identity=0) == 10
    assert tree.all([True, (1, 2)]) is True and tree.all([True, (0, 2)]) is False


def test_transpose_and_broadcast():
    outer, inner = tree.structure([0, 0, 0]), tree.structure({"a": 0, "b": 0})
    assert tree.transpose(outer, inner, [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]) == \
        {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tree.broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == (1, {"a": 2, "b": 2}, (3, 3))
    assert tree.broadcast([1, None], [[1, 2], (3, None)], is_leaf=lambda x: x is None) == \
        [[1, 1], (None, None)]


def test_with_path():
    leaves, td = tree.flatten_with_path({"a": [1, 2]})
    assert leaves == [((DictKey("a"), SequenceKey(0)), 1), ((DictKey("a"), SequenceKey(1)), 2)]
    assert repr(td) == "PyTreeDef({'a': [*, *]})"
    assert tree.leaves_with_path((1, {"k": 2})) == \
        [((SequenceKey(0),), 1), ((SequenceKey(1), DictKey("k")), 2)]
    assert tree.map_with_path(lambda path, x: x + path[0].idx, [1, 2, 3]) == [1, 3, 5]


def test_static_marks_a_dataclass_field():
    field = tree.static(default=3)
    assert field.default == 3 and dict(field.metadata) == {"static": True}
