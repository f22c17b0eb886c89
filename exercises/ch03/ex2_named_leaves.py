"""Exercise 2 of chapter 03: leaves by name, with key paths (a checkpoint's format).

A checkpoint file stores parameters by *name*, not by position: a name
survives a change in the order of dict keys, and tells a human what each
array is. Key paths give every leaf such a name. Write two functions:

``named_leaves(tree) -> dict``: ``{name: leaf}`` for every leaf of
``tree``, in ``tree_flatten``'s order, where ``name`` joins the steps of the
leaf's key path with ``/``, each step written simply (a dict key without
quotes, a list index without brackets, an attribute without its dot)::

    {'dense': [Layer(w, b)], 'out': Point(x, None)}
    -> {'dense/0/w': w, 'dense/0/b': b, 'out/x': x}

``load_named(template, named) -> tree``: the inverse, guided by a
``template`` of the right structure (the model as initialised): a tree like
``template`` whose leaf at each name is ``named[name]``. Three errors, each
naming the culprit:

- ``KeyError`` when a name of the template is missing from ``named``;
- ``ValueError`` when an array's shape differs from the template leaf's
  (``np.shape`` of each);
- ``ValueError`` when ``named`` holds names the template does not have.

Check it: ``make exercise-ch03`` (or ``pytest exercises/ch03/test_ex2_named_leaves.py``).

Hint: ``minijax.tree_util`` has ``tree_flatten_with_path``, ``keystr`` (read
its ``simple`` and ``separator`` arguments) and ``tree_unflatten``.
"""


def named_leaves(tree) -> dict:
    """``{'a/0/w': leaf, ...}``: every leaf of ``tree`` under its key path's name."""
    raise NotImplementedError("exercise 2 of chapter 03: named_leaves")


def load_named(template, named: dict):
    """A tree shaped like ``template`` with the leaves of ``named``, by name."""
    raise NotImplementedError("exercise 2 of chapter 03: load_named")
