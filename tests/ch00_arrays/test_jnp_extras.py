"""The less common ``jax.numpy`` functions (set ops, statistics, index tricks, misc),
checked against NumPy; dtypes and weak types as JAX 0.10.2 has them."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes
from minijax.errors import ConcretizationTypeError

I = np.array([3, 1, 3, 0, 2], np.int32)
F = np.array([1.0, 4.0, 2.5, 7.0, 2.0], np.float32)
NANF = np.array([1.0, np.nan, 2.5, 7.0, 2.0], np.float32)
M = np.arange(12, dtype=np.float32).reshape(3, 4)
A, B = jnp.asarray(I), jnp.asarray(F)


def check(got, want, dtype=None, weak=False, rtol=1e-5, atol=1e-6):
    """Values as NumPy's; dtype and weak type as JAX's (given, or NumPy's)."""
    if isinstance(want, tuple):  # several outputs (a list is one array)
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, dtype, weak, rtol, atol)
        return
    want = np.asarray(want)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    assert np.asarray(got).shape == want.shape
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert dtypes.is_weakly_typed(got) == weak


# (name, minijax call, numpy call, JAX dtype); expected dtypes from JAX 0.10.2
CASES = [
    ("diff", lambda: jnp.diff(A), lambda: np.diff(I), "int32"),
    ("diff_n_axis", lambda: jnp.diff(jnp.asarray(M), 2, axis=0), lambda: np.diff(M, 2, 0),
     "float32"),
    ("diff_prepend", lambda: jnp.diff(B, prepend=0, append=jnp.array([1.0, 2.0])),
     lambda: np.diff(F, prepend=0, append=[1, 2]), "float32"),
    ("diff_bool", lambda: jnp.diff(jnp.array([True, False, False])),
     lambda: np.diff([True, False, False]), "bool"),
    ("ediff1d", lambda: jnp.ediff1d(A, to_end=9, to_begin=jnp.array([1, 2])),
     lambda: np.ediff1d(I, to_end=9, to_begin=[1, 2]), "int32"),
    ("cross3", lambda: jnp.cross(jnp.asarray(M[:, :3]), jnp.asarray(M[::-1, 1:])),
     lambda: np.cross(M[:, :3], M[::-1, 1:]), "float32"),
    ("cross2", lambda: jnp.cross(A[:2], A[2:4]), lambda: I[0] * I[3] - I[1] * I[2], "int32"),
    ("trapezoid", lambda: jnp.trapezoid(A), lambda: np.trapezoid(I), "float32"),
    ("trapezoid_x", lambda: jnp.trapezoid(B, jnp.arange(5.0) ** 2),
     lambda: np.trapezoid(F, np.arange(5.0) ** 2), "float32"),
    ("gradient", lambda: jnp.gradient(B), lambda: np.gradient(F), "float32"),
    ("gradient_2d", lambda: jnp.gradient(jnp.asarray(M ** 2), 0.5),
     lambda: np.gradient(M ** 2, 0.5), "float32"),
    ("unwrap", lambda: jnp.unwrap(jnp.array([0.0, 3.0, 6.5, -1.0])),
     lambda: np.unwrap([0.0, 3.0, 6.5, -1.0]), "float32"),
    ("bincount", lambda: jnp.bincount(A), lambda: np.bincount(I), "int32"),
    ("bincount_len", lambda: jnp.bincount(A, B, length=6),
     lambda: np.bincount(I, F, minlength=6), "float32"),
    ("digitize", lambda: jnp.digitize(B, jnp.array([2.0, 4.0])),
     lambda: np.digitize(F, [2.0, 4.0]), "int32"),
    ("digitize_dec", lambda: jnp.digitize(B, jnp.array([4.0, 2.0]), right=True),
     lambda: np.digitize(F, [4.0, 2.0], right=True), "int32"),
    ("histogram", lambda: jnp.histogram(A, 3), lambda: np.histogram(I, 3), "float32"),
    ("histogram_density", lambda: jnp.histogram(B, jnp.array([0.0, 2.0, 5.0, 8.0]),
                                                density=True),
     lambda: np.histogram(F, [0.0, 2.0, 5.0, 8.0], density=True), "float32"),
    ("histogram_range", lambda: jnp.histogram(B, 4, range=(0, 8)),
     lambda: np.histogram(F, 4, range=(0, 8)), "float32"),
    ("interp", lambda: jnp.interp(jnp.array([0.0, 1.5, 2.2, 9.0]), jnp.array([1.0, 2.0, 3.0]),
                                  jnp.array([3.0, 4.0, 6.0]), right=-1.0),
     lambda: np.interp([0.0, 1.5, 2.2, 9.0], [1, 2, 3], [3, 4, 6], right=-1), "float32"),
    ("interp_period", lambda: jnp.interp(jnp.array([-1.0, 5.5]), jnp.array([0.0, 1.0, 3.0]),
                                         jnp.array([1.0, 2.0, 0.0]), period=4),
     lambda: np.interp([-1.0, 5.5], [0, 1, 3], [1, 2, 0], period=4), "float32"),
    ("quantile", lambda: jnp.quantile(jnp.asarray(M), jnp.array([0.1, 0.75]), axis=1),
     lambda: np.quantile(M, [0.1, 0.75], axis=1), "float32"),
    ("quantile_keepdims", lambda: jnp.quantile(jnp.asarray(M), 0.3, axis=0, keepdims=True),
     lambda: np.quantile(M, 0.3, axis=0, keepdims=True), "float32"),
    ("percentile", lambda: jnp.percentile(A, 30), lambda: np.percentile(I, 30), "float32"),
    ("nanpercentile", lambda: jnp.nanpercentile(NANF, 40), lambda: np.nanpercentile(NANF, 40),
     "float32"),
    ("nanquantile", lambda: jnp.nanquantile(NANF, 0.5), lambda: np.nanquantile(NANF, 0.5),
     "float32"),
    ("nanmedian", lambda: jnp.nanmedian(A), lambda: np.nanmedian(I), "float32"),
    ("nanvar", lambda: jnp.nanvar(NANF), lambda: np.nanvar(NANF), "float32"),
    ("nanstd", lambda: jnp.nanstd(NANF, ddof=1), lambda: np.nanstd(NANF, ddof=1), "float32"),
    ("nancumsum", lambda: jnp.nancumsum(NANF), lambda: np.nancumsum(NANF), "float32"),
    ("nancumprod", lambda: jnp.nancumprod(NANF), lambda: np.nancumprod(NANF), "float32"),
    ("nanargmax", lambda: jnp.nanargmax(NANF), lambda: np.nanargmax(NANF), "int32"),
    ("nanargmin", lambda: jnp.nanargmin(NANF), lambda: np.nanargmin(NANF), "int32"),
    ("cov", lambda: jnp.cov(A), lambda: np.cov(I), "float32"),
    ("cov_2d", lambda: jnp.cov(jnp.asarray(M), rowvar=False, bias=True),
     lambda: np.cov(M, rowvar=False, bias=True), "float32"),
    ("corrcoef", lambda: jnp.corrcoef(B, B ** 2), lambda: np.corrcoef(F, F ** 2), "float32"),
    ("rot90", lambda: jnp.rot90(jnp.asarray(M)), lambda: np.rot90(M), "float32"),
    ("rot90_k", lambda: jnp.rot90(jnp.asarray(M), -1, axes=(1, 0)),
     lambda: np.rot90(M, -1, axes=(1, 0)), "float32"),
    ("diagflat", lambda: jnp.diagflat(A, -1), lambda: np.diagflat(I, -1), "int32"),
    ("indices", lambda: jnp.indices((2, 3)), lambda: np.indices((2, 3)), "int32"),
    ("tril_indices", lambda: jnp.tril_indices(3, 1, 4), lambda: np.tril_indices(3, 1, 4),
     "int32"),
    ("triu_indices_from", lambda: jnp.triu_indices_from(jnp.asarray(M)),
     lambda: np.triu_indices_from(M), "int32"),
    ("diag_indices", lambda: jnp.diag_indices(3, 3), lambda: np.diag_indices(3, 3), "int32"),
    ("unravel_index", lambda: jnp.unravel_index(A, (2, 2)),
     lambda: np.unravel_index(I, (2, 2)), "int32"),
    ("ravel_multi_index", lambda: jnp.ravel_multi_index((A, A[::-1]), (4, 5)),
     lambda: np.ravel_multi_index((I, I[::-1]), (4, 5)), "int32"),
    ("ravel_multi_index_F", lambda: jnp.ravel_multi_index((A, A + 5), (4, 5), mode="clip",
                                                          order="F"),
     lambda: np.ravel_multi_index((I, I + 5), (4, 5), mode="clip", order="F"), "int32"),
    ("mgrid", lambda: jnp.mgrid[0:2, 1:4], lambda: np.mgrid[0:2, 1:4], "int32"),
    ("mgrid_linspace", lambda: jnp.mgrid[0:1:5j], lambda: np.mgrid[0:1:5j], "float32"),
    ("ogrid", lambda: jnp.ogrid[0:2, 1:4], lambda: np.ogrid[0:2, 1:4], "int32"),
    ("r_", lambda: jnp.r_[1:3, 5, A], lambda: np.r_[1:3, 5, I], "int32"),
    ("r_axis", lambda: jnp.r_["1", jnp.asarray(M), jnp.asarray(M)],
     lambda: np.r_["1", M, M], "float32"),
    ("c_", lambda: jnp.c_[A, A], lambda: np.c_[I, I], "int32"),
    ("append", lambda: jnp.append(jnp.asarray(M), jnp.asarray(M[:1]), axis=0),
     lambda: np.append(M, M[:1], axis=0), "float32"),
    ("insert", lambda: jnp.insert(A, jnp.array([1, 3, 1]), jnp.array([7, 8, 6])),
     lambda: np.insert(I, [1, 3, 1], [7, 8, 6]), "int32"),
    ("insert_axis", lambda: jnp.insert(jnp.asarray(M), 2, jnp.array([5.0, 6, 7]), axis=1),
     lambda: np.insert(M, 2, [5, 6, 7], axis=1), "float32"),
    ("delete", lambda: jnp.delete(jnp.asarray(M), jnp.array([0, 2]), axis=1),
     lambda: np.delete(M, [0, 2], axis=1), "float32"),
    ("delete_slice", lambda: jnp.delete(A, slice(1, None, 2)),
     lambda: np.delete(I, slice(1, None, 2)), "int32"),
    ("resize", lambda: jnp.resize(A, (3, 4)), lambda: np.resize(I, (3, 4)), "int32"),
    ("gcd", lambda: jnp.gcd(jnp.array([12, 0, -7, 1836311903]), jnp.array([18, 5, 0, 1134903170])),
     lambda: np.gcd([12, 0, -7, 1836311903], [18, 5, 0, 1134903170]), "int32"),
    ("lcm", lambda: jnp.lcm(A, 4), lambda: np.lcm(I, 4), "int32"),
    ("ldexp", lambda: jnp.ldexp(B, A), lambda: np.ldexp(F, I), "float32"),
    ("frexp", lambda: jnp.frexp(jnp.array([0.0, 1.0, 8.0, -3.0, 0.3, 1e-30])),
     lambda: np.frexp(np.float32([0.0, 1.0, 8.0, -3.0, 0.3, 1e-30])), None),
    ("modf", lambda: jnp.modf(jnp.array([1.5, -2.25])), lambda: np.modf(np.float32([1.5, -2.25])),
     "float32"),
    ("logaddexp2", lambda: jnp.logaddexp2(B, 2.0), lambda: np.logaddexp2(F, 2.0), "float32"),
    ("nextafter", lambda: jnp.nextafter(B, 0.0), lambda: np.nextafter(F, np.float32(0)),
     "float32"),
    ("spacing", lambda: jnp.spacing(-B), lambda: np.spacing(-F), "float32"),
    ("bitwise_count", lambda: jnp.bitwise_count(jnp.array([7, -1, 0])),
     lambda: np.bitwise_count(np.int32([7, -1, 0])), "uint8"),
    ("bitwise_invert", lambda: jnp.bitwise_invert(A), lambda: np.invert(I), "int32"),
    ("iscomplex", lambda: jnp.iscomplex(jnp.array([1 + 1j, 2])),
     lambda: np.iscomplex([1 + 1j, 2]), "bool"),
    ("isreal", lambda: jnp.isreal(B), lambda: np.isreal(F), "bool"),
    ("vecdot", lambda: jnp.vecdot(jnp.asarray(M), B[:4]), lambda: M @ F[:4], "float32"),
    ("matvec", lambda: jnp.matvec(jnp.asarray(M), B[:4]), lambda: M @ F[:4], "float32"),
    ("vecmat", lambda: jnp.vecmat(B[:3], jnp.asarray(M)), lambda: F[:3] @ M, "float32"),
    ("polyval", lambda: jnp.polyval(A, B), lambda: np.polyval(I, F), "float32"),
    ("polyadd", lambda: jnp.polyadd(A[:2], A), lambda: np.polyadd(I[:2], I), "int32"),
    ("polysub", lambda: jnp.polysub(B, A[:2]), lambda: np.polysub(F, I[:2]), "float32"),
    ("polymul", lambda: jnp.polymul(A, A[:3]), lambda: np.polymul(I, I[:3]), "float32"),
    ("polyder", lambda: jnp.polyder(A, 2), lambda: np.polyder(I, 2), "float32"),
    ("polyint", lambda: jnp.polyint(A, 2, k=[1, 2]), lambda: np.polyint(I, 2, k=[1, 2]),
     "float32"),
    ("vander", lambda: jnp.vander(A, 3, increasing=True),
     lambda: np.vander(I, 3, increasing=True), "int32"),
    ("bartlett", lambda: jnp.bartlett(6), lambda: np.bartlett(6), "float32"),
    ("blackman", lambda: jnp.blackman(6), lambda: np.blackman(6), "float32"),
    ("hamming", lambda: jnp.hamming(6), lambda: np.hamming(6), "float32"),
    ("hanning", lambda: jnp.hanning(1), lambda: np.hanning(1), "float32"),
    ("kaiser", lambda: jnp.kaiser(7, 5.0), lambda: np.kaiser(7, 5.0), "float32"),
    ("trim_zeros", lambda: jnp.trim_zeros(jnp.array([0, 0, 1, 0, 2, 0]), "f"),
     lambda: np.trim_zeros(np.int32([0, 0, 1, 0, 2, 0]), "f"), "int32"),
    ("packbits", lambda: jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 1, 1])),
     lambda: np.packbits([1, 0, 1, 1, 0, 0, 0, 1, 1]), "uint8"),
    ("packbits_axis", lambda: jnp.packbits(jnp.asarray(M > 4), axis=1, bitorder="little"),
     lambda: np.packbits(M > 4, axis=1, bitorder="little"), "uint8"),
    ("unpackbits", lambda: jnp.unpackbits(jnp.array([[5], [255]], jnp.uint8), axis=1, count=3),
     lambda: np.unpackbits(np.uint8([[5], [255]]), axis=1, count=3), "uint8"),
    ("choose", lambda: jnp.choose(jnp.array([0, 1, 2, 1]), [A[:4], A[1:], jnp.zeros(4, int)]),
     lambda: np.choose([0, 1, 2, 1], [I[:4], I[1:], np.zeros(4, int)]), "int32"),
    ("compress", lambda: jnp.compress(jnp.array([True, False, True]), jnp.asarray(M), axis=0),
     lambda: np.compress([True, False, True], M, axis=0), "float32"),
    ("extract", lambda: jnp.extract(A > 1, A), lambda: np.extract(I > 1, I), "int32"),
    ("put", lambda: jnp.put(A, jnp.array([0, 4]), jnp.array([9]), inplace=False),
     lambda: _np_put(I, [0, 4], [9]), "int32"),
    ("put_along_axis", lambda: jnp.put_along_axis(jnp.asarray(M), jnp.array([[1], [0], [3]]),
                                                  -1.0, 1, inplace=False),
     lambda: _np_put_along_axis(M, [[1], [0], [3]], -1.0, 1), "float32"),
    ("place", lambda: jnp.place(A, A > 1, jnp.array([8, 9]), inplace=False),
     lambda: _np_place(I, I > 1, [8, 9]), "int32"),
    ("fill_diagonal", lambda: jnp.fill_diagonal(jnp.asarray(M), jnp.array([5.0, 6.0]),
                                                inplace=False),
     lambda: _np_fill_diagonal(M, [5.0, 6.0]), "float32"),
    ("block", lambda: jnp.block([[jnp.ones((2, 2)), jnp.zeros((2, 1))], [jnp.zeros((1, 3))]]),
     lambda: np.block([[np.ones((2, 2)), np.zeros((2, 1))], [np.zeros((1, 3))]]), "float32"),
    ("unstack", lambda: jnp.unstack(jnp.asarray(M), axis=1), lambda: tuple(M.T), "float32"),
    ("fromfunction", lambda: jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
     lambda: np.fromfunction(lambda i, j: i * 10 + j, (2, 3)), "float32"),
    ("fromiter", lambda: jnp.fromiter(range(4), dtype=jnp.int32),
     lambda: np.fromiter(range(4), np.int32), "int32"),
    ("frombuffer", lambda: jnp.frombuffer(b"\x01\x02", dtype=jnp.uint8),
     lambda: np.frombuffer(b"\x01\x02", np.uint8), "uint8"),
]


