"""Data movement on the Numba backend: gather, scatter, sort, top_k, split,
stack, tile, unstack, lowered as loops (no fallback), checked against NumPy,
the impl rules, and values from JAX."""
import numpy as np

import minijax.numpy as jnp
from minijax import lax
from tests.ch09_numba.conftest import cpu_jit, is_fallback

X = np.arange(12, dtype=np.float32).reshape(3, 4)
IDX = np.array([2, 0, 5, -1, -7], np.int32)
NAN = np.nan


def lowered(f, *args):
    """``f`` jitted on the Numba backend, after checking that it does not fall back."""
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args), jitted.lower(*args)._lowering.as_text()[:300]
    return jitted


def same(out, expected, dtype=None):
    expected = np.asarray(expected, dtype=dtype)
    assert out.shape == expected.shape and out.dtype == expected.dtype, (out, expected)
    np.testing.assert_array_equal(np.asarray(out), expected)


# --- jnp indexing: gather and scatter with XLA's out-of-bounds rules --------------------
def _indexing(x, i, v):
    return (x[i],                                     # clamps (promise_in_bounds)
            jnp.take(x, i, axis=1, mode="fill"),      # NaN windows
            jnp.take(x, i, axis=1, mode="clip"),
            x[1, 2],                                   # a rank-0 output
            jnp.zeros(4, jnp.float32).at[i].add(v),    # duplicates add, OOB dropped
            jnp.ones(3).at[jnp.array([0, 0, 2])].min(v[:3]),
            jnp.zeros((3, 4), jnp.int32).at[jnp.array([1, 3]), 1:3].set(
                jnp.array([[5, 6], [7, 8]], jnp.int32)))


def test_jnp_indexing_matches_jax():
    v = np.array([NAN, 0.5, -2.0, 4.0, 5.0], np.float32)
    i = np.array([0, 0, 3, 7, -1], np.int32)
    outs = lowered(_indexing, X, IDX, v)(X, IDX, v)
    # expected values from JAX 0.10.2
    same(outs[0], [[8, 9, 10, 11], [0, 1, 2, 3], [8, 9, 10, 11], [8, 9, 10, 11], [0, 1, 2, 3]],
         np.float32)
    same(outs[1], [[2, 0, NAN, 3, NAN], [6, 4, NAN, 7, NAN], [10, 8, NAN, 11, NAN]], np.float32)
    same(outs[2], [[2, 0, 3, 0, 0], [6, 4, 7, 4, 4], [10, 8, 11, 8, 8]], np.float32)
    same(outs[3], np.float32(6))
    same(outs[4], [0.5, 0, NAN, 4], np.float32)  # -1 is 3; 5 and -7 (-3) are dropped
    same(outs[5], [NAN, 1, -2], np.float32)
    same(outs[6], [[0, 0, 0, 0], [0, 5, 6, 0], [0, 0, 0, 0]], np.int32)
    out = lowered(lambda v, i: jnp.zeros(4, jnp.float32).at[i].add(v), v, i)(v, i)
    same(out, [NAN, 0, 0, 3], np.float32)  # 0 gets NaN + 0.5; 3 gets -2 + 5; 7 dropped


# --- lax.gather / lax.scatter with general dimension numbers ------------------------------
GD = lax.GatherDimensionNumbers
SD = lax.ScatterDimensionNumbers
OP = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
IND = np.array([[[0, 1], [2, 3]], [[1, 0], [5, -2]]], np.int32)  # (2, 2, 2): batch (2, 2)


def _gathers(op, ind):
    return (
        # windows of (1, 2, 2) at (b, i, j) with batch dim 0 paired with the operand's
        lax.gather(op, ind, GD(offset_dims=(2, 3), collapsed_slice_dims=(),
                               start_index_map=(1, 2), operand_batching_dims=(0,),
                               start_indices_batching_dims=(0,)),
                   slice_sizes=(1, 2, 2), mode="clip"),
        lax.gather(op, ind, GD(offset_dims=(2, 3), collapsed_slice_dims=(),
                               start_index_map=(1, 2), operand_batching_dims=(0,),
                               start_indices_batching_dims=(0,)),
                   slice_sizes=(1, 2, 2), mode="fill", fill_value=-1),
        # offset dim in front, two collapsed dims
        lax.gather(op, ind[..., :1], GD(offset_dims=(0,), collapsed_slice_dims=(1, 2),
                                        start_index_map=(1,)),
                   slice_sizes=(2, 1, 1), mode="clip"),
    )


def _numpy_gather(op, ind, fill=None):
    """The first two gathers of ``_gathers``, written with NumPy loops."""
    out = np.empty((2, 2, 2, 2), op.dtype)  # the batching dim is not an output dim
    for b in range(2):
        for k in range(2):
            i, j = ind[b, k]
            ok = 0 <= i <= 1 and 0 <= j <= 2
            ic, jc = np.clip(i, 0, 1), np.clip(j, 0, 2)
            win = op[b, ic:ic + 2, jc:jc + 2]
            out[b, k] = win if (fill is None or ok) else fill
    return out


