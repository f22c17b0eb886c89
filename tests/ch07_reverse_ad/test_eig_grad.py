"""Derivatives through ``lax.linalg.eig`` (a non-symmetric eigendecomposition):
the eigenvalues by first-order perturbation theory, the eigenvectors only when
``enable_eigvec_derivs`` opts in, as in JAX."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

A = jnp.array([[2., 1., 5.], [3., 4., 7.], [1., 3., 5.]])  # one real, two complex eigenvalues


def test_sum_of_eigenvalues_is_the_trace():
    """``sum(w) = trace(a)``, so its gradient is the identity."""
    g = jax.grad(lambda a: jnp.linalg.eigvals(a).real.sum())(A)
    np.testing.assert_allclose(np.asarray(g), np.eye(3), atol=1e-6)


def test_sum_of_squared_eigenvalues_is_the_trace_of_the_square():
    """``sum(w**2) = trace(a @ a)``, whose gradient is ``2 a^T``; its imaginary
    part is zero whatever ``a``, so is its gradient."""
    g = jax.grad(lambda a: (jnp.linalg.eigvals(a) ** 2).real.sum())(A)
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(A).T, rtol=1e-5)
    g = jax.grad(lambda a: (jnp.linalg.eigvals(a) ** 2).imag.sum())(A)
    np.testing.assert_allclose(np.asarray(g), 0, atol=1e-5)


def test_eigenvalue_jvp_against_finite_differences():
    da = jnp.array([[0.3, -0.1, 0.2], [0.0, 0.5, -0.4], [0.1, 0.2, -0.3]])
    w, dw = jax.jvp(jnp.linalg.eigvals, (A,), (da,))
    eps = 1e-3
    a64, da64 = np.asarray(A, np.float64), np.asarray(da, np.float64)
    fd = (np.linalg.eigvals(a64 + eps * da64) - np.linalg.eigvals(a64 - eps * da64)) / (2 * eps)
    order = [int(np.argmin(abs(np.linalg.eigvals(a64) - x))) for x in np.asarray(w)]
    np.testing.assert_allclose(np.asarray(dw), fd[order], rtol=1e-3, atol=1e-4)


def test_eigenvector_derivatives_as_jax():
    g = jax.grad(lambda a: jax.lax.linalg.eig(
        a, enable_eigvec_derivs=True, compute_left_eigenvectors=False)[1].real.sum())(A)
    jax_value = [[0.13471329, -0.0798666, -0.03273399],
                 [-0.29326028, -0.08519312, 0.16728576],
                 [-0.1319785, 0.13441417, -0.04952021]]  # from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(g), jax_value, rtol=1e-5, atol=1e-6)
    g = jax.grad(lambda a: abs(jax.lax.linalg.eig(a, enable_eigvec_derivs=True)[1]).sum())(A)
    jax_value = [[0.04027652, 0.02523229, -0.02547446],
                 [0.02104422, -0.01584301, -0.01041476],
                 [0.02976483, 0.06237751, -0.02443351]]  # from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(g), jax_value, rtol=1e-5, atol=1e-6)


def test_eigenvector_derivatives_need_the_opt_in():
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):  # as JAX 0.10.2
        jax.grad(lambda a: jnp.linalg.eig(a).eigenvectors.real.sum())(A)
