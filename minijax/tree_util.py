"""Chapter 03 — pytrees: nested containers seen as a flat list of leaves.

A transformation works on a flat list of arrays; users hand it tuples, lists,
dicts, namedtuples, dataclasses and their own classes, nested any way they
like. A *pytree* is such a nesting. Two functions convert between the views::

    leaves, treedef = tree_flatten(tree)      # [leaf, ...] and the structure
    tree = tree_unflatten(treedef, leaves)    # and back

A :class:`PyTreeDef` is the tree with its leaves cut off (it prints them as
``*``). Which Python types count as *nodes* (to be opened) rather than leaves
(kept whole) is decided by a registry: ``None`` (a node with no children),
``tuple``, ``list``, ``dict`` (children in sorted key order) and namedtuples
are built in; ``OrderedDict``, ``defaultdict`` and :class:`Partial` are
registered below with the same public functions a user calls
(:func:`register_pytree_node`, :func:`register_dataclass`, ...).

The module is laid out in the order the chapter's notebook builds it:

1. key entries — the steps of a *key path* (``[1]['k'].name``);
2. node kinds — how each kind of node comes apart and goes back together;
3. :class:`PyTreeDef` — the structure, with ``unflatten``/``flatten_up_to``;
4. :class:`PyTreeRegistry` and the flatten walk;
5. the public functions (``tree_map``, ``tree_reduce``, ...);
6. registering custom nodes, :class:`Partial`;
7. error messages that point at the subtree where two trees differ.

Behaviour, reprs and error messages follow JAX 0.10 (whose registry and
PyTreeDef are written in C++; this is the same design in plain Python).
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import textwrap
import types
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from minijax import api_util

T = TypeVar("T")
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]

# ---------------------------------------------------------------------------
# 1. Key entries: one step of the path from the root to a leaf.
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """Index into a tuple or list: prints as ``[1]``."""
    idx: int

    def __post_init__(self):
        object.__setattr__(self, "idx", operator.index(self.idx))

    def __str__(self):
        return f"[{self.idx}]"


@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
    """Key of a dict (or OrderedDict, defaultdict): prints as ``['k']``."""
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """Attribute of a namedtuple or dataclass: prints as ``.name``."""
    name: str

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"GetAttrKey(name) expects a str, got {type(self.name).__name__}")

    def __str__(self):
        return f".{self.name}"

    def __repr__(self):
        return f"GetAttrKey(name='{self.name}')"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """Position among a custom node's children, when the node gives no better key."""
    key: int

    def __post_init__(self):
        object.__setattr__(self, "key", operator.index(self.key))

    def __str__(self):
        return f"[<flat index {self.key}>]"


