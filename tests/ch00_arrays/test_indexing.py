"""Chapter 00 — NumPy indexing, lax slicing, gather and scatter.

In-bounds indexing is checked against NumPy (JAX agrees with NumPy there).
Where JAX differs (out-of-bound indices are clamped or dropped, repeated
indices accumulate in ``.at[].add``) or raises, the expected values and
messages are hard-coded from JAX 0.10.2.
"""
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax.numpy as jnp
from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.array import Array

X = np.arange(6, dtype=np.float32).reshape(2, 3)
V = np.arange(5, dtype=np.float32)
Z = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
GD, SD = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
GSM = lax.GatherScatterMode


def x():
    return jnp.asarray(X)


def v():
    return jnp.asarray(V)


def z():
    return jnp.asarray(Z)


def check(actual, expected, dtype=None, weak=False):
    """``actual`` is an Array equal to ``expected`` with the given dtype and weak type.

    A list ``expected`` is float32 (or int32): JAX's defaults with x64 disabled.
    """
    assert isinstance(actual, Array), type(actual)
    expected = np.asarray(expected)
    expected = expected.astype({np.dtype("float64"): np.float32,
                                np.dtype("int64"): np.int32}.get(expected.dtype,
                                                                 expected.dtype))
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == np.dtype(dtype or expected.dtype)
    assert actual.weak_type == weak
    np.testing.assert_array_equal(np.asarray(actual), expected)


def raises(exc, msg):
    return pytest.raises(exc, match="^" + re.escape(msg) + "$")