def _np_put(a, ind, v):
    a = a.copy()
    np.put(a, ind, v)
    return a


def _np_put_along_axis(a, ind, v, axis):
    a = a.copy()
    np.put_along_axis(a, np.asarray(ind), v, axis)
    return a


def _np_place(a, mask, vals):
    a = a.copy()
    np.place(a, mask, vals)
    return a


def _np_fill_diagonal(a, val):
    a = a.copy()
    np.fill_diagonal(a, val)
    return a


#: Cases that run jitted code even eagerly: gcd and lcm loop in ``lax.while_loop``,
#: whose body's inner jits (``jit[name=_where]``) are compiled to be run.
JITTED = ("gcd", "lcm")


@pytest.mark.parametrize("name,mini,numpy_fun,dtype", [c for c in CASES if c[0] not in JITTED],
                         ids=[c[0] for c in CASES if c[0] not in JITTED])
def test_against_numpy(name, mini, numpy_fun, dtype):
    check(mini(), numpy_fun(), dtype)


@pytest.mark.parametrize("name,mini,numpy_fun,dtype", [c for c in CASES if c[0] in JITTED],
                         ids=[c[0] for c in CASES if c[0] in JITTED])
def test_jitted_against_numpy(name, mini, numpy_fun, dtype, jit_backend):
    check(mini(), numpy_fun(), dtype)