def _entry_value(key) -> Any:
    """The raw index, key or name a key entry holds (``keystr(simple=True)``)."""
    if isinstance(key, SequenceKey):
        return key.idx
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return key.key
    if isinstance(key, GetAttrKey):
        return key.name
    return key


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Join a key path into a string: ``[1]['k2'][0]``, or ``1/k2/0`` with
    ``simple=True, separator='/'`` (compact, but ambiguous: ``0`` may be an
    index or a dict key)."""
    to_str = (lambda k: str(_entry_value(k))) if simple else str
    return separator.join(map(to_str, keys))


# ---------------------------------------------------------------------------
# 2. Node kinds. Each says how to take a node apart (children + hashable
#    "node data" the structure keeps), put it back, name its children, check
#    that another value has the same shape (with JAX's error messages), and
#    print itself inside a PyTreeDef.
# ---------------------------------------------------------------------------


class _NodeKind:
    """Base: one registered node type. ``type`` is the Python type it handles."""
    type: Any = None

    def flatten(self, x):  # -> (children, node_data)
        raise NotImplementedError

    def flatten_with_keys(self, x):  # -> ([(key, child), ...], node_data)
        children, data = self.flatten(x)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], data

    def unflatten(self, data, children):
        raise NotImplementedError

    def children_like(self, data, arity, x):
        """Children of ``x``, after checking it is a node like this one (or raise)."""
        raise NotImplementedError

    def node_data(self, data):
        """What ``PyTreeDef.node_data()`` returns: ``(type, data)``."""
        return (self.type, data)

    def show(self, data, children: list[str]) -> str:
        return f"CustomNode({self.type.__name__}[{data}], [{', '.join(children)}])"


def _check_arity(what: str, x, got: int, arity: int, label: str):
    if got != arity:
        raise ValueError(f"{what} arity mismatch: {got} != {arity}; {label}: {x!r}.")


class _NoneKind(_NodeKind):
    """``None`` is a node with no children: it holds no leaves."""
    type = type(None)

    def flatten(self, x):
        return (), None

    def flatten_with_keys(self, x):
        return (), None

    def unflatten(self, data, children):
        return None

    def children_like(self, data, arity, x):
        if x is not None:
            raise ValueError(
                f"Expected None, got {x!r}.\n\n"
                "In previous releases of JAX, flatten-up-to used to consider None to be a "
                "tree-prefix of non-None values. To obtain the previous behavior, you can "
                "usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), "
                "a, b, is_leaf=lambda x: x is None)")
        return ()

    def show(self, data, children):
        return "None"


class _SequenceKind(_NodeKind):
    """``tuple`` or ``list``: the children are the items, keyed ``[i]``."""

    def __init__(self, typ):
        self.type = typ

    def flatten(self, x):
        return x, None

    def flatten_with_keys(self, x):
        return tuple((SequenceKey(i), c) for i, c in enumerate(x)), None

    def unflatten(self, data, children):
        return self.type(children)

    def children_like(self, data, arity, x):
        name = self.type.__name__
        if type(x) is not self.type:
            raise ValueError(f"Expected {name}, got {x!r}.")
        _check_arity(name.capitalize(), x, len(x), arity, name)
        return x

    def show(self, data, children):
        if self.type is list:
            return f"[{', '.join(children)}]"
        return f"({', '.join(children)}{',' if len(children) == 1 else ''})"


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except Exception as e:
        raise ValueError("Comparator raised exception while sorting pytree "
                         "dictionary keys.") from e


class _DictKind(_NodeKind):
    """``dict``: children in *sorted* key order, so ``{'b':..,'a':..}`` and
    ``{'a':..,'b':..}`` have the same structure. The node data is the keys."""
    type = dict

    def flatten(self, x):
        keys = _sorted_keys(x)
        return tuple(x[k] for k in keys), keys

    def flatten_with_keys(self, x):
        keys = _sorted_keys(x)
        return tuple((DictKey(k), x[k]) for k in keys), keys

    def unflatten(self, keys, children):
        return dict(zip(keys, children))

    def children_like(self, keys, arity, x):
        if type(x) is not dict:
            raise ValueError(f"Expected dict, got {x!r}.")
        present = _sorted_keys(x)
        if len(present) != len(keys) or any(a != b for a, b in zip(present, keys)):
            raise ValueError(f"Dict key mismatch; expected keys: {list(keys)!r}; "
                             f"present keys: {list(present)!r}.")
        return [x[k] for k in present]

    def node_data(self, keys):
        return (dict, list(keys))

    def show(self, keys, children):
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, children)) + "}"


def _is_namedtuple(x) -> bool:
    # Like JAX, recognise namedtuples by shape: a tuple with ``_fields``.
    return isinstance(x, tuple) and hasattr(x, "_fields")


class _NamedTupleKind(_NodeKind):
    """Any namedtuple: children are the fields (keyed ``.x``), node data its type."""

    def flatten(self, x):
        return list(x), type(x)

    def flatten_with_keys(self, x):
        return [(GetAttrKey(f), c) for f, c in zip(x._fields, x)], type(x)

    def unflatten(self, typ, children):
        return typ(*children)

    def children_like(self, typ, arity, x):
        if not _is_namedtuple(x):
            raise ValueError(f"Expected named tuple, got {x!r}.")
        _check_arity("Named tuple", x, len(x), arity, "tuple")
        if type(x) != typ:
            raise ValueError(f"Named tuple type mismatch: expected type: {typ!r}, tuple: {x!r}.")
        return x

    def node_data(self, typ):
        return (typ, None)

    def show(self, typ, children):
        return f"CustomNode(namedtuple[{typ.__name__}], [{', '.join(children)}])"


def _pair(out, fn_name: str, what: str):
    """Check a user flatten function returned ``(children, aux_data)``."""
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"The {fn_name} function for a custom PyTree node should "
                         f"return a ({what}, aux_data) tuple, got {out!r}")
    if not isinstance(out[0], Iterable):
        raise ValueError(f"The {fn_name} function for a custom PyTree node should "
                         f"return a ({what}, aux_data) tuple where '{what}' is iterable, "
                         f"got {out!r}")
    return out


class _CustomKind(_NodeKind):
    """A type registered with user functions (:func:`register_pytree_node`)."""

    def __init__(self, typ, to_iterable, from_iterable, to_iterable_with_keys=None):
        self.type = typ
        self.to_iterable = to_iterable
        self.from_iterable = from_iterable
        self.to_iterable_with_keys = to_iterable_with_keys

    def flatten(self, x):
        children, data = _pair(self.to_iterable(x), "to_iterable", "children")
        return list(children), data

    def flatten_with_keys(self, x):
        if self.to_iterable_with_keys is None:
            return super().flatten_with_keys(x)
        pairs, data = _pair(self.to_iterable_with_keys(x), "to_iterable_with_keys",
                            "key_leaf_pairs")
        pairs = list(pairs)
        for p in pairs:
            if not (isinstance(p, tuple) and len(p) == 2):
                raise ValueError(  # (JAX's message is cut short like this, too)
                    "The to_iterable_with_keys function for a custom PyTree node should "
                    f"return a (key_leaf_pairs, aux_data) tuple where 'child{p!r}")
        return pairs, data

    def unflatten(self, data, children):
        return self.from_iterable(data, tuple(children))

    def _label(self):
        return "Custom", "custom"

    def children_like(self, data, arity, x):
        node, mismatch = self._label()
        if type(x) is not self.type:
            raise ValueError(f"{node} node type mismatch: expected type: {self.type!r}, "
                             f"value: {x!r}.")
        children, x_data = self.flatten(x)
        if data != x_data:
            raise ValueError(f"Mismatch {mismatch} node data: {data!r} != {x_data!r}; "
                             f"value: {x!r}.")
        _check_arity("Custom type", x, len(children), arity, "value")
        return children


class _DataclassKind(_CustomKind):
    """A dataclass (:func:`register_dataclass`): data fields are the children
    (keyed ``.field``), the tuple of meta fields is the node data."""

    def __init__(self, typ, data_fields, meta_fields):
        super().__init__(typ, None, None)
        self.data_fields, self.meta_fields = tuple(data_fields), tuple(meta_fields)

    def flatten(self, x):
        return ([getattr(x, f) for f in self.data_fields],
                tuple(getattr(x, f) for f in self.meta_fields))

    def flatten_with_keys(self, x):
        children, data = self.flatten(x)
        return [(GetAttrKey(f), c) for f, c in zip(self.data_fields, children)], data

    def unflatten(self, meta, children):
        return self.type(**dict(zip(self.meta_fields, meta)),
                         **dict(zip(self.data_fields, children)))

    def _label(self):
        return "Custom dataclass", "custom dataclass"


# ---------------------------------------------------------------------------
# 3. PyTreeDef: the structure of a tree. A leaf is ``PyTreeDef(*)``; a node
#    keeps its kind, its node data and one PyTreeDef per child.
# ---------------------------------------------------------------------------


class PyTreeDef:
    """The structure of a pytree: what is left when the leaves are cut off.

    Immutable and hashable (it is a cache key for ``jit``). Two treedefs are
    equal when they have the same node kinds, node data and shapes.
    """
    __slots__ = ("_kind", "_data", "_children", "_num_leaves", "_num_nodes", "_hash")

    def __init__(self, kind: _NodeKind | None, data=None, children: Sequence[PyTreeDef] = ()):
        self._kind, self._data, self._children = kind, data, tuple(children)
        self._hash = None  # computed on first use: a treedef is immutable
        num_leaves, num_nodes = (1 if kind is None else 0), 1
        for c in self._children:
            num_leaves, num_nodes = num_leaves + c._num_leaves, num_nodes + c._num_nodes
        self._num_leaves, self._num_nodes = num_leaves, num_nodes

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        return self._num_nodes

    def children(self) -> list[PyTreeDef]:
        """The treedefs of the root's children."""
        return list(self._children)

    def node_data(self):
        """``None`` for a leaf, else ``(node type, node data)``."""
        return None if self._kind is None else self._kind.node_data(self._data)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuild a tree of this structure from its leaves, in order."""
        leaves = list(leaves)
        if len(leaves) < self._num_leaves:
            raise ValueError(f"Too few leaves for PyTreeDef; expected {self._num_leaves}, "
                             f"got {len(leaves)}")
        if len(leaves) > self._num_leaves:
            raise ValueError(f"Too many leaves for PyTreeDef; expected {self._num_leaves}.")
        return self._build(iter(leaves))

    def _build(self, leaves):
        if self._kind is None:
            return next(leaves)
        return self._kind.unflatten(self._data, [c._build(leaves) for c in self._children])

    def flatten_up_to(self, tree) -> list:
        """Cut ``tree`` at this structure's leaves: this structure must be a
        *prefix* of ``tree``; each of its leaves may match a whole subtree."""
        out: list = []
        self._up_to(tree, out)
        out.reverse()
        return out

    def _up_to(self, x, out):
        # Children are visited right to left (as JAX does), so that when
        # several subtrees disagree the same one is reported first.
        if self._kind is None:
            out.append(x)
            return
        children = list(self._kind.children_like(self._data, len(self._children), x))
        for td, child in reversed(list(zip(self._children, children))):
            td._up_to(child, out)

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """This structure with every leaf replaced by ``inner``."""
        if self._kind is None:
            return inner
        return PyTreeDef(self._kind, self._data, [c.compose(inner) for c in self._children])

    def walk(self, f_node: Callable, f_leaf: Callable | None, leaves: Iterable[Any]):
        """Fold the tree bottom-up: ``f_leaf(leaf)`` at leaves, then
        ``f_node(tuple_of_child_results, node_data)`` at nodes."""
        it = iter(leaves)

        def go(td):
            if td._kind is None:
                leaf = next(it)
                return leaf if f_leaf is None else f_leaf(leaf)
            data = list(td._data) if isinstance(td._kind, _DictKind) else td._data
            return f_node(tuple(go(c) for c in td._children), data)
        return go(self)

    @staticmethod
    def from_node_data_and_children(registry: PyTreeRegistry, node_data, children):
        """Inverse of ``node_data()`` and ``children()``."""
        if node_data is None:
            return _LEAF
        typ, data = node_data
        if isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields") \
                and typ not in registry._kinds:
            return PyTreeDef(_NAMEDTUPLE, typ, children)
        kind = registry._kinds.get(typ)
        if kind is None:
            raise RuntimeError(f"Could not find type: {typ!r}.")
        if isinstance(kind, _DictKind):
            data = tuple(data)
        return PyTreeDef(kind, data, children)

    def __eq__(self, other):
        if not isinstance(other, PyTreeDef):
            return False
        if self._kind is not other._kind or len(self._children) != len(other._children):
            return False
        if self._kind is not None:
            try:
                if self._data != other._data:
                    return False
            except Exception as e:
                raise ValueError(
                    "Exception raised while checking equality of metadata fields of pytree. "
                    "Make sure that metadata fields are hashable and have simple equality "
                    "semantics. (Note: arrays cannot be passed as metadata fields!)") from e
        return self._children == other._children

    def __hash__(self):
        # Node data is left out: equal treedefs still hash equal, and
        # unhashable node data does not break hashing. Kept: ``jit`` hashes the
        # treedef of its arguments on every call.
        h = self._hash
        if h is None:
            h = self._hash = hash((id(self._kind), self._children))
        return h

    def __repr__(self):
        return f"PyTreeDef({self._show()})"

    def _show(self) -> str:
        if self._kind is None:
            return "*"
        return self._kind.show(self._data, [c._show() for c in self._children])


_LEAF = PyTreeDef(None)  # every leaf shares one (immutable) treedef
_NAMEDTUPLE = _NamedTupleKind()

# ---------------------------------------------------------------------------
# 4. The registry, and the walk that flattens a tree.
# ---------------------------------------------------------------------------

# Iterators are leaves, but flattening one is almost always a mistake
# (a generator where a list was meant): JAX warns about it.
_ITERATOR_TYPES = (types.GeneratorType, zip, map, filter, enumerate, reversed,
                   type(iter([])), type(iter(set())), type(iter(())),
                   type(iter({})), type(iter({}.values())), type(iter({}.items())),
                   type({}.values()))


def _warn_if_iterator(x):
    if isinstance(x, _ITERATOR_TYPES):
        warnings.warn(
            f"Python iterable type '{type(x).__name__}' is treated as a leaf in PyTree. "
            "Use is_leaf to suppress this warning if you want this behavior. In a future "
            "version of JAX, this will become an error.", DeprecationWarning, stacklevel=4)


def _args(path, x) -> tuple:
    """What ``is_leaf`` is called with: ``(x,)``, or ``(key_path, x)`` when paths are on."""
    return (x,) if path is None else (tuple(path), x)


def _says_leaf(is_leaf, *args) -> bool:
    answer = is_leaf(*args)
    if answer is None:  # tolerated, as in JAX: "not a leaf"
        return False
    if not isinstance(answer, bool):
        raise ValueError(f"is_leaf predicate returned a non-boolean value {answer!r}; "
                         "expected a boolean")
    return answer


class PyTreeRegistry:
    """Which Python types are pytree nodes, and how each comes apart.

    Lookup is by *exact* type: a subclass of ``list`` is a leaf unless it is
    registered itself. Namedtuples are the exception: any tuple with
    ``_fields`` is one.
    """

    def __init__(self, enable_none=True, enable_tuple=True, enable_namedtuple=True,
                 enable_list=True, enable_dict=True):
        self._kinds: dict[type, _NodeKind] = {}
        self._namedtuples = enable_namedtuple
        for on, kind in [(enable_none, _NONE), (enable_tuple, _TUPLE),
                         (enable_list, _LIST), (enable_dict, _DICT)]:
            if on:
                self._kinds[kind.type] = kind

    def _add(self, typ, kind: _NodeKind, what: str = ""):
        if typ in self._kinds:
            raise ValueError(f"Duplicate custom {what}PyTreeDef type registration for {typ!r}.")
        self._kinds[typ] = kind

    def register_node(self, type, to_iterable, from_iterable, to_iterable_with_keys=None):
        self._add(type, _CustomKind(type, to_iterable, from_iterable, to_iterable_with_keys))

    def register_dataclass_node(self, type, data_fields, meta_fields, /):
        self._add(type, _DataclassKind(type, data_fields, meta_fields), "dataclass ")

    def is_node(self, type) -> bool:
        return type in self._kinds or (
            self._namedtuples and issubclass(type, tuple) and hasattr(type, "_fields"))

    def kind_of(self, x) -> _NodeKind | None:
        """The node kind of ``x``, or ``None`` when ``x`` is a leaf."""
        kind = self._kinds.get(type(x))
        if kind is None and self._namedtuples and _is_namedtuple(x):
            return _NAMEDTUPLE
        return kind

    def flatten(self, tree, leaf_predicate=None) -> tuple[list, PyTreeDef]:
        leaves: list = []
        return leaves, self._flatten(tree, leaf_predicate, leaves, None)

    def flatten_with_path(self, tree, leaf_predicate=None):
        """Like :meth:`flatten`, but each leaf comes as ``(key_path, leaf)`` and
        ``leaf_predicate`` is called as ``leaf_predicate(key_path, x)``."""
        leaves: list = []
        return leaves, self._flatten(tree, leaf_predicate, leaves, [])

    def _flatten(self, x, is_leaf, leaves: list, path: list | None) -> PyTreeDef:
        """Append the leaves of ``x`` to ``leaves``; return its structure.
        ``path`` is ``None``, or the key path to ``x`` (then leaves come with theirs)."""
        if is_leaf is not None and _says_leaf(is_leaf, *_args(path, x)):
            kind = None
        else:
            kind = self.kind_of(x)
            if kind is None:
                _warn_if_iterator(x)
        if kind is None:
            leaves.append(x if path is None else (tuple(path), x))
            return _LEAF
        if path is None:
            children, data = kind.flatten(x)
            subtrees = [self._flatten(c, is_leaf, leaves, None) for c in children]
        else:
            pairs, data = kind.flatten_with_keys(x)
            subtrees = []
            for key, child in pairs:
                path.append(key)
                subtrees.append(self._flatten(child, is_leaf, leaves, path))
                path.pop()
        return PyTreeDef(kind, data, subtrees)

    def flatten_one_level(self, tree):
        """``(children, node_data)`` of one node, or ``None`` for a leaf."""
        kind = self.kind_of(tree)
        return None if kind is None else kind.flatten(tree)

    def flatten_one_level_with_keys(self, tree):
        kind = self.kind_of(tree)
        return None if kind is None else kind.flatten_with_keys(tree)


_NONE, _TUPLE, _LIST, _DICT = _NoneKind(), _SequenceKind(tuple), _SequenceKind(list), _DictKind()

default_registry = PyTreeRegistry()

# ---------------------------------------------------------------------------
# 5. The public functions.
# ---------------------------------------------------------------------------


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list, PyTreeDef]:
    """Alias of :func:`minijax.tree.flatten`: ``(leaves, treedef)``."""
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Alias of :func:`minijax.tree.unflatten`."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """Alias of :func:`minijax.tree.leaves`."""
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """Alias of :func:`minijax.tree.structure`."""
    return default_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have these structures."""
    return PyTreeDef(_TUPLE, None, list(treedefs))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a structure with a single node: a leaf, ``None`` or ``()``."""
    return treedef.num_nodes == 1


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """True only for ``PyTreeDef(*)`` (not exported by JAX either)."""
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True when every element of ``iterable`` is a leaf."""
    items = list(iterable)
    if is_leaf is None:
        return all(default_registry.kind_of(x) is None for x in items)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """True when ``typ`` is a registered node type (or a namedtuple type)."""
    return default_registry.is_node(typ)


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """``(children, node_data)`` of the root node of ``tree``."""
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any):
    """``([(key, child), ...], node_data)`` of the root node of ``tree``."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Alias of :func:`minijax.tree.map`: ``f`` applied leaf by leaf.

    ``tree`` decides the structure; every tree in ``rest`` must have it as a
    prefix (a leaf of ``tree`` may face a whole subtree there).
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    all_leaves_ = [leaves] + _flatten_rest(treedef, tree, rest, is_leaf, "tree_map tree")
    return treedef.unflatten(f(*xs) for xs in zip(*all_leaves_))


def _flatten_rest(treedef, tree, rest, is_leaf, name) -> list[list]:
    """``treedef.flatten_up_to`` each of ``rest``; on a mismatch, raise an error
    that names the key path where the trees first differ."""
    out = []
    for other in rest:
        try:
            out.append(treedef.flatten_up_to(other))
        except Exception as e:
            err = next(_prefix_error((), tree, other, is_leaf), None)
            raise (err(name) if err is not None else e) from None
    return out


def tree_reduce(function: Callable[[T, Any], T], tree: Any, initializer: Any = ...,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Alias of :func:`minijax.tree.reduce`: ``functools.reduce`` over the leaves."""
    leaves = tree_leaves(tree, is_leaf=is_leaf)
    if initializer is ...:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def _parallel_reduce(seq: list, operation: Callable, identity: Any = ...):
    if not seq:
        if identity is ...:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(seq) == 1:
        return seq[0]
    half = len(seq) // 2
    return operation(_parallel_reduce(seq[:half], operation, identity),
                     _parallel_reduce(seq[half:], operation, identity))


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *, identity: Any = ...,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Alias of :func:`minijax.tree.reduce_associative`: a balanced reduction."""
    return _parallel_reduce(tree_leaves(tree, is_leaf=is_leaf), operation, identity)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Alias of :func:`minijax.tree.all`: ``all()`` over the leaves."""
    return all(tree_leaves(tree, is_leaf=is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Alias of :func:`minijax.tree.transpose`: turn an outer tree of inner
    trees into an inner tree of outer trees (a list of pairs -> a pair of lists)."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_inner, n_outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_inner * n_outer:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef.compose(inner_treedef)}")
    rows = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in zip(*rows))


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of ``prefix_tree``, each repeated once per leaf of the
    subtree of ``full_tree`` it faces (how ``vmap`` spreads ``in_axes``)."""
    result: list = []
    add = lambda x, subtree: result.extend([x] * tree_structure(subtree).num_leaves)  # noqa: E731
    try:
        tree_map(add, prefix_tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(prefix_tree, full_tree)
        raise e("broadcast_prefix prefix_tree") from None
    return result


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Alias of :func:`minijax.tree.broadcast`."""
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


