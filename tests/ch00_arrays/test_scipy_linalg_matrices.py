"""The structured matrices of ``minijax.scipy.linalg`` against SciPy's, and the
float32 last digits of ``det``/``cho_solve``/``lu_solve`` against JAX 0.10.2's."""
import numpy as np
import pytest
import scipy.linalg as sl

import minijax.numpy as jnp
from minijax import lax
from minijax.scipy import linalg as L


def same(got, want, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


C = np.array([1, 2, 3])
R = np.array([1, 5, 6, 7])


def test_toeplitz_hankel_circulant_match_scipy():
    same(L.toeplitz(C), sl.toeplitz(C))
    same(L.toeplitz(C, R), sl.toeplitz(C, R))
    same(L.hankel(C), sl.hankel(C))
    same(L.hankel(C, R), sl.hankel(C, R))
    same(L.circulant(C), sl.circulant(C))
    z = np.array([1 + 2j, 2, 3 - 1j], np.complex64)
    same(L.toeplitz(z), sl.toeplitz(z))  # Hermitian: r = conj(c)
    assert L.toeplitz(C).dtype == jnp.int32


def test_structured_matrices_batch_over_leading_axes():
    cs = np.array([[1, 2, 3], [4, 5, 6]])
    out = L.toeplitz(cs)
    assert out.shape == (2, 3, 3)
    same(out[1], sl.toeplitz(cs[1]))
    same(L.circulant(cs)[0], sl.circulant(cs[0]))
    same(L.companion(np.array([[1., 2., 3.], [2., -4., 6.]]))[1],
         sl.companion([2., -4., 6.]))


def test_companion_leslie_fiedler_match_scipy():
    a = np.array([1., -10., 31., -30.], np.float32)
    same(L.companion(a), sl.companion(a))
    f, s = np.array([0.1, 2.0, 1.0, 0.1]), np.array([0.2, 0.8, 0.7])
    same(L.leslie(f, s), sl.leslie(f, s))
    same(L.fiedler(np.array([1, 4, 12, 45, 77])), sl.fiedler([1, 4, 12, 45, 77]))
    for coeffs in ([1., -16., 86., -176., 105.], [2., 3., -1.], [1., 5.], [3., 1., 4., 1., 5., 9.]):
        same(L.fiedler_companion(np.array(coeffs)), sl.fiedler_companion(coeffs))


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n", [2, 5])
def test_convolution_matrix_matches_scipy(mode, n):
    a = np.array([-1, 4, -2])
    same(L.convolution_matrix(a, n, mode=mode), sl.convolution_matrix(a, n, mode=mode))


def test_named_matrices_match_scipy():
    same(L.hilbert(4), sl.hilbert(4))
    same(L.invhilbert(4), sl.invhilbert(4), rtol=1e-3)
    for kind in ("symmetric", "lower", "upper"):
        same(L.pascal(5, kind=kind), sl.pascal(5, kind=kind), rtol=1e-4)
        same(L.invpascal(5, kind=kind), sl.invpascal(5, kind=kind), rtol=1e-4, atol=1e-4)
    same(L.helmert(5), sl.helmert(5))
    same(L.helmert(3, full=True), sl.helmert(3, full=True))
    same(L.hadamard(8), sl.hadamard(8))
    same(L.dft(5), sl.dft(5), atol=1e-6)
    same(L.dft(4, scale="sqrtn"), sl.dft(4, scale="sqrtn"), atol=1e-6)
    assert L.dft(4).dtype == jnp.complex64 and L.hadamard(2).dtype == jnp.int32


def test_bad_arguments_raise_jax_errors():
    with pytest.raises(ValueError, match="power of 2"):
        L.hadamard(6)
    with pytest.raises(ValueError, match="one less than the length of f"):
        L.leslie(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="mode must be one of"):
        L.convolution_matrix(np.ones(3), 4, mode="wrong")
    with pytest.raises(ValueError, match="Expected kind"):
        L.pascal(3, kind="diagonal")


# --- float32 last digits: the LAPACK/BLAS routines XLA calls -----------------------------
X = np.array([[4., 2., 1.], [2., 5., 3.], [1., 3., 6.]], np.float32)
Y = np.array([1., 2., 3.], np.float32)


def test_det_matches_jax_digits():
    assert float(L.det(np.array([[1., 2.], [3., 4.]], np.float32))) == -2.0  # from JAX 0.10.2
    assert float(L.det(np.array([[2., 1., 3.], [1., 4., 1.], [5., 1., 2.]], np.float32))) == -40.0
    four = np.array([[2., 1., 3., 1.], [1., 4., 1., 2.], [5., 1., 2., 0.], [1., 1., 1., 3.]],
                    np.float32)
    assert np.float32(L.det(four)) == np.float32(-96.999985)  # from JAX 0.10.2


def test_solves_match_jax_digits():
    # from JAX 0.10.2
    np.testing.assert_array_equal(
        L.cho_solve(L.cho_factor(X), Y),
        np.array([0.08955224, 0.104477584, 0.43283588], np.float32))
    np.testing.assert_array_equal(
        L.lu_solve(L.lu_factor(X), Y), np.array([0.08955224, 0.104477614, 0.43283582], np.float32))
    two = np.array([[2., 1.], [1., 2.]], np.float32)
    np.testing.assert_array_equal(L.cho_solve(L.cho_factor(two), np.array([3., 4.], np.float32)),
                                  np.array([0.6666666, 1.6666666], np.float32))
    np.testing.assert_array_equal(L.lu_solve(L.lu_factor(two), np.array([3., 4.], np.float32)),
                                  np.array([0.6666666, 1.6666667], np.float32))
    lu, piv = L.lu_factor(np.array([[1., 2.], [3., 4.]], np.float32))
    np.testing.assert_array_equal(lu, np.array([[3., 4.], [0.33333334, 0.6666666]], np.float32))
    np.testing.assert_array_equal(piv, [1, 1])


def test_triangular_solve_right_side_and_batches_match_scipy():
    a = np.array([[3., 0.], [1., 7.]], np.float32)
    np.testing.assert_array_equal(  # from JAX 0.10.2
        lax.linalg.triangular_solve(a, np.array([[1., 2.]], np.float32), left_side=False,
                                    lower=True), np.array([[0.23809525, 0.2857143]], np.float32))
    rng = np.random.default_rng(1)
    tri = np.triu(rng.normal(size=(3, 4, 4))) + 4 * np.eye(4)
    rhs = rng.normal(size=(3, 4, 2))
    for trans, conj in ((False, False), (True, False), (True, True)):
        got = lax.linalg.triangular_solve(tri, rhs, left_side=True, lower=False,
                                          transpose_a=trans, conjugate_a=conj)
        want = [sl.solve_triangular(t, b, trans=int(trans)) for t, b in zip(tri, rhs)]
        same(got, want, rtol=1e-10)
    p, l_, u = L.lu(np.asarray(rng.normal(size=(2, 3, 5)), np.float32))
    assert p.shape == (2, 3, 3) and u.shape == (2, 3, 5)