def test_frexp_dtypes():
    m, e = jnp.frexp(B)  # expected values from JAX 0.10.2: float32 and int32
    assert (m.dtype, e.dtype) == (np.float32, np.int32)


def test_weak_types(jit_backend):
    # expected values from JAX 0.10.2
    check(jnp.gcd(4, 6), 2, "int32", weak=True)
    check(jnp.ldexp(1.0, 2), 4.0, "float32", weak=False)
    check(jnp.logaddexp2(1.0, 2.0), np.logaddexp2(1.0, 2.0), "float32", weak=True)
    check(jnp.modf(1.5), (0.5, 1.0), "float32", weak=True)
    check(jnp.spacing(1.0), np.spacing(np.float32(1)), "float32", weak=False)
    check(jnp.polyval(A, 2.0), np.polyval(I, 2.0), "float32", weak=False)
    check(jnp.percentile(A, 50.0), 2.0, "float32", weak=False)
    check(jnp.unravel_index(3, (2, 2)), (1, 1), "int32", weak=True)
    check(jnp.r_[1:3, 5.0], [1.0, 2.0, 5.0], "float32", weak=True)


# --- value-dependent shapes ---------------------------------------------------

def test_nonzero_family():
    x = np.array([[1, 0, 2], [0, 3, 0]], np.int32)
    check(jnp.nonzero(x), np.nonzero(x), "int32")
    check(jnp.nonzero(x, size=5, fill_value=-1), ([0, 0, 1, -1, -1], [0, 2, 1, -1, -1]))
    check(jnp.nonzero(x, size=2), ([0, 0], [0, 2]))
    check(jnp.argwhere(x), np.argwhere(x), "int32")
    check(jnp.argwhere(x, size=4), [[0, 0], [0, 2], [1, 1], [0, 0]])
    check(jnp.flatnonzero(x), np.flatnonzero(x), "int32")
    check(jnp.where(x > 1), np.where(x > 1))
    check(jnp.asarray(x).nonzero(), x.nonzero())
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        jnp.nonzero(jnp.array(1))