def _path_predicate(is_leaf, is_leaf_takes_path):
    if is_leaf is None or is_leaf_takes_path:
        return is_leaf
    return lambda _, x: is_leaf(x)


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False):
    """Alias of :func:`minijax.tree.flatten_with_path`: ``([(key_path, leaf)], treedef)``."""
    return default_registry.flatten_with_path(tree, _path_predicate(is_leaf, is_leaf_takes_path))


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """Alias of :func:`minijax.tree.leaves_with_path`."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Alias of :func:`minijax.tree.map_with_path`: ``f(key_path, leaf, *others)``."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    columns = list(zip(*path_leaves)) or [(), ()]
    plain_is_leaf = None if is_leaf_takes_path else is_leaf
    columns += _flatten_rest(treedef, tree, rest, plain_is_leaf, "tree_map_with_path tree")
    return treedef.unflatten(f(*xs) for xs in zip(*columns))


# ---------------------------------------------------------------------------
# 6. Registering custom nodes.
# ---------------------------------------------------------------------------


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make ``nodetype`` a pytree node.

    ``flatten_func(x) -> (children, aux_data)``: the children are flattened
    further; ``aux_data`` (hashable, static) is kept in the treedef.
    ``unflatten_func(aux_data, children) -> x`` rebuilds the node.
    """
    default_registry.register_node(nodetype, flatten_func, unflatten_func,
                                   flatten_with_keys_func)