def test_gather_general_dimension_numbers():
    outs = lowered(_gathers, OP, IND)(OP, IND)
    same(outs[0], _numpy_gather(OP, IND))
    same(outs[1], _numpy_gather(OP, IND, fill=-1))
    clipped = np.clip(IND[..., 0], 0, 2)
    same(outs[2], OP[:, clipped, 0])
    for out, expected in zip(outs, _gathers(OP, IND)):  # eager: the NumPy impl rules
        same(out, expected)


def _scatters(op, ind, upd):
    dn = SD(update_window_dims=(2, 3), inserted_window_dims=(), scatter_dims_to_operand_dims=(1, 2),
            operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    return (lax.scatter_add(op, ind, upd, dn), lax.scatter(op, ind, upd, dn, mode="clip"),
            lax.scatter_max(op, ind, upd, dn), lax.scatter_sub(op, ind, upd, dn, mode="clip"))


def test_scatter_general_dimension_numbers_against_the_impl_rules():
    upd = np.arange(2 * 2 * 2 * 2, dtype=np.int32).reshape(2, 2, 2, 2) - 5
    outs = lowered(_scatters, OP, IND, upd)(OP, IND, upd)
    for out, expected in zip(outs, _scatters(OP, IND, upd)):  # eager: the NumPy impl rules
        same(out, expected)
    # the window at (1, 5, -2) is out of bounds: dropped by scatter-add, clamped by clip
    assert not np.array_equal(np.asarray(outs[0]) - OP, OP - np.asarray(outs[3]))


def test_scatter_duplicates_and_unique_indices():
    def f(x, i, v):
        dn = SD(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
        return (lax.scatter(x, i, v, dn),                       # the last duplicate wins
                lax.scatter_add(x, i, v, dn, unique_indices=True),
                lax.scatter_min(x, i, v, dn), lax.scatter_mul(x + 2, i, v, dn))
    x, i = np.zeros(3, np.float32), np.array([[1], [1], [2], [-1], [3]], np.int32)
    v = np.array([5, 7, NAN, 1, 1], np.float32)
    outs = lowered(f, x, i, v)(x, i, v)
    same(outs[0], [0, 7, NAN], np.float32)
    same(outs[1], [0, 12, NAN], np.float32)
    same(outs[2], [0, 0, NAN], np.float32)
    same(outs[3], [2, 70, NAN], np.float32)


# --- sort and top_k ---------------------------------------------------------------------
V = np.array([3., NAN, -0., 0., -1., -NAN, 2.], np.float32)


def test_sort_and_argsort_put_nans_last_and_keep_ties():
    outs = lowered(lambda v: (jnp.sort(v), jnp.argsort(v)), V)(V)
    # expected values from JAX 0.10.2
    same(outs[0], [-1, -0., 0, 2, 3, NAN, NAN], np.float32)
    same(outs[1], [4, 2, 3, 6, 0, 1, 5], np.int32)
    assert np.signbit(np.asarray(outs[0])[1])  # -0.0 stays before 0.0 (stable)


def test_sort_multiple_operands_and_keys_along_an_axis():
    k1 = np.array([[2, 1, 2, 1], [0, 0, 0, 0], [2, 1, 1, 1]], np.int32)
    k2 = np.array([[1., 5., 0., NAN], [4., 3., 3., 1.], [1., 1., NAN, -1.]], np.float32)
    val = np.arange(12, dtype=np.int32).reshape(3, 4)
    f = lambda a, b, c: lax.sort((a, b, c), dimension=0, num_keys=2)  # noqa: E731
    outs = lowered(f, k1, k2, val)(k1, k2, val)
    for out, expected in zip(outs, f(k1, k2, val)):  # eager: NumPy's lexsort
        same(out, expected)
    same(outs[2], [[4, 5, 6, 7], [0, 9, 10, 11], [8, 1, 2, 3]], np.int32)


def test_top_k_uses_the_total_order():
    ints = np.array([[1, 3, 3, -2, 3], [0, -1, 5, 5, 2]], np.int32)
    outs = lowered(lambda v, i: (lax.top_k(v, 4), lax.top_k(i, 3)), V, ints)(V, ints)
    # expected values from JAX 0.10.2
    same(outs[0][0], [NAN, 3, 2, 0], np.float32)
    same(outs[0][1], [1, 0, 6, 3], np.int32)
    same(outs[1][0], [[3, 3, 3], [5, 5, 2]], np.int32)
    same(outs[1][1], [[1, 2, 4], [2, 3, 4]], np.int32)


# --- split, stack, tile, unstack ---------------------------------------------------------
def test_split_stack_tile_unstack():
    def f(x, s):
        return (*lax.split(x, (1, 0, 3), axis=1), lax.stack([x, x + 1], axis=1),
                lax.stack([s, s], axis=0), lax.tile(x, (2, 3)), lax.tile(x[0], (3,)),
                *lax.unstack(x, axis=1), *lax.unstack(x[0], axis=0))
    s = np.float32(2.5)
    outs = lowered(f, X, s)(X, s)
    expected = [X[:, :1], X[:, 1:1], X[:, 1:], np.stack([X, X + 1], 1), np.array([s, s]),
                np.tile(X, (2, 3)), np.tile(X[0], 3), *[X[:, k] for k in range(4)], *X[0]]
    assert len(outs) == len(expected)
    for out, e in zip(outs, expected):
        same(out, np.asarray(e, np.float32))
