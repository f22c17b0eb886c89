"""Differentiating with complex numbers, as in JAX's autodiff cookbook.

For a real-valued ``f`` of a complex ``z = x + iy``, ``grad(f)(z)`` is the
*conjugate* of the gradient written as a complex number:
``df/dx - i df/dy``. (So ``grad(abs(z)**2)`` at 3+4j is 6-8j, not 6+8j, and a
gradient-descent step is ``z - lr * conj(grad(f)(z))``.) A holomorphic ``f``
(complex in, complex out, complex-differentiable) takes ``holomorphic=True``
and gives ``f'(z)`` itself. Every value and message is from JAX 0.10.2;
each value is also checked against finite differences.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp


def conj_gradient_by_differences(f, z, eps=1e-3):
    """df/dx - i df/dy of a real-valued ``f`` at complex ``z`` (float64 central differences)."""
    dx = (f(z + eps) - f(z - eps)) / (2 * eps)
    dy = (f(z + 1j * eps) - f(z - 1j * eps)) / (2 * eps)
    return dx - 1j * dy


@pytest.mark.parametrize("f, f64, z, expected", [
    (lambda z: jnp.abs(z) ** 2, lambda z: abs(z) ** 2, 3 + 4j, 6 - 8j),
    (lambda z: jnp.real(z * z), lambda z: (z * z).real, 1 + 2j, 2 + 4j),
    (lambda z: jnp.real(jnp.sin(z)), lambda z: np.sin(z).real, 1 + 2j,
     2.032723 - 3.0518978j),
    (lambda z: jnp.log(jnp.abs(z)), lambda z: np.log(abs(z)), 3 + 4j, 0.12 - 0.16000001j),
    (lambda z: jnp.real(jnp.conj(z) * z), lambda z: (np.conj(z) * z).real, 1 + 2j, 2 - 4j),
    (lambda z: jnp.angle(z), lambda z: np.angle(z), 1 + 2j, -0.4 - 0.2j),
    (lambda z: jnp.real(jnp.exp(z)), lambda z: np.exp(z).real, 1 + 2j,
     -1.1312044 + 2.4717267j),
], ids=["abs2", "real_sq", "real_sin", "log_abs", "conj_z_z", "angle", "real_exp"])
def test_grad_of_real_function_is_conjugate(f, f64, z, expected):
    g = jax.grad(f)(jnp.complex64(z))
    assert g.dtype == np.complex64
    np.testing.assert_allclose(complex(g), expected, rtol=1e-6)  # from JAX 0.10.2
    np.testing.assert_allclose(complex(g), conj_gradient_by_differences(f64, z), rtol=1e-4)


def test_grad_of_vdot_and_value_and_grad():
    z = jnp.array([1 + 2j, 3 - 1j], jnp.complex64)
    g = jax.grad(lambda z: jnp.real(jnp.vdot(z, z)))(z)
    np.testing.assert_allclose(np.asarray(g), [2 - 4j, 6 + 2j])  # from JAX 0.10.2: 2 conj(z)
    v, g = jax.value_and_grad(lambda z: jnp.abs(z) ** 2)(jnp.complex64(1 + 1j))
    assert v.dtype == np.float32 and g.dtype == np.complex64  # from JAX 0.10.2
    np.testing.assert_allclose((float(v), complex(g)), (2.0, 2 - 2j), rtol=1e-6)


@pytest.mark.parametrize("f, fprime, z, expected", [
    (lambda z: z * z, lambda z: 2 * z, 1 + 2j, 2 + 4j),
    (jnp.sin, np.cos, 1 + 2j, 2.032723 - 3.0518978j),
    (jnp.sqrt, lambda z: 0.5 / np.sqrt(z), 1 + 2j, 0.28443223 - 0.17578879j),
], ids=["square", "sin", "sqrt"])
def test_holomorphic_grad_is_the_complex_derivative(f, fprime, z, expected):
    g = jax.grad(f, holomorphic=True)(jnp.complex64(z))
    np.testing.assert_allclose(complex(g), expected, rtol=1e-6)  # from JAX 0.10.2
    np.testing.assert_allclose(complex(g), fprime(z), rtol=1e-6)


def test_holomorphic_jacobians_and_hessian():
    z = jnp.array([1 + 2j, 3j], jnp.complex64)
    expected = np.diag([2 + 4j, 6j])  # from JAX 0.10.2: diag(2 z)
    for jac in (jax.jacfwd, jax.jacrev):
        out = jac(lambda z: z ** 2, holomorphic=True)(z)
        assert out.dtype == np.complex64
        np.testing.assert_allclose(np.asarray(out), expected)
    h = jax.hessian(lambda z: z ** 3, holomorphic=True)(jnp.complex64(1 + 1j))
    np.testing.assert_allclose(complex(h), 6 + 6j)  # from JAX 0.10.2: 6 z


def test_jacobians_without_holomorphic():
    z = jnp.array([1 + 2j, 3j], jnp.complex64)
    # from JAX 0.10.2: jacrev of a real function of complex inputs is conjugate, as grad
    out = jax.jacrev(lambda z: jnp.abs(z) ** 2)(z)
    np.testing.assert_allclose(np.asarray(out), np.diag([2 - 4j, -6j]))
    # from JAX 0.10.2: jacfwd of a complex function of real inputs is fine
    out = jax.jacfwd(lambda x: x * (1 + 1j))(jnp.array([1.0, 3.0]))
    np.testing.assert_allclose(np.asarray(out), np.diag([1 + 1j, 1 + 1j]))
    _, pullback = jax.vjp(lambda z: z * (2 + 1j), jnp.complex64(1 + 1j))
    np.testing.assert_allclose(complex(pullback(jnp.complex64(1))[0]), 2 + 1j)


# --- JAX's errors (from JAX 0.10.2) ------------------------------------------------------
def _holo_input(name, dtype):
    return (f"{name} with holomorphic=True requires inputs with complex dtype, "
            f"but got {dtype}.")


def _holo_output(name):
    return f"{name} with holomorphic=True requires outputs with complex dtype, but got float32."


@pytest.mark.parametrize("call, message", [
    (lambda: jax.grad(lambda z: z * z, holomorphic=True)(jnp.float32(1.0)),
     _holo_input("grad", "float32")),
    (lambda: jax.grad(lambda z: z, holomorphic=True)(jnp.int32(1)),
     _holo_input("grad", "int32")),
    (lambda: jax.jacfwd(lambda z: z ** 2, holomorphic=True)(jnp.array([1.0, 3.0])),
     _holo_input("jacfwd", "float32")),
    (lambda: jax.jacrev(lambda z: z ** 2, holomorphic=True)(jnp.array([1.0, 3.0])),
     _holo_input("jacrev", "float32")),
    (lambda: jax.grad(jnp.real, holomorphic=True)(jnp.complex64(1 + 2j)),
     _holo_output("grad")),
    (lambda: jax.jacfwd(jnp.abs, holomorphic=True)(jnp.array([1 + 1j, 3j])),
     _holo_output("jacfwd")),
    (lambda: jax.jacrev(jnp.abs, holomorphic=True)(jnp.array([1 + 1j, 3j])),
     _holo_output("jacrev")),
    (lambda: jax.grad(lambda z: z * z)(jnp.complex64(1 + 2j)),
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
     "but got complex64. For holomorphic differentiation, pass holomorphic=True. For "
     "differentiation of non-holomorphic functions involving complex outputs, use "
     "jax.vjp directly."),
    (lambda: jax.jacfwd(lambda z: z ** 2)(jnp.array([1 + 2j, 3j], jnp.complex64)),
     "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), "
     "but got complex64. For holomorphic differentiation, pass holomorphic=True. For "
     "differentiation of non-holomorphic functions involving complex inputs or integer "
     "inputs, use jax.jvp directly."),
    (lambda: jax.jacrev(lambda x: x * (1 + 1j))(jnp.array([1.0, 3.0])),
     "jacrev requires real-valued outputs (output dtype that is a sub-dtype of "
     "np.floating), but got complex64. For holomorphic differentiation, pass "
     "holomorphic=True. For differentiation of non-holomorphic functions involving "
     "complex outputs, use jax.vjp directly."),
], ids=["grad-real-in", "grad-int-in", "jacfwd-real-in", "jacrev-real-in", "grad-real-out",
        "jacfwd-real-out", "jacrev-real-out", "grad-complex-out", "jacfwd-complex-in",
        "jacrev-complex-out"])
def test_errors(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message