def register_pytree_node_class(cls):
    """Class decorator: register ``cls`` with its ``tree_flatten`` method and
    ``tree_unflatten`` classmethod."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Like :func:`register_pytree_node`, but the flatten function returns
    ``([(key, child), ...], aux_data)`` so that key paths name the children."""
    if not flatten_func:
        def flatten_func(tree):
            key_children, aux = flatten_with_keys(tree)
            return [c for _, c in key_children], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls):
    """Class decorator: register with ``tree_flatten_with_keys`` (and
    ``tree_flatten`` if present) and the ``tree_unflatten`` classmethod."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten)
    return cls


def _dataclass_fields(nodetype) -> tuple[list, list]:
    """Data and meta fields of a dataclass: fields marked ``static`` are meta."""
    fields = dataclasses.fields(nodetype)
    data = [f.name for f in fields if not f.metadata.get("static", False)]
    meta = [f.name for f in fields if f.metadata.get("static", False)]
    return data, meta


def register_dataclass(nodetype, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()):
    """Register a dataclass-like type: ``data_fields`` are children (leaves or
    subtrees), ``meta_fields`` are static node data. For a dataclass both
    may be left out: fields are data unless ``field(metadata=dict(static=True))``.
    Usable as a decorator."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                            f"specified when either is specified. Got {data_fields=} "
                            f"{meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass. Got {nodetype=}.")
        data_fields, meta_fields = _dataclass_fields(nodetype)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. Overlapping fields:"
                         f" {overlap}.")
    default_registry.register_dataclass_node(nodetype, list(data_fields), list(meta_fields))
    return nodetype


