"""Docstring examples of ``jax.numpy`` that rest on ``vmap`` (issue 19):
``fromfunction`` calls its function on scalar indices, vmapped once per axis;
``pad`` with a callable mode hands it each lane via ``apply_along_axis``;
``eigvals`` batches over leading axes. Expected reprs: # from JAX 0.10.2."""
import pytest

import minijax as jax
import minijax.numpy as jnp


def custom_pad(row, pad_width, iaxis, kwargs):
    """The ``jnp.pad`` docstring's callable mode: constants before and after."""
    before, after = pad_width
    row = row.at[:before].set(kwargs.get('before_value', 0))
    return row.at[len(row) - after:].set(kwargs.get('after_value', 0))


# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('fromfunction_multiply',
     lambda: jnp.fromfunction(jnp.multiply, shape=(3, 6), dtype=int),
     'Array([[ 0,  0,  0,  0,  0,  0],\n       [ 0,  1,  2,  3,  4,  5],\n       [ 0,  2,  4,  6,  8, 10]], dtype=int32)'),
    ('fromfunction_array_valued',
     lambda: jnp.fromfunction(lambda x: (x + 1) * jnp.arange(3), shape=(2,)),
     'Array([[0., 1., 2.],\n       [0., 2., 4.]], dtype=float32)'),
    ('fromfunction_tuple',
     lambda: jnp.fromfunction(lambda x, y: (x + y, x * y), shape=(3, 5)),
     '(Array([[0., 1., 2., 3., 4.],\n       [1., 2., 3., 4., 5.],\n       [2., 3., 4., 5., 6.]], dtype=float32), Array([[0., 0., 0., 0., 0.],\n       [0., 1., 2., 3., 4.],\n       [0., 2., 4., 6., 8.]], dtype=float32))'),
    ('pad_callable',
     lambda: jnp.pad(jnp.array([2, 3, 4]), 2, custom_pad, before_value=-10, after_value=10),
     'Array([-10, -10,   2,   3,   4,  10,  10], dtype=int32)'),
    ('pad_callable_2d',
     lambda: jnp.pad(jnp.array([[2, 3, 4]]), 1, custom_pad, before_value=-10, after_value=10),
     'Array([[-10, -10, -10, -10,  10],\n       [-10,   2,   3,   4,  10],\n       [-10,  10,  10,  10,  10]], dtype=int32)'),
    ('vmap_eigvals',
     lambda: jax.vmap(jnp.linalg.eigvals)(jnp.array([[[1., 2.], [2., 1.]], [[0., -1.], [1., 0.]]])),
     'Array([[ 3.       +0.j, -1.0000002+0.j],\n       [ 0.       +1.j,  0.       -1.j]], dtype=complex64)'),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    assert repr(make()) == jax_repr


def test_fromfunction_sees_scalars():
    shapes = []

    def f(x, y):
        shapes.append((x.shape, y.shape))
        return x + y

    out = jnp.fromfunction(f, (2, 3))
    assert shapes == [((), ())]  # from JAX 0.10.2 (NumPy would pass (2, 3) grids)
    assert repr(out) == ("Array([[0., 1., 2.],\n       [1., 2., 3.]], dtype=float32)")  # from JAX 0.10.2
