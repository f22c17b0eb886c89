"""The ``jax.numpy`` gaps of issue 19 that chapter 00 fills: einsum's sublist form,
``angle``, ``i0``, ``unique`` with ``axis`` and its named tuples, fixed-size set
operations, ``poly``/``polyfit``, ``histogram2d``/``histogramdd``, ``mask_indices``
and ``Array.view``/``byteswap``/``copy``. Values against NumPy, or as JAX 0.10.2
printed them where NumPy differs; dtypes and errors as JAX 0.10.2's."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes
from minijax.errors import ConcretizationTypeError


def check(got, want, dtype=None, weak=False, rtol=1e-5, atol=1e-6):
    """Values as NumPy's (or JAX's), dtype and weak type as JAX's."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, dtype, weak, rtol, atol)
        return
    want = np.asarray(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    assert np.shape(got) == want.shape
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert dtypes.is_weakly_typed(got) == weak


A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(12, dtype=np.float32).reshape(3, 4)


# --- einsum: the operand/sublist form -----------------------------------------------

@pytest.mark.parametrize("args, np_args", [
    ((A, [0, 1], B, [1, 2], [0, 2]), (A, [0, 1], B, [1, 2], [0, 2])),
    ((A, [0, 1], B, [1, 2]), (A, [0, 1], B, [1, 2])),
    ((A, [Ellipsis, 1], B, [1, 2], [Ellipsis, 2]), (A, [Ellipsis, 1], B, [1, 2], [Ellipsis, 2])),
    ((A, [0, 1], [1, 0]), (A, [0, 1], [1, 0])),
    ((A, [0, 1], []), (A, [0, 1], [])),
])
def test_einsum_sublist_form_matches_numpy(args, np_args):
    check(jnp.einsum(*args), np.einsum(*np_args), "float32")


def test_einsum_sublist_form_prints_one_dot_general():
    # from JAX 0.10.2: the same jaxpr as einsum('ij,jk->ik', a, b)
    text = str(minijax.make_jaxpr(lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]))(A, B))
    assert text == str(minijax.make_jaxpr(lambda a, b: jnp.einsum("ij,jk->ik", a, b))(A, B))
    assert "dot_general" in text


def test_einsum_sublist_labels_are_any_sortable_values():
    # from JAX 0.10.2: labels are sorted, so an implicit output follows their order
    assert jnp.einsum(A, [0, 99]).shape == (2, 3)
    assert jnp.einsum(A, [0, -1]).shape == (3, 2)
    assert jnp.einsum(A, ["b", "a"]).shape == (3, 2)
    check(jnp.einsum(A, [0, 60], [60]), A.sum(0), "float32")
    with pytest.raises(TypeError, match="hashable and comparable"):
        jnp.einsum(A, [0, "a"])