def _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    given = {*meta_fields, *data_fields}
    if given == init_fields:
        return
    msg = ("data_fields and meta_fields must include all dataclass fields with"
           " ``init=True`` and only them.")
    if missing := init_fields - given:
        msg += f" Missing fields: {missing}. Add them to drop_fields to suppress this error."
    if unexpected := given - init_fields:
        msg += f" Unexpected fields: {unexpected}."
    raise ValueError(msg)


def register_static(cls):
    """Register ``cls`` as a node with no children: instances are static
    (kept in the treedef, so they must be hashable). Usable as a decorator."""
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


# OrderedDict keeps insertion order (and it is part of the structure);
# defaultdict sorts its keys like dict and keeps its default_factory.
register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), x[k]) for k in x), tuple(x)),
    lambda keys, values: collections.OrderedDict(zip(keys, values)))


def _flatten_defaultdict_with_keys(d):
    keys = _sorted_keys(d)
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _flatten_defaultdict_with_keys,
    lambda data, values: collections.defaultdict(data[0], zip(data[1], values)))


class _HashableCallableShim:
    """Wraps a ``functools.partial`` used as a :class:`Partial`'s function, so
    that ``functools.partial`` does not merge the two argument lists."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: the bound arguments are its
    children (leaves, so transformations see them) and the function is static
    node data. So ``Partial(f, x)`` can be passed into a transformed function.
    """

    def __new__(klass, func, *args, **kw):
        if isinstance(func, functools.partial):
            original = func
            func = _HashableCallableShim(original)
            out = super().__new__(klass, func, *args, **kw)
            func.func, func.args, func.keywords = original.func, original.args, original.keywords
            return out
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]))

