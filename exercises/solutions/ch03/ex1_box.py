"""Exercise 1 of chapter 03, a solution: the pytree node ``Box``."""
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
    children = ((tree_util.GetAttrKey("lo"), box.lo), (tree_util.GetAttrKey("hi"), box.hi))
    return children, box.name


def _box_unflatten(aux_data, children):
    lo, hi = children
    return Box(lo, hi, aux_data)


tree_util.register_pytree_with_keys(Box, _box_flatten_with_keys, _box_unflatten)