def test_unique_family():
    x = np.array([3, 1, 3, 2, 1, 7], np.int32)
    check(jnp.unique(x, True, True, True), np.unique(x, True, True, True), "int32")
    check(jnp.unique(x, size=6, fill_value=-5), [1, 2, 3, 7, -5, -5], "int32")
    check(jnp.unique(x, return_counts=True, size=5), ([1, 2, 3, 7, 1], [2, 1, 2, 1, 0]))
    f = np.array([np.nan, 1.0, np.nan, 0.5], np.float32)
    check(jnp.unique(f), [0.5, 1.0, np.nan], "float32")  # equal_nan=True, as JAX
    check(jnp.unique_values(x), np.unique(x))
    check(jnp.unique_counts(x), np.unique(x, return_counts=True))
    v, inv = jnp.unique_inverse(x.reshape(2, 3))
    check(inv, np.unique(x, return_inverse=True)[1].reshape(2, 3), "int32")
    check(jnp.unique_all(x)[3], np.unique(x, return_counts=True)[1])


def test_set_operations():
    a, b = np.array([5, 1, 3, 5, 9], np.int32), np.array([3, 5, 7], np.int32)
    check(jnp.isin(a, b), np.isin(a, b), "bool")
    check(jnp.isin(a, b, invert=True), np.isin(a, b, invert=True))
    check(jnp.union1d(a, b), np.union1d(a, b), "int32")
    check(jnp.setdiff1d(a, b), np.setdiff1d(a, b), "int32")
    check(jnp.setdiff1d(a, b, size=4, fill_value=0), [1, 9, 0, 0])
    check(jnp.intersect1d(a, b), np.intersect1d(a, b), "int32")
    check(jnp.intersect1d(a, b, return_indices=True), np.intersect1d(a, b, return_indices=True))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n,k", [(6, 4), (6, 3), (2, 5), (3, 4)])