# ---------------------------------------------------------------------------
# 7. Explaining why two trees differ. ``tree_map(f, a, b)`` fails inside
#    ``flatten_up_to``; these walk both trees and describe the first place
#    where ``a`` is not a prefix of ``b``, naming it by its key path.
# ---------------------------------------------------------------------------


def _child_keys(tree) -> tuple:
    return tuple(k for k, _ in flatten_one_level_with_keys(tree)[0])


def prefix_errors(prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
                  ) -> list[Callable[[str], ValueError]]:
    """Every place where ``prefix_tree`` is not a prefix of ``full_tree``, each
    as ``name -> ValueError`` (``name`` says which argument the tree was)."""
    return list(_prefix_error((), prefix_tree, full_tree, is_leaf))


def _prefix_error(key_path, prefix_tree, full_tree, is_leaf=None):
    if treedef_is_strict_leaf(tree_structure(prefix_tree, is_leaf=is_leaf)):
        return  # a leaf is a prefix of anything
    where = lambda name: f"    {name}{keystr(key_path)}\n"  # noqa: E731
    head = "pytree structure error: different {} at key path\n"
    if type(prefix_tree) != type(full_tree):
        yield lambda name: ValueError(
            head.format("types") + where(name) +
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix_tree)}\n"
            "but at the same key path the full pytree has a subtree of different type\n"
            f"    {type(full_tree)}.")
        return
    p_children, p_meta = flatten_one_level(prefix_tree)
    f_children, f_meta = flatten_one_level(full_tree)
    p_children, f_children = tuple(p_children), tuple(f_children)
    p_keys, f_keys = _child_keys(prefix_tree), _child_keys(full_tree)
    if isinstance(prefix_tree, (list, tuple)):
        if len(prefix_tree) != len(full_tree):
            ty = type(prefix_tree).__name__
            yield lambda name: ValueError(
                head.format(f"lengths of {ty}") + where(name) +
                f"At that key path, the prefix pytree {name} has a subtree of type {ty} of "
                f"length {len(prefix_tree)}, but the full pytree has a subtree of the same "
                f"type but of length {len(full_tree)}.")
            return
    elif len(p_children) != len(f_children):
        yield lambda name: _children_count_error(name, where(name), prefix_tree, p_keys, f_keys)
        return
    if p_meta != f_meta:
        yield lambda name: _metadata_error(name, where(name), prefix_tree, p_meta, f_meta)
        return
    for k, t1, t2 in zip(p_keys, p_children, f_children):
        yield from _prefix_error((*key_path, k), t1, t2, is_leaf)


