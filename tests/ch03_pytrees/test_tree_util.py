"""Chapter 03: pytrees — structures, leaves, key paths, custom nodes, errors.

Every expected repr, key string and error message below was printed by
JAX 0.10.2 running the same code (# expected values from JAX 0.10.2).
"""
import collections
import dataclasses
import functools
import operator
import re

import pytest
from hypothesis import given, strategies as st

from minijax import api_util
from minijax import tree_util as tu
from minijax.tree_util import (
    DictKey, FlattenedIndexKey, GetAttrKey, Partial, PyTreeDef, SequenceKey, keystr,
    tree_flatten, tree_flatten_with_path, tree_leaves, tree_leaves_with_path, tree_map,
    tree_map_with_path, tree_structure, tree_unflatten)

Point = collections.namedtuple("Point", ["x", "y"])
Other = collections.namedtuple("Other", ["x", "y"])


class Foo:
    """A custom node: two children and a name as node data."""

    def __init__(self, a, b, name="foo"):
        self.a, self.b, self.name = a, b, name

    def __repr__(self):
        return f"Foo({self.a!r}, {self.b!r}, {self.name!r})"


tu.register_pytree_node(Foo, lambda f: ((f.a, f.b), f.name), lambda name, ch: Foo(*ch, name))


@tu.register_pytree_node_class
class Params:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def tree_flatten(self):
        return (self.w, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tu.register_pytree_with_keys_class
class Special:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten_with_keys(self):
        return ((GetAttrKey("x"), self.x), (GetAttrKey("y"), self.y)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tu.register_dataclass
@dataclasses.dataclass
class DC:
    x: object
    y: object
    op: str = dataclasses.field(default="add", metadata=dict(static=True))


@functools.partial(tu.register_dataclass, data_fields=["a"], meta_fields=["m"])
@dataclasses.dataclass
class DC2:
    a: object
    m: int


@dataclasses.dataclass
class Unregistered:
    a: object
    m: int


@tu.register_static
class Static:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Static) and other.v == self.v

    def __hash__(self):
        return hash(self.v)

    def __repr__(self):
        return f"S({self.v})"


def raises(cls, message):
    """pytest.raises matching the whole message literally."""
    return pytest.raises(cls, match="^" + re.escape(message) + "$")


# --- structures and their reprs ---------------------------------------------

# expected values from JAX 0.10.2
REPRS = [
    ([1, {"a": 2}], "PyTreeDef([*, {'a': *}])"),
    (None, "PyTreeDef(None)"),
    (1, "PyTreeDef(*)"),
    ((1,), "PyTreeDef((*,))"),
    ((), "PyTreeDef(())"),
    (Point(1, 2), "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"),
    (collections.OrderedDict([("b", 1), ("a", 2)]),
     "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"),
    (collections.defaultdict(list, {"b": 1, "a": 2}),
     "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))"),
    ({2: 1, 1: 2}, "PyTreeDef({1: *, 2: *})"),
    ({(1, 2): 1, (0, 3): 2}, "PyTreeDef({(0, 3): *, (1, 2): *})"),
    ({"a": {"b": (1, [2, None])}, "c": ()}, "PyTreeDef({'a': {'b': (*, [*, None])}, 'c': ()})"),
    (Point(Point(1, 2), [3]),
     "PyTreeDef(CustomNode(namedtuple[Point], [CustomNode(namedtuple[Point], [*, *]), [*]]))"),
    (Foo(1, [2, 3]), "PyTreeDef(CustomNode(Foo[foo], [*, [*, *]]))"),
    (Foo(1, 2, None), "PyTreeDef(CustomNode(Foo[None], [*, *]))"),
    (Foo(1, 2, ("x", 1)), "PyTreeDef(CustomNode(Foo[('x', 1)], [*, *]))"),
    (Params(1, 2), "PyTreeDef(CustomNode(Params[None], [*, *]))"),
    (Special(1, 2), "PyTreeDef(CustomNode(Special[None], [*, *]))"),
    (DC(1, 2), "PyTreeDef(CustomNode(DC[('add',)], [*, *]))"),
    (DC2(1, "x"), "PyTreeDef(CustomNode(DC2[('x',)], [*]))"),
    ([1, Static(2)], "PyTreeDef([*, CustomNode(Static[S(2)], [])])"),
    (Partial(operator.add, 1), "PyTreeDef(CustomNode(Partial[<built-in function add>], [(*,), {}]))"),
    (Partial(operator.add, 1, z=3),
     "PyTreeDef(CustomNode(Partial[<built-in function add>], [(*,), {'z': *}]))"),
]


@pytest.mark.parametrize("tree,expected", REPRS, ids=[r for _, r in REPRS])
def test_treedef_repr(tree, expected):
    assert repr(tree_structure(tree)) == expected
    assert str(tree_structure(tree)) == expected


def test_leaves_in_order_dicts_sorted_none_is_empty():
    # expected values from JAX 0.10.2
    leaves, treedef = tree_flatten({"b": [1, 2], "a": (3, None)})
    assert leaves == [3, 1, 2]
    assert repr(treedef) == "PyTreeDef({'a': (*, None), 'b': [*, *]})"
    assert tree_leaves([None, 1, None]) == [1]
    assert tree_leaves(collections.defaultdict(list, {"b": 1, "a": 2})) == [2, 1]
    assert tree_leaves(collections.OrderedDict([("b", 1), ("a", 2)])) == [1, 2]


def test_subclasses_are_leaves_but_namedtuple_subclasses_are_nodes():
    class MyList(list):
        pass

    class SubPoint(Point):
        pass

    # expected values from JAX 0.10.2
    assert repr(tree_structure(MyList([1, 2]))) == "PyTreeDef(*)"
    assert repr(tree_structure(SubPoint(1, 2))) == "PyTreeDef(CustomNode(namedtuple[SubPoint], [*, *]))"


def test_unsortable_dict_keys():
    # expected values from JAX 0.10.2
    with raises(ValueError, "Comparator raised exception while sorting pytree dictionary keys."):
        tree_structure({1: 1, "a": 2})


def test_treedef_attributes():
    td = tree_structure([(1, 2), 3, {"a": 4}])
    # expected values from JAX 0.10.2
    assert td.num_leaves == 4 and td.num_nodes == 7
    assert repr(td.children()) == "[PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]"
    assert tu.treedef_children(td) == td.children()
    assert td.node_data() == (list, None)
    assert tree_structure({"a": 1, "b": 2}).node_data() == (dict, ["a", "b"])
    assert tree_structure(1).node_data() is None
    assert tree_structure(None).node_data() == (type(None), None)
    assert tree_structure(Point(1, 2)).node_data() == (Point, None)
    assert tree_structure(Foo(1, 2)).node_data() == (Foo, "foo")
    assert tree_structure(DC(1, 2)).node_data() == (DC, ("add",))
    assert [tree_structure(t).num_nodes for t in [None, 1, (), [None, 1], {"a": None}]] == [1, 1, 1, 3, 2]
    assert [tree_structure(t).num_leaves for t in [None, 1, (), [None, 1], {"a": None}]] == [0, 1, 0, 1, 0]


def test_treedef_helpers():
    # expected values from JAX 0.10.2
    assert [tu.treedef_is_leaf(tree_structure(t)) for t in [1, None, [1]]] == [True, True, False]
    assert repr(tu.treedef_tuple([tree_structure([1]), tree_structure({"a": 1})])) == \
        "PyTreeDef(([*], {'a': *}))"
    assert repr(tu.treedef_tuple([])) == "PyTreeDef(())"
    assert repr(tree_structure((1, 2)).compose(tree_structure([1, 1]))) == "PyTreeDef(([*, *], [*, *]))"
    assert repr(tree_structure({"a": 1, "b": None}).compose(tree_structure((1, 2)))) == \
        "PyTreeDef({'a': (*, *), 'b': None})"
    rebuilt = PyTreeDef.from_node_data_and_children(
        tu.default_registry, (dict, ["a", "b"]), [tree_structure(1), tree_structure((1, 2))])
    assert repr(rebuilt) == "PyTreeDef({'a': *, 'b': (*, *)})"
    walked = tree_structure([1, (2, 3)]).walk(lambda n, d: ("node", n, d), lambda x: x * 10, [1, 2, 3])
    assert walked == ("node", (10, ("node", (20, 30), None)), None)


def test_treedef_equality_and_hash():
    td = tree_structure([(1, 2), 3, {"a": 4}])
    same = tree_structure([(5, 6), 7, {"a": 8}])
    # expected values from JAX 0.10.2
    assert td == same and hash(td) == hash(same)
    assert td != tree_structure([(5, 6), 7, {"b": 8}])
    assert (td == 3) is False
    assert tree_structure(Point(1, 2)) != tree_structure((1, 2))
    assert tree_structure(Foo(1, 2)) == tree_structure(Foo(3, 4))
    assert tree_structure(Foo(1, 2, "a")) != tree_structure(Foo(3, 4, "b"))
    assert len({td, same, tree_structure(1)}) == 2


def test_unflatten_and_errors():
    td = tree_structure([(1, 2), 3, {"a": 4}])
    # expected values from JAX 0.10.2
    assert td.unflatten([1, 2, 3, 4]) == [(1, 2), 3, {"a": 4}]
    assert tree_unflatten(td, iter([1, 2, 3, 4])) == [(1, 2), 3, {"a": 4}]
    assert tree_structure(None).unflatten([]) is None
    assert list(tree_unflatten(tree_structure({"b": 1, "a": 2}), [1, 2])) == ["a", "b"]
    with raises(ValueError, "Too few leaves for PyTreeDef; expected 4, got 3"):
        td.unflatten([1, 2, 3])
    with raises(ValueError, "Too few leaves for PyTreeDef; expected 4, got 1"):
        tree_unflatten(td, [1])
    with raises(ValueError, "Too many leaves for PyTreeDef; expected 4."):
        td.unflatten([1, 2, 3, 4, 5])
    with raises(ValueError, "Too many leaves for PyTreeDef; expected 0."):
        tree_structure(None).unflatten([1])


# expected values from JAX 0.10.2
FLATTEN_UP_TO_ERRORS = [
    ([(1, 2), 3, {"a": 4}], [(1, 2, 3), 3, {"a": 4}], "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."),
    ([(1, 2), 3, {"a": 4}], [(1, 2), 3], "List arity mismatch: 2 != 3; list: [(1, 2), 3]."),
    ({"a": 1}, {"b": 1}, "Dict key mismatch; expected keys: ['a']; present keys: ['b']."),
    ({"a": 1}, [1], "Expected dict, got [1]."),
    ((1,), [1], "Expected tuple, got [1]."),
    ([1], (1,), "Expected list, got (1,)."),
    ([1], 1, "Expected list, got 1."),
    ([None], [1], "Expected None, got 1.\n\nIn previous releases of JAX, flatten-up-to used to "
     "consider None to be a tree-prefix of non-None values. To obtain the previous behavior, you "
     "can usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
     "is_leaf=lambda x: x is None)"),
    (Point(1, 2), Other(1, 2),
     "Named tuple type mismatch: expected type: <class 'test_tree_util.Point'>, tuple: Other(x=1, y=2)."),
    (Point(1, 2), (1, 2), "Expected named tuple, got (1, 2)."),
    (Foo(1, 2, "a"), (1, 2),
     "Custom node type mismatch: expected type: <class 'test_tree_util.Foo'>, value: (1, 2)."),
    (Foo(1, 2, "a"), Foo(1, 2, "b"), "Mismatch custom node data: 'a' != 'b'; value: Foo(1, 2, 'b')."),
    (DC(1, 2), DC(1, 2, "sub"),
     "Mismatch custom dataclass node data: ('add',) != ('sub',); value: DC(x=1, y=2, op='sub')."),
    (DC(1, 2), (1, 2),
     "Custom dataclass node type mismatch: expected type: <class 'test_tree_util.DC'>, value: (1, 2)."),
    (collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2),
     "Mismatch custom node data: ('a', 'b') != ('b', 'a'); value: OrderedDict([('b', 1), ('a', 2)])."),
]