def test_convolve_correlate(mode, n, k):
    rng = np.random.default_rng(n * 10 + k)
    a, v = rng.normal(size=n).astype(np.float32), rng.normal(size=k).astype(np.float32)
    check(jnp.convolve(a, v, mode), np.convolve(a, v, mode), "float32", rtol=1e-4, atol=1e-5)
    check(jnp.correlate(a, v, mode), np.correlate(a, v, mode), "float32", rtol=1e-4, atol=1e-5)


def test_convolve_int_is_float():
    # expected values from JAX 0.10.2: jnp.convolve of ints is float32
    check(jnp.convolve(jnp.array([1, 0, 2]), jnp.array([1, 0, 2])), [1, 0, 4, 0, 4], "float32")


def test_index_expressions_and_predicates():
    assert jnp.s_[1:2, ::2] == np.s_[1:2, ::2]
    assert jnp.index_exp[3] == (3,)
    rows, cols = jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))
    check(jnp.asarray(M)[rows, cols], M[np.ix_([0, 2], [1, 3])])
    assert jnp.isscalar(3.0) and jnp.isscalar(jnp.array(3)) and not jnp.isscalar(A)
    assert jnp.iscomplexobj(jnp.array([1j])) and jnp.isrealobj(A)
    assert jnp.iterable([1]) and not jnp.iterable(3)
    assert jnp.array_str(A) == np.array_str(I)
    assert jnp.array_repr(A) == repr(A)
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2


