"""Docstring examples of ``jax.numpy`` under ``jit`` (issue 19): ``repeat`` with a
static ``total_repeat_length`` and traced ``repeats``, ``delete`` of traced
distinct indices, ``eigvals`` as a host call, and the jaxprs of ``eig``/``eigvals``.
Expected reprs: # from JAX 0.10.2."""
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.errors import ConcretizationTypeError


# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('jit_repeat_5',
     lambda: jax.jit(jnp.repeat, static_argnames=['axis', 'total_repeat_length'])(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 3]), axis=1, total_repeat_length=5),
     'Array([[1, 1, 2, 2, 2],\n       [3, 3, 4, 4, 4]], dtype=int32)'),
    ('jit_repeat_4',
     lambda: jax.jit(jnp.repeat, static_argnames=['axis', 'total_repeat_length'])(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 3]), axis=1, total_repeat_length=4),
     'Array([[1, 1, 2, 2],\n       [3, 3, 4, 4]], dtype=int32)'),
    ('jit_repeat_7',
     lambda: jax.jit(jnp.repeat, static_argnames=['axis', 'total_repeat_length'])(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 3]), axis=1, total_repeat_length=7),
     'Array([[1, 1, 2, 2, 2, 2, 2],\n       [3, 3, 4, 4, 4, 4, 4]], dtype=int32)'),
    ('jit_delete_unique',
     lambda: jax.jit(jnp.delete, static_argnames='assume_unique_indices')(jnp.arange(5), jnp.array([3, 1]), assume_unique_indices=True),
     'Array([0, 2, 4], dtype=int32)'),
    ('jit_eigvals',
     lambda: jax.jit(jnp.linalg.eigvals)(jnp.array([[2., 1., 5.], [3., 4., 7.], [1., 3., 5.]])),
     'Array([10.265622  +0.j       ,  0.36718702+1.1516777j,\n        0.36718702-1.1516777j], dtype=complex64)'),
    ('eig_jaxpr',
     lambda: str(jax.make_jaxpr(jnp.linalg.eig)(jnp.eye(2))),
     "'{ lambda ; a:f32[2,2]. let\\n    b:c64[2] c:c64[2,2] = eig[\\n      compute_left_eigenvectors=False\\n      compute_right_eigenvectors=True\\n      enable_eigvec_derivs=False\\n      implementation=None\\n    ] a\\n  in (b, c) }'"),
    ('eigvals_jaxpr',
     lambda: str(jax.make_jaxpr(jnp.linalg.eigvals)(jnp.eye(2))),
     "'{ lambda ; a:f32[2,2]. let\\n    b:c64[2] = jit[\\n      name=eigvals\\n      jaxpr={ lambda ; a:f32[2,2]. let\\n          b:c64[2] = eig[\\n            compute_left_eigenvectors=False\\n            compute_right_eigenvectors=False\\n            enable_eigvec_derivs=False\\n            implementation=None\\n          ] a\\n        in (b,) }\\n    ] a\\n  in (b,) }'"),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    assert repr(make()) == jax_repr


def test_delete_of_traced_indices_needs_assume_unique_indices():
    with pytest.raises(ConcretizationTypeError):  # from JAX 0.10.2
        jax.jit(jnp.delete)(jnp.arange(5), jnp.array([1, 3]))


def test_repeat_of_traced_repeats_needs_total_repeat_length():
    with pytest.raises(ConcretizationTypeError):  # from JAX 0.10.2
        jax.jit(jnp.repeat, static_argnames="axis")(jnp.arange(2), jnp.array([1, 2]), axis=0)


def test_eig_on_every_backend(jit_backend):
    """``eig`` is a host call on the compiled targets (LAPACK's geev through SciPy):
    the same values as the interpreter, batched or not."""
    a = jnp.array([[[2., 1., 5.], [3., 4., 7.], [1., 3., 5.]], [[1., 2.5, 0.], [2., 1., 0.], [0., 0., 3.]]])
    w, v = jax.jit(jnp.linalg.eig)(a)
    assert w.dtype == v.dtype == jnp.complex64
    w_np, v_np = jnp.linalg.eig(a)
    assert jnp.allclose(w, w_np) and jnp.allclose(v, v_np)
    assert jnp.allclose(jnp.matmul(a.astype(jnp.complex64), v), v * w[:, None, :], atol=1e-5)