# =============================================================================
# basic indexing: ints, slices, None, Ellipsis (hypothesis, against NumPy)
# =============================================================================
@st.composite
def basic_indexing(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    bound = st.one_of(st.none(), st.integers(-6, 6))
    step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
    items = []
    for n in shape:
        kinds = ["slice"] + (["int"] if n else [])
        if draw(st.sampled_from(kinds)) == "int":
            items.append(draw(st.integers(-n, n - 1)))
        else:
            items.append(slice(draw(bound), draw(bound), draw(step)))
    items = items[:draw(st.integers(0, len(items)))]  # trailing dims implicit
    if draw(st.booleans()):  # replace a run of entries by an Ellipsis
        lo = draw(st.integers(0, len(items)))
        hi = draw(st.integers(lo, len(items)))
        # entries after the Ellipsis now index the trailing axes: keep only
        # slices there, so that every int stays in bounds for its axis
        tail = [slice(None) if isinstance(i, int) else i for i in items[hi:]]
        items[lo:] = [Ellipsis] + tail
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return shape, tuple(items)


@given(basic_indexing())
def test_basic_indexing_matches_numpy(case):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    check(jnp.asarray(a)[idx], a[idx])


@given(basic_indexing())
def test_basic_indexing_of_a_single_item_matches_numpy(case):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    if len(idx) == 1:  # x[i] as well as x[(i,)]
        check(jnp.asarray(a)[idx[0]], a[idx[0]])


def test_getitem_returns_strong_array_of_operand_dtype():
    # expected values from JAX 0.10.2
    y = jnp.asarray(np.arange(3, dtype=np.float32))[0]
    assert repr(y) == "Array(0., dtype=float32)"
    check(jnp.asarray(np.array([1, 2], np.int8))[1], np.int8(2))
    check(jnp.asarray(np.array([True, False]))[1:], [False])
    check(jnp.array(3.)[()], np.float32(3.), weak=True)  # weak stays weak
    check(jnp.array(3.)[None], np.array([3.], np.float32), weak=True)


# =============================================================================
# advanced indexing (against NumPy)
# =============================================================================
ADVANCED = [
    "(A([0, 2]),)",
    "(A([[0, 1], [2, 2]]),)",
    "(A([-1, 0, -3]),)",
    "(slice(None), A([1, 3]))",
    "(A([0, 1]), slice(None), A([0, 4]))",        # non-adjacent: advanced dims go first
    "(slice(None), A([0, 1]), A([0, 4]))",        # adjacent: they stay in place
    "(A([[0], [2]]), None, A([0, 1, 3]))",         # broadcasting index arrays
    "(Ellipsis, A([0, 2]), 1)",
    "(1, Ellipsis, A([0, 2]))",
    "(None, 1, None, A([0, 2]), slice(None, None, 2))",
    "(A([0, 2]), None, slice(None, None, -2), 0)",
    "(slice(1, 3), A(2))",
    "(A(1), A(2))",
    "(0, A([3, 1]), slice(None, None, -1))",
    "(A([[True, False, True, True], [False] * 4, [True] * 4]),)",
    "(slice(None), A([True, False, True, False]))",
    "(A([True, False, True]), 1, A([4, 0]))",
    "([0, 2], [1, 1])",
    "((0, 1),)",
    "(slice(None), [True, False, True, False])",
    "(True,)",
    "(False,)",
    "(A([], dtype=np.int32),)",
    "(A(np.zeros((0, 2), np.int32)), 1)",
]


@pytest.mark.parametrize("expr", ADVANCED)
def test_advanced_indexing_matches_numpy(expr):
    np_idx = eval(expr, {"A": np.array, "np": np})
    jnp_idx = eval(expr, {"A": jnp.array, "np": np})
    check(z()[jnp_idx], Z[np_idx])
    check(z()[np_idx], Z[np_idx])  # NumPy arrays are valid indices too


def test_scalar_bool_after_none_follows_jax_not_numpy():
    # expected values from JAX 0.10.2 (NumPy gives shape (1, 1, 4, 5) here)
    check(z()[0, None, :, True], Z[0, :, 0].reshape(1, 1, 4, 1))


def test_index_arrays_of_any_integer_dtype():
    for dt in (np.int8, np.uint8, np.int16, np.uint32):
        check(z()[jnp.asarray(np.array([2, 0], dt))], Z[[2, 0]])
    check(z()[np.uint8(1), np.int64(2)], Z[1, 2])


# =============================================================================
# out-of-bound reads: clamped by default (unlike NumPy)
# =============================================================================
def test_out_of_bound_reads_are_clamped():
    # expected values from JAX 0.10.2
    check(x()[5], [3., 4., 5.])
    check(x()[-3], [0., 1., 2.])
    check(x()[jnp.array(5)], [3., 4., 5.])
    check(jnp.asarray(np.arange(5, dtype=np.int32))[jnp.array([7])], np.array([4], np.int32))
    check(jnp.asarray(np.arange(5, dtype=np.int32))[jnp.array([-7])], np.array([0], np.int32))
    check(v()[jnp.array([4, -5, 0])], [4., 0., 0.])


def test_at_get_modes():
    # expected values from JAX 0.10.2
    nan = np.nan
    check(v().at[1].get(), np.float32(1.))
    check(v().at[7].get(), np.float32(4.))
    check(v().at[7].get(mode="fill"), np.float32(nan))
    check(v().at[7].get(mode="fill", fill_value=-1), np.float32(-1.))
    check(v().at[jnp.array([0, 7, -1])].get(mode="fill"), np.float32([0., nan, 4.]))
    check(v().at[jnp.array([0, 7, -1])].get(mode="clip"), np.float32([0., 4., 4.]))
    check(v().at[-1].get(wrap_negative_indices=False, mode="fill"), np.float32(nan))
    check(v().at[jnp.array([0, 7, -1])].get(mode="fill", wrap_negative_indices=False),
          np.float32([0., nan, nan]))
    check(v().at[::2].get(mode="fill"), np.float32([0., 2., 4.]))
    check(jnp.asarray(Z).at[1, 9].get(mode="fill"),
          np.full(5, np.iinfo(np.int32).min, np.int32))


@given(st.lists(st.integers(-8, 8), min_size=1, max_size=6))
def test_array_index_reads_clamp_after_wrapping_negatives(idx):
    n = len(V)
    expected = V[np.clip([i + n if i < 0 else i for i in idx], 0, n - 1)]
    check(v()[jnp.array(idx)], expected)


# =============================================================================
# .at[] updates
# =============================================================================
def test_at_updates():
    # expected values from JAX 0.10.2
    i = jnp.array
    check(v().at[1].set(10.), [0., 10., 2., 3., 4.])
    check(v().at[-1].set(10.), [0., 1., 2., 3., 10.])
    check(v().at[7].set(10.), V)  # out of bounds: dropped
    check(v().at[7].set(10., mode="clip"), [0., 1., 2., 3., 10.])
    check(v().at[-1].set(99., wrap_negative_indices=False, mode="drop"), V)
    check(v().at[i([0, 0, 1])].set(i([1., 1., 3.])), [1., 3., 2., 3., 4.])
    check(v().at[i([0, 0, 1])].add(i([1., 2., 3.])), [3., 4., 2., 3., 4.])
    check(v().at[i([0, 0, 9])].add(i([1., 2., 3.])), [3., 1., 2., 3., 4.])
    check(v().at[i([0, 0, 1])].mul(i([1., 2., 3.])), [0., 3., 2., 3., 4.])
    check(v().at[i([0, 0, 1])].multiply(3.), [0., 3., 2., 3., 4.])
    check(v().at[i([0, 0, 4])].min(i([-1., 2., 3.])), [-1., 1., 2., 3., 3.])
    check(v().at[i([0, 0, 4])].max(i([-1., 2., 3.])), [2., 1., 2., 3., 4.])
    check(v().at[i([2, 2])].subtract(1.), [0., 1., 0., 3., 4.])
    check(v().at[::2].set(i([7., 8., 9.])), [7., 1., 8., 3., 9.])
    check(v().at[::-2].set(i([7., 8., 9.])), [9., 1., 8., 3., 7.])
    check(v().at[1:3].add(1.), [0., 2., 3., 3., 4.])
    check(v().at[None].set(jnp.asarray(V * 2)), V * 2)
    check(v().at[V > 2].set(0.), [0., 1., 2., 0., 0.])
    check(v().at[jnp.asarray(V > 2)].set(0.), [0., 1., 2., 0., 0.])
    check(v().at[...].set(1.), np.ones(5, np.float32))
    check(x().at[:, 1].set(i([7., 8.])), [[0., 7., 2.], [3., 8., 5.]])
    check(x().at[i([1, 0]), i([2, 2])].add(1.), [[0., 1., 3.], [3., 4., 6.]])
    check(x().at[1, ::-1].set(i([1., 2., 3.])), [[0., 1., 2.], [3., 2., 1.]])
    check(x().at[True].set(1.), np.ones((2, 3), np.float32))
    check(x().at[False].set(1.), X)
    check(x().at[None, 0].set(9.), [[9., 9., 9.], [3., 4., 5.]])
    expected = Z.copy()
    expected[:, [0, 1], 2] += 100
    check(z().at[:, i([0, 1]), 2].add(100), expected)


def test_at_divide_power_apply():
    # expected values from JAX 0.10.2
    i = jnp.array
    check(v().at[i([1, 1])].divide(2.), [0., 0.25, 2., 3., 4.])
    check(v().at[i([2, 2])].power(2.), [0., 1., 16., 3., 4.])
    check(v().at[i([2, 2, 3])].apply(lambda t: t * 2), [0., 1., 8., 6., 4.])


def test_at_does_not_modify_the_array():
    a = v()
    a.at[0].set(100.)
    a.at[jnp.array([1, 1])].add(1.)
    check(a, V)


def test_at_keeps_dtype_and_weak_type():
    # expected values from JAX 0.10.2
    ints = jnp.asarray(np.arange(3, dtype=np.int32))
    check(ints.at[0].set(2), np.int32([2, 1, 2]))
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types: cannot "
                      "safely cast value from dtype=float32 to dtype=int32"):
        check(ints.at[0].set(2.5), np.int32([2, 1, 2]))
    with pytest.warns(FutureWarning):
        check(ints.at[0].add(2.5), np.int32([2, 1, 2]))
    check(jnp.asarray(np.arange(3, dtype=np.uint8)).at[0].set(300), np.uint8([44, 1, 2]))
    check(jnp.asarray(np.arange(3, dtype=np.int8)).at[0].add(-1), np.int8([-1, 1, 2]))
    check(jnp.array(1.).at[()].set(2), np.float32(2.), weak=True)
    check(jnp.asarray(np.float32([1., 2.])).at[0].set(2), np.float32([2., 2.]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an int into a float array is safe: no warning
        jnp.asarray(V).at[0].set(3)


def _reference_update(op, operand, idx, updates):
    """NumPy loop: negative indices wrap, out-of-bound updates are dropped."""
    out, n = operand.copy(), len(operand)
    for i, u in zip(idx, updates):
        i = i + n if i < 0 else i
        if 0 <= i < n:
            out[i] = op(out[i], u)
    return out


@pytest.mark.parametrize("method, op", [
    ("add", np.add), ("multiply", np.multiply), ("min", np.minimum), ("max", np.maximum),
    ("subtract", np.subtract)])
@given(st.lists(st.tuples(st.integers(-7, 7), st.integers(-4, 4)), min_size=1, max_size=8))
def test_at_updates_accumulate_duplicates_and_drop_out_of_bounds(method, op, pairs):
    idx = [i for i, _ in pairs]
    upd = np.array([u for _, u in pairs], np.float32)
    result = getattr(v().at[jnp.array(idx)], method)(jnp.asarray(upd))
    check(result, _reference_update(op, V, idx, upd))


@given(st.lists(st.integers(-7, 7), min_size=1, max_size=8, unique=True))
def test_at_set_with_unique_indices(idx):
    upd = np.arange(len(idx), dtype=np.float32) + 10
    check(v().at[jnp.array(idx)].set(jnp.asarray(upd)),
          _reference_update(lambda old, new: new, V, idx, upd))


def test_at_set_with_duplicates_writes_one_of_the_updates():
    out = np.asarray(v().at[jnp.array([1, 1, 1])].set(jnp.array([7., 8., 9.])))
    assert out[1] in (7., 8., 9.)
    np.testing.assert_array_equal(np.delete(out, 1), np.delete(V, 1))


def test_at_repr():
    # expected values from JAX 0.10.2
    a = jnp.asarray(np.arange(3, dtype=np.float32))
    assert repr(a.at) == "_IndexUpdateHelper(Array([0., 1., 2.], dtype=float32))"
    assert repr(a.at[1]) == "_IndexUpdateRef(Array([0., 1., 2.], dtype=float32), 1)"


# =============================================================================
# indexing errors, with JAX's classes and messages
# =============================================================================
_SEQ_MSG = ("Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            "`arr[{}]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
            "for more information.")

INDEX_ERRORS = [  # expected values from JAX 0.10.2
    (lambda a: a[1, 2, 3], IndexError,
     "Too many indices: array is 2-dimensional, but 3 were indexed"),
    (lambda a: a[1.0], TypeError,
     "Indexer must have integer or boolean type, got indexer with type float64"),
    (lambda a: a[jnp.array(1.0)], TypeError,
     "Indexer must have integer or boolean type, got indexer with type float32"),
    (lambda a: a["a"], TypeError, "JAX does not support string indexing; got idx='a'"),
    (lambda a: a[[0, 1]], TypeError, _SEQ_MSG.format("array(seq)")),
    (lambda a: a[[True, False]], TypeError, _SEQ_MSG.format("array(seq)")),
    (lambda a: a[[0, slice(None)]], TypeError, _SEQ_MSG.format("tuple(seq)")),
    (lambda a: a[..., ...], IndexError, "an index can only have a single ellipsis ('...')"),
    (lambda a: a[jnp.array([True, False, True])], IndexError,
     "boolean index did not match shape of indexed array in index 0: got (3,), "
     "expected [2]"),
    (lambda a: a[jnp.array([[True, False, True]])], IndexError,
     "boolean index did not match shape of indexed array in index 0: got (1, 3), "
     "expected [2, 3]"),
    (lambda a: a[1:2.5], TypeError, "'float' object cannot be interpreted as an integer"),
    (lambda a: a[::0], ValueError, "slice step cannot be zero"),
    (lambda a: jnp.asarray(np.zeros((0, 3), np.float32))[0], IndexError,
     "index is out of bounds for axis 0 with size 0"),
    (lambda a: a.at[0].set(jnp.ones(4)), ValueError,
     "Incompatible types for broadcasting: input type=float32[4] and requested "
     "type=float32[3]"),
    (lambda a: a[0, 0].at[()].set(jnp.ones(4)), ValueError,
     "Cannot broadcast to shape with fewer dimensions: arr_shape=(4,) shape=()"),
    (lambda a: a.at[0].get(mode="fill", fill_value=jnp.ones(2)), ValueError,
     "fill_value argument to indexed get() must be a scalar"),
]


@pytest.mark.parametrize("fn, exc, msg", INDEX_ERRORS)
def test_indexing_errors(fn, exc, msg):
    with raises(exc, msg):
        fn(x())


def test_invalid_index_object():
    with pytest.raises(IndexError, match=re.escape(
            "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer "
            "or boolean arrays are valid indices. Got <object object")):
        x()[object()]


class _Unknown:
    """Stands in for a traced value: an aval, and no value (``to_concrete_value``)."""

    def __init__(self, shape, dtype):
        self.aval = ShapedArray(shape, dtype)
        self.dtype, self.shape, self.ndim = self.aval.dtype, self.aval.shape, self.aval.ndim

    def to_concrete_value(self):
        return None


def test_traced_boolean_mask_raises_non_concrete_boolean_index_error():
    # expected values from JAX 0.10.2 (jax.errors.NonConcreteBooleanIndexError)
    with raises(IndexError, "Array boolean indices must be concrete; got bool[2,3]\n\n"
                "See https://docs.jax.dev/en/latest/errors.html"
                "#jax.errors.NonConcreteBooleanIndexError"):
        x()[_Unknown((2, 3), np.bool_)]


def test_traced_slice_bound_raises():
    with pytest.raises(IndexError, match="^Slice entries must be static integers. Got slice"):
        x()[_Unknown((), np.int32):]


# =============================================================================
# lax.slice, dynamic_slice, dynamic_update_slice
# =============================================================================
def test_lax_slice():
    check(lax.slice(x(), (0, 1), (2, 3)), X[0:2, 1:3])
    check(lax.slice(x(), (0, 0), (2, 3), (1, 2)), X[:, ::2])
    check(lax.slice(x(), (0, 0), (2, 3), (2, 2)), X[::2, ::2])
    check(lax.slice(z(), (1, 0, 1), (3, 4, 5), (1, 3, 2)), Z[1:3, 0:4:3, 1:5:2])
    check(lax.slice_in_dim(x(), 1, -1, axis=1), X[:, 1:-1])
    check(lax.slice_in_dim(x(), None, None, 2, axis=1), X[:, ::2])
    check(lax.index_in_dim(x(), -1, axis=1), X[:, -1:])
    check(lax.index_in_dim(x(), 1, axis=1, keepdims=False), X[:, 1])


SLICE_ERRORS = [  # expected values from JAX 0.10.2 (under jit)
    (lambda: lax.slice(x(), (0, 1), (2, 6)), TypeError,
     "slice limit_indices must be less than or equal to operand shape, got limit_indices "
     "(2, 6) for operand shape (2, 3)."),
    (lambda: lax.slice(x(), (0,), (2,)), TypeError,
     "slice start_indices must have length equal to the number of dimensions of the "
     "operand, got indices (0,) for operand shape (2, 3)."),
    (lambda: lax.slice(x(), (0, -1), (2, 3)), TypeError,
     "slice start_indices must have every element be nonnegative, got (0, -1)."),
    (lambda: lax.slice(x(), (0, 3), (2, 2)), TypeError,
     "slice limit_indices must be greater than or equal to start_indices, got "
     "start_indices (0, 3) and limit_indices (2, 2)."),
    (lambda: lax.slice(x(), (0, 0.5), (2, 3)), TypeError,
     "slice start_indices must have every element be an integer type, got "
     "(<class 'int'>, <class 'float'>)."),
    (lambda: lax.slice(x(), 0, (2, 3)), TypeError, "'int' object is not iterable"),
    (lambda: lax.slice(x(), (0, 0), (2, 3), (1,)), TypeError,
     "slice strides must have length equal to the number of dimensions of the operand, "
     "got strides (1,) for operand shape (2, 3)."),
    (lambda: lax.slice(x(), (0, 0), (2, 3), (1, -1)), TypeError,
     "slice strides must have every element be nonnegative, got (1, -1)."),
    (lambda: lax.index_in_dim(x(), 5, axis=1), IndexError,
     "index 5 is out of bounds for axis 1 with size 3"),
]


@pytest.mark.parametrize("fn, exc, msg", SLICE_ERRORS)
def test_lax_slice_errors(fn, exc, msg):
    with raises(exc, msg):
        fn()


def test_dynamic_slice_clamps_and_wraps_negative_indices():
    # expected values from JAX 0.10.2
    check(lax.dynamic_slice(x(), (1, 2), (1, 2)), [[4., 5.]])
    check(lax.dynamic_slice(x(), (-1, -2), (1, 2)), [[4., 5.]])
    check(lax.dynamic_slice(x(), (jnp.int32(-1), 7), (1, 2)), [[4., 5.]])
    check(lax.dynamic_slice(x(), jnp.array([1, 1]), (1, 2)), [[4., 5.]])
    check(lax.dynamic_slice(x(), (jnp.array(1), jnp.array(-1)), (1, 1),
                            allow_negative_indices=False), [[3.]])
    check(lax.dynamic_slice(x(), (jnp.uint8(1), jnp.uint8(200)), (1, 1)), [[5.]])
    check(lax.dynamic_slice(jnp.array(2.), (), ()), np.float32(2.), weak=True)
    check(lax.dynamic_slice_in_dim(x(), 4, 3, axis=1), X)
    check(lax.dynamic_slice_in_dim(x(), jnp.array(-2), 2, axis=1), X[:, 1:])
    check(lax.dynamic_index_in_dim(x(), -1, axis=1, keepdims=False), X[:, -1])
    check(lax.dynamic_index_in_dim(x(), jnp.array(1)), X[1:])


@given(st.integers(-10, 10), st.integers(-10, 10), st.integers(0, 3), st.integers(0, 4))
def test_dynamic_slice_matches_clamped_numpy_slice(i, j, di, dj):
    def clamp(start, dim, size):
        start = start + dim if start < 0 else start
        return min(max(start, 0), dim - size)
    a, b = clamp(i, 3, di), clamp(j, 5, dj)
    check(lax.dynamic_slice(z()[0, :3], (i, j), (di, dj)), Z[0, :3][a:a + di, b:b + dj])
    expected = Z[0, :3].copy()
    expected[a:a + di, b:b + dj] = -1
    check(lax.dynamic_update_slice(z()[0, :3], jnp.full((di, dj), -1, jnp.int32), (i, j)),
          expected)


def test_dynamic_update_slice():
    # expected values from JAX 0.10.2
    ones = jnp.ones((1, 2))
    check(lax.dynamic_update_slice(x(), ones, (1, 4)), [[0., 1., 2.], [3., 1., 1.]])
    check(lax.dynamic_update_slice(x(), ones, (-1, -1)), [[0., 1., 2.], [3., 1., 1.]])
    check(lax.dynamic_update_slice(jnp.array(2.), 3., ()), np.float32(3.), weak=True)
    check(lax.dynamic_update_slice_in_dim(x(), jnp.ones((2, 2)), 4, axis=1),
          [[0., 1., 1.], [3., 1., 1.]])
    check(lax.dynamic_update_slice_in_dim(x(), jnp.ones((2, 2)), jnp.array(-1), axis=1),
          [[0., 1., 1.], [3., 1., 1.]])
    check(lax.dynamic_update_index_in_dim(x(), jnp.ones((3,)), 7, axis=0),
          [[0., 1., 2.], [1., 1., 1.]])


DYNAMIC_ERRORS = [  # expected values from JAX 0.10.2
    (lambda: lax.dynamic_slice(x(), (1,), (1, 2)), ValueError,
     "Length of slice indices must match number of operand dimensions (1 vs (2, 3))"),
    (lambda: lax.dynamic_slice(x(), (1, 1), (3, 2)), TypeError,
     "slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
     "(3, 2) for operand shape (2, 3)."),
    (lambda: lax.dynamic_slice(x(), (1, 1), (1, -1)), TypeError,
     "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (1, -1)."),
    (lambda: lax.dynamic_slice(x(), (1., 1), (1, 1)), TypeError,
     "index arguments to dynamic_slice must be integers of the same type, got: float32, "
     "int32"),
    (lambda: lax.dynamic_slice(x(), (jnp.int8(1), jnp.int32(1)), (1, 1)), TypeError,
     "index arguments to dynamic_slice must be integers of the same type, got: int8, int32"),
    (lambda: lax.dynamic_slice(x(), (jnp.array([1]), 1), (1, 1)), TypeError,
     "start_indices arguments to dynamic_slice must be scalars,  got indices "
     "(ShapedArray(int32[1]), ShapedArray(int32[]))"),
    (lambda: lax.dynamic_slice(x(), (1, 1), (1.5, 1)), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got (1.5, 1)."),
    (lambda: lax.dynamic_slice(x(), (1, -1), (1, 1), allow_negative_indices=False),
     ValueError, "Index -1 is out of bounds for dimension 3 if allow_negative_indices=False"),
    (lambda: lax.dynamic_update_slice(x(), jnp.ones((2,)), (1, 4)), TypeError,
     "dynamic_update_slice update must have the same rank as operand, got update shape "
     "(2,) for operand shape (2, 3)."),
    (lambda: lax.dynamic_update_slice(x(), jnp.ones((3, 3)), (1, 1)), TypeError,
     "dynamic_update_slice update shape must be smaller than operand shape, got update "
     "shape (3, 3) for operand shape (2, 3)."),
    (lambda: lax.dynamic_update_slice(x(), jnp.ones((1, 3), jnp.int32), (1, 1)), TypeError,
     "lax.dynamic_update_slice requires arguments to have the same dtypes, got float32, "
     "int32."),
    (lambda: lax.dynamic_update_slice(x(), jnp.ones((1, 3)), (1., 1)), TypeError,
     "index arguments to dynamic_update_slice must be integers of the same type, got "
     "float32, int32"),
]


@pytest.mark.parametrize("fn, exc, msg", DYNAMIC_ERRORS)
def test_dynamic_slice_errors(fn, exc, msg):
    with raises(exc, msg):
        fn()


# =============================================================================
# gather / scatter against hand-computed NumPy
# =============================================================================
def test_dimension_numbers_and_modes():
    # expected values from JAX 0.10.2
    assert repr(GD((1,), (0,), (0,))) == (
        "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
    assert repr(SD((1,), (0,), (0,))) == (
        "ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
        "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=())")
    assert [m.name for m in GSM] == ["CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS", "ONE_HOT"]
    assert str(GSM.CLIP) == "GatherScatterMode.CLIP"
    assert GSM.from_any(None) is GSM.FILL_OR_DROP
    assert GSM.from_any("drop") is GSM.from_any("fill") is GSM.FILL_OR_DROP
    assert GSM.from_any("clip") is GSM.CLIP
    assert GSM.from_any("promise_in_bounds") is GSM.PROMISE_IN_BOUNDS
    assert GSM.from_any(GSM.ONE_HOT) is GSM.ONE_HOT
    with raises(ValueError, 'Unknown gather mode "foo"'):
        GSM.from_any("foo")


def test_gather_windows_and_modes():
    idx = jnp.array([[4], [-1], [1]])
    dn = GD((1,), (), (0,))
    # windows of 2 starting at 4, -1, 1; clamped to [0, 3] by default and by "clip"
    check(lax.gather(v(), idx, dn, (2,)), [[3., 4.], [0., 1.], [1., 2.]])
    check(lax.gather(v(), idx, dn, (2,), mode="clip"), [[3., 4.], [0., 1.], [1., 2.]])
    # "fill": a window partly outside is filled entirely (JAX 0.10.2 defaults)
    nan = np.nan
    check(lax.gather(v(), idx, dn, (2,), mode="fill"), [[nan, nan], [nan, nan], [1., 2.]])
    check(lax.gather(v(), idx, GD((0,), (), (0,)), (2,), mode="fill", fill_value=7),
          [[7., 7., 1.], [7., 7., 2.]])
    imin, umax = np.iinfo(np.int32).min, np.iinfo(np.uint8).max
    check(lax.gather(jnp.asarray(np.arange(5, dtype=np.int32)), idx, dn, (2,), mode="fill"),
          np.int32([[imin, imin], [imin, imin], [1, 2]]))
    check(lax.gather(jnp.asarray(np.arange(5, dtype=np.uint8)), idx, dn, (2,), mode="fill"),
          np.uint8([[umax, umax], [umax, umax], [1, 2]]))
    check(lax.gather(jnp.asarray(np.arange(5) > 2), idx, dn, (2,), mode="fill"),
          [[True, True], [True, True], [False, False]])


def test_gather_general_dimension_numbers():
    idx = np.array([[[1, 2], [0, 3]], [[2, 0], [1, 1]]], np.int32)  # batch (2, 2)
    # operand dims 1, 2 indexed; dim 1 collapsed; windows (3, 1, 2); output (3, 2, 2, 2)
    out = lax.gather(z(), jnp.asarray(idx), GD((0, 3), (1,), (1, 2)), (3, 1, 2))
    expected = np.empty((3, 2, 2, 2), np.int32)
    for b0 in range(2):
        for b1 in range(2):
            i1, i2 = idx[b0, b1]
            i2 = min(max(i2, 0), 5 - 2)
            expected[:, b0, b1, :] = Z[:, i1, i2:i2 + 2]
    check(out, expected)


def test_gather_with_batching_dims():
    idx = np.array([[1, 4], [3, 0], [0, 2]], np.int32)
    out = lax.gather(z(), jnp.asarray(idx), GD((), (1, 2), (1, 2), (0,), (0,)), (1, 1, 1))
    check(out, Z[np.arange(3), idx[:, 0], idx[:, 1]])
    idx = np.array([[1], [3], [0]], np.int32)
    out = lax.gather(z(), jnp.asarray(idx), GD((1,), (1,), (1,), (0,), (0,)), (1, 1, 5))
    check(out, Z[np.arange(3), idx[:, 0]])


def test_gather_empty_and_rank_zero():
    check(lax.gather(jnp.array(3.), jnp.zeros((2, 0), jnp.int32), GD((), (), ()), ()),
          np.float32([3., 3.]), weak=True)
    check(lax.gather(z(), jnp.zeros((0, 1), jnp.int32), GD((1, 2), (0,), (0,)), (1, 4, 5)),
          np.zeros((0, 4, 5), np.int32))


GATHER_ERRORS = [  # expected values from JAX 0.10.2
    (lambda: lax.gather(v(), jnp.array([[4.]]), GD((1,), (), (0,)), (2,)), ValueError,
     "indices must have an integer type"),
    (lambda: lax.gather(v(), jnp.array([[4]]), GD((1,), (), (0,)), (2, 1)), TypeError,
     "Gather op must have one slice size for every input dimension; got: "
     "len(slice_sizes)=2, input_shape.rank=1"),
    (lambda: lax.gather(v(), jnp.array([[4]]), GD((1,), (), (0,)), (6,)), TypeError,
     "Slice size at index 0 in gather op is out of range, must be within [0, 5 + 1), "
     "got 6."),
    (lambda: lax.gather(v(), jnp.array([[4, 1]]), GD((1,), (), (0,)), (2,)), TypeError,
     "Gather op has 1 elements in start_index_map and the bound of dimension "
     "index_vector_dim=1 of indices is 2. These two numbers must be equal."),
    (lambda: lax.gather(v(), jnp.array([[4]]), GD((1,), (0,), (0,)), (2,)), TypeError,
     "All components of the offset index in a gather op must either be a offset dimension "
     "or explicitly collapsed/batching; got len(slice_sizes)=1, output_slice_sizes=(1,), "
     "collapsed_slice_dims=(0,), operand_batching_dims=()."),
    (lambda: lax.gather(v(), jnp.array([[4]]), GD((2,), (), (0,)), (2,)), TypeError,
     "Offset dimension 0 in gather op is out of bounds; got 2, but should have been in "
     "[0, 2)"),
    (lambda: lax.gather(z(), jnp.array([[1]]), GD((1, 2), (0,), (0,)), (2, 4, 5)),
     TypeError, "Gather op can only collapse slice dims with bound 1, but bound is 2 for "
     "index 0 at position 0."),
]


@pytest.mark.parametrize("fn, exc, msg", GATHER_ERRORS)
def test_gather_errors(fn, exc, msg):
    with raises(exc, msg):
        fn()


def test_scatter_modes():
    # expected values from JAX 0.10.2: windows of 2 at 4, -1, 1 (and 1 again for add)
    idx = jnp.array([[4], [-1], [1]])
    upd = jnp.array([[10., 11.], [12., 13.], [14., 15.]])
    dn = SD((1,), (), (0,))
    for mode in (None, "drop", "promise_in_bounds"):  # windows not wholly inside: dropped
        check(lax.scatter(v(), idx, upd, dn, mode=mode), [0., 14., 15., 3., 4.])
    check(lax.scatter(v(), idx, upd, dn, mode="clip"), [12., 14., 15., 10., 11.])
    idx4 = jnp.array([[4], [-1], [1], [1]])
    upd4 = jnp.array([[10., 11.], [12., 13.], [14., 15.], [1., 1.]])
    check(lax.scatter_add(v(), idx4, upd4, dn), [0., 16., 18., 3., 4.])
    check(lax.scatter_add(v(), idx4, upd4, dn, mode="clip"), [12., 29., 18., 13., 15.])
    check(lax.scatter(v(), idx, jnp.ones((3, 3)), dn), [0., 1., 1., 1., 4.])


def test_scatter_combiners():
    # expected values from JAX 0.10.2
    one = SD((), (0,), (0,))
    i = jnp.array([[0], [0], [1]])
    check(lax.scatter_mul(jnp.array([2, 3]), i, jnp.array([2, 3, 4]), one), np.int32([12, 12]))
    check(lax.scatter_sub(jnp.array([2, 3]), i, jnp.array([2, 3, 4]), one), np.int32([-3, -1]))
    check(lax.scatter_max(jnp.array(2.)[None], jnp.array([[0]]), jnp.array(3.)[None], one),
          np.float32([3.]), weak=True)
    nan_vals = jnp.asarray(np.float32([0., np.nan]))
    upd = jnp.asarray(np.float32([np.nan, 1.]))
    check(lax.scatter_max(nan_vals, jnp.array([[0], [1]]), upd, one), np.float32([np.nan] * 2))
    check(lax.scatter_min(nan_vals, jnp.array([[0], [1]]), upd, one), np.float32([np.nan] * 2))
    check(lax.scatter_min(jnp.array([True, True]), jnp.array([[0], [1]]),
                          jnp.array([False, True]), one), [False, True])
    check(lax.scatter_apply(jnp.asarray(np.arange(3, dtype=np.float32)),
                            jnp.array([[0], [0], [2]]), lambda t: t * 2 + 1, one,
                            update_shape=(3,)), [3., 1., 5.])


def test_scatter_general_dimension_numbers():
    idx = np.array([[[1, 2]], [[0, 3]]], np.int32)  # batch (2, 1): starts (1, 2), (0, 3)
    out = lax.scatter_add(z(), jnp.asarray(idx), jnp.ones((3, 2, 1, 2), jnp.int32),
                          SD((0, 3), (1,), (1, 2)))
    expected = Z.copy()
    for i1, i2 in idx[:, 0]:
        expected[:, i1, i2:i2 + 2] += 1
    check(out, expected)
    # batching dims: operand dim 0 paired with indices dim 0
    idx = np.array([[1, 4], [3, 0], [0, 2]], np.int32)
    out = lax.scatter_add(z(), jnp.asarray(idx), jnp.full((3,), 1000, jnp.int32),
                          SD((), (1, 2), (1, 2), (0,), (0,)))
    expected = Z.copy()
    expected[np.arange(3), idx[:, 0], idx[:, 1]] += 1000
    check(out, expected)
    # no index vector at all: one window covering the whole operand
    check(lax.scatter(z(), jnp.zeros((0,), jnp.int32), -z(), SD((0, 1, 2), (), ())), -Z)
    check(lax.scatter(jnp.array(2.), jnp.zeros((0,), jnp.int32), jnp.array(3.),
                      SD((), (), ())), np.float32(3.), weak=True)


SCATTER_ERRORS = [  # expected values from JAX 0.10.2
    (lambda: lax.scatter(v(), jnp.array([[4]]), jnp.array([[10, 11]]), SD((1,), (), (0,))),
     TypeError, "lax.scatter requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.scatter(v(), jnp.array([[4.]]), jnp.ones((1, 2)), SD((1,), (), (0,))),
     ValueError, "indices must have an integer type"),
    (lambda: lax.scatter(v(), jnp.array([[4], [1]]), jnp.ones((3, 2)), SD((1,), (), (0,))),
     TypeError, "Bounds of the scatter dimensions of updates must be the same as the "
     "bounds of the corresponding dimensions of scatter indices. For scatter dimension 0, "
     "updates bound is 3, indices bound is 2."),
    (lambda: lax.scatter(v(), jnp.array([[4], [1]]), jnp.ones(2), SD((1,), (), (0,))),
     TypeError, "Updates tensor must be of rank 2; got 1."),
    (lambda: lax.scatter(v(), jnp.array([[4]]), jnp.ones((1, 6)), SD((1,), (), (0,))),
     TypeError, "Bounds of the window dimensions of updates must not exceed the bounds of "
     "the corresponding dimensions of operand. For dimension 1, updates bound is 6, "
     "operand bound is 5."),
    (lambda: lax.scatter(v(), jnp.array([[4]]), jnp.ones((1, 2)), SD((1,), (0,), (0,))),
     TypeError, "Scatter op has window of size 2; doesn't match operand of rank 1."),
    (lambda: lax.scatter(v(), jnp.array([[4]]), jnp.ones((1, 2)), SD((1,), (), (1,))),
     TypeError, "Invalid scatter_dims_to_operand_dims mapping; domain is [0, 1), got: 0->1."),
    (lambda: lax.scatter(v(), jnp.array([[4, 1]]), jnp.ones((1, 2)), SD((1,), (), (0,))),
     TypeError, "Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound "
     "of dimension index_vector_dim=1 of indices is 2. These two numbers must be equal"),
    (lambda: lax.scatter(v(), jnp.array([[4]]), jnp.ones((1, 2)), SD((1,), (), (0,)),
                         mode="foo"), ValueError, 'Unknown gather mode "foo"'),
    (lambda: lax.scatter_add(jnp.array([True]), jnp.array([[0]]), jnp.array([True]),
                             SD((), (0,), (0,))), TypeError,
     "add does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, floating, complexfloating."),
]


@pytest.mark.parametrize("fn, exc, msg", SCATTER_ERRORS)
def test_scatter_errors(fn, exc, msg):
    with raises(exc, msg):
        fn()


# =============================================================================
# take, take_along_axis
# =============================================================================
def test_take():
    # expected values from JAX 0.10.2
    nan = np.nan
    check(jnp.take(v(), jnp.array([0, 7])), [0., nan])
    check(jnp.take(v(), jnp.array([0, -1, 7]), mode="clip"), [0., 0., 4.])
    check(jnp.take(v(), jnp.array([0, -1, 7]), mode="wrap"), [0., 4., 2.])
    check(jnp.take(v(), jnp.array([0, -1, 7]), mode="fill", fill_value=0), [0., 4., 0.])
    check(jnp.take(x(), jnp.array([2, 0]), axis=1), X[:, [2, 0]])
    check(jnp.take(x(), jnp.array([[2, 0], [1, 1]]), axis=0),
          [[[nan, nan, nan], [0., 1., 2.]], [[3., 4., 5.], [3., 4., 5.]]])
    check(jnp.take(x(), jnp.array([4, 0])), [4., 0.])
    check(jnp.take(x(), 1, axis=1), X[:, 1])
    check(jnp.take(x(), jnp.array([], dtype=jnp.int32), axis=1), np.zeros((2, 0), np.float32))
    check(jnp.take(jnp.zeros((0, 3)), jnp.array([], dtype=jnp.int32), axis=0),
          np.zeros((0, 3), np.float32))
    check(x().take(jnp.array([1]), axis=1), X[:, [1]])


@given(st.lists(st.integers(-3, 2), min_size=0, max_size=5), st.integers(-3, 2))
def test_take_matches_numpy_in_bounds(idx, axis):
    idx = np.array(idx, np.int32)
    check(jnp.take(z(), jnp.asarray(idx), axis=axis), np.take(Z, idx, axis=axis))


def test_take_along_axis():
    # expected values from JAX 0.10.2
    i = jnp.array
    check(jnp.take_along_axis(x(), i([[0, 2, 1]]), axis=1), [[0., 2., 1.], [3., 5., 4.]])
    check(jnp.take_along_axis(x(), i([[0, 2, 1], [2, 2, -1]]), axis=1),
          [[0., 2., 1.], [5., 5., 5.]])
    check(jnp.take_along_axis(x(), i([[1, 0, 5]]), axis=0), [[3., 1., np.nan]])
    check(jnp.take_along_axis(x(), i([[1, 0, 5]]), axis=0, mode="clip"), [[3., 1., 5.]])
    check(jnp.take_along_axis(x(), i([[1, 0, 5]]), axis=0, fill_value=-1), [[3., 1., -1.]])
    check(jnp.take_along_axis(x(), i([2, 5, 0]), axis=None), [2., 5., 0.])
    check(jnp.take_along_axis(x(), i([[0, 1, 2, 0]]), axis=1), X[:, [0, 1, 2, 0]])


@pytest.mark.parametrize("idx_shape, axis", [
    ((3, 1, 5), 1), ((3, 4, 2), -1), ((1, 4, 5), 0), ((3, 4, 1), 2), ((2, 4, 5), 0)])
def test_take_along_axis_matches_numpy(idx_shape, axis):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, Z.shape[axis], idx_shape).astype(np.int32)
    check(jnp.take_along_axis(z(), jnp.asarray(idx), axis=axis),
          np.take_along_axis(Z, idx, axis=axis))


TAKE_ERRORS = [  # expected values from JAX 0.10.2
    (lambda: jnp.take(x(), jnp.array([0]), axis=2), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda: jnp.take(x(), jnp.array([0]), mode="raise"), NotImplementedError,
     "The 'raise' mode to jnp.take is not supported."),
    (lambda: jnp.take(x(), jnp.array([0]), mode="foo"), ValueError,
     "Invalid mode 'foo' for np.take"),
    (lambda: jnp.take(jnp.zeros((0, 3)), jnp.array([0]), axis=0), IndexError,
     "Cannot do a non-empty jnp.take() from an empty axis."),
    (lambda: jnp.take_along_axis(x(), jnp.array([[2, 5, 0]]), axis=None), ValueError,
     "take_along_axis indices must be 1D if axis=None, got shape (1, 3)"),
    (lambda: jnp.take_along_axis(x(), jnp.array([[0.]]), axis=0), TypeError,
     "take_along_axis indices must be of integer type, got float32"),
    (lambda: jnp.take_along_axis(x(), jnp.array([0]), axis=0), ValueError,
     "indices and arr must have the same number of dimensions; 1 vs. 2"),
    (lambda: jnp.take_along_axis(z(), jnp.ones((1, 2, 1), jnp.int32), axis=2), ValueError,
     "Incompatible shapes for broadcasting: shapes=[(1, 2, 1), (3, 4, 1)]"),
]


@pytest.mark.parametrize("fn, exc, msg", TAKE_ERRORS)
def test_take_errors(fn, exc, msg):
    with raises(exc, msg):
        fn()
