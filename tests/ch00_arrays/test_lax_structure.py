"""Structural lax primitives: shapes, reductions, dot_general, sorting.

Values are checked against NumPy; dtypes, weak types and error messages
against JAX 0.10.2 (hard-coded, marked ``# expected values from JAX 0.10.2``).
Inputs are mostly NumPy arrays, which lax accepts (and canonicalizes) as JAX does.
"""
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax.numpy as jnp
from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import abstract_eval_rules

F32 = np.float32
nan, inf = np.nan, np.inf


def arange(*shape, dtype=F32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def check(out, expected, dtype=None, weak=False, **tol):
    """``out`` equals ``expected`` (NaNs equal) with the given dtype and weak type."""
    expected = np.asarray(expected)
    dtype = np.dtype(dtype or expected.dtype)
    assert out.dtype == dtype, (out.dtype, dtype)
    assert out.aval.weak_type == weak
    assert out.shape == expected.shape, (out.shape, expected.shape)
    if np.issubdtype(dtype, np.inexact):
        np.testing.assert_allclose(np.asarray(out), expected, **({"rtol": 1e-6} | tol))
    else:
        np.testing.assert_array_equal(np.asarray(out), expected)


def raises(cls, msg):
    return pytest.raises(cls, match="^" + re.escape(msg) + "$")


# ==================================================================================
# shapes
# ==================================================================================
@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 0, 2), (2, 1, 0)])
def test_transpose_matches_numpy(perm):
    x = arange(2, 3, 4)
    check(lax.transpose(x, perm), np.transpose(x, perm))


def test_transpose_identity_returns_operand_and_keeps_weak():
    x = jnp.asarray(arange(2, 3))
    assert lax.transpose(x, (0, 1)) is x
    check(lax.transpose(lax.full((2, 3), 1.0), (1, 0)), np.ones((3, 2)), F32, weak=True)


@pytest.mark.parametrize("perm", [(0, 1), (0, 1, 1), (0, 1, 3)])
def test_transpose_bad_permutation(perm):
    # expected values from JAX 0.10.2
    with raises(TypeError, "transpose permutation isn't a permutation of operand "
                f"dimensions, got permutation {perm} for operand shape (2, 3, 4)."):
        lax.transpose(arange(2, 3, 4), perm)


@pytest.mark.parametrize("dims", [(), (0,), (2,), (0, 2), (0, 1, 2)])
def test_rev_matches_numpy(dims):
    x = arange(2, 3, 4, dtype=np.int32)
    check(lax.rev(x, dims), np.flip(x, dims))


def test_rev_errors():
    # expected values from JAX 0.10.2
    x = arange(2, 3, 4)
    with raises(TypeError, "rev dimensions must all be less than operand ndim, got "
                "dimensions (3,) for operand ndim 3."):
        lax.rev(x, (3,))
    with raises(TypeError, "rev dimensions must be unique, got (1, 1)."):
        lax.rev(x, (1, 1))
    with raises(TypeError, "rev dimensions must have every element be nonnegative, "
                "got (-1,)."):
        lax.rev(x, (-1,))


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_concatenate_matches_numpy(dim):
    xs = [arange(2, 3, 4), arange(2, 3, 4) + 100, arange(2, 3, 4) - 7]
    check(lax.concatenate(xs, dim), np.concatenate(xs, dim))
    sizes = [1, 0, 3]
    parts = [np.ones(tuple(s if i == dim else 2 for i in range(3)), F32) * s for s in sizes]
    check(lax.concatenate(parts, dim), np.concatenate(parts, dim))


def test_concatenate_single_operand_and_weak_types():
    x = jnp.asarray(arange(3))
    assert lax.concatenate([x], 0) is x
    # expected values from JAX 0.10.2: weak only when every operand is weak
    check(lax.concatenate([lax.full((1,), 1.0), lax.full((1,), 2.0)], 0), [1, 2], F32, weak=True)
    check(lax.concatenate([np.ones(1, F32), lax.full((1,), 2.0)], 0), [1, 2], F32)


def test_concatenate_errors():
    # expected values from JAX 0.10.2
    x = arange(2, 3, 4)
    with raises(TypeError, "Cannot concatenate arrays with shapes that differ in dimensions "
                "other than the one being concatenated: concatenating along dimension 1 "
                "for shapes (2, 3, 4), (2, 2, 2)."):
        lax.concatenate([x, x[:, :2, :2]], 1)
    with raises(TypeError, "Cannot concatenate arrays with different numbers of dimensions: "
                "got (2, 3, 4), (2, 3)."):
        lax.concatenate([x, x[:, :, 0]], 1)
    with raises(TypeError, "lax.concatenate requires arguments to have the same dtypes, got "
                "int32, float32. (Tip: jnp.concatenate is a similar function that does "
                "automatic type promotion on inputs)."):
        lax.concatenate([x.astype(np.int32), x], 1)
    with raises(TypeError, "concatenate dimension out of bounds: dimension -1 for shapes "
                "(2, 3, 4), (2, 3, 4)."):
        lax.concatenate([x, x], -1)
    with raises(TypeError, "concatenate dimension out of bounds: dimension 0 for shapes "
                "(), ()."):
        lax.concatenate([1.0, 2.0], 0)
    with raises(ValueError, "concatenate requires a non-empty sequences of arrays"):
        lax.concatenate([], 0)