@pytest.mark.parametrize("prefix,full,message", FLATTEN_UP_TO_ERRORS)
def test_flatten_up_to_errors(prefix, full, message):
    # JAX's messages print the test module as __main__; ours as test_tree_util.
    with raises(ValueError, message):
        tree_structure(prefix).flatten_up_to(full)


def test_flatten_up_to_stops_at_prefix_leaves():
    td = tree_structure([(1, 2), 3, {"a": 4}])
    # expected values from JAX 0.10.2
    assert td.flatten_up_to([([1], 2), 3, {"a": (4, 5)}]) == [[1], 2, 3, (4, 5)]


# --- is_leaf ------------------------------------------------------------------

def test_is_leaf():
    # expected values from JAX 0.10.2
    assert tree_leaves([None, 1, (2, 3)], is_leaf=lambda x: x is None or isinstance(x, tuple)) == \
        [None, 1, (2, 3)]
    leaves, td = tree_flatten([None, 1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [1, (2, 3)] and repr(td) == "PyTreeDef([None, *, *])"
    assert tree_leaves([1], is_leaf=lambda x: None) == [1]
    with raises(ValueError, "is_leaf predicate returned a non-boolean value 1; expected a boolean"):
        tree_leaves([1], is_leaf=lambda x: 1)


def test_iterators_are_leaves_with_a_warning():
    # expected values from JAX 0.10.2
    with pytest.warns(DeprecationWarning, match="Python iterable type 'generator' is treated as a "
                      "leaf in PyTree. Use is_leaf to suppress this warning"):
        assert repr(tree_structure(i for i in range(3))) == "PyTreeDef(*)"


# --- map, reduce, all, transpose, broadcast --------------------------------------

def test_tree_map():
    # expected values from JAX 0.10.2
    assert tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert tree_map(lambda x, y: (x, y), [1, 2], [[3, 4], {"a": 5}]) == [(1, [3, 4]), (2, {"a": 5})]
    assert tree_map(lambda x: x * 2, [1, None, 3]) == [2, None, 6]
    assert tree_map(lambda a, b, c: a + b + c, {"x": 1, "y": [2]}, {"x": 10, "y": [20]},
                    {"x": 100, "y": [200]}) == {"x": 111, "y": [222]}
    assert tree_map(lambda x, y: x, 1, [1, 2]) == 1
    assert tree_map(lambda x: x, {}) == {}
    out = tree_map(lambda x: x + 1, collections.defaultdict(list, {"b": 1, "a": 2}))
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert dict(out) == {"a": 3, "b": 2}
    assert tree_map(lambda x: -x, Special(1, 2)).y == -2


def _where(path):
    return f"    tree_map tree{path}\n"


# expected values from JAX 0.10.2
TREE_MAP_ERRORS = [
    ((1, 2), (1, 2, 3),
     "pytree structure error: different lengths of tuple at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of length 2, "
     "but the full pytree has a subtree of the same type but of length 3."),
    ([1, 2], (1, 2),
     "pytree structure error: different types at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'list'>\n"
     "but at the same key path the full pytree has a subtree of different type\n    <class 'tuple'>."),
    ({"a": 1}, {"b": 1},
     "pytree structure error: different pytree metadata at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\n"
     "with metadata\n    ('a',)\nbut at the same key path the full pytree has a subtree of the "
     "same type but with metadata\n    ('b',)\nso the diff in the metadata at these pytree nodes is\n"
     "    - ('a',)\n    ?   ^\n\n    + ('b',)\n    ?   ^\n"),
    ({"a": 1}, {"a": 1, "b": 2},
     "pytree structure error: different numbers of pytree children at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\n"
     "with 1 child keys\n    a\nbut at the same key path the full pytree has a subtree of the same "
     "type but with 2 child keys\n    a b\nso the symmetric difference on key sets is\n    b"),
    ({"a": [1, (2, 3)]}, {"a": [1, (2, 3, 4)]},
     "pytree structure error: different lengths of tuple at key path\n" + _where("['a'][1]") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of length 2, "
     "but the full pytree has a subtree of the same type but of length 3."),
    ([None], [1],
     "pytree structure error: different types at key path\n" + _where("[0]") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'NoneType'>\nbut at the same key path the full pytree has a subtree of different "
     "type\n    <class 'int'>."),
    ({"a": [1, {"b": (1, 2)}]}, {"a": [1, {"b": [1, 2]}]},
     "pytree structure error: different types at key path\n" + _where("['a'][1]['b']") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'tuple'>\n"
     "but at the same key path the full pytree has a subtree of different type\n    <class 'list'>."),
    (Foo(1, 2, "a"), Foo(1, 2, "b"),
     "pytree structure error: different pytree metadata at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'test_tree_util.Foo'>\nwith metadata\n    a\nbut at the same key path the full "
     "pytree has a subtree of the same type but with metadata\n    b\nso the diff in the metadata "
     "at these pytree nodes is\n    - a\n    + b"),
    (DC(1, 2), DC(1, 2, "sub"),
     "pytree structure error: different pytree metadata at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'test_tree_util.DC'>\nwith metadata\n    ('add',)\nbut at the same key path the "
     "full pytree has a subtree of the same type but with metadata\n    ('sub',)\nso the diff in "
     "the metadata at these pytree nodes is\n    - ('add',)\n    + ('sub',)"),
    (collections.defaultdict(int, a=1), collections.defaultdict(list, a=1),
     "pytree structure error: different pytree metadata at key path\n" + _where("") +
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n"
     "    <class 'collections.defaultdict'>\nwith metadata\n    (<class 'int'>, ('a',))\nbut at "
     "the same key path the full pytree has a subtree of the same type but with metadata\n"
     "    (<class 'list'>, ('a',))\nso the diff in the metadata at these pytree nodes is\n"
     "    - (<class 'int'>, ('a',))\n    ?           ^\n\n    + (<class 'list'>, ('a',))\n"
     "    ?          + ^\n"),
]


@pytest.mark.parametrize("a,b,message", TREE_MAP_ERRORS)
def test_tree_map_structure_errors(a, b, message):
    with raises(ValueError, message):
        tree_map(lambda x, y: x, a, b)


def test_tree_map_with_path_error_names_the_function():
    # expected values from JAX 0.10.2
    with raises(ValueError, "pytree structure error: different lengths of list at key path\n"
                "    tree_map_with_path tree\nAt that key path, the prefix pytree tree_map_with_path "
                "tree has a subtree of type list of length 2, but the full pytree has a subtree of "
                "the same type but of length 3."):
        tree_map_with_path(lambda p, x, y: x, [1, 2], [10, 20, 30])


def test_reduce_all_transpose_broadcast():
    add = lambda a, b: a + b  # noqa: E731
    # expected values from JAX 0.10.2
    assert tu.tree_reduce(add, [1, (2, 3)]) == 6
    assert tu.tree_reduce(add, [1, (2, 3)], 100) == 106
    with raises(TypeError, "reduce() of empty iterable with no initial value"):
        tu.tree_reduce(add, [])
    assert tu.tree_reduce_associative(add, [1, (2, 3)]) == 6
    with raises(TypeError, "Must specify identity for parallel reduction of empty sequence."):
        tu.tree_reduce_associative(add, [])
    assert (tu.tree_all([1, True, (2,)]), tu.tree_all([1, 0]), tu.tree_all([])) == (True, False, True)
    assert tu.tree_all([None, 1], is_leaf=lambda x: x is None) is False
    outer, inner = tree_structure([0, 0]), tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_transpose(tree_structure({"a": 0, "b": 0}), tree_structure([0, 0, 0]),
                             {"a": [1, 2, 3], "b": [4, 5, 6]}) == \
        [{"a": 1, "b": 4}, {"a": 2, "b": 5}, {"a": 3, "b": 6}]
    with raises(TypeError, "Mismatch\nPyTreeDef([(*, *), (*, *)])\n != \nPyTreeDef([(*, *, *), (*, *, *)])"):
        tu.tree_transpose(outer, tree_structure((0, 0, 0)), [(1, 2), (3, 4)])
    assert tu.tree_broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == (1, {"a": 2, "b": 2}, (3, 3))
    assert tu.broadcast_prefix((0, None), ([1, 2], 3), is_leaf=lambda x: x is None) == [0, 0, None]
    with raises(ValueError, "pytree structure error: different lengths of tuple at key path\n"
                "    broadcast_prefix prefix_tree\nAt that key path, the prefix pytree "
                "broadcast_prefix prefix_tree has a subtree of type tuple of length 2, but the full "
                "pytree has a subtree of the same type but of length 3."):
        tu.tree_broadcast((1, 2), (0, 0, 0))


def test_one_level_and_node_queries():
    # expected values from JAX 0.10.2
    assert tu.flatten_one_level({"a": [1, 2], "b": {"c": 3}}) == (([1, 2], {"c": 3}), ("a", "b"))
    assert tu.flatten_one_level((1, 2)) == ((1, 2), None)
    assert tu.flatten_one_level(None) == ((), None)
    assert tu.flatten_one_level(Point(1, 2)) == ([1, 2], Point)
    with raises(ValueError, "can't tree-flatten type: <class 'int'>"):
        tu.flatten_one_level(1)
    assert tu.flatten_one_level_with_keys([1, 2]) == \
        (((SequenceKey(0), 1), (SequenceKey(1), 2)), None)
    assert [tu.is_tree_node(t) for t in [list, Point, int, type(None), collections.OrderedDict]] == \
        [True, True, False, True, True]
    assert (tu.all_leaves([1, 2]), tu.all_leaves([1, [2]]), tu.all_leaves([None]),
            tu.all_leaves([1, None], is_leaf=lambda x: x is None)) == (True, False, False, True)


# --- key paths ----------------------------------------------------------------

MIXED = [1, {"k1": 2, "k2": (3, 4)}, Point(5, 6), None, collections.OrderedDict(b=7, a=8),
         collections.defaultdict(int, {"z": 9})]


def test_key_paths():
    # expected values from JAX 0.10.2
    paths = [(keystr(p), x) for p, x in tree_leaves_with_path(MIXED)]
    assert paths == [("[0]", 1), ("[1]['k1']", 2), ("[1]['k2'][0]", 3), ("[1]['k2'][1]", 4),
                     ("[2].x", 5), ("[2].y", 6), ("[4]['b']", 7), ("[4]['a']", 8), ("[5]['z']", 9)]
    simple = [keystr(p, simple=True, separator="/") for p, _ in tree_leaves_with_path(MIXED)]
    assert simple == ["0", "1/k1", "1/k2/0", "1/k2/1", "2/x", "2/y", "4/b", "4/a", "5/z"]
    leaves, td = tree_flatten_with_path(MIXED)
    assert leaves[2] == ((SequenceKey(1), DictKey("k2"), SequenceKey(0)), 3)
    assert td == tree_structure(MIXED)


def test_key_paths_of_custom_nodes():
    # expected values from JAX 0.10.2
    assert [keystr(p) for p, _ in tree_leaves_with_path(Foo(1, [2, 3]))] == \
        ["[<flat index 0>]", "[<flat index 1>][0]", "[<flat index 1>][1]"]
    assert [keystr(p) for p, _ in tree_leaves_with_path(Special(1, [2]))] == [".x", ".y[0]"]
    assert tree_flatten_with_path(DC(1, [2]))[0] == \
        [((GetAttrKey("x"),), 1), ((GetAttrKey("y"), SequenceKey(0)), 2)]
    assert [keystr(k) for k, _ in tree_leaves_with_path(Partial(operator.add, 1, z=3))] == \
        ["[<flat index 0>][0]", "[<flat index 1>]['z']"]
    assert tree_leaves_with_path([1, Static(2)]) == [((SequenceKey(0),), 1)]


def test_map_with_path():
    # expected values from JAX 0.10.2
    out = tree_map_with_path(lambda p, x: keystr(p), MIXED)
    assert out[:4] == ["[0]", {"k1": "[1]['k1']", "k2": ("[1]['k2'][0]", "[1]['k2'][1]")},
                       Point(x="[2].x", y="[2].y"), None]
    assert tree_map_with_path(lambda p, x, y: (keystr(p), x + y), [1, 2], [10, 20]) == \
        [("[0]", 11), ("[1]", 22)]
    assert tree_map_with_path(lambda p, x: keystr(p), [1, (2, 3)],
                              is_leaf=lambda x: isinstance(x, tuple)) == ["[0]", "[1]"]
    assert tree_map_with_path(lambda p, x: keystr(p), [1, (2, 3)], is_leaf_takes_path=True,
                              is_leaf=lambda p, x: len(p) == 1 and p[0].idx == 1) == ["[0]", "[1]"]
    assert tree_map_with_path(lambda p, x: x, []) == []


def test_key_entries():
    # expected values from JAX 0.10.2
    keys = (SequenceKey(1), DictKey("k"), GetAttrKey("name"), FlattenedIndexKey(3))
    assert repr(keys) == "(SequenceKey(idx=1), DictKey(key='k'), GetAttrKey(name='name'), " \
                         "FlattenedIndexKey(key=3))"
    assert [str(k) for k in keys] == ["[1]", "['k']", ".name", "[<flat index 3>]"]
    assert (keys[0].idx, keys[1].key, keys[2].name, keys[3].key) == (1, "k", "name", 3)
    assert str(DictKey((1, "a"))) == "[(1, 'a')]"
    assert SequenceKey(1) == SequenceKey(1) and SequenceKey(1) != FlattenedIndexKey(1)
    assert SequenceKey(1) != 1 and len({SequenceKey(0), SequenceKey(0), DictKey(0)}) == 2
    assert SequenceKey.__match_args__ == ("idx",) and DictKey.__match_args__ == ("key",)
    assert GetAttrKey.__match_args__ == ("name",) and FlattenedIndexKey.__match_args__ == ("key",)
    match SequenceKey(4):
        case SequenceKey(idx=i):
            assert i == 4
    with pytest.raises(AttributeError):
        SequenceKey(0).idx = 1
    with pytest.raises(TypeError):
        SequenceKey("a")


def test_keystr_options():
    keys = (GetAttrKey("name"), FlattenedIndexKey(2), DictKey("a"), SequenceKey(0))
    # expected values from JAX 0.10.2
    assert keystr((SequenceKey(1), DictKey("k2"), SequenceKey(0))) == "[1]['k2'][0]"
    assert keystr(keys) == ".name[<flat index 2>]['a'][0]"
    assert keystr(keys, simple=True) == "name2a0"
    assert keystr(keys, simple=True, separator=".") == "name.2.a.0"
    assert keystr((GetAttrKey("name"), SequenceKey(0)), separator="/") == ".name/[0]"
    assert keystr(("a", 1)) == "a1" and keystr(()) == ""


# --- custom nodes ---------------------------------------------------------------

def test_custom_nodes_map_and_round_trip():
    # expected values from JAX 0.10.2
    assert repr(tree_map(lambda x: x * 10, Foo(1, [2, 3]))) == "Foo(10, [20, 30], 'foo')"
    p = tree_map(lambda x: x + 1, Params(1, 2))
    assert (type(p), p.w, p.b) == (Params, 2, 3)
    assert tree_map(lambda x: x * 2, DC(1, 2, "mul")) == DC(2, 4, "mul")
    leaves, td = tree_flatten([1, Static(2)])
    assert leaves == [1] and tree_unflatten(td, [5]) == [5, Static(2)]


def test_register_pytree_with_keys_function():
    class WK:
        def __init__(self, a):
            self.a = a

    tu.register_pytree_with_keys(WK, lambda w: (((DictKey("a"), w.a),), "aux"), lambda aux, ch: WK(*ch))
    # expected values from JAX 0.10.2
    assert repr(tree_structure(WK(1))) == "PyTreeDef(CustomNode(WK[aux], [*]))"
    assert [keystr(p) for p, _ in tree_leaves_with_path(WK(1))] == ["['a']"]
    assert tree_map(lambda x: x + 1, WK(1)).a == 2


def test_register_dataclass_explicit_fields_on_a_plain_class():
    class NotDC:
        def __init__(self, a, m):
            self.a, self.m = a, m

    tu.register_dataclass(NotDC, data_fields=["a"], meta_fields=["m"])
    # expected values from JAX 0.10.2
    assert repr(tree_structure(NotDC(1, 2))) == "PyTreeDef(CustomNode(NotDC[(2,)], [*]))"
    assert tree_map(lambda x: x + 1, NotDC(1, 2)).a == 2


def test_tree_static_field():
    from minijax import tree

    @tu.register_dataclass
    @dataclasses.dataclass
    class DC4:
        x: object
        op: str = tree.static(default="add")

    # expected values from JAX 0.10.2
    assert repr(tree_structure(DC4(1))) == "PyTreeDef(CustomNode(DC4[('add',)], [*]))"


# expected values from JAX 0.10.2
REGISTRATION_ERRORS = [
    (lambda: tu.register_pytree_node(Foo, lambda f: ((), None), lambda a, c: None), ValueError,
     "Duplicate custom PyTreeDef type registration for <class 'test_tree_util.Foo'>."),
    (lambda: tu.register_pytree_node(list, lambda f: ((), None), lambda a, c: None), ValueError,
     "Duplicate custom PyTreeDef type registration for <class 'list'>."),
    (lambda: tu.register_dataclass(DC), ValueError,
     "Duplicate custom dataclass PyTreeDef type registration for <class 'test_tree_util.DC'>."),
    (lambda: tu.register_dataclass(Unregistered, data_fields=["a"]), TypeError,
     "register_dataclass: data_fields and meta_fields must both be specified when either is "
     "specified. Got data_fields=['a'] meta_fields=None."),
    (lambda: tu.register_dataclass(Unregistered, data_fields=["a"], meta_fields=[]), ValueError,
     "data_fields and meta_fields must include all dataclass fields with ``init=True`` and only "
     "them. Missing fields: {'m'}. Add them to drop_fields to suppress this error."),
    (lambda: tu.register_dataclass(Unregistered, data_fields=["a", "q"], meta_fields=["m"]),
     ValueError, "data_fields and meta_fields must include all dataclass fields with ``init=True`` "
     "and only them. Unexpected fields: {'q'}."),
    (lambda: tu.register_dataclass(Unregistered, data_fields=["a", "m"], meta_fields=["m"]),
     ValueError, "data_fields and meta_fields must not overlap. Overlapping fields: {'m'}."),
    (lambda: tu.register_dataclass(Foo), TypeError,
     "register_dataclass: data_fields and meta_fields are required when nodetype is not a "
     "dataclass. Got nodetype=<class 'test_tree_util.Foo'>."),
]


@pytest.mark.parametrize("register,cls,message", REGISTRATION_ERRORS)
def test_registration_errors(register, cls, message):
    with raises(cls, message):
        register()


def test_bad_flatten_function():
    class Bad:
        pass

    tu.register_pytree_node(Bad, lambda b: 3, lambda a, c: Bad())
    # expected values from JAX 0.10.2
    with raises(ValueError, "The to_iterable function for a custom PyTree node should return a "
                "(children, aux_data) tuple, got 3"):
        tree_flatten(Bad())


def test_metadata_that_cannot_be_compared():
    import numpy as np

    class Arr:
        def __init__(self, m):
            self.m = m

    tu.register_pytree_node(Arr, lambda a: ((), a.m), lambda m, _: Arr(m))
    # expected values from JAX 0.10.2
    with raises(ValueError, "Exception raised while checking equality of metadata fields of "
                "pytree. Make sure that metadata fields are hashable and have simple equality "
                "semantics. (Note: arrays cannot be passed as metadata fields!)"):
        tree_structure(Arr(np.array([1, 2]))) == tree_structure(Arr(np.array([1, 3])))  # noqa: B015


# --- Partial --------------------------------------------------------------------

def test_partial_is_a_pytree_with_a_static_function():
    p = Partial(operator.add, 1)
    # expected values from JAX 0.10.2
    assert repr(p) == "Partial(<built-in function add>, 1)"
    assert p(2) == 3
    leaves, td = tree_flatten(Partial(operator.add, 1, z=3))
    assert leaves == [1, 3]
    scaled = tree_map(lambda x: x * 10, p)
    assert type(scaled) is Partial and scaled(1) == 11
    assert repr(tree_structure(Partial(operator.add))) == \
        "PyTreeDef(CustomNode(Partial[<built-in function add>], [(), {}]))"


def test_partial_of_a_partial_keeps_the_inner_arguments_static():
    # expected values from JAX 0.10.2
    leaves, td = tree_flatten(Partial(functools.partial(operator.add, 1), 2))
    assert leaves == [2]
    assert repr(td) == ("PyTreeDef(CustomNode(Partial[_HashableCallableShim(functools.partial("
                        "<built-in function add>, 1))], [(*,), {}]))")
    assert tree_unflatten(td, [5])() == 6
    assert tree_leaves(Partial(Partial(operator.add, 1))) == []


# --- the chapter-02 hook --------------------------------------------------------

def test_api_util_uses_full_pytrees():
    leaves, td = api_util.tree_flatten({"p": Point(1, 2), "q": [3]})
    assert leaves == [1, 2, 3] and isinstance(td, PyTreeDef)
    assert api_util.tree_unflatten(td, [4, 5, 6]) == {"p": Point(4, 5), "q": [6]}


# --- round trips ------------------------------------------------------------------

leaves_st = st.one_of(st.integers(), st.none())
trees_st = st.recursive(
    leaves_st,
    lambda kids: st.one_of(st.lists(kids, max_size=3),
                           st.lists(kids, max_size=3).map(tuple),
                           st.dictionaries(st.text("abc", max_size=2), kids, max_size=3)),
    max_leaves=12)


def _count_ints(t):
    if isinstance(t, (list, tuple)):
        return sum(map(_count_ints, t))
    if isinstance(t, dict):
        return sum(map(_count_ints, t.values()))
    return 0 if t is None else 1


@given(trees_st)
def test_round_trip(tree):
    leaves, td = tree_flatten(tree)
    assert tree_unflatten(td, leaves) == tree
    assert len(leaves) == td.num_leaves == _count_ints(tree)
    assert all(isinstance(x, int) for x in leaves)
    assert tree_structure(tree_map(str, tree)) == td
    assert td.flatten_up_to(tree) == leaves
    assert [x for _, x in tree_leaves_with_path(tree)] == leaves
    if not isinstance(tree, int):
        assert td.children() == [tree_structure(c) for c in tu.flatten_one_level(tree)[0]]


@given(trees_st)
def test_key_paths_find_their_leaves(tree):
    def get(t, path):
        for k in path:
            t = t[k.idx] if isinstance(k, SequenceKey) else t[k.key]
        return t

    for path, leaf in tree_leaves_with_path(tree):
        assert get(tree, path) == leaf
