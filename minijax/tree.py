"""Chapter 03 — ``minijax.tree``: the short names for the pytree utilities.

``minijax.tree.map(f, tree)`` is ``minijax.tree_util.tree_map(f, tree)``, and
so on; the work is done in :mod:`minijax.tree_util`. (This module shadows the
builtins ``all`` and ``map`` on purpose, as ``jax.tree`` does.)
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from minijax import tree_util
from minijax.tree_util import PyTreeDef


def all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """``all()`` over the leaves of ``tree``."""
    return tree_util.tree_all(tree, is_leaf=is_leaf)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
            ) -> tuple[list, PyTreeDef]:
    """``(leaves, treedef)``: the leaves left to right, and the structure."""
    return tree_util.tree_flatten(tree, is_leaf)


def leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of ``tree``, left to right (dicts in sorted key order)."""
    return tree_util.tree_leaves(tree, is_leaf)


def map(f: Callable[..., Any], tree: Any, *rest: Any,
        is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """A tree of ``tree``'s structure with ``f(leaf, *matching leaves of rest)``."""
    return tree_util.tree_map(f, tree, *rest, is_leaf=is_leaf)


def reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = ...,
           is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``functools.reduce(function, leaves(tree)[, initializer])``."""
    return tree_util.tree_reduce(function, tree, initializer, is_leaf=is_leaf)


def reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                       identity: Any = ..., is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Reduce the leaves pairwise, as a balanced tree (``operation`` must be associative)."""
    return tree_util.tree_reduce_associative(operation, tree, identity=identity,
                                             is_leaf=is_leaf)


def structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The treedef of ``tree``."""
    return tree_util.tree_structure(tree, is_leaf)


def transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
              pytree_to_transpose: Any) -> Any:
    """Swap the outer and inner levels of a tree of trees."""
    return tree_util.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``treedef`` from its leaves."""
    return tree_util.tree_unflatten(treedef, leaves)


def flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                      is_leaf_takes_path: bool = False):
    """``([(key_path, leaf), ...], treedef)``."""
    return tree_util.tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)


def leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                     is_leaf_takes_path: bool = False) -> list:
    """``[(key_path, leaf), ...]``."""
    return tree_util.tree_leaves_with_path(tree, is_leaf, is_leaf_takes_path)


def map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                  is_leaf: Callable[..., bool] | None = None,
                  is_leaf_takes_path: bool = False) -> Any:
    """Like :func:`map`, with each leaf's key path as ``f``'s first argument."""
    return tree_util.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf,
                                        is_leaf_takes_path=is_leaf_takes_path)


def broadcast(prefix_tree: Any, full_tree: Any,
              is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Repeat each leaf of ``prefix_tree`` over the subtree of ``full_tree`` it faces."""
    return tree_util.tree_broadcast(prefix_tree, full_tree, is_leaf=is_leaf)


def static(**kwargs):
    """``dataclasses.field(...)`` marked static, for :func:`register_dataclass`."""
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