def test_errors_match_jax():
    # expected values from JAX 0.10.2
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        jnp.diff(A, n=-1)
    with pytest.raises(TypeError, match="x argument to bincount must have an integer type"):
        jnp.bincount(B)
    with pytest.raises(ValueError, match="Dimension must be either 2 or 3 for cross product"):
        jnp.cross(jnp.ones(4), jnp.ones(4))
    with pytest.raises(NotImplementedError, match="JAX arrays are immutable, must use inplace"):
        jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="jax.numpy.put cannot modify arrays in-place"):
        jnp.put(A, 0, 1)
    with pytest.raises(ValueError, match="rot90 requires its first argument to have ndim at"):
        jnp.rot90(A)


def test_nonzero_and_unique_need_size_under_jit(jit_backend):
    if not hasattr(minijax, "jit"):
        pytest.skip("needs minijax.jit (chapter 06)")
    with pytest.raises(ConcretizationTypeError,
                       match="The size argument of jnp.nonzero must be statically specified"):
        minijax.jit(jnp.nonzero)(A)
    with pytest.raises(ConcretizationTypeError, match="The error arose for the first argument"):
        minijax.jit(jnp.unique)(A)
    out = minijax.jit(lambda x: jnp.nonzero(x, size=5, fill_value=-1))(A)
    check(out, ([0, 1, 2, 4, -1],))
    out = minijax.jit(lambda x: jnp.unique(x, size=5, fill_value=9))(A)
    check(out, [0, 1, 2, 3, 9])
    out = minijax.jit(lambda x: jnp.setdiff1d(x, jnp.array([1, 9]), size=4, fill_value=-1))(A)
    check(out, [0, 2, 3, -1])
    out = minijax.jit(lambda x: jnp.histogram(x, 3)[0])(A)
    check(out, np.histogram(I, 3)[0], "float32")
