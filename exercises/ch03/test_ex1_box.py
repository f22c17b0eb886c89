"""Check of exercise 1 of chapter 03: the pytree node ``Box`` (``ex1_box.py``)."""
import numpy as np

from minijax import tree, tree_util
from minijax.interpreters.ad import jacfwd, jvp
from _load import load

ex = load(__file__, "ex1_box")

lo, hi = np.float32([0.0, 1.0, -1.0]), np.float32([2.0, 1.5, 3.0])


def test_flatten_and_unflatten():
    box = ex.Box(lo, hi, "unit")
    leaves, treedef = tree_util.tree_flatten(box)
    assert len(leaves) == 2 and leaves[0] is lo and leaves[1] is hi
    again = tree_util.tree_unflatten(treedef, ["a", "b"])
    assert isinstance(again, ex.Box) and (again.lo, again.hi, again.name) == ("a", "b", "unit")


def test_treedef_prints_as_jax():
    box = ex.Box(lo, hi, "unit")
    # from JAX 0.10.2, with Box registered the same way
    assert str(tree_util.tree_structure(box)) == "PyTreeDef(CustomNode(Box[unit], [*, *]))"
    assert str(tree_util.tree_structure({"a": box, "c": [1, None]})) == \
        "PyTreeDef({'a': CustomNode(Box[unit], [*, *]), 'c': [*, None]})"
    assert tree_util.tree_structure(box) != tree_util.tree_structure(ex.Box(lo, hi, "other"))


def test_key_paths():
    paths = [tree_util.keystr(k) for k, _ in
             tree_util.tree_leaves_with_path({"a": ex.Box(lo, hi), "c": [1, None]})]
    assert paths == ["['a'].lo", "['a'].hi", "['c'][0]"]  # from JAX 0.10.2


def test_tree_map_keeps_the_name():
    out = tree.map(lambda x: 2 * x, ex.Box(lo, hi, "unit"))
    assert isinstance(out, ex.Box) and out.name == "unit"
    np.testing.assert_array_equal(out.hi, 2 * hi)
    both = tree.map(lambda a, b: a - b, ex.Box(hi, hi, "d"), ex.Box(lo, lo, "d"))
    np.testing.assert_array_equal(both.lo, hi - lo)


def test_jvp_through_a_box():
    box = ex.Box(lo, hi, "unit")
    t = ex.Box(np.zeros(3, np.float32), np.float32([1.0, 0.0, 0.0]), "unit")
    v, dv = jvp(ex.volume, (box,), (t,))
    sides = hi - lo
    np.testing.assert_allclose(float(v), np.prod(sides), rtol=1e-6)
    np.testing.assert_allclose(float(dv), sides[1] * sides[2], rtol=1e-6)   # d vol / d hi[0]


def test_jacfwd_gives_a_box():
    g = jacfwd(ex.volume)(ex.Box(lo, hi, "unit"))
    assert isinstance(g, ex.Box) and g.name == "unit"
    sides = np.float64(hi - lo)
    grad_hi = np.array([np.prod(np.delete(sides, i)) for i in range(3)])
    np.testing.assert_allclose(np.asarray(g.hi), grad_hi, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g.lo), -grad_hi, rtol=1e-6)