def _children_count_error(name, where, prefix_tree, p_keys, f_keys):
    show = lambda keys: " ".join(str(_entry_value(k)) for k in keys)  # noqa: E731
    try:
        diff = set(p_keys).symmetric_difference(set(f_keys))
    except TypeError:
        diff = None
    return ValueError(
        "pytree structure error: different numbers of pytree children at key path\n" + where +
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix_tree)}\n"
        f"with {len(p_keys)} child keys\n    {show(p_keys)}\n"
        "but at the same key path the full pytree has a subtree of the same type but with "
        f"{len(f_keys)} child keys\n    {show(f_keys)}\n"
        + ("" if diff is None else f"so the symmetric difference on key sets is\n    {show(diff)}"))


def _metadata_error(name, where, prefix_tree, p_meta, f_meta):
    p_str, f_str = str(p_meta), str(f_meta)
    diff = textwrap.indent("\n".join(difflib.ndiff(p_str.splitlines(), f_str.splitlines())),
                           prefix="    ")
    return ValueError(
        "pytree structure error: different pytree metadata at key path\n" + where +
        f"At that key path, the prefix pytree {name} has a subtree of type\n"
        f"    {type(prefix_tree)}\n"
        f"with metadata\n    {p_str}\n"
        "but at the same key path the full pytree has a subtree of the same type but with "
        f"metadata\n    {f_str}\n"
        f"so the diff in the metadata at these pytree nodes is\n{diff}")


