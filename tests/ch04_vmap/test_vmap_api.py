"""Chapter 04: vmap's API — in_axes/out_axes pytrees, kwargs, axis_size, nesting, errors.

Values are checked against NumPy loops; every error class and message was
printed by JAX 0.10.2 running the same call (# expected values from JAX 0.10.2),
except that JAX's private class ``jax._src.api_util.PytreeLeaf`` is minijax's
``minijax.interpreters.batching.PytreeLeaf``.
"""
import collections
import re

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import errors, lax
from minijax.interpreters import batching
from minijax.interpreters.batching import BatchTracer, vmap

x2, x3 = np.ones(2, np.float32), np.ones(3, np.float32)
Point = collections.namedtuple("Point", "a b")


def add(x, y):
    return x + y


# --- in_axes -----------------------------------------------------------------------------
def test_in_axes_int_negative_and_none():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(vmap(jnp.sum, in_axes=1)(x), x.sum(axis=(0, 2)))
    np.testing.assert_array_equal(vmap(jnp.sum, in_axes=-1)(x), x.sum(axis=(0, 1)))
    y = np.arange(3, dtype=np.float32)
    out = vmap(add, in_axes=(-1, None))(x, y)  # y is shared by the 4 examples
    np.testing.assert_array_equal(out, np.moveaxis(x, -1, 0) + y)


def test_list_in_axes_is_a_tuple():
    out = vmap(add, in_axes=[0, None])(x2, 3.0)  # expected values from JAX 0.10.2
    np.testing.assert_array_equal(out, [4.0, 4.0])


def test_pytree_in_axes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    args = {"a": x, "b": (x.T, 2.0)}
    f = lambda d: d["a"] * d["b"][0] + d["b"][1]
    out = vmap(f, in_axes=({"a": 1, "b": (0, None)},))(args)
    np.testing.assert_array_equal(out, x.T * x.T + 2.0)
    # a leaf of in_axes covers a whole subtree; namedtuples are trees too
    out = vmap(lambda p: p.a - p.b, in_axes=(Point(0, 1),))(Point(x, x.T))
    np.testing.assert_array_equal(out, x - x)
    out = vmap(lambda p, q: p.a + p.b * q, in_axes=(Point(None, 0), 1))(Point(2.0, x.T), x)
    np.testing.assert_array_equal(out, x.T * x.T + 2.0)


def test_keyword_arguments_are_mapped_over_axis_0():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = vmap(add, in_axes=(1,))(x, y=x.T)  # in_axes covers positional args only
    np.testing.assert_array_equal(out, 2 * x.T)
    out = vmap(lambda x, **kw: x * kw["s"], in_axes=None, axis_size=2)(3.0, s=x[:, 0])
    np.testing.assert_array_equal(out, 3.0 * x[:, 0])


def test_axis_size_when_nothing_is_mapped():
    out = vmap(lambda: 1.0, axis_size=3)()  # expected values from JAX 0.10.2
    assert out.shape == (3,) and out.dtype == np.float32 and out.weak_type
    out = vmap(add, in_axes=(None, None), axis_size=3)(x2, 3.0)
    np.testing.assert_array_equal(out, np.full((3, 2), 4.0))


# --- out_axes --------------------------------------------------------------------------
def test_out_axes_pytree_and_unbatched_outputs():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = lambda v: {"same": v, "sum": v.sum(), "const": 1.0, "none": None}
    out = vmap(f, out_axes={"same": 1, "sum": 0, "const": None, "none": 0})(x)
    np.testing.assert_array_equal(out["same"], x.T)
    np.testing.assert_array_equal(out["sum"], x.sum(1))
    assert out["const"] == 1.0 and out["none"] is None  # out_axes=None: left alone
    # expected values from JAX 0.10.2: an unbatched output is broadcast
    out = vmap(lambda v: (v, 2), out_axes=(-1, 0))(x)
    np.testing.assert_array_equal(out[0], x.T)
    assert out[1].shape == (2,) and out[1].dtype == np.int32 and out[1].weak_type


def test_outputs_not_depending_on_inputs_are_broadcast():
    out = vmap(lambda v: np.ones(2, np.float32))(x3)
    np.testing.assert_array_equal(out, np.ones((3, 2)))
    out = vmap(lambda v: np.float64(2))(x2)  # expected values from JAX 0.10.2
    assert out.dtype == np.float32 and not out.weak_type