def test_einsum_sublist_form_under_jit(jit_backend):
    f = minijax.jit(lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    check(f(A, B), A @ B, "float32")


# --- angle and i0 ---------------------------------------------------------------------

def test_angle_complex_and_real():
    z = np.array([1 + 1j, -1, 2j, 3 - 4j], np.complex64)
    check(jnp.angle(z), np.angle(z), "float32")
    check(jnp.angle(z, deg=True), np.angle(z, deg=True), "float32", rtol=1e-5)
    check(jnp.angle(np.array([1, -2], np.int32)), [0.0, np.pi], "float32")
    # from JAX 0.10.2: a real 0-d float loses its weak type; a Python complex keeps it
    check(jnp.angle(3.0), 0.0, "float32", weak=False)
    check(jnp.angle(2 + 3j), 0.98279375, "float32", weak=True)


def test_angle_jaxpr_is_jax():
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(jnp.angle)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=angle
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
          b:f32[] = atan2 0.0:f32[] c
        in (b,) }
    ] a
  in (b,) }"""


def test_angle_under_jit_and_vmap(jit_backend):
    z = jnp.array([[1 + 3j, 2 - 5j], [4 - 3j, 3 + 2j]], dtype=jnp.complex64)
    want = np.angle(np.asarray(z))
    check(minijax.jit(jnp.angle)(z), want, "float32")
    check(minijax.vmap(jnp.angle)(z), want, "float32")


def test_i0_matches_numpy_and_its_derivative_is_i1():
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 3.7, 10.0, 20.0], np.float32)
    check(jnp.i0(x), np.i0(x.astype(np.float64)), "float32", rtol=2e-6)
    check(jnp.i0(2), np.i0(2.0), "float32", weak=True)
    import scipy.special
    for v in (1.5, -0.7, 4.0):
        np.testing.assert_allclose(minijax.grad(jnp.i0)(v), scipy.special.i1(v), rtol=1e-5)
    assert float(minijax.grad(jnp.i0)(0.0)) == 0.0


def test_i0_rejects_complex():
    with pytest.raises(ValueError, match="Unsupported input type to jax.numpy.i0: complex64"):
        jnp.i0(jnp.array([1 + 1j]))


def test_i0_under_jit(jit_backend):
    x = np.array([-2, -1, 0, 1, 2], np.int32)
    check(minijax.jit(jnp.i0)(x), np.i0(x.astype(np.float64)), "float32", rtol=2e-6)


# --- unique with axis, and its named tuples ----------------------------------------------

M = np.array([[1, 2], [3, 4], [1, 2], [0, 9]], np.int32)


@pytest.mark.parametrize("axis", [0, 1, -2, None])
def test_unique_axis_matches_numpy(axis):
    got = jnp.unique(M, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    want = np.unique(M, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    check(got, tuple(want), "int32")


def test_unique_axis_3d_and_floats():
    x = (np.arange(24).reshape(2, 3, 4) % 3).astype(np.float32)
    for axis in (0, 1, 2):
        check(jnp.unique(x, axis=axis), np.unique(x, axis=axis), "float32")
    nan_rows = np.array([[1, 2], [np.nan, 4], [1, 2], [np.nan, 4]], np.float32)
    # from JAX 0.10.2: equal_nan=True makes NaN rows equal (NumPy's axis= path does not)
    check(jnp.unique(nan_rows, axis=0), [[1, 2], [np.nan, 4]], "float32")
    check(jnp.unique(nan_rows, axis=0, equal_nan=False), np.unique(nan_rows, axis=0))


def test_unique_axis_with_size_and_fill():
    # from JAX 0.10.2: spare rows repeat the first unique row, or take fill_value
    check(jnp.unique(M, axis=0, size=5), [[0, 9], [1, 2], [3, 4], [0, 9], [0, 9]], "int32")
    check(jnp.unique(M, axis=0, size=5, fill_value=-1),
          [[0, 9], [1, 2], [3, 4], [-1, -1], [-1, -1]], "int32")
    # fewer slots than unique rows: the counts are still each row's own
    check(jnp.unique(M, axis=0, size=2, return_counts=True), ([[0, 9], [1, 2]], [1, 2]))


def test_unique_errors():
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.unique(M, axis=2)
    with pytest.raises(ValueError, match="fill_value must be specified"):
        jnp.unique(jnp.zeros((0,)), size=2)


def test_unique_inverse_has_the_input_shape():
    values, inv = jnp.unique(M, return_inverse=True)  # NumPy 2's (and JAX 0.10.2's) shape
    check(inv, np.unique(M, return_inverse=True)[1], "int32")
    assert inv.shape == M.shape


def test_unique_all_counts_inverse_are_named_tuples():
    x = jnp.array([3, 4, 1, 3, 1])
    r = jnp.unique_all(x)
    assert type(r).__name__ == "_UniqueAllResult"
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    check(tuple(r), ([1, 3, 4], [2, 0, 1], [1, 2, 0, 1, 0], [2, 2, 1]), "int32")
    c = jnp.unique_counts(x)
    assert type(c).__name__ == "_UniqueCountsResult" and c._fields == ("values", "counts")
    i = jnp.unique_inverse(jnp.array([[3, 1], [1, 2]]))
    assert type(i).__name__ == "_UniqueInverseResult"
    check(i.inverse_indices, [[2, 0], [0, 1]], "int32")
    # from JAX 0.10.2: the spare slot's index is the first unique's, its count 0
    check(tuple(jnp.unique_all(x, size=4, fill_value=0)),
          ([1, 3, 4, 0], [2, 0, 1, 2], [1, 2, 0, 1, 0], [2, 2, 1, 0]), "int32")
    assert type(jnp.unique(x, return_counts=True)) is tuple


def test_unique_counts_under_jit_needs_size(jit_backend):
    x = jnp.array([3, 4, 1, 3, 1])
    r = minijax.jit(lambda v: jnp.unique_counts(v, size=3))(x)
    assert type(r).__name__ == "_UniqueCountsResult"
    check(tuple(r), ([1, 3, 4], [2, 2, 1]), "int32")
    check(minijax.jit(lambda v: jnp.unique(v, axis=0, size=4))(M),
          [[0, 9], [1, 2], [3, 4], [0, 9]], "int32")
    with pytest.raises(ConcretizationTypeError, match="first argument of jnp.unique"):
        minijax.jit(jnp.unique_values)(x)


# --- fixed-size set operations ----------------------------------------------------------

A1, A2 = np.array([1, 2, 3, 4, 5], np.int32), np.array([4, 5, 6, 7, 8], np.int32)


def test_intersect1d_with_size():
    check(jnp.intersect1d(A1, A2), np.intersect1d(A1, A2), "int32")
    # from JAX 0.10.2: spare slots hold the smallest common value, or fill_value
    check(jnp.intersect1d(A1, A2, size=4), [4, 5, 4, 4], "int32")
    check(jnp.intersect1d(A1, A2, size=4, fill_value=0), [4, 5, 0, 0], "int32")
    check(jnp.intersect1d(A1, A2, return_indices=True, size=3),
          ([4, 5, 4], [3, 4, 5], [0, 1, 5]), "int32")
    check(jnp.intersect1d(A1, A2, assume_unique=True, size=1), [4], "int32")
    a, b = np.array([1, 1, 2, 3], np.int32), np.array([1, 3, 3], np.int32)
    check(jnp.intersect1d(a, b, return_indices=True),
          tuple(np.intersect1d(a, b, return_indices=True)), "int32")
    # from JAX 0.10.2: spare indices are len(ar1) and len(ar2)
    check(jnp.intersect1d(a, b, return_indices=True, size=4, fill_value=-1),
          ([1, 3, -1, -1], [0, 3, 4, 4], [0, 1, 3, 3]), "int32")


def test_setxor1d_matches_numpy():
    check(jnp.setxor1d(A1, A2), np.setxor1d(A1, A2), "int32")
    a, b = np.array([3, 1, 3, 9, 2], np.int32), np.array([1, 5, 5], np.int32)
    check(jnp.setxor1d(a, b), np.setxor1d(a, b), "int32")
    # from JAX 0.10.2: spare slots hold the smallest value found
    check(jnp.setxor1d(A1, A2, size=8), [1, 2, 3, 6, 7, 8, 1, 1], "int32")
    check(jnp.setxor1d(A1, A2, size=7, fill_value=0), [1, 2, 3, 6, 7, 8, 0], "int32")


@pytest.mark.parametrize("op, size, want", [
    (jnp.intersect1d, 3, [4, 5, 4]), (jnp.setdiff1d, 4, [1, 2, 3, 0]),
    (jnp.union1d, 9, [1, 2, 3, 4, 5, 6, 7, 8, 1]), (jnp.setxor1d, 6, [1, 2, 3, 6, 7, 8]),
])
def test_set_operations_with_size_under_jit(jit_backend, op, size, want):
    check(minijax.jit(lambda a, b: op(a, b, size=size))(A1, A2), want, "int32")


@pytest.mark.parametrize("op, message", [
    (jnp.intersect1d, "first argument of jnp.unique"),
    (jnp.setxor1d, "first argument of jnp.unique"),
    (jnp.setdiff1d, "The error arose in setdiff1d"), (jnp.union1d, "The error arose in union1d"),
])
def test_set_operations_without_size_cannot_be_traced(op, message):
    with pytest.raises(ConcretizationTypeError, match=message):
        minijax.jit(op)(A1, A2)


def test_setdiff1d_fill_value_may_be_traced(jit_backend):
    # from JAX 0.10.2
    f = minijax.jit(lambda a, b, fill: jnp.setdiff1d(a, b, size=4, fill_value=fill))
    check(f(A1, A2, 9), [1, 2, 3, 9], "int32")
    check(jnp.setdiff1d(np.array([], np.int32), A2, size=2, fill_value=7), [7, 7], "int32")


def test_round_of_complex_numbers_rounds_both_parts():
    z = np.array([1.5 + 2.5j, -0.5 - 1.4j], np.complex64)
    check(jnp.round(z), np.round(z), "complex64")
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(jnp.round)(z[:1])) == """\
{ lambda ; a:c64[1]. let
    b:c64[1] = jit[
      name=round
      jaxpr={ lambda ; a:c64[1]. let
          c:f32[1] = real a
          d:f32[1] = round[rounding_method=1] c
          e:f32[1] = imag a
          f:f32[1] = round[rounding_method=1] e
          b:c64[1] = complex d f
        in (b,) }
    ] a
  in (b,) }"""


# --- poly and polyfit ----------------------------------------------------------------------

def test_poly_from_roots_and_from_a_matrix():
    check(jnp.poly(np.array([1.0, 2.0, 3.0], np.float32)), np.poly([1.0, 2.0, 3.0]), "float32")
    check(jnp.poly(np.array([1, 2], np.int32)), np.poly([1, 2]), "float32")
    check(jnp.poly(np.array([], np.float32)), 1.0, "float32")
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    check(jnp.poly(m), np.poly(m), "complex64", rtol=1e-5)  # complex, as JAX's eigvals give
    m3 = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]], np.float32)
    check(jnp.poly(m3), np.poly(m3), "complex64", rtol=1e-5)
    with pytest.raises(ValueError, match="input must be 1d or non-empty square 2d array"):
        jnp.poly(jnp.ones((2, 3)))


X = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
Y = np.array([1.0, 3.0, 2.0, 5.0, 4.0], np.float32)
W = np.array([1.0, 2.0, 1.0, 2.0, 1.0], np.float32)


def test_polyfit_matches_numpy():
    check(jnp.polyfit(X, Y, 1), np.polyfit(X, Y, 1), "float32", rtol=1e-5)
    check(jnp.polyfit(X, Y, 1, w=W), np.polyfit(X, Y, 1, w=W), "float32", rtol=1e-5)
    Y2 = np.stack([Y, 2 * Y + 1], 1)
    check(jnp.polyfit(X, Y2, 2), np.polyfit(X, Y2, 2), "float32", rtol=1e-4, atol=1e-5)
    for cov in (True, "unscaled"):
        check(jnp.polyfit(X, Y, 1, cov=cov), np.polyfit(X, Y, 1, cov=cov), "float32",
              rtol=1e-5, atol=1e-6)
    check(jnp.polyfit(X, Y, 1, w=W, cov=True), np.polyfit(X, Y, 1, w=W, cov=True), rtol=1e-5)
    check(jnp.polyfit(X, Y2, 1, cov=True), np.polyfit(X, Y2, 1, cov=True), rtol=1e-5,
          atol=1e-6)


def test_polyfit_full():
    c, resids, rank, s, rcond = jnp.polyfit(X, Y, 2, full=True)
    nc, nresids, nrank, ns, _ = np.polyfit(X, Y, 2, full=True)
    check(c, nc, "float32", rtol=1e-5, atol=1e-6)
    check(resids, nresids, "float32", rtol=1e-5)
    assert int(rank) == nrank and rank.dtype == np.int32
    check(s, ns, "float32", rtol=1e-5)
    # from JAX 0.10.2: rcond is len(x) * eps, a weak float32
    check(rcond, 5 * np.finfo(np.float32).eps, "float32", weak=True)


@pytest.mark.parametrize("call, error, message", [
    (lambda: jnp.polyfit(X, Y, -1), ValueError, "expected deg >= 0"),
    (lambda: jnp.polyfit(X[:, None], Y, 1), TypeError, "expected 1D vector for x"),
    (lambda: jnp.polyfit(X, Y[:3], 1), TypeError, "expected x and y to have same length"),
    (lambda: jnp.polyfit(X, Y, 1, w=np.ones(3)), TypeError,
     "expected w and y to have the same length"),
    (lambda: jnp.polyfit(np.arange(5), np.arange(5), 1), ValueError, "not inexact"),
    (lambda: jnp.polyfit(X[:2], Y[:2], 1, cov=True), ValueError, "must exceed order"),
])
def test_polyfit_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_polyfit_under_jit(jit_backend):
    if jit_backend == "cuda":
        pytest.skip("svd has no CUDA lowering (tests/test_rules.py lists why)")
    f = minijax.jit(jnp.polyfit, static_argnames="deg")
    check(f(X, Y, deg=1), np.polyfit(X, Y, 1), "float32", rtol=1e-5)


# --- histogram2d and histogramdd ------------------------------------------------------------

HX = np.array([1, 2, 3, 10, 11, 15, 19, 25], np.int32)
HY = np.array([2, 5, 6, 8, 13, 16, 17, 18], np.int32)


@pytest.mark.parametrize("kwargs", [
    dict(bins=8), dict(bins=[2, 3], range=[(0, 26), (0, 30)]), dict(bins=4, density=True),
    dict(bins=3, weights=np.arange(8.0, dtype=np.float32)),
    dict(bins=np.array([0.0, 10.0, 20.0, 30.0], np.float32)),
    dict(bins=[np.array([0.0, 10.0, 30.0], np.float32), 2]),
])
def test_histogram2d_matches_numpy(kwargs):
    hist, xe, ye = jnp.histogram2d(HX, HY, **kwargs)
    want = np.histogram2d(HX, HY, **kwargs)
    check(xe, want[1], "float32", rtol=1e-6)
    check(ye, want[2], "float32", rtol=1e-6)
    weighted = "weights" in kwargs or kwargs.get("density")
    check(hist, want[0], "float32" if weighted else "int32", rtol=1e-5)


def test_histogramdd_matches_numpy():
    sample = np.stack([HX, HY, HX % 3], 1).astype(np.float32)
    hist, edges = jnp.histogramdd(sample, bins=(2, 3, 2))
    want_hist, want_edges = np.histogramdd(sample, bins=(2, 3, 2))
    check(hist, want_hist, "int32")
    assert isinstance(edges, list) and len(edges) == 3
    for e, w in zip(edges, want_edges):
        check(e, w, "float32", rtol=1e-6)


def test_histogram_errors():
    with pytest.raises(ValueError, match="should have one weight for each sample"):
        jnp.histogram2d(HX, HY, bins=2, weights=jnp.ones(3))
    with pytest.raises(ValueError, match="range must be a sequence of 2 pairs or Nones"):
        jnp.histogram2d(HX, HY, bins=2, range=[(0, 1)])
    with pytest.raises(ValueError, match="should be a bin for each dimension"):
        jnp.histogramdd(np.ones((3, 2)), bins=[2, 2, 2])


def test_histogram2d_under_jit(jit_backend):
    hist, xe, ye = minijax.jit(lambda x, y: jnp.histogram2d(x, y, bins=3))(HX, HY)
    want = np.histogram2d(HX, HY, bins=3)
    check(hist, want[0], "int32")
    check(xe, want[1], "float32", rtol=1e-6)


# --- apply_over_axes and mask_indices -------------------------------------------------------

def test_apply_over_axes_matches_numpy():
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    check(jnp.apply_over_axes(jnp.sum, a, [0, 2]), np.apply_over_axes(np.sum, a, [0, 2]),
          "float32")
    check(jnp.apply_over_axes(lambda x, ax: jnp.max(x, ax, keepdims=True), a, (1,)),
          np.apply_over_axes(lambda x, ax: np.max(x, ax, keepdims=True), a, (1,)), "float32")
    with pytest.raises(ValueError, match="not returning an array of the correct shape"):
        jnp.apply_over_axes(lambda x, ax: x.ravel(), a, (1,))


def test_mask_indices_matches_numpy():
    check(jnp.mask_indices(3, jnp.triu), np.mask_indices(3, np.triu), "int32")
    check(jnp.mask_indices(4, jnp.triu, 1), np.mask_indices(4, np.triu, 1), "int32")
    # from JAX 0.10.2: the spare slots of size= hold 0
    check(jnp.mask_indices(3, jnp.tril, -1, size=5), ([1, 2, 2, 0, 0], [0, 0, 1, 0, 0]),
          "int32")
    with pytest.raises(ConcretizationTypeError, match="size argument of jnp.nonzero"):
        minijax.jit(lambda: jnp.mask_indices(3, jnp.triu))()


# --- Array.view, byteswap, copy ------------------------------------------------------------

V = np.array([1.0, -2.0, 3.5], np.float32)


@pytest.mark.parametrize("x, dtype", [
    (V, np.int32), (V, np.uint8), (V, np.int16), (V, np.float16), (V, np.float32),
    (np.arange(4, dtype=np.uint8), np.uint16), (np.array([True, False]), np.uint8),
    (np.array([1, 0], np.uint8), np.bool_), (np.zeros((2, 4), np.float32), np.int8),
    (np.array([1 + 2j, -3j], np.complex64), np.float32),
    (np.arange(4, dtype=np.float32), np.complex64),
])
def test_view_matches_numpy(x, dtype):
    got = jnp.asarray(x).view(dtype)
    check(got, x.view(dtype), np.dtype(dtype))


def test_view_edge_cases():
    x = jnp.asarray(V)
    assert x.view() is x
    check(jnp.float32(1).view(jnp.int32), np.float32(1).view(np.int32), "int32")
    with pytest.raises(ValueError, match="size must be a divisor"):
        jnp.arange(3, dtype=jnp.uint8).view(jnp.uint16)
    with pytest.raises(ValueError, match="view\\(\\) of a 0d array is only supported if the "
                                         "itemsize is unchanged"):
        jnp.ones(()).view(jnp.int16)
    with pytest.raises(NotImplementedError, match="`type` argument of array.view"):
        x.view(type=np.ndarray)


def test_view_jaxprs_are_jax():
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(lambda v: v.view(jnp.int32))(V)) == (
        "{ lambda ; a:f32[3]. let\n    b:i32[3] = bitcast_convert_type[new_dtype=int32] a\n"
        "  in (b,) }")
    assert str(minijax.make_jaxpr(lambda v: v.view(jnp.uint8))(V)) == """\
{ lambda ; a:f32[3]. let
    b:u8[3,4] = bitcast_convert_type[new_dtype=uint8] a
    c:u8[12] = reshape[dimensions=None new_sizes=(12,) sharding=None] b
  in (c,) }"""
    assert str(minijax.make_jaxpr(lambda v: v.copy())(V)) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }")


def test_byteswap_and_copy_match_numpy():
    i = np.array([0, 1, 256, -5], np.int32)
    check(jnp.asarray(i).byteswap(), i.byteswap(), "int32")
    check(jnp.asarray(V).byteswap(), V.byteswap(), "float32", rtol=0, atol=0)
    u = np.array([1, 2], np.uint8)
    check(jnp.asarray(u).byteswap(), u, "uint8")
    z = np.array([1 + 2j], np.complex64)
    check(jnp.asarray(z).byteswap(), z.byteswap(), "complex64", rtol=0, atol=0)
    check(jnp.asarray(i).byteswap().byteswap(), i, "int32")
    x = jnp.asarray(V)
    y = x.copy()
    assert y is not x
    check(y, V, "float32")


def test_view_and_byteswap_under_jit(jit_backend):
    check(minijax.jit(lambda v: v.view(jnp.int16))(V), V.view(np.int16), "int16")
    check(minijax.jit(lambda v: v.byteswap())(np.array([1, 256], np.int32)),
          np.array([1, 256], np.int32).byteswap(), "int32")
    check(minijax.jit(lambda v: v.view(jnp.float32))(np.arange(8, dtype=np.uint8)),
          np.arange(8, dtype=np.uint8).view(np.float32), "float32")
    scalar_bytes = minijax.jit(lambda s: minijax.lax.bitcast_convert_type(s, jnp.uint8))
    check(scalar_bytes(np.float32(1.5)), np.float32(1.5).reshape(1).view(np.uint8), "uint8")