def _pad_by_hand(x, value, config):
    """Reference pad for 1-D and 2-D: build the dilated, padded array index by index."""
    out = np.asarray(x)
    for axis, (lo, hi, interior) in enumerate(config):
        out = np.moveaxis(out, axis, 0)
        rows = []
        for i, row in enumerate(out):
            if i:
                rows += [np.full_like(row, value)] * interior
            rows.append(row)
        body = np.stack(rows) if rows else out
        edge = np.full((1,) + out.shape[1:], value, out.dtype)
        body = np.concatenate([edge] * max(lo, 0) + [body] + [edge] * max(hi, 0))
        body = body[max(-lo, 0): body.shape[0] - max(-hi, 0)]
        out = np.moveaxis(body, 0, axis)
    return out


@pytest.mark.parametrize("config", [
    [(0, 0, 0), (0, 0, 0)], [(1, 2, 0), (0, 1, 0)], [(0, 0, 1), (2, 0, 2)],
    [(1, 0, 1), (-1, 2, 2)], [(-1, -1, 1), (0, 0, 0)], [(-2, 3, 0), (1, -3, 1)],
])
def test_pad_matches_hand_computed(config):
    x = arange(2, 3, dtype=np.int32) + 1
    check(lax.pad(x, np.int32(-1), config), _pad_by_hand(x, -1, config))


def test_pad_values_from_jax():
    # expected values from JAX 0.10.2
    check(lax.pad(np.arange(1, 6, dtype=np.int32), -1, [(-1, 2, 2)]),
          [-1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5, -1, -1], np.int32)
    check(lax.pad(np.zeros(0, np.int32), -1, [(1, 2, 2)]), [-1, -1, -1], np.int32)
    check(lax.pad(arange(2, 3, dtype=np.int32) + 1, 0, [(-1, -1, 1), (0, 0, 0)]),
          np.zeros((1, 3), np.int32))
    # weak only when both operand and padding value are weak
    check(lax.pad(lax.full((2,), 1.0), 0.0, [(1, 2, 2)]), [0, 1, 0, 0, 1, 0, 0], F32, weak=True)
    check(lax.pad(arange(2), 0.0, [(1, 0, 0)]), [0, 0, 1], F32)


def test_pad_errors():
    # expected values from JAX 0.10.2
    x, xi = arange(2, 3, 4), arange(2, 3, dtype=np.int32)
    with raises(ValueError, "length of padding_config must equal the number of axes of "
                "operand, got padding_config ((1, 1, 0),) for operand shape (2, 3, 4)"):
        lax.pad(x, 0.0, [(1, 1, 0)])
    with raises(TypeError, "pad operand and padding_value must be same dtype: got float32 "
                "and int32."):
        lax.pad(x, 0, [(1, 1, 0)] * 3)
    with raises(ValueError, "interior padding in padding_config must be nonnegative, got "
                "padding_config ((1, 1, -1), (1, 1, -1))"):
        lax.pad(xi, 0, [(1, 1, -1)] * 2)
    with raises(ValueError, "Dimension size after padding is not at least 0, got result "
                "shape (-2, -1), for padding_config ((-5, 1, 0), (-5, 1, 0)) and operand "
                "shape (2, 3)"):
        lax.pad(xi, 0, [(-5, 1, 0)] * 2)
    with raises(ValueError, "padding_value must be a scalar; got np.shape(padding_value)=(2,)"):
        lax.pad(xi, np.zeros(2, np.int32), [(1, 1, 0)] * 2)


def test_iota():
    check(lax.iota(np.int32, 5), np.arange(5, dtype=np.int32))
    check(lax.iota(np.float16, 3), np.arange(3, dtype=np.float16))
    check(lax.iota(np.uint8, 0), np.zeros(0, np.uint8))
    check(lax.broadcasted_iota(np.int8, (2, 3), 0), [[0, 0, 0], [1, 1, 1]], np.int8)
    check(lax.broadcasted_iota(F32, (2, 3), 1), [[0, 1, 2]] * 2, F32)
    check(lax.iota(int, 2), [0, 1], np.int32)
    with pytest.warns(UserWarning, match="Explicitly requested dtype int64 requested in "
                      "broadcasted_iota is not available, and will be truncated to dtype int32"):
        check(lax.iota(np.int64, 3), np.arange(3, dtype=np.int32))


def test_iota_errors():
    # expected values from JAX 0.10.2
    with raises(TypeError, "iota does not accept dtype bool. Accepted dtypes are subtypes "
                "of integer, floating, complexfloating."):
        lax.iota(np.bool_, 3)
    with raises(TypeError, "iota shape must have every element be nonnegative, got (-3,)."):
        lax.iota(np.int32, -3)
    with raises(ValueError, "iota dimension must be between 0 and len(shape), got "
                "dimension=-1 for shape=(2, 3)"):
        lax.broadcasted_iota(np.int32, (2, 3), -1)


def test_full_and_full_like_dtypes():
    # expected values from JAX 0.10.2
    check(lax.full((2,), 3), [3, 3], np.int32, weak=True)
    check(lax.full(3, 1.0), [1, 1, 1], F32, weak=True)
    check(lax.full((2,), 3, F32), [3, 3], F32)
    check(lax.full((2,), np.float64(1.0)), [1, 1], F32)
    check(lax.full((2, 0), True), np.zeros((2, 0), bool), np.bool_)
    check(lax.full_like(lax.full((2,), 1.0), 3), [3, 3], F32, weak=True)
    check(lax.full_like(np.zeros(2), 3), [3, 3], F32)
    check(lax.full_like(arange(2, 3), 3, np.int8, (2,)), [3, 3], np.int8)
    check(lax.full_like(1.0, 3), 3, F32, weak=True)
    with pytest.warns(UserWarning, match="requested in full is not available"):
        check(lax.full((2,), 3, np.int64), [3, 3], np.int32)