# --- nesting --------------------------------------------------------------------------------
def test_nested_vmap_in_axes_1_out_axes_1():
    x = np.random.default_rng(0).normal(size=(4, 2, 3)).astype(np.float32)
    g = lambda v: v * jnp.sum(v) - jnp.max(v)
    out = vmap(vmap(g, in_axes=1, out_axes=1), in_axes=1, out_axes=1)(x)
    want = np.empty_like(x)
    for i in range(2):
        for j in range(3):
            v = x[:, i, j]
            want[:, i, j] = v * v.sum() - v.max()
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_nested_vmap_outer_product_and_closure():
    a, b = np.arange(3, dtype=np.float32), np.arange(4, dtype=np.float32)
    out = vmap(lambda u: vmap(lambda v: u * v)(b))(a)
    np.testing.assert_array_equal(out, np.outer(a, b))
    # the inner function closes over the outer tracer: unbatched for the inner vmap
    out = vmap(lambda u: vmap(lambda v: v - u, in_axes=1)(np.ones((2, 4), np.float32)))(a)
    assert out.shape == (3, 4, 2)
    np.testing.assert_array_equal(out, 1 - a[:, None, None] + np.zeros((3, 4, 2)))


def test_vmap_of_a_matrix_vector_product_batches_in_one_dot_general():
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(vmap(lambda v: m @ v)(xs), xs @ m.T)
    np.testing.assert_array_equal(vmap(jnp.dot, in_axes=(None, 0))(m, xs), xs @ m.T)


# --- tracers -------------------------------------------------------------------------------
def test_tracer_looks_like_one_example():
    seen = {}

    def f(v):
        seen["t"] = v
        seen["shape"], seen["repr"] = v.shape, repr(v)
        return v

    vmap(f)(np.ones((3, 2), np.float32))
    assert seen["shape"] == (2,)
    assert seen["repr"] == "VmapTracer(aval=float32[2], batched=float32[3,2])"
    assert isinstance(seen["t"], BatchTracer) and seen["t"].to_concrete_value() is None


def test_bool_of_a_batched_value_names_the_line():
    with pytest.raises(errors.TracerBoolConversionError) as info:
        vmap(lambda v: bool(v > 0))(x3)
    assert re.fullmatch(
        r"Attempted boolean conversion of traced array with shape bool\[\]\.\n"
        r"This BatchTracer with object id \d+ was created on line:\n"
        r"  .*test_vmap_api\.py:\d+:\d+ \(test_bool_of_a_batched_value_names_the_line"
        r"\.<locals>\.<lambda>\)\n"
        r"See https://docs\.jax\.dev/en/latest/errors\.html"
        r"#jax\.errors\.TracerBoolConversionError", str(info.value))


def test_unbatched_values_stay_concrete():
    def f(v, n):
        return v * int(n)  # n is not mapped: a plain value inside
    np.testing.assert_array_equal(vmap(f, in_axes=(0, None))(x3, 2), 2 * x3)


def test_wrapper_metadata():
    def f(x):
        """Doc of f."""
        return x
    g = vmap(f)
    # expected values from JAX 0.10.2
    assert g.__name__ == "f" and g.__wrapped__ is f
    assert g.__doc__ == ("Vectorized version of f. Takes similar arguments as f but with "
                         "additional array axes over which f is mapped.\n\nOriginal "
                         "documentation:\n\nDoc of f.")


def test_missing_rule(monkeypatch):
    monkeypatch.delitem(batching.batching_rules, lax.sin_p)
    with pytest.raises(NotImplementedError, match="Batching rule for 'sin' not implemented"):
        vmap(jnp.sin)(x3)
    np.testing.assert_array_equal(vmap(jnp.sin, in_axes=None, axis_size=2)(0.0), [0, 0])


# --- errors (expected values from JAX 0.10.2) -----------------------------------------------
def _sizes(*lines):
    return "vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)