def equality_errors(tree1: Any, tree2: Any, is_leaf: Callable[[Any], bool] | None = None):
    """Describe how two trees differ: yields ``(key_path, thing1, thing2,
    explanation)`` (used for "must have the same pytree structure" errors)."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def equality_errors_pytreedef(tree1: PyTreeDef, tree2: PyTreeDef):
    """Like :func:`equality_errors`, for two treedefs."""
    leaf = type("LeafMeta", (type,), dict(__repr__=lambda _: "pytree leaf"))("Leaf", (), {})()
    return equality_errors(tree1.unflatten([leaf] * tree1.num_leaves),
                           tree2.unflatten([leaf] * tree2.num_leaves))


def _equality_errors(path, t1, t2, is_leaf):
    if (treedef_is_strict_leaf(tree_structure(t1, is_leaf=is_leaf))
            and treedef_is_strict_leaf(tree_structure(t2, is_leaf=is_leaf))):
        return
    if type(t1) != type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    c1, m1 = flatten_one_level(t1)
    c2, m2 = flatten_one_level(t2)
    c1, c2 = tuple(c1), tuple(c2)
    k1, k2 = _child_keys(t1), _child_keys(t2)
    if len(c1) != len(c2):
        try:
            diff = " ".join(repr(_entry_value(k)) for k in set(k1).symmetric_difference(k2))
        except TypeError:
            diff = ""
        plural = lambda n: "ren" if n > 1 else ""  # noqa: E731
        yield (path, f"{type(t1)} with {len(c1)} child{plural(len(c1))}",
               f"{type(t2)} with {len(c2)} child{plural(len(c2))}",
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if m1 != m2:
        yield (path, f"{type(t1)} with pytree metadata {m1}",
               f"{type(t2)} with pytree metadata {m2}", "the pytree node metadata does not match")
        return
    for k, a, b in zip(k1, c1, c2):
        yield from _equality_errors((*path, k), a, b, is_leaf)


# Every transformation of chapters 02, 04 and 05 flattens its arguments through
# api_util's hook: from now on they all accept any pytree.
api_util.register_tree_impl(tree_flatten, tree_unflatten)