def test_full_errors():
    # expected values from JAX 0.10.2
    with raises(TypeError, "full must be called with scalar fill_value, got "
                "fill_value.shape (2,)."):
        lax.full((2,), np.ones(2))
    with raises(TypeError, "Shapes must be 1D sequences of concrete values of integer type, "
                "got (2.5,)."):
        lax.full((2.5,), 1)
    with raises(TypeError, "broadcast_in_dim shape must have every element be nonnegative, "
                "got (-2,)."):
        lax.full((-2,), 1)


def test_collapse_and_broadcast_shapes():
    x = arange(2, 3, 4)
    check(lax.collapse(x, 0, 2), x.reshape(6, 4))
    check(lax.collapse(x, 1), x.reshape(2, 12))
    check(lax.collapse(x, -2, None), x.reshape(2, 12))
    with raises(ValueError, "Invalid dimension range passed to collapse: (2, 3, 4)[2:1]"):
        lax.collapse(x, 2, 1)
    assert lax.broadcast_shapes((2, 1), (1, 3), (3,)) == (2, 3)
    assert lax.broadcast_shapes((0,), (1,)) == (0,)
    # expected values from JAX 0.10.2
    with raises(ValueError, "Incompatible shapes for broadcasting: "
                "shapes=[(2, 1), (4, 3), (3,)]"):
        lax.broadcast_shapes((2, 1), (4, 3), (3,))


def test_split_stack_unstack_tile():
    x = arange(2, 5)
    parts = lax.split(x, (2, 0, 3), axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    for out, ref in zip(parts, np.split(x, [2, 2], axis=1)):
        check(out, ref)
    check(lax.stack([x, x + 1], axis=-1), np.stack([x, x + 1], -1))
    check(lax.stack([1.0, 2.0]), [1, 2], F32, weak=True)
    rows = lax.unstack(x, axis=1)
    assert isinstance(rows, tuple) and len(rows) == 5
    check(rows[3], x[:, 3])
    check(lax.tile(x, (2, 3)), np.tile(x, (2, 3)))
    # expected values from JAX 0.10.2
    with raises(ValueError, "Sum of sizes 6 must be equal to dimension 0 of the operand "
                "shape [5]"):
        lax.split(np.arange(5), (2, 4))
    with raises(ValueError, "All input arrays must have the same shape. Got (2,), (3,)."):
        lax.stack([np.ones(2), np.ones(3)])
    with raises(TypeError, "lax.stack requires arguments to have the same dtypes, got "
                "float32, int32."):
        lax.stack([np.ones(2, F32), np.ones(2, np.int32)])
    with raises(TypeError, "reps length must be equal to the ndim of x, got len(reps)=2 and "
                "x.ndim=1."):
        lax.tile(np.arange(2), (3, 2))


def test_reshape_of_wrong_size():
    # JAX 0.10.2 only fails this when lowering ("Cannot lower jaxpr with verifier
    # errors"); minijax keeps JAX's former trace-time TypeError.
    with raises(TypeError, "reshape total size must be unchanged, got new_sizes (5, 5) (of "
                "total size 25) for shape (2, 3, 4) (of total size 24)."):
        lax.reshape(arange(2, 3, 4), (5, 5))
    with raises(TypeError, "reshape new_sizes must all be positive, got (-1, 4)."):
        lax.reshape(arange(2, 3, 4), (-1, 4))


def test_errors_come_from_the_abstract_eval_rule():
    """Shape checks run on ShapedArrays alone (that is what makes them trace-time)."""
    from minijax.lax.dot import dot_general_p
    from minijax.lax.shapes import pad_p, transpose_p
    aval = ShapedArray((2, 3), F32)
    assert abstract_eval_rules[transpose_p](aval, permutation=(1, 0)) == ShapedArray((3, 2), F32)
    with pytest.raises(TypeError):
        abstract_eval_rules[transpose_p](aval, permutation=(0,))
    with pytest.raises(ValueError):
        abstract_eval_rules[pad_p](aval, ShapedArray((), F32), padding_config=((0, 0, 0),))
    out = abstract_eval_rules[dot_general_p](
        ShapedArray((5, 2, 3), F32, True), ShapedArray((5, 3, 4), F32, True),
        dimension_numbers=(((2,), (1,)), ((0,), (0,))), precision=None,
        preferred_element_type=None, out_sharding=None)
    assert out == ShapedArray((5, 2, 4), F32, weak_type=True)


# ==================================================================================
# reductions
# ==================================================================================
REDUCERS = {
    "reduce_sum": (np.sum, {}), "reduce_prod": (np.prod, {}),
    "reduce_max": (np.max, {"initial": -inf}), "reduce_min": (np.min, {"initial": inf}),
}


@pytest.mark.parametrize("name", list(REDUCERS))
@pytest.mark.parametrize("axes", [(), (0,), (1,), (2,), (0, 2), (2, 0), (0, 1, 2)])
def test_reductions_match_numpy(name, axes):
    x = np.random.RandomState(0).uniform(-2, 2, (2, 3, 4)).astype(F32)
    np_fn, kw = REDUCERS[name]
    check(getattr(lax, name)(x, axes), np_fn(x, axis=axes, **kw), F32, rtol=1e-5)


@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
       data=st.data(), name=st.sampled_from(list(REDUCERS)))
