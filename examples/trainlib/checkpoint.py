"""Saving a pytree of arrays to an ``.npz`` file, and reading it back.

Model parameters are a pytree: ``stax`` gives a list with one entry per
layer, each a tuple of arrays (``(W, b)``) or an empty tuple (a ``Relu``).
NumPy's ``.npz`` format (a zip of ``.npy`` files) stores named arrays with
their dtypes and shapes, but not the tree around them. So we store two things:

- every leaf under the name of its path in the tree (``"0/W"`` would be
  ``params[0]["W"]``; ``"2/1"`` is ``params[2][1]``), so that
  ``np.load(path).files`` reads like the model;
- the tree's *structure* as a small JSON document (``"__treedef__"``), a
  nested description of its containers whose leaves are the array names.

Only the plain containers (``dict`` with string or int keys, ``list``,
``tuple``, ``None``) are understood: they are what ``stax`` and the
optimizers' ``get_params`` produce, and JSON can describe them without
pickling code. Anything else is a ``TypeError`` that says so. Leaves are
anything ``np.asarray`` accepts (minijax or JAX arrays, NumPy arrays, Python
scalars); they come back as NumPy arrays of the same dtype and shape (a
Python scalar comes back as a 0-d array), ready for ``device_put``.

Nothing here imports minijax or JAX: the file is the same whichever wrote it.
"""
from __future__ import annotations

import json
import os

import numpy as np

__all__ = ["save_pytree", "load_pytree"]

#: The archive entry that holds the JSON description of the tree.
TREEDEF_KEY = "__treedef__"


def save_pytree(path, tree) -> str:
    """Write ``tree`` (a pytree of arrays in plain containers) to ``path`` (``.npz``).

    Returns the path written (NumPy adds ``.npz`` when it is missing).
    """
    arrays: dict[str, np.ndarray] = {}
    dtypes: dict[str, str] = {}
    structure = _describe(tree, (), arrays, dtypes)
    treedef = json.dumps({"tree": structure, "dtypes": dtypes})
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    np.savez(path, **arrays, **{TREEDEF_KEY: np.array(treedef)})
    return path


def load_pytree(path):
    """Read a pytree written by :func:`save_pytree`: the same containers, NumPy leaves."""
    with np.load(os.fspath(path), allow_pickle=False) as archive:
        if TREEDEF_KEY not in archive.files:
            raise ValueError(f"{path} was not written by save_pytree: it has no "
                             f"{TREEDEF_KEY!r} entry (entries: {archive.files})")
        treedef = json.loads(str(archive[TREEDEF_KEY]))
        leaves = {name: _restore_dtype(archive[name], dtype)
                  for name, dtype in treedef["dtypes"].items()}
    return _rebuild(treedef["tree"], leaves)


# --- the structure, as JSON ----------------------------------------------------------------
# A node is described by a one-entry dict: {"leaf": name}, {"none": null},
# {"list": [children]}, {"tuple": [children]} or {"dict": [[key, child], ...]}
# (a list of pairs: JSON objects only have string keys, and keep no key types).

def _describe(node, path: tuple, arrays: dict, dtypes: dict):
    if node is None:
        return {"none": None}
    if type(node) in (list, tuple):
        kind = type(node).__name__
        return {kind: [_describe(child, path + (str(i),), arrays, dtypes)
                       for i, child in enumerate(node)]}
    if type(node) is dict:
        for key in node:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"save_pytree: dict keys must be str or int, got {key!r} "
                                f"at {_name(path) or 'the root'}")
        # sorted, as tree_util flattens dicts: the file does not depend on insertion order
        return {"dict": [[key, _describe(node[key], path + (str(key),), arrays, dtypes)]
                         for key in sorted(node, key=lambda k: (isinstance(k, str), k))]}
    if isinstance(node, (list, tuple, dict)) or hasattr(node, "_fields"):
        raise TypeError(f"save_pytree: {type(node).__name__} at {_name(path) or 'the root'} "
                        "is a container it cannot describe (only dict, list, tuple and "
                        "None); convert it first, e.g. to a dict or tuple")
    return {"leaf": _add_leaf(node, path, arrays, dtypes)}


def _add_leaf(leaf, path: tuple, arrays: dict, dtypes: dict) -> str:
    try:
        array = np.asarray(leaf)
    except Exception as e:  # a typed PRNG key, say: save jax.random.key_data(key) instead
        raise TypeError(f"save_pytree: the leaf at {_name(path) or 'the root'} "
                        f"({type(leaf).__name__}) is not an array: {e}") from e
    if array.dtype == object:
        raise TypeError(f"save_pytree: the leaf at {_name(path) or 'the root'} "
                        f"({type(leaf).__name__}) is not an array of numbers")
    name = _name(path) or "leaf"
    if name in arrays or name == TREEDEF_KEY:
        raise ValueError(f"save_pytree: two leaves would be stored as {name!r}")
    dtypes[name] = array.dtype.name
    if array.dtype.kind == "V":  # bfloat16 and friends (ml_dtypes): store the bits
        array = array.view(f"u{array.dtype.itemsize}")
    arrays[name] = array
    return name


def _name(path: tuple) -> str:
    return "/".join(path)


def _restore_dtype(array: np.ndarray, dtype_name: str) -> np.ndarray:
    if array.dtype.name == dtype_name:
        return array
    try:
        dtype = np.dtype(dtype_name)
    except TypeError:
        import ml_dtypes  # the narrow floats (bfloat16, float8_*) live there
        dtype = np.dtype(getattr(ml_dtypes, dtype_name))
    return array.view(dtype)


def _rebuild(description: dict, leaves: dict):
    (kind, body), = description.items()
    if kind == "leaf":
        return leaves[body]
    if kind == "none":
        return None
    if kind == "list":
        return [_rebuild(child, leaves) for child in body]
    if kind == "tuple":
        return tuple(_rebuild(child, leaves) for child in body)
    if kind == "dict":
        return {key: _rebuild(child, leaves) for key, child in body}
    raise ValueError(f"load_pytree: unknown node kind {kind!r}")