@pytest.mark.parametrize("call, message", [
    (lambda: vmap(add)(x2, x3), _sizes(
        "  * one axis had size 2: axis 0 of argument x of type float32[2]",
        "  * one axis had size 3: axis 0 of argument y of type float32[3]")),
    (lambda: vmap(add)(x2, np.ones((3, 2), np.float32)), _sizes(
        "  * one axis had size 2: axis 0 of argument x of type float32[2]",
        "  * one axis had size 3: axis 0 of argument y of type float32[3,2]")),
    (lambda: vmap(lambda x, y, z: x)(x2, x3, x2), _sizes(
        "  * most axes (2 of them) had size 2, e.g. axis 0 of argument x of type float32[2]",
        "  * one axis had size 3: axis 0 of argument y of type float32[3]")),
    (lambda: vmap(lambda x, y, z: x)(x2, x3, x3), _sizes(
        "  * most axes (2 of them) had size 3, e.g. axis 0 of argument y of type float32[3]",
        "  * one axis had size 2: axis 0 of argument x of type float32[2]")),
    (lambda: vmap(lambda x, y: x, axis_size=4)(x2, x2), _sizes(
        "  * the `axis_size` argument was 4",
        "  * most axes (2 of them) had size 2, e.g. axis 0 of argument x of type float32[2]")),
    (lambda: vmap(lambda x: x["a"])({"a": x2, "b": (x3, x2)}), _sizes(
        "  * most axes (2 of them) had size 2, e.g. axis 0 of argument x['a'] of type "
        "float32[2]",
        "  * one axis had size 3: axis 0 of argument x['b'][0] of type float32[3]")),
    (lambda: vmap(lambda *a: a[0])(x2, x3), _sizes(
        "  * one axis had size 2: axis 0 of argument a of type float32[2]",
        "  * one axis had size 3: axis 0 of args[1] of type float32[3]")),
    (lambda: vmap(lambda x, **kw: x)(x2, y=x3), _sizes(
        "  * one axis had size 2: axis 0 of argument x of type float32[2]",
        "  * one axis had size 3: axis 0 of kwargs['y'] of type float32[3]")),
    (lambda: vmap(add, in_axes=(0, 1))(x2, np.ones((2, 3), np.float32)), _sizes(
        "  * one axis had size 2: axis 0 of argument x of type float32[2]",
        "  * one axis had size 3: axis 1 of argument y of type float32[2,3]")),
])
def test_inconsistent_sizes(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def _rank(axis, min_rank, rank, shape):
    return (f"vmap was requested to map its argument along axis {axis}, which implies that "
            f"its rank should be at least {min_rank}, but is only {rank} (its shape is "
            f"{shape})")


def _prefix(name, *details):
    return (f"{name} specification must be a tree prefix of the corresponding value; \n"
            f"  Mismatch details ({len(details)} found):\n  " + "\n  ".join(details))


LEAF = "<class 'minijax.interpreters.batching.PytreeLeaf'>"


@pytest.mark.parametrize("call, error, message", [
    (lambda: vmap(add, in_axes=1)(x2, x3), ValueError, _rank(1, 2, 1, "(2,)")),
    (lambda: vmap(add, in_axes=-2)(x2, x3), ValueError, _rank(-2, 2, 1, "(2,)")),
    (lambda: vmap(add, in_axes=(0, 0))(x2, 3.0), ValueError, _rank(0, 1, 0, "()")),
    (lambda: vmap(lambda x: x, in_axes=1)(3.0), ValueError, _rank(1, 2, 0, "()")),
    (lambda: vmap(add, in_axes=(None, None))(x2, 3.0), ValueError,
     "vmap must have at least one non-None value in in_axes or axis_size must be specified"),
    (lambda: vmap(lambda: 1.0)(), ValueError,
     "vmap wrapped function must be passed at least one argument containing an array or "
     "axis_size must be specified, got empty *args=() and **kwargs={}"),
    (lambda: vmap(lambda x: x, in_axes=(0,))(None), ValueError,
     "vmap wrapped function must be passed at least one argument containing an array or "
     "axis_size must be specified, got empty *args=(None,) and **kwargs={}"),
    (lambda: vmap(add, in_axes=(0,))(x2, 3.0), ValueError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got len(in_axes)=1, len(args)=2"),
    (lambda: vmap(add, in_axes={"a": 0}), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got {'a': 0}."),
    (lambda: vmap(add, in_axes=True), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got True."),
    (lambda: vmap(add, in_axes=(0, 1.0)), TypeError,
     "vmap in_axes must be an int, None, or (nested) container with those types as "
     "leaves, but got (0, 1.0)."),
    (lambda: vmap(add, in_axes=(np.int32(0),)), TypeError,
     "vmap in_axes must be an int, None, or (nested) container with those types as "
     "leaves, but got (np.int32(0),)."),
    (lambda: vmap(add, out_axes=1.5), TypeError,
     "vmap out_axes must be an int, None, or (nested) container with those types as "
     "leaves, but got 1.5."),
    (lambda: vmap(3), TypeError, "Expected a callable value, got 3"),
    (lambda: vmap(lambda x: x)("abc"), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    (lambda: vmap(lambda x: "abc")(x3), TypeError,
     "Output from batched function 'abc' with type <class 'str'> is not a valid JAX type"),
    (lambda: vmap(lambda x: x, out_axes=None)(x2), ValueError,
     "at vmap out_axes, got axis spec None but output was batched on axis 0"),
    (lambda: vmap(lambda x: {"a": x}, out_axes={"a": None})(x2), ValueError,
     "at vmap out_axes['a'], got axis spec None but output was batched on axis 0"),
    # JAX re-flattens out_axes with None as a leaf, so it names [0] here too
    (lambda: vmap(lambda x: (None, x), out_axes=None)(x3), ValueError,
     "at vmap out_axes[0], got axis spec None but output was batched on axis 0"),
    (lambda: vmap(lambda x: x, out_axes=None, axis_name="i")(x3), ValueError,
     "vmap has mapped output (axis_name=i) but out_axes is None"),
    (lambda: vmap(lambda x: x, out_axes=2)(x2), ValueError,
     "axis 2 is out of bounds for array of dimension 1"),
    (lambda: vmap(lambda x: x, out_axes=-3)(x2), ValueError,
     "axis -3 is out of bounds for array of dimension 1"),
    (lambda: vmap(lambda x: x, in_axes=((0, 0),))((x2,)), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different lengths of tuple at key path\n"
        "    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type tuple of "
        "length 2, but the full pytree has a subtree of the same type but of length 1.")),
    (lambda: vmap(lambda x: x, in_axes=((0, 0),))([x2, x2]), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different types at key path\n    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        "    <class 'tuple'>\nbut at the same key path the full pytree has a subtree of "
        "different type\n    <class 'list'>.")),
    (lambda: vmap(lambda x: x, in_axes=({"a": 0},))({"b": x2}), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different pytree metadata at key path\n"
        "    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        "    <class 'dict'>\nwith metadata\n    ('a',)\nbut at the same key path the full "
        "pytree has a subtree of the same type but with metadata\n    ('b',)\n"
        "so the diff in the metadata at these pytree nodes is\n"
        "    - ('a',)\n    ?   ^\n\n    + ('b',)\n    ?   ^\n")),
    (lambda: vmap(lambda x: x, in_axes=({"a": 0},))({"a": x2, "b": x2}), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different numbers of pytree children at key path\n"
        "    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        "    <class 'dict'>\nwith 1 child keys\n    a\nbut at the same key path the full "
        "pytree has a subtree of the same type but with 2 child keys\n    a b\n"
        "so the symmetric difference on key sets is\n    b")),
    (lambda: vmap(lambda x, y: x, in_axes=(0, (0, 0)))(x2, 1.0), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different types at key path\n    vmap in_axes[1]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        f"    <class 'tuple'>\nbut at the same key path the full pytree has a subtree of "
        f"different type\n    {LEAF}.")),
    # a None next to a real mismatch is reported too, as JAX does
    (lambda: vmap(lambda p, q: p, in_axes=(None, (0, 0)))(x2, (x2,)), ValueError, _prefix(
        "vmap in_axes",
        "pytree structure error: different types at key path\n    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        "    <class 'NoneType'>\nbut at the same key path the full pytree has a subtree of "
        f"different type\n    {LEAF}.",
        "pytree structure error: different lengths of tuple at key path\n"
        "    vmap in_axes[1]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type tuple of "
        "length 2, but the full pytree has a subtree of the same type but of length 1.")),
    (lambda: vmap(lambda x: (x, 1.0), out_axes=(0, 0, 0))(x2), ValueError, _prefix(
        "vmap out_axes",
        "pytree structure error: different lengths of tuple at key path\n"
        "    vmap out_axes\n"
        "At that key path, the prefix pytree vmap out_axes has a subtree of type tuple of "
        "length 3, but the full pytree has a subtree of the same type but of length 2.")),
    (lambda: vmap(lambda x: [x], out_axes=(0,))(x2), ValueError, _prefix(
        "vmap out_axes",
        "pytree structure error: different types at key path\n    vmap out_axes\n"
        "At that key path, the prefix pytree vmap out_axes has a subtree of type\n"
        "    <class 'tuple'>\nbut at the same key path the full pytree has a subtree of "
        "different type\n    <class 'list'>.")),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    assert str(info.value) == message