def test_reductions_random_shapes_and_axes(shape, data, name):
    axes = data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                              max_size=len(shape)))
    x = np.random.RandomState(len(shape)).uniform(0.5, 1.5, shape).astype(F32)
    np_fn, kw = REDUCERS[name]
    check(getattr(lax, name)(x, tuple(axes)), np_fn(x, axis=tuple(axes), **kw), F32,
          rtol=1e-5)


def test_reductions_of_empty_axes_give_the_identity():
    # expected values from JAX 0.10.2
    e = np.zeros((0, 3), F32)
    check(lax.reduce_sum(e, (0,)), [0, 0, 0], F32)
    check(lax.reduce_prod(e, (0,)), [1, 1, 1], F32)
    check(lax.reduce_max(e, (0,)), [-inf] * 3, F32)
    check(lax.reduce_min(e, (0,)), [inf] * 3, F32)
    check(lax.reduce_max(np.zeros((0, 3), np.int32), (0,)), [-2147483648] * 3, np.int32)
    check(lax.reduce_min(np.zeros((0, 3), np.uint8), (0,)), [255] * 3, np.uint8)
    check(lax.reduce_max(np.zeros((0,), bool), (0,)), False, np.bool_)
    check(lax.reduce_min(np.zeros((0,), bool), (0,)), True, np.bool_)
    check(lax.reduce_max(np.zeros((0,), np.float16), (0,)), -inf, np.float16)


def test_reductions_nan_wraparound_and_dtypes():
    # expected values from JAX 0.10.2
    v = np.array([1.0, nan, 3.0], F32)
    check(lax.reduce_max(v, (0,)), nan, F32)
    check(lax.reduce_min(v, (0,)), nan, F32)
    check(lax.reduce_sum(v, (0,)), nan, F32)
    check(lax.reduce_sum(np.full(200, 1, np.int8), (0,)), -56, np.int8)
    check(lax.reduce_prod(np.array([200, 3], np.uint8), (0,)), 88, np.uint8)
    check(lax.reduce_max(np.array([True, False]), (0,)), True, np.bool_)
    check(lax.reduce_max(np.array([1 + 2j, 1 + 3j, 0 + 5j], np.complex64), (0,)), 1 + 3j,
          np.complex64)
    check(lax.reduce_sum(np.array([1 + 2j, 3 - 1j], np.complex64), (0,)), 4 + 1j, np.complex64)
    check(lax.reduce_sum(arange(2, 3, dtype=np.float64), (0,)), [3, 5, 7], F32)


def test_reductions_keep_weak_type():
    # expected values from JAX 0.10.2
    w = lax.full((2, 3), 1.0)
    check(lax.reduce_sum(w, (0,)), [2, 2, 2], F32, weak=True)
    check(lax.reduce_max(w, (0,)), [1, 1, 1], F32, weak=True)
    check(lax.reduce_sum(2.0, ()), 2.0, F32, weak=True)
    check(lax.reduce_or(lax.full((2,), 3), (0,)), 3, np.int32)  # logical ones strip it


def test_reduction_errors():
    # expected values from JAX 0.10.2
    x = arange(2, 3, 4)
    with raises(ValueError, "duplicate value in 'axes' of reduction: (0, 0)"):
        lax.reduce_sum(x, (0, 0))
    with raises(ValueError, "reduction axes (3,) contains out-of-bounds indices for "
                "float32[2,3,4]."):
        lax.reduce_max(x, (3,))
    with raises(ValueError, "reduction axes (-1,) contains out-of-bounds indices for "
                "float32[2,3,4]."):
        lax.reduce_sum(x, (-1,))
    with raises(TypeError, "reduce_sum does not accept dtype bool. Accepted dtypes are "
                "subtypes of number."):
        lax.reduce_sum(np.ones(3, bool), (0,))
    with raises(TypeError, "reduce_prod does not accept dtype bool. Accepted dtypes are "
                "subtypes of number."):
        lax.reduce_prod(np.ones(3, bool), (0,))
    with raises(TypeError, "logical reduction requires operand dtype bool or int, got "
                "float32."):
        lax.reduce_and(x, (0,))
    with raises(IndexError, "index 2 is out of bounds for axis 0 with size 2"):
        lax.reduce_and(np.ones((2, 3), np.int32), (2,))


def test_logical_reductions():
    b = np.array([[True, False, True], [True, True, False]])
    check(lax.reduce_and(b, (0,)), b.all(0))
    check(lax.reduce_or(b, (1,)), b.any(1))
    check(lax.reduce_xor(b, (0, 1)), np.logical_xor.reduce(b.ravel()))
    # expected values from JAX 0.10.2
    i = np.array([[7, 5], [3, 1]], np.int32)
    check(lax.reduce_and(i, (0,)), [3, 1], np.int32)
    check(lax.reduce_or(np.array([[4, 1], [2, 1]], np.int32), (0,)), [6, 1], np.int32)
    check(lax.reduce_xor(i, (1,)), [2, 2], np.int32)
    check(lax.reduce_xor(i, (0, 1)), 0, np.int32)
    check(lax.reduce_and(np.zeros(0, np.uint8), (0,)), 255, np.uint8)
    check(lax.reduce_and(np.zeros(0, bool), (0,)), True, np.bool_)
    check(lax.reduce_or(np.zeros((0, 2), np.int32), (0,)), [0, 0], np.int32)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_argmax_argmin_match_numpy(axis):
    x = np.random.RandomState(1).randint(0, 3, (3, 4, 5)).astype(F32)  # many ties
    check(lax.argmax(x, axis, np.int32), np.argmax(x, axis).astype(np.int32))
    check(lax.argmin(x, axis, np.int32), np.argmin(x, axis).astype(np.int32))


