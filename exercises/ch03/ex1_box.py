"""Exercise 1 of chapter 03: a custom pytree node, ``Box``.

``Box(lo, hi, name)`` is an axis-aligned box: two corners (arrays, the
*children*) and a label (a string, *static* data kept in the treedef). Until
it is registered it is a leaf, and a transformation cannot see the arrays
inside it. Register it, with keys, so that:

- ``tree_leaves(Box(lo, hi, "unit"))`` is ``[lo, hi]``, in that order;
- its treedef prints as JAX prints it: ``PyTreeDef(CustomNode(Box[unit], [*, *]))``
  (the node data is the name), and two boxes of different names have
  different treedefs;
- key paths name the corners as attributes: ``keystr`` gives ``.lo`` and
  ``.hi`` (``GetAttrKey``);
- ``tree_map``, ``jvp`` and ``jacfwd`` accept boxes and give boxes back, with
  the name kept: the tangent of a ``Box`` is a ``Box``.

Write ``_box_flatten_with_keys(box) -> (((key, child), ...), aux_data)`` and
``_box_unflatten(aux_data, children) -> Box``; the module registers them
with ``tree_util.register_pytree_with_keys``.

Check it: ``make exercise-ch03`` (or ``pytest exercises/ch03/test_ex1_box.py``).

Hint: section 5 of the chapter's notebook (``Params``); the key entries are in
``minijax.tree_util`` (``GetAttrKey``).
"""
from minijax import tree_util


class Box:
    """An axis-aligned box with corners ``lo`` and ``hi`` (arrays) and a ``name``."""

    def __init__(self, lo, hi, name="box"):
        self.lo, self.hi, self.name = lo, hi, name

    def __repr__(self):
        return f"Box(lo={self.lo!r}, hi={self.hi!r}, name={self.name!r})"


def volume(box):
    """The product of the box's side lengths."""
    import minijax.numpy as jnp
    return jnp.prod(box.hi - box.lo)


def _box_flatten_with_keys(box):
    raise NotImplementedError("exercise 1 of chapter 03: flatten a Box, with keys")


def _box_unflatten(aux_data, children):
    raise NotImplementedError("exercise 1 of chapter 03: rebuild a Box")


tree_util.register_pytree_with_keys(Box, _box_flatten_with_keys, _box_unflatten)
