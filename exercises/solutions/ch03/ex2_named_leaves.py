"""Exercise 2 of chapter 03, a solution: leaves by name."""
import numpy as np

from minijax import tree_util


def _name(path) -> str:
    return tree_util.keystr(path, simple=True, separator="/")


def named_leaves(tree) -> dict:
    """``{'a/0/w': leaf, ...}``: every leaf of ``tree`` under its key path's name."""
    return {_name(path): leaf for path, leaf in tree_util.tree_leaves_with_path(tree)}


def load_named(template, named: dict):
    """A tree shaped like ``template`` with the leaves of ``named``, by name."""
    with_paths, treedef = tree_util.tree_flatten_with_path(template)
    leaves = []
    for path, old in with_paths:
        name = _name(path)
        if name not in named:
            raise KeyError(f"no leaf named {name!r}")
        new = named[name]
        if np.shape(new) != np.shape(old):
            raise ValueError(f"{name}: shape {np.shape(new)}, expected {np.shape(old)}")
        leaves.append(new)
    extra = set(named) - {_name(path) for path, _ in with_paths}
    if extra:
        raise ValueError(f"unexpected names: {sorted(extra)}")
    return tree_util.tree_unflatten(treedef, leaves)