def test_argmax_nan_ties_and_dtypes():
    # expected values from JAX 0.10.2
    check(lax.argmax(np.array([1, 3, 3, 2], F32), 0, np.int32), 1, np.int32)
    check(lax.argmax(np.array([1, nan, 3, nan], F32), 0, np.int32), 1, np.int32)
    check(lax.argmin(np.array([1, nan, -3, nan], F32), 0, np.int32), 1, np.int32)
    check(lax.argmax(np.array([-0.0, 0.0], F32), 0, np.int32), 0, np.int32)
    check(lax.argmax(np.array([-inf, -inf], F32), 0, np.int32), 0, np.int32)
    check(lax.argmax(np.array([False, True, True]), 0, np.int32), 1, np.int32)
    check(lax.argmax(arange(2, 3), 1, np.uint8), [2, 2], np.uint8)
    check(lax.argmax(lax.full((2, 3), 1.0), 1, np.int32), [0, 0], np.int32)  # not weak
    with pytest.warns(UserWarning, match="requested in argmax is not available"):
        check(lax.argmax(arange(2, 3), 1, np.int64), [2, 2], np.int32)


def test_argmax_errors():
    # expected values from JAX 0.10.2
    x = arange(2, 3, 4)
    with raises(ValueError, "Invalid axis 3 for operand shape (2, 3, 4)"):
        lax.argmax(x, 3, np.int32)
    with raises(ValueError, "Invalid axis -1 for operand shape (2, 3, 4)"):
        lax.argmin(x, -1, np.int32)
    with raises(ValueError, "argmin and argmax require non-empty reduced dimension. "
                "operand.shape=(2, 0) axis=1"):
        lax.argmax(np.zeros((2, 0), F32), 1, np.int32)
    with raises(TypeError, "index_dtype must be an integer type, but got float32"):
        lax.argmax(x, 1, F32)
    with raises(TypeError, "gt does not accept dtype complex64 at position 0. Accepted dtypes "
                "at position 0 are subtypes of integer, floating, bool."):
        lax.argmax(np.array([1j], np.complex64), 0, np.int32)


CUMULATIVE = {"cumsum": np.cumsum, "cumprod": np.cumprod,
              "cummax": np.maximum.accumulate, "cummin": np.minimum.accumulate,
              "cumlogsumexp": np.logaddexp.accumulate}


@pytest.mark.parametrize("name", list(CUMULATIVE))
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_match_numpy(name, axis, reverse):
    x = np.random.RandomState(2).uniform(0.5, 1.5, (3, 4)).astype(F32)
    ref = CUMULATIVE[name]
    expected = (np.flip(ref(np.flip(x, axis), axis=axis), axis) if reverse
                else ref(x, axis=axis))
    check(getattr(lax, name)(x, axis=axis, reverse=reverse), expected, F32, rtol=1e-5)


def test_cumulative_values_from_jax():
    # expected values from JAX 0.10.2
    check(lax.cumsum(np.array([1, 2, 3], np.int32), reverse=True), [6, 5, 3], np.int32)
    wrapped = np.asarray(lax.cumsum(np.full(200, 1, np.int8)))
    assert wrapped.dtype == np.int8 and wrapped[126] == 127 and wrapped[199] == -56
    check(lax.cummax(np.array([1, nan, 3], F32)), [1, nan, nan], F32)
    check(lax.cummin(np.array([1, nan, 0], F32)), [1, nan, nan], F32)
    check(lax.cumlogsumexp(np.array([0, 0, 1], F32), reverse=True),
          [1.5514448, 1.3132617, 1.0], F32)
    check(lax.cumlogsumexp(np.array([-inf, -inf, 1], F32)), [-inf, -inf, 1], F32)
    check(lax.cumprod(np.array([[1, 2], [3, 4]], np.int32), 1, reverse=True),
          [[2, 2], [12, 4]], np.int32)
    check(lax.cumprod(np.zeros((0, 2), F32), 0), np.zeros((0, 2)), F32)
    check(lax.cummax(np.array([1 + 2j, 0 + 5j], np.complex64)), [1 + 2j, 1 + 2j],
          np.complex64)
    check(lax.cumsum(lax.full((2, 3), 1.0), 1), [[1, 2, 3]] * 2, F32, weak=True)


def test_cumulative_errors():
    # expected values from JAX 0.10.2
    x = arange(2, 3, 4)
    with raises(ValueError, "XLA operations do not allow negative axes"):
        lax.cumsum(x, -1)
    with raises(ValueError, "axis 3 is out of bounds for array of shape (2, 3, 4)"):
        lax.cummax(x, 3)
    with raises(TypeError, "cumsum does not accept dtype bool. Accepted dtypes are "
                "subtypes of number."):
        lax.cumsum(np.ones(3, bool))


