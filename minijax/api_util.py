"""Chapter 02 — how transformations see their arguments: as flat lists of arrays.

A transformation (``jvp``, ``vmap``, ``make_jaxpr``, ``jit``) works on a flat
list of arrays, but users pass tuples, lists and dicts of them. The two
functions here convert between the two views:

- ``tree_flatten(tree) -> (leaves, treedef)``
- ``tree_unflatten(treedef, leaves) -> tree``

Chapter 02 needs them before chapter 03 has built pytrees, so this module
starts with a small version that knows tuples, lists, dicts and ``None``.
Chapter 03 (:mod:`minijax.tree_util`) *registers* the real implementation
with :func:`register_tree_impl`, and from then on every transformation of
chapters 02, 04 and 05 accepts any pytree (namedtuples, dataclasses, custom
nodes) without changing a line.
"""
from __future__ import annotations

from typing import Any, Callable


class _SimpleTreeDef:
    """The structure of a tree of tuples, lists, dicts and None, with leaves as ``*``."""
    __slots__ = ("kind", "meta", "children")

    def __init__(self, kind, meta, children):
        self.kind, self.meta, self.children = kind, meta, tuple(children)

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, _SimpleTreeDef) and self.kind == other.kind
                and self.meta == other.meta and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, self.meta, self.children))

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "dict":
            inner = ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children))
            return "{" + inner + "}"
        return f"({inner}{',' if len(self.children) == 1 else ''})" if self.kind == "tuple" \
            else f"[{inner}]"


def _simple_flatten(tree) -> tuple[list, _SimpleTreeDef]:
    leaves: list = []

    def rec(x):
        if x is None:
            return _SimpleTreeDef("none", None, ())
        if type(x) in (tuple, list):
            return _SimpleTreeDef(type(x).__name__, None, [rec(c) for c in x])
        if type(x) is dict:
            keys = tuple(sorted(x))
            return _SimpleTreeDef("dict", keys, [rec(x[k]) for k in keys])
        leaves.append(x)
        return _SimpleTreeDef("leaf", None, ())

    treedef = rec(tree)
    return leaves, treedef


def _simple_unflatten(treedef: _SimpleTreeDef, leaves) -> Any:
    it = iter(leaves)

    def rec(td):
        if td.kind == "leaf":
            return next(it)
        if td.kind == "none":
            return None
        kids = [rec(c) for c in td.children]
        if td.kind == "dict":
            return dict(zip(td.meta, kids))
        return tuple(kids) if td.kind == "tuple" else kids

    return rec(treedef)


_impl: dict[str, Callable] = {"flatten": _simple_flatten, "unflatten": _simple_unflatten}


def register_tree_impl(flatten: Callable, unflatten: Callable) -> None:
    """Chapter 03 calls this to make every transformation understand full pytrees."""
    _impl["flatten"], _impl["unflatten"] = flatten, unflatten


def tree_flatten(tree):
    """``(leaves, treedef)`` of ``tree`` with whatever pytree support is installed."""
    return _impl["flatten"](tree)


def tree_unflatten(treedef, leaves):
    """The inverse of :func:`tree_flatten`."""
    return _impl["unflatten"](treedef, leaves)