def test_reduce_dispatches_monoids():
    x, xi = arange(2, 3, 4), arange(2, 3, dtype=np.int32)
    check(lax.reduce(x, 0.0, lax.add, (0,)), x.sum(0), F32)
    check(lax.reduce(x, 0, lax.add, (0, 2)), x.sum((0, 2)), F32)
    check(lax.reduce(x, -inf, lax.max, (0, 1)), x.max((0, 1)), F32)
    check(lax.reduce(xi, np.iinfo(np.int32).max, lax.min, (1,)), xi.min(1), np.int32)
    check(lax.reduce(xi, 1, lax.mul, (1,)), [0, 60], np.int32)
    check(lax.reduce(xi, -1, lax.bitwise_and, (0,)), [0, 0, 0], np.int32)
    check(lax.reduce(xi > 2, False, lax.bitwise_or, (0,)), [True] * 3, np.bool_)
    check(lax.reduce(np.array([3, 5, 6], np.int32), 0, lax.bitwise_xor, (0,)), 0, np.int32)
    check(lax.reduce([x], [0.0], lax.add, (0,)), x.sum(0), F32)  # a single Array, as JAX
    # expected values from JAX 0.10.2: weak iff operand and init value are both weak
    w = lax.full((2, 3), 1.0)
    check(lax.reduce(w, 0, lax.add, (0,)), [2, 2, 2], F32, weak=True)
    check(lax.reduce(w, np.float32(0), lax.add, (0,)), [2, 2, 2], F32)


def test_reduce_errors():
    x = arange(2, 3)
    # expected values from JAX 0.10.2
    with raises(ValueError, "Operands must have the same tree structure as init_values: "
                "PyTreeDef((*,)) vs. PyTreeDef([*])"):
        lax.reduce((x,), [0.0], lax.add, (0,))
    with raises(ValueError, "reduction axes (-1,) contains out-of-bounds indices for "
                "float32[2,3]."):
        lax.reduce(x, 0.0, lax.add, (-1,))
    with raises(TypeError, "or does not accept dtype float32 at position 0. Accepted dtypes "
                "at position 0 are subtypes of integer, bool."):
        lax.reduce(x, 0.0, lax.bitwise_or, (0,))
    # minijax: general computations need tracing, not available in chapter 00
    with pytest.raises(NotImplementedError, match="only supports a single operand"):
        lax.reduce(x, 0.0, lax.max, (0,))  # 0. is not max's identity
    with pytest.raises(NotImplementedError, match="computation <lambda>"):
        lax.reduce(x, 0.0, lambda a, b: a + b, (0,))


# ==================================================================================
# dot_general
# ==================================================================================
DOT_CASES = [  # lhs shape, rhs shape, dimension numbers, einsum spec
    ((2, 3), (3, 4), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((3,), (3,), (((0,), (0,)), ((), ())), "i,i->"),
    ((2,), (3,), (((), ()), ((), ())), "i,j->ij"),
    ((5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
    ((2, 3, 4), (3, 4, 5), (((1, 2), (0, 1)), ((), ())), "ijk,jkl->il"),
    ((4, 2, 3, 5), (5, 3, 4, 6), (((2,), (1,)), ((0, 3), (2, 0))), "aibc,cbad->acid"),
    ((2, 0), (0, 3), (((1,), (0,)), ((), ())), "ij,jk->ik"),
]


@pytest.mark.parametrize("lhs_shape, rhs_shape, dnums, spec",
                         DOT_CASES)
def test_dot_general_matches_einsum(lhs_shape, rhs_shape, dnums, spec):
    rng = np.random.RandomState(3)
    lhs, rhs = rng.randn(*lhs_shape).astype(F32), rng.randn(*rhs_shape).astype(F32)
    check(lax.dot_general(lhs, rhs, dnums), np.einsum(spec, lhs, rhs), F32,
          rtol=1e-5, atol=1e-5)
    li, ri = (lhs * 3).astype(np.int32), (rhs * 3).astype(np.int32)
    check(lax.dot_general(li, ri, dnums), np.einsum(spec, li, ri), np.int32)


def test_dot_vector_and_matrix_cases():
    a, b, v = arange(2, 3), arange(3, 4), np.arange(3, dtype=F32)
    check(lax.dot(a, b), a @ b)
    check(lax.dot(a, v), a @ v)
    check(lax.dot(np.ones(2, F32), a), np.ones(2) @ a, F32)
    check(lax.dot(v, v), v @ v)
    check(lax.dot_general(a, b, ((1, 0), ((), ()))), a @ b)  # ints for single dims
    check(lax.dot_general(a, b, [[[1], [0]], [[], []]]), a @ b)
    check(lax.batch_matmul(arange(2, 3, 4), arange(2, 4, 5)),
          np.matmul(arange(2, 3, 4), arange(2, 4, 5)))


def test_dot_dtypes_from_jax():
    # expected values from JAX 0.10.2
    a, b = arange(2, 3), arange(3, 4)
    check(lax.dot(a, b.astype(np.int32)), a @ b, F32)
    check(lax.dot(a.astype(np.int8), b.astype(np.int32)), (a @ b).astype(np.int32), np.int32)
    check(lax.dot(a.astype(np.uint8), b.astype(np.int8)), (a @ b).astype(np.int8), np.int8)
    check(lax.dot(a.astype(np.float16), b), a @ b, F32)
    check(lax.dot(a.astype(np.complex64), b), a @ b, np.complex64)
    check(lax.dot(np.array([[True, False], [False, False]]), np.ones((2, 2), bool)),
          [[True, True], [False, False]], np.bool_)
    check(lax.dot(np.array([[True, False], [False, False]]), np.ones((2, 2), np.int32)),
          [[1, 1], [0, 0]], np.int32)
    big = np.full((1, 100), 100, np.int8)
    check(lax.dot(big, big.T), [[64]], np.int8)  # wraps around in int8
    check(lax.dot(big, big.T, preferred_element_type=np.int32), [[1000000]], np.int32)
    check(lax.dot(a, b, preferred_element_type=np.float16), a @ b, np.float16, rtol=1e-3)
    with pytest.warns(UserWarning, match="requested in dot is not available"):
        check(lax.dot(a, b, preferred_element_type=np.float64), a @ b, F32)
    w = lax.full((2, 2), 1.0)
    check(lax.dot(w, w), [[2, 2]] * 2, F32, weak=True)
    check(lax.dot(w, np.ones((2, 2), F32)), [[2, 2]] * 2, F32)


def test_dot_general_errors():
    # expected values from JAX 0.10.2
    a, b = arange(2, 3), arange(3, 4)
    with raises(TypeError, "dot_general requires contracting dimensions to have the same "
                "shape, got (3,) and (2,)."):
        lax.dot_general(a, a, (((1,), (0,)), ((), ())))
    with raises(TypeError, "dot_general requires lhs batch dimensions and rhs batch "
                "dimensions to have the same shape, got (2,) and (3,)."):
        lax.dot_general(np.ones((2, 3, 4)), np.ones((3, 4, 5)), (((2,), (1,)), ((0,), (0,))))
    with raises(TypeError, "dot_general requires equal numbers of lhs_batch and rhs_batch "
                "dimensions, got lhs_batch (0,) and rhs_batch ()."):
        lax.dot_general(np.ones((2, 3, 4)), np.ones((2, 4, 5)), (((2,), (1,)), ((0,), ())))
    with raises(TypeError, "dot_general requires lhs dimension numbers to be nonnegative and "
                "less than the number of axes of the lhs value, got lhs_batch of () and "
                "lhs_contracting of (-1,) for lhs of rank 2"):
        lax.dot_general(a, b, (((-1,), (0,)), ((), ())))
    with raises(TypeError, "dot_general requires rhs dimension numbers to be nonnegative and "
                "less than the number of axes of the rhs value, got rhs_batch of () and "
                "rhs_contracting of (5,) for rhs of rank 2"):
        lax.dot_general(a, b, (((1,), (5,)), ((), ())))
    with raises(TypeError, "dot_general requires lhs contracting dimensions to be distinct, "
                "got lhs_contracting (1, 1)."):
        lax.dot_general(a, a, (((1, 1), (1, 1)), ((), ())))
    with raises(TypeError, "dot_general requires lhs batch dimensions to be disjoint from "
                "contracting dimensions, got lhs_batch (0,) and lhs_contracting (0,)."):
        lax.dot_general(a, a, (((0,), (0,)), ((0,), (0,))))
    with raises(TypeError, "`preferred_element_type` must not be narrower than the original "
                "type, got preferred_element_type of int8 for result type of int32."):
        lax.dot(a.astype(np.int32), b.astype(np.int32), preferred_element_type=np.int8)
    with raises(ValueError, "jax.lax.dot: dimension_numbers must be specified when not "
                "performing simple un-batched matrix-matrix, matrix-vector, or "
                "vector-vector products; got lhs_shape=(2, 3) rhs_shape=(2, 3)"):
        lax.dot(a, a)
    with raises(ValueError, "Arguments to batch_matmul must be at least 2D, got 1, 2"):
        lax.batch_matmul(np.ones(3), np.ones((3, 4)))
    with raises(ValueError, "Arguments to batch_matmul must have same ndim, got 3, 2"):
        lax.batch_matmul(np.ones((2, 3, 4)), np.ones((4, 5)))
    with pytest.raises(TypeError):
        lax.dot(a, b, None)  # precision is keyword-only in lax.dot


def test_precision():
    from minijax.lax.dot import canonicalize_precision
    P = lax.Precision
    assert [str(p) for p in P] == ["DEFAULT", "HIGH", "HIGHEST"]
    assert repr(P.HIGHEST) == "Precision.HIGHEST" and P("high") is P.HIGH and P(0) is P.DEFAULT
    assert canonicalize_precision(None) is None
    assert canonicalize_precision("highest") == (P.HIGHEST, P.HIGHEST)
    assert canonicalize_precision(("highest", "default")) == (P.HIGHEST, P.DEFAULT)
    a = arange(2, 3)
    check(lax.dot(a, a.T, precision=P.HIGHEST), a @ a.T)
    with pytest.raises(ValueError, match="Precision argument must be one of"):
        lax.dot(a, a.T, precision="foo")


# ==================================================================================
# sorting
# ==================================================================================
def test_sort_matches_numpy_with_nan_and_signed_zero():
    # expected values from JAX 0.10.2
    f = np.array([3, nan, -0.0, 0.0, -inf, 1, -nan, 0.0, -0.0], F32)
    out, idx = lax.sort_key_val(f, np.arange(9, dtype=np.int32))
    check(out, np.sort(f), F32)
    check(idx, [4, 2, 3, 7, 8, 5, 0, 1, 6], np.int32)
    assert list(np.signbit(np.asarray(out))[1:5]) == [True, False, False, True]
    check(lax.sort(f), np.sort(f), F32)


@pytest.mark.parametrize("dimension", [0, 1, -1])
def test_sort_along_dimensions(dimension):
    x = np.random.RandomState(4).randint(-5, 5, (4, 6)).astype(np.int32)
    check(lax.sort(x, dimension=dimension), np.sort(x, axis=dimension))
    check(lax.sort(np.array([[3, 1, 2], [0, 5, -1]], np.int32), dimension=0),
          [[0, 1, -1], [3, 5, 2]], np.int32)


def test_sort_multiple_operands_and_keys():
    # expected values from JAX 0.10.2
    k1, k2 = np.array([1, 0, 1, 0], np.int32), np.array([4.0, 3.0, 2.0, 1.0], F32)
    out = lax.sort((k1, k2, np.arange(4, dtype=np.int32)), num_keys=2)
    assert isinstance(out, tuple) and len(out) == 3
    check(out[0], [0, 0, 1, 1], np.int32)
    check(out[1], [1, 3, 2, 4], F32)
    check(out[2], [3, 1, 2, 0], np.int32)
    out = lax.sort((k1, k2, np.arange(4, dtype=np.int32)), num_keys=1)
    check(out[1], [3, 1, 4, 2], F32)
    check(out[2], [1, 3, 0, 2], np.int32)
    c = np.array([1 + 2j, 1 + 1j, 0 + 5j, complex(nan, 0), complex(nan, nan)], np.complex64)
    check(lax.sort(c), c[[2, 1, 0, 3, 4]], np.complex64)
    check(lax.sort(np.array([True, False, True])), [False, True, True], np.bool_)
    check(lax.sort([np.array([3, 1, 2], np.int32)])[0], [1, 2, 3], np.int32)


def test_sort_weak_types():
    # expected values from JAX 0.10.2: each output keeps its operand's weak type
    check(lax.sort(lax.full((3,), 1.0)), [1, 1, 1], F32, weak=True)
    a, b = lax.sort((lax.full((3,), 1.0), np.ones(3, F32)))
    assert a.aval.weak_type and not b.aval.weak_type


def test_sort_errors():
    # expected values from JAX 0.10.2
    with raises(ValueError, "num_keys=2 must be between 1 and len(operand)=1"):
        lax.sort((np.array([1, 0]),), num_keys=2)
    with raises(ValueError, "num_keys=2 must equal 1 for a single operand."):
        lax.sort(np.array([1, 0]), num_keys=2)
    with raises(TypeError, "Sort requires at least one operand"):
        lax.sort(())
    with raises(TypeError, "Arguments to sort must have equal shapes, got: (3,) (4,)"):
        lax.sort((np.ones(3), np.ones(4)))
    with raises(ValueError, "axis 1 is out of bounds for array of dimension 1"):
        lax.sort(np.ones(3), dimension=1)
    with raises(ValueError, "axis -1 is out of bounds for array of dimension 0"):
        lax.sort(np.float32(1))


def test_top_k():
    # expected values from JAX 0.10.2
    values, idx = lax.top_k(np.array([1, 3, 3, nan, 2, -0.0, 0.0], F32), 4)
    check(values, [nan, 3, 3, 2], F32)
    check(idx, [3, 1, 2, 4], np.int32)
    values, idx = lax.top_k(np.array([1, -nan, nan, -inf, 0, -0.0], F32), 6)
    check(idx, [2, 0, 4, 5, 3, 1], np.int32)  # total order: -NaN < -inf < -0 < 0 < NaN
    check(lax.top_k(np.array([-0.0, 0.0, -0.0], F32), 3)[1], [1, 0, 2], np.int32)
    check(lax.top_k(np.array([[1, 3], [3, 2]], np.int32), 1, axis=0)[1], [[1, 0]], np.int32)
    check(lax.top_k(np.array([0, 255, 3], np.uint8), 2)[0], [255, 3], np.uint8)
    check(lax.top_k(np.array([False, True, True]), 2)[1], [1, 2], np.int32)
    check(lax.top_k(np.zeros((2, 0), F32), 0)[1], np.zeros((2, 0)), np.int32)
    x = np.random.RandomState(5).randn(3, 7).astype(F32)
    values, idx = lax.top_k(x, 3)
    check(values, -np.sort(-x, axis=-1)[:, :3], F32)
    check(idx, np.argsort(-x, axis=-1, kind="stable")[:, :3].astype(np.int32), np.int32)
    v, i = lax.top_k(lax.full((3,), 1.0), 2)  # both results keep the weak type
    assert v.aval.weak_type and i.aval.weak_type and i.dtype == np.int32


def test_top_k_errors():
    # expected values from JAX 0.10.2
    with raises(ValueError, "k argument to top_k must be no larger than size along axis; "
                "got k=3 with shape=[2] and axis=0"):
        lax.top_k(np.array([1, 3]), 3)
    with raises(ValueError, "k argument to top_k must be nonnegative, got -1"):
        lax.top_k(np.array([1, 3]), -1)
    with raises(ValueError, "top_k is not compatible with complex inputs."):
        lax.top_k(np.array([1j], np.complex64), 1)
    with raises(ValueError, "axis 2 is out of bounds for array of dimension 1"):
        lax.top_k(np.array([1, 3]), 1, axis=2)


def test_public_names_follow_jax():
    names = ["transpose", "rev", "concatenate", "pad", "iota", "broadcasted_iota", "full",
             "full_like", "collapse", "broadcast_shapes", "split", "stack", "unstack", "tile",
             "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
             "reduce_or", "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax",
             "cummin", "cumlogsumexp", "reduce", "dot_general", "dot", "batch_matmul",
             "Precision", "sort", "sort_key_val", "top_k"]
    missing = [n for n in names if not hasattr(lax, n)]
    assert not missing
    assert lax.cumsum.__name__ == "cumsum"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lax.iota(np.int32, 2)  # no warning for an available dtype
