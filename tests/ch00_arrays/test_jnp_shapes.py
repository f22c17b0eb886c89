"""Chapter 00 — ``jnp`` array creation, data movement and sorting.

Covers ``minijax/numpy/creation.py``, ``shapes.py`` and ``sorting.py``:

- every function on fixed inputs, against values, dtypes and weak types
  produced by JAX 0.10.2 with x64 disabled (the tables below were generated
  by running each expression under ``jax.numpy`` and are written down
  literally: 64-bit inputs become 32-bit, Python scalars give weak types);
- the same functions against NumPy on random data (values, and the dtype
  NumPy gives canonicalized to 32 bits);
- hypothesis properties over random shapes for reshape, transpose,
  concatenate, stack and broadcast_to;
- the exception class and exact message JAX 0.10.2 raises for bad input.
"""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minijax.numpy as jnp
from minijax.array import Array

NAN = float("nan")
INF = float("inf")


def _canonical(dt) -> str:
    """NumPy's dtype as minijax stores it (64-bit types become 32-bit)."""
    return {"int64": "int32", "uint64": "uint32", "float64": "float32",
            "complex128": "complex64"}.get(np.dtype(dt).name, np.dtype(dt).name)


def check(result, values, dtype, weak, shape=None):
    """``result`` is an Array with these values (float32 tolerance), dtype and weak type."""
    assert isinstance(result, Array), type(result)
    got = np.asarray(result)
    expected = np.asarray(values)
    if shape is not None:
        assert got.shape == tuple(shape)
        expected = expected.reshape(shape)
    assert got.shape == expected.shape
    assert result.dtype == np.dtype(dtype), (result.dtype, dtype)
    assert result.weak_type == weak
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# expected values from JAX 0.10.2 (expression, values, dtype, weak_type, shape)
CREATION_CASES = [
    ('jnp.zeros(3)', [0.0, 0.0, 0.0], 'float32', False, (3,)),
    ('jnp.zeros((2,), int)', [0, 0], 'int32', False, (2,)),
    ('jnp.zeros([2, 3])', [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 'float32', False, (2, 3)),
    ('jnp.zeros(np.int64(2))', [0.0, 0.0], 'float32', False, (2,)),
    ('jnp.zeros(jnp.array([2, 1]))', [[0.0], [0.0]], 'float32', False, (2, 1)),
    ('jnp.zeros(())', 0.0, 'float32', False, ()),
    ("jnp.zeros(2, 'float64')", [0.0, 0.0], 'float32', False, (2,)),
    ('jnp.zeros(2, complex)', [0j, 0j], 'complex64', False, (2,)),
    ("jnp.ones((2, 3), 'int8')", [[1, 1, 1], [1, 1, 1]], 'int8', False, (2, 3)),
    ('jnp.ones(2, bool)', [True, True], 'bool', False, (2,)),
    ('jnp.empty(3)', [0.0, 0.0, 0.0], 'float32', False, (3,)),
    ('jnp.full(3, 2)', [2, 2, 2], 'int32', True, (3,)),
    ('jnp.full(3, 2.)', [2.0, 2.0, 2.0], 'float32', True, (3,)),
    ('jnp.full(3, jnp.int8(2))', [2, 2, 2], 'int8', False, (3,)),
    ('jnp.full((2, 3), np.arange(3))', [[0, 1, 2], [0, 1, 2]], 'int32', False, (2, 3)),
    ('jnp.full(3, 2, dtype=float)', [2.0, 2.0, 2.0], 'float32', False, (3,)),
    ('jnp.full(2, True)', [True, True], 'bool', False, (2,)),
    ('jnp.full(2, np.float64(1))', [1.0, 1.0], 'float32', False, (2,)),
    ('jnp.full((), 2.)', 2.0, 'float32', True, ()),
    ('jnp.zeros_like(jnp.arange(3))', [0, 0, 0], 'int32', False, (3,)),
    ('jnp.zeros_like(2.0)', 0.0, 'float32', True, ()),
    ('jnp.zeros_like(2)', 0, 'int32', True, ()),
    ("jnp.zeros_like(jnp.full((2,), 2.0), dtype='float32')", [0.0, 0.0], 'float32', False, (2,)),
    ('jnp.zeros_like(jnp.full((2,), 2.0), shape=3)', [0.0, 0.0, 0.0], 'float32', True, (3,)),
    ('jnp.ones_like(jnp.arange(3), shape=(2, 2))', [[1, 1], [1, 1]], 'int32', False, (2, 2)),
    ('jnp.ones_like(jnp.array([True]))', [True], 'bool', False, (1,)),
    ('jnp.full_like(jnp.arange(3), 2.5)', [2, 2, 2], 'int32', False, (3,)),
    ('jnp.full_like(1.0, 2)', 2.0, 'float32', True, ()),
    ('jnp.full_like(jnp.full((2,), 2.0), jnp.float16(3))', [3.0, 3.0], 'float32', True, (2,)),
    ('jnp.full_like(jnp.arange(3.), jnp.array([1, 2, 3]))',
     [1.0, 2.0, 3.0], 'float32', False, (3,)),
    ('jnp.empty_like(jnp.full((2,), 2.0))', [0.0, 0.0], 'float32', True, (2,)),
    ('jnp.arange(3)', [0, 1, 2], 'int32', False, (3,)),
    ('jnp.arange(3.)', [0.0, 1.0, 2.0], 'float32', False, (3,)),
    ('jnp.arange(1, 10, 2)', [1, 3, 5, 7, 9], 'int32', False, (5,)),
    ('jnp.arange(0, 1, .1)',
     [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.9000000357627869], 'float32', False, (10,)),
    ('jnp.arange(np.int64(3))', [0, 1, 2], 'int32', False, (3,)),
    ('jnp.arange(jnp.int8(3))', [0, 1, 2], 'int8', False, (3,)),
    ('jnp.arange(3, dtype=float)', [0.0, 1.0, 2.0], 'float32', False, (3,)),
    ('jnp.arange(5, 1, -1)', [5, 4, 3, 2], 'int32', False, (4,)),
    ('jnp.arange(5, 1)', [], 'int32', False, (0,)),
    ('jnp.arange(start=3)', [0, 1, 2], 'int32', False, (3,)),
    ('jnp.arange(jnp.int8(1), 3.5)', [1.0, 2.0, 3.0], 'float32', False, (3,)),
    ('jnp.arange(np.float32(0.5), 2)', [0.5, 1.5], 'float32', False, (2,)),
    ("jnp.arange(0, 1, 0.25, dtype='float16')", [0.0, 0.25, 0.5, 0.75], 'float16', False, (4,)),
    ('jnp.arange(-3)', [], 'int32', False, (0,)),
    ("jnp.arange(3, dtype='uint8')", [0, 1, 2], 'uint8', False, (3,)),
    ('jnp.arange(0, 10, 3, dtype=float)', [0.0, 3.0, 6.0, 9.0], 'float32', False, (4,)),
    ('jnp.arange(1.5, 4)', [1.5, 2.5, 3.5], 'float32', False, (3,)),
    ('jnp.arange(2, step=2)', [0], 'int32', False, (1,)),
    ('jnp.arange(jnp.array(4))', [0, 1, 2, 3], 'int32', False, (4,)),
    ('jnp.linspace(0, 1, 5)', [0.0, 0.25, 0.5, 0.75, 1.0], 'float32', False, (5,)),
    ('jnp.linspace(0, 10, 5, dtype=int)', [0, 2, 5, 7, 10], 'int32', False, (5,)),
    ('jnp.linspace(0, 1, 4, endpoint=False)', [0.0, 0.25, 0.5, 0.75], 'float32', False, (4,)),
    ('jnp.linspace(jnp.zeros(2), jnp.ones(2), 3, axis=1)',
     [[0.0, 0.5, 1.0], [0.0, 0.5, 1.0]], 'float32', False, (2, 3)),
    ('jnp.linspace(jnp.zeros(2), 1, 3, axis=-1)',
     [[0.0, 0.5, 1.0], [0.0, 0.5, 1.0]], 'float32', False, (2, 3)),
    ('jnp.linspace(0, 1, 0)', [], 'float32', False, (0,)),
    ('jnp.linspace(0, 1, 1)', [0.0], 'float32', False, (1,)),
    ('jnp.linspace(jnp.int8(0), jnp.int8(10), 3)', [0.0, 5.0, 10.0], 'float32', False, (3,)),
    ('jnp.linspace(jnp.float16(0), 1, 3)', [0.0, 0.5, 1.0], 'float16', False, (3,)),
    ('jnp.linspace(0, 1j, 3)', [0j, 0.5j, 1j], 'complex64', False, (3,)),
    ('jnp.linspace(0, 1, 3, dtype=bool)', [False, True, True], 'bool', False, (3,)),
    ('jnp.linspace(0, 10, 4, dtype=int)', [0, 3, 6, 10], 'int32', False, (4,)),
    ('jnp.linspace(0, 1, 5, retstep=True)[1]', 0.25, 'float32', False, ()),
    ('jnp.linspace(0, 1, 1, retstep=True)[1]', NAN, 'float32', False, ()),
    ('jnp.linspace(0, 1, 1, endpoint=False, retstep=True)[1]', 1.0, 'float32', False, ()),
    ('jnp.logspace(0, 2, 3)', [1.0, 10.0, 100.0], 'float32', False, (3,)),
    ('jnp.logspace(0, 3, 4, base=2)', [1.0, 2.0, 4.0, 8.0], 'float32', False, (4,)),
    ('jnp.logspace(0, 3, 4, dtype=int)', [1, 10, 100, 1000], 'int32', False, (4,)),
    ('jnp.logspace(0, 1, 3, endpoint=False)',
     [1.0, 2.1544346809387207, 4.641589164733887], 'float32', False, (3,)),
    ('jnp.geomspace(1, 100, 3)', [1.0, 10.0, 100.0], 'float32', False, (3,)),
    ('jnp.geomspace(-1, -100, 3)', [-1.0, -10.0, -100.0], 'float32', False, (3,)),
    ('jnp.geomspace(jnp.ones(2), 8, 4, axis=1)',
     [[1.0, 2.0, 4.000000476837158, 8.0], [1.0, 2.0, 4.000000476837158, 8.0]], 'float32', False, (2, 4)),
    ('jnp.eye(3)', [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32', False, (3, 3)),
    ('jnp.eye(3, dtype=int)', [[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'int32', False, (3, 3)),
    ('jnp.eye(2, 3, 1)', [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32', False, (2, 3)),
    ('jnp.eye(3, k=-1)',
     [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 'float32', False, (3, 3)),
    ('jnp.eye(3, k=jnp.array(1))',
     [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], 'float32', False, (3, 3)),
    ('jnp.eye(2, 4, k=10)', [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'float32', False, (2, 4)),
    ('jnp.identity(2, dtype=bool)', [[True, False], [False, True]], 'bool', False, (2, 2)),
    ('jnp.identity(3)',
     [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 'float32', False, (3, 3)),
    ('jnp.tri(3)', [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]], 'float32', False, (3, 3)),
    ('jnp.tri(2, 3, 1, dtype=int)', [[1, 1, 0], [1, 1, 1]], 'int32', False, (2, 3)),
    ('jnp.tri(3, k=-1, dtype=bool)',
     [[False, False, False], [True, False, False], [True, True, False]], 'bool', False, (3, 3)),
    ('jnp.copy(2.0)', 2.0, 'float32', True, ()),
    ('jnp.copy(jnp.arange(3))', [0, 1, 2], 'int32', False, (3,)),
    ('jnp.copy(np.arange(3.))', [0.0, 1.0, 2.0], 'float32', False, (3,)),
    ('jnp.astype(jnp.arange(3), float)', [0.0, 1.0, 2.0], 'float32', False, (3,)),
    ("jnp.astype(2.0, 'float32')", 2.0, 'float32', False, ()),
    ("jnp.astype(jnp.asarray(2.0), 'float32')", 2.0, 'float32', False, ()),
    ('jnp.arange(3).astype(int)', [0, 1, 2], 'int32', False, (3,)),
    ("jnp.astype(jnp.array([1.5, -1.5, 0.]), 'int32')", [1, -1, 0], 'int32', False, (3,)),
    ('jnp.astype(jnp.array([1j, 0]), bool)', [True, False], 'bool', False, (2,)),
    ('jnp.astype(jnp.array([1, 2]), None)', [1.0, 2.0], 'float32', False, (2,)),
    ("jnp.array([0.5, 2.]).astype('uint8')", [0, 2], 'uint8', False, (2,)),
    ('jnp.array([1, 2], ndmin=3)', [[[1, 2]]], 'int32', False, (1, 1, 2)),
    ('jnp.array([jnp.float16(1), 2])', [1.0, 2.0], 'float16', False, (2,)),
    ('jnp.array([jnp.arange(2), [3, 4]])', [[0, 1], [3, 4]], 'int32', False, (2, 2)),
    ('jnp.array([jnp.int8(1), 2.5])', [1.0, 2.5], 'float32', False, (2,)),
    ('jnp.array([1.0, 2.0])', [1.0, 2.0], 'float32', False, (2,)),
    ('jnp.array(np.float64(1))', 1.0, 'float32', False, ()),
    ('jnp.array(2, dtype=jnp.int8)', 2, 'int8', False, ()),
    ('jnp.array(True)', True, 'bool', False, ()),
    ('jnp.array([])', [], 'float32', False, (0,)),
    ('jnp.array(jnp.asarray(2.0))', 2.0, 'float32', True, ()),
    ('jnp.asarray(jnp.asarray(2.0))', 2.0, 'float32', True, ()),
    ("jnp.array(jnp.asarray(2.0), dtype='float32')", 2.0, 'float32', False, ()),
    ("jnp.asarray(jnp.asarray(2.0), dtype='float32')", 2.0, 'float32', False, ()),
    ('jnp.array([jnp.asarray(2.0)])', [2.0], 'float32', False, (1,)),
    ('jnp.array([1, jnp.asarray(2.0)])', [1.0, 2.0], 'float32', False, (2,)),
    ('jnp.array((1, 2.))', [1.0, 2.0], 'float32', False, (2,)),
    ('jnp.array(-2**31)', -2147483648, 'int32', True, ()),
    ('jnp.asarray(range(3))', [0, 1, 2], 'int32', False, (3,)),
    ('jnp.array([[1, 2]], ndmin=1)', [[1, 2]], 'int32', False, (1, 2)),
    ('jnp.array([], dtype=int)', [], 'int32', False, (0,)),
    ('jnp.array([[], []])', [[], []], 'float32', False, (2, 0)),
    ('jnp.array(np.float16(1))', 1.0, 'float16', False, ()),
    ('jnp.array(jnp.arange(3), dtype=float)', [0.0, 1.0, 2.0], 'float32', False, (3,)),
    ('jnp.array((jnp.int8(1), np.int16(2)))', [1, 2], 'int16', False, (2,)),
    ('jnp.array(3, copy=False)', 3, 'int32', True, ()),
    ('jnp.asarray(7)', 7, 'int32', True, ()),
    ('jnp.asarray(1+1j)', (1+1j), 'complex64', True, ()),
    ('jnp.asarray([(1, 2, 3), (4, 5, 6)])', [[1, 2, 3], [4, 5, 6]], 'int32', False, (2, 3)),
    ('jnp.asarray(np.linspace(0, 2, 5))', [0.0, 0.5, 1.0, 1.5, 2.0], 'float32', False, (5,)),
    ('jnp.array([[jnp.float32(1), 2], [3, 4]])',
     [[1.0, 2.0], [3.0, 4.0]], 'float32', False, (2, 2)),
    ('jnp.array([jnp.arange(2.)] * 20)',
     [[0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]], 'float32', False, (20, 2)),
]
SHAPE_CASES = [
    ('jnp.reshape(jnp.arange(6.), (3, -1))',
     [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 'float32', False, (3, 2)),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), 6)',
     [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 'float32', False, (6,)),
    ("jnp.reshape(jnp.arange(6.).reshape(2, 3), (3, 2), order='F')",
     [[0.0, 4.0], [3.0, 2.0], [1.0, 5.0]], 'float32', False, (3, 2)),
    ('jnp.reshape(jnp.full((2, 2), 2.), 4)', [2.0, 2.0, 2.0, 2.0], 'float32', True, (4,)),
    ('jnp.arange(6).reshape(3, 2)', [[0, 1], [2, 3], [4, 5]], 'int32', False, (3, 2)),
    ('jnp.arange(6).reshape((3, 2))', [[0, 1], [2, 3], [4, 5]], 'int32', False, (3, 2)),
    ('jnp.reshape(2., (1, 1))', [[2.0]], 'float32', True, (1, 1)),
    ('jnp.reshape(jnp.zeros((0, 3)), (3, 0))', [[], [], []], 'float32', False, (3, 0)),
    ("jnp.ravel(jnp.arange(6.).reshape(2, 3), order='F')",
     [0.0, 3.0, 1.0, 4.0, 2.0, 5.0], 'float32', False, (6,)),
    ('jnp.ravel(3)', [3], 'int32', True, (1,)),
    ('jnp.transpose(jnp.full((2, 2), 2.))', [[2.0, 2.0], [2.0, 2.0]], 'float32', True, (2, 2)),
    ('jnp.transpose(jnp.arange(6).reshape(2, 3), (-1, 0))',
     [[0, 3], [1, 4], [2, 5]], 'int32', False, (3, 2)),
    ('jnp.arange(24).reshape(2, 3, 4).transpose(1, 2, 0)',
     [[[0, 12], [1, 13], [2, 14], [3, 15]], [[4, 16], [5, 17], [6, 18], [7, 19]], [[8, 20], [9, 21], [10, 22], [11, 23]]], 'int32', False, (3, 4, 2)),
    ('jnp.arange(24).reshape(2, 3, 4).T',
     [[[0, 12], [4, 16], [8, 20]], [[1, 13], [5, 17], [9, 21]], [[2, 14], [6, 18], [10, 22]], [[3, 15], [7, 19], [11, 23]]], 'int32', False, (4, 3, 2)),
    ('jnp.arange(24).reshape(2, 3, 4).mT',
     [[[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]], [[12, 16, 20], [13, 17, 21], [14, 18, 22], [15, 19, 23]]], 'int32', False, (2, 4, 3)),
    ('jnp.matrix_transpose(jnp.arange(6).reshape(1, 2, 3))',
     [[[0, 3], [1, 4], [2, 5]]], 'int32', False, (1, 3, 2)),
    ('jnp.permute_dims(jnp.arange(6).reshape(1, 2, 3), (2, 0, 1))',
     [[[0, 3]], [[1, 4]], [[2, 5]]], 'int32', False, (3, 1, 2)),
    ('jnp.swapaxes(jnp.arange(24).reshape(2, 3, 4), 0, -1)',
     [[[0, 12], [4, 16], [8, 20]], [[1, 13], [5, 17], [9, 21]], [[2, 14], [6, 18], [10, 22]], [[3, 15], [7, 19], [11, 23]]], 'int32', False, (4, 3, 2)),
    ('jnp.moveaxis(jnp.arange(24).reshape(2, 3, 4), (0, 1), (2, 0))',
     [[[0, 12], [1, 13], [2, 14], [3, 15]], [[4, 16], [5, 17], [6, 18], [7, 19]], [[8, 20], [9, 21], [10, 22], [11, 23]]], 'int32', False, (3, 4, 2)),
    ('jnp.moveaxis(jnp.arange(24).reshape(2, 3, 4), -1, 0)',
     [[[0, 4, 8], [12, 16, 20]], [[1, 5, 9], [13, 17, 21]], [[2, 6, 10], [14, 18, 22]], [[3, 7, 11], [15, 19, 23]]], 'int32', False, (4, 2, 3)),
    ('jnp.rollaxis(jnp.arange(24).reshape(2, 3, 4), 2)',
     [[[0, 4, 8], [12, 16, 20]], [[1, 5, 9], [13, 17, 21]], [[2, 6, 10], [14, 18, 22]], [[3, 7, 11], [15, 19, 23]]], 'int32', False, (4, 2, 3)),
    ('jnp.rollaxis(jnp.arange(24).reshape(2, 3, 4), 0, 2)',
     [[[0, 1, 2, 3], [12, 13, 14, 15]], [[4, 5, 6, 7], [16, 17, 18, 19]], [[8, 9, 10, 11], [20, 21, 22, 23]]], 'int32', False, (3, 2, 4)),
    ('jnp.expand_dims(jnp.arange(6).reshape(2, 3), (0, -1))',
     [[[[0], [1], [2]], [[3], [4], [5]]]], 'int32', False, (1, 2, 3, 1)),
    ('jnp.expand_dims(2., 0)', [2.0], 'float32', True, (1,)),
    ('jnp.squeeze(jnp.zeros((1, 2, 1)))', [0.0, 0.0], 'float32', False, (2,)),
    ('jnp.squeeze(jnp.zeros((1, 2, 1)), (0, -1))', [0.0, 0.0], 'float32', False, (2,)),
    ('jnp.squeeze(jnp.asarray(2.)[None])', 2.0, 'float32', True, ()),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3)] * 2, axis=None)',
     [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 'float32', False, (12,)),
    ('jnp.concatenate([jnp.arange(2), jnp.arange(2.)])',
     [0.0, 1.0, 0.0, 1.0], 'float32', False, (4,)),
    ("jnp.concatenate([jnp.arange(2, dtype='int8'), jnp.array([1, 2], dtype='uint8')])",
     [0, 1, 1, 2], 'int16', False, (4,)),
    ('jnp.concatenate([jnp.arange(2), jnp.arange(2.)], dtype=int)',
     [0, 1, 0, 1], 'int32', False, (4,)),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3)])',
     [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'float32', False, (2, 3)),
    ('jnp.concatenate(jnp.arange(6.).reshape(2, 3))',
     [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 'float32', False, (6,)),
    ('jnp.concatenate(jnp.arange(24).reshape(2, 3, 4), axis=1)',
     [[0, 1, 2, 3, 12, 13, 14, 15], [4, 5, 6, 7, 16, 17, 18, 19], [8, 9, 10, 11, 20, 21, 22, 23]], 'int32', False, (3, 8)),
    ('jnp.concatenate(np.arange(24).reshape(2, 3, 4), axis=None)',
     [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23], 'int32', False, (24,)),
    ("jnp.concatenate([jnp.asarray([2.]), jnp.zeros(1, 'float16')])",
     [2.0, 0.0], 'float32', False, (2,)),
    ('jnp.concatenate([jnp.full((2,), 2.)] * 2)', [2.0, 2.0, 2.0, 2.0], 'float32', True, (4,)),
    ('jnp.concatenate([jnp.arange(4).reshape(2, 2), jnp.ones((2, 1), bool)], axis=1)',
     [[0, 1, 1], [2, 3, 1]], 'int32', False, (2, 3)),
    ('jnp.concat([jnp.arange(2), jnp.arange(3)])', [0, 1, 0, 1, 2], 'int32', False, (5,)),
    ('jnp.stack([1, 2.])', [1.0, 2.0], 'float32', True, (2,)),
    ('jnp.stack([1, 2])', [1, 2], 'int32', True, (2,)),
    ('jnp.stack([jnp.arange(3), jnp.arange(3.)], axis=-1)',
     [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], 'float32', False, (3, 2)),
    ('jnp.stack(jnp.arange(6.).reshape(2, 3))',
     [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'float32', False, (2, 3)),
    ('jnp.stack(jnp.arange(6.).reshape(2, 3), axis=1)',
     [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], 'float32', False, (3, 2)),
    ('jnp.stack([jnp.full((2,), 2.)] * 2)', [[2.0, 2.0], [2.0, 2.0]], 'float32', True, (2, 2)),
    ("jnp.stack([jnp.arange(2)], dtype='float16')", [[0.0, 1.0]], 'float16', False, (1, 2)),
    ('jnp.hstack([1, 2.])', [1.0, 2.0], 'float32', True, (2,)),
    ('jnp.hstack([jnp.zeros((2, 1)), jnp.ones((2, 2), int)])',
     [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]], 'float32', False, (2, 3)),
    ('jnp.hstack(jnp.arange(6).reshape(2, 3))', [0, 1, 2, 3, 4, 5], 'int32', False, (6,)),
    ('jnp.vstack([jnp.arange(3), jnp.arange(3)])', [[0, 1, 2], [0, 1, 2]], 'int32', False, (2, 3)),
    ('jnp.vstack([1, 2])', [[1], [2]], 'int32', True, (2, 1)),
    ('jnp.vstack(jnp.arange(6).reshape(2, 3))', [[0, 1, 2], [3, 4, 5]], 'int32', False, (2, 3)),
    ('jnp.dstack([jnp.arange(3), jnp.arange(3)])',
     [[[0, 0], [1, 1], [2, 2]]], 'int32', False, (1, 3, 2)),
    ('jnp.dstack([1., 2])', [[[1.0, 2.0]]], 'float32', True, (1, 1, 2)),
    ('jnp.column_stack([jnp.arange(3), jnp.arange(3)])',
     [[0, 0], [1, 1], [2, 2]], 'int32', False, (3, 2)),
    ('jnp.column_stack([jnp.arange(2), jnp.ones((2, 2))])',
     [[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], 'float32', False, (2, 3)),
    ('jnp.column_stack(jnp.arange(6).reshape(2, 3))',
     [[0, 3], [1, 4], [2, 5]], 'int32', False, (3, 2)),
    ('jnp.broadcast_to(1., 3)', [1.0, 1.0, 1.0], 'float32', True, (3,)),
    ('jnp.broadcast_to(jnp.arange(3), (2, 3))', [[0, 1, 2], [0, 1, 2]], 'int32', False, (2, 3)),
    ('jnp.broadcast_to(jnp.arange(3.)[:, None], (2, 3, 4))',
     [[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]], [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]]], 'float32', False, (2, 3, 4)),
    ('jnp.broadcast_to(jnp.int8(3), ())', 3, 'int8', False, ()),
    ('jnp.tile(jnp.arange(3), (2, 2))',
     [[0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2]], 'int32', False, (2, 6)),
    ('jnp.tile(jnp.arange(6.).reshape(2, 3), 2)',
     [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]], 'float32', False, (2, 6)),
    ('jnp.tile(2., 2)', [2.0, 2.0], 'float32', True, (2,)),
    ('jnp.tile(jnp.arange(4).reshape(2, 2), (2, 1, 2))',
     [[[0, 1, 0, 1], [2, 3, 2, 3]], [[0, 1, 0, 1], [2, 3, 2, 3]]], 'int32', False, (2, 2, 4)),
    ('jnp.tile(jnp.arange(3), 0)', [], 'int32', False, (0,)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), 2)',
     [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0], 'float32', False, (12,)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), jnp.array([1, 2]), axis=0)',
     [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [3.0, 4.0, 5.0]], 'float32', False, (3, 3)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), np.array([1, 0, 2]), axis=1)',
     [[0.0, 2.0, 2.0], [3.0, 5.0, 5.0]], 'float32', False, (2, 3)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), jnp.array([1, 2]), axis=0, total_repeat_length=4)',
     [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [3.0, 4.0, 5.0], [3.0, 4.0, 5.0]], 'float32', False, (4, 3)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), jnp.array([1, 2]), axis=0, total_repeat_length=2)',
     [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'float32', False, (2, 3)),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), 2, axis=0, total_repeat_length=3)',
     [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'float32', False, (3, 3)),
    ('jnp.repeat(jnp.arange(3), jnp.array([1, 2, 0]), total_repeat_length=5)',
     [0, 1, 1, 2, 2], 'int32', False, (5,)),
    ('jnp.repeat(2., 3)', [2.0, 2.0, 2.0], 'float32', True, (3,)),
    ('jnp.repeat(jnp.full((2,), 2.), 2)', [2.0, 2.0, 2.0, 2.0], 'float32', True, (4,)),
    ('jnp.repeat(jnp.arange(3), 0)', [], 'int32', False, (0,)),
    ('jnp.repeat(jnp.arange(3), -1 + 1, axis=0)', [], 'int32', False, (0,)),
    ('jnp.repeat(jnp.arange(4).reshape(2, 2), 3, axis=-1)',
     [[0, 0, 0, 1, 1, 1], [2, 2, 2, 3, 3, 3]], 'int32', False, (2, 6)),
    ('jnp.flip(jnp.arange(6.).reshape(2, 3))',
     [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]], 'float32', False, (2, 3)),
    ('jnp.flip(jnp.arange(6.).reshape(2, 3), 1)',
     [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]], 'float32', False, (2, 3)),
    ('jnp.flip(jnp.arange(24).reshape(2, 3, 4), (0, 2))',
     [[[15, 14, 13, 12], [19, 18, 17, 16], [23, 22, 21, 20]], [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]], 'int32', False, (2, 3, 4)),
    ('jnp.fliplr(jnp.arange(6).reshape(2, 3))', [[2, 1, 0], [5, 4, 3]], 'int32', False, (2, 3)),
    ('jnp.flipud(jnp.arange(6).reshape(2, 3))', [[3, 4, 5], [0, 1, 2]], 'int32', False, (2, 3)),
    ('jnp.flip(jnp.full((2,), 2.))', [2.0, 2.0], 'float32', True, (2,)),
    ('jnp.roll(jnp.arange(6.).reshape(2, 3), 1)',
     [[5.0, 0.0, 1.0], [2.0, 3.0, 4.0]], 'float32', False, (2, 3)),
    ('jnp.roll(jnp.arange(6.).reshape(2, 3), (1, 2), (0, 1))',
     [[4.0, 5.0, 3.0], [1.0, 2.0, 0.0]], 'float32', False, (2, 3)),
    ('jnp.roll(jnp.arange(6.).reshape(2, 3), jnp.array(1), 1)',
     [[2.0, 0.0, 1.0], [5.0, 3.0, 4.0]], 'float32', False, (2, 3)),
    ('jnp.roll(jnp.arange(5), -7)', [2, 3, 4, 0, 1], 'int32', False, (5,)),
    ('jnp.roll(jnp.arange(6).reshape(2, 3), 4, axis=-1)',
     [[2, 0, 1], [5, 3, 4]], 'int32', False, (2, 3)),
    ('jnp.roll(jnp.arange(6).reshape(2, 3), (1, 1), axis=1)',
     [[1, 2, 0], [4, 5, 3]], 'int32', False, (2, 3)),
    ('jnp.roll(jnp.zeros((0, 3)), 1, axis=0)', [], 'float32', False, (0, 3)),
    ('jnp.pad(jnp.arange(3), 1)', [0, 0, 1, 2, 0], 'int32', False, (5,)),
    ('jnp.pad(jnp.arange(3), (1, 2), constant_values=2.5)',
     [2, 0, 1, 2, 2, 2], 'int32', False, (6,)),
    ('jnp.pad(jnp.full((2, 2), 2.), 1)',
     [[0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 2.0, 0.0], [0.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]], 'float32', True, (4, 4)),
    ('jnp.pad(jnp.full((2, 2), 2.), 1, constant_values=jnp.float16(3))',
     [[3.0, 3.0, 3.0, 3.0], [3.0, 2.0, 2.0, 3.0], [3.0, 2.0, 2.0, 3.0], [3.0, 3.0, 3.0, 3.0]], 'float32', True, (4, 4)),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 1), (0, 1)), constant_values=((1, 2), (3, 4)))',
     [[1.0, 1.0, 1.0, 4.0], [0.0, 1.0, 2.0, 4.0], [3.0, 4.0, 5.0, 4.0], [2.0, 2.0, 2.0, 4.0]], 'float32', False, (4, 4)),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), ((0, 1), (2, 0)), constant_values=(7, 8))',
     [[7.0, 7.0, 0.0, 1.0, 2.0], [7.0, 7.0, 3.0, 4.0, 5.0], [7.0, 7.0, 8.0, 8.0, 8.0]], 'float32', False, (3, 5)),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 0),))',
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0], [0.0, 3.0, 4.0, 5.0]], 'float32', False, (3, 4)),
    ("jnp.pad(jnp.arange(3), 5, mode='reflect')",
     [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1], 'int32', False, (13,)),
    ("jnp.pad(jnp.arange(3), 5, mode='symmetric')",
     [1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1], 'int32', False, (13,)),
    ("jnp.pad(jnp.arange(3), 5, mode='wrap')",
     [1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1], 'int32', False, (13,)),
    ("jnp.pad(jnp.arange(3), (1, 5), mode='edge')",
     [0, 0, 1, 2, 2, 2, 2, 2, 2], 'int32', False, (9,)),
    ("jnp.pad(jnp.arange(1), 2, mode='reflect')", [0, 0, 0, 0, 0], 'int32', False, (5,)),
    ("jnp.pad(jnp.arange(3), 2, mode='reflect', reflect_type='odd')",
     [-2, -1, 0, 1, 2, 3, 4], 'int32', False, (7,)),
    ("jnp.pad(jnp.arange(4), (3, 2), mode='symmetric', reflect_type='odd')",
     [-2, -1, 0, 0, 1, 2, 3, 3, 4], 'int32', False, (9,)),
    ("jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 2), (3, 1)), mode='reflect')",
     [[4.0, 5.0, 4.0, 3.0, 4.0, 5.0, 4.0], [1.0, 2.0, 1.0, 0.0, 1.0, 2.0, 1.0], [4.0, 5.0, 4.0, 3.0, 4.0, 5.0, 4.0], [1.0, 2.0, 1.0, 0.0, 1.0, 2.0, 1.0], [4.0, 5.0, 4.0, 3.0, 4.0, 5.0, 4.0]], 'float32', False, (5, 7)),
    ("jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 2), (3, 1)), mode='wrap')",
     [[3.0, 4.0, 5.0, 3.0, 4.0, 5.0, 3.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0, 3.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0, 3.0]], 'float32', False, (5, 7)),
    ("jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 2), (3, 1)), mode='edge')",
     [[0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0, 4.0, 5.0, 5.0], [3.0, 3.0, 3.0, 3.0, 4.0, 5.0, 5.0], [3.0, 3.0, 3.0, 3.0, 4.0, 5.0, 5.0]], 'float32', False, (5, 7)),
    ("jnp.pad(jnp.arange(3), 2, mode='mean')", [1, 1, 0, 1, 2, 1, 1], 'int32', False, (7,)),
    ("jnp.pad(jnp.arange(5.), 2, mode='maximum', stat_length=2)",
     [1.0, 1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 4.0], 'float32', False, (9,)),
    ("jnp.pad(jnp.arange(5), (1, 2), mode='minimum')",
     [0, 0, 1, 2, 3, 4, 0, 0], 'int32', False, (8,)),
    ("jnp.pad(jnp.arange(4.), 2, mode='median')",
     [1.5, 1.5, 0.0, 1.0, 2.0, 3.0, 1.5, 1.5], 'float32', False, (8,)),
    ("jnp.pad(jnp.arange(3.), (2, 3), mode='linear_ramp', end_values=(5, -4))",
     [5.0, 2.5, 0.0, 1.0, 2.0, 1.1920928955078125e-07, -1.999999761581421, -4.0], 'float32', False, (8,)),
    ("jnp.pad(jnp.arange(3), 1, mode='empty')", [0, 0, 1, 2, 0], 'int32', False, (5,)),
    ('jnp.pad(2., 3)', 2.0, 'float32', True, ()),
    ('jnp.tril(jnp.arange(6.).reshape(2, 3))',
     [[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], 'float32', False, (2, 3)),
    ('jnp.tril(jnp.arange(9).reshape(3, 3), -1)',
     [[0, 0, 0], [3, 0, 0], [6, 7, 0]], 'int32', False, (3, 3)),
    ('jnp.tril(jnp.full((2, 2), 2.))', [[2.0, 0.0], [2.0, 2.0]], 'float32', True, (2, 2)),
    ('jnp.triu(jnp.ones((2, 3, 3), int), 1)',
     [[[0, 1, 1], [0, 0, 1], [0, 0, 0]], [[0, 1, 1], [0, 0, 1], [0, 0, 0]]], 'int32', False, (2, 3, 3)),
    ('jnp.triu(jnp.arange(6.).reshape(3, 2))',
     [[0.0, 1.0], [0.0, 3.0], [0.0, 0.0]], 'float32', False, (3, 2)),
    ('jnp.diag(jnp.arange(3), 1)',
     [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2], [0, 0, 0, 0]], 'int32', False, (4, 4)),
    ('jnp.diag(jnp.arange(3), -2)',
     [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 2, 0, 0]], 'int32', False, (5, 5)),
    ('jnp.diag(jnp.arange(6.).reshape(2, 3), -1)', [3.0], 'float32', False, (1,)),
    ('jnp.diag(jnp.full((2, 2), 2.))', [2.0, 2.0], 'float32', False, (2,)),
    ('jnp.diag(jnp.full((2,), 2.))', [[2.0, 0.0], [0.0, 2.0]], 'float32', True, (2, 2)),
    ('jnp.diag(jnp.arange(12).reshape(3, 4), 1)', [1, 6, 11], 'int32', False, (3,)),
    ('jnp.diagonal(jnp.arange(24).reshape(2, 3, 4), 1, 0, 2)',
     [[1, 14], [5, 18], [9, 22]], 'int32', False, (3, 2)),
    ('jnp.diagonal(jnp.arange(6.).reshape(2, 3), 5)', [], 'float32', False, (0,)),
    ('jnp.diagonal(jnp.arange(24).reshape(2, 3, 4))',
     [[0, 16], [1, 17], [2, 18], [3, 19]], 'int32', False, (4, 2)),
    ('jnp.diagonal(jnp.arange(24).reshape(2, 3, 4), -1, 2, 1)',
     [[1, 6, 11], [13, 18, 23]], 'int32', False, (2, 3)),
    ('jnp.arange(9).reshape(3, 3).diagonal()', [0, 4, 8], 'int32', False, (3,)),
    ('jnp.atleast_1d(1.)', [1.0], 'float32', True, (1,)),
    ('jnp.atleast_2d(jnp.arange(2))', [[0, 1]], 'int32', False, (1, 2)),
    ('jnp.atleast_3d(jnp.arange(2))', [[[0], [1]]], 'int32', False, (1, 2, 1)),
    ('jnp.atleast_3d(jnp.arange(6.).reshape(2, 3))',
     [[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]]], 'float32', False, (2, 3, 1)),
    ('jnp.atleast_3d(5)', [[[5]]], 'int32', True, (1, 1, 1)),
    ('jnp.atleast_2d(jnp.arange(24).reshape(2, 3, 4))',
     [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]], 'int32', False, (2, 3, 4)),
    ('jnp.sort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]))',
     [[1.0, 2.0, 3.0], [-0.0, 0.0, NAN]], 'float32', False, (2, 3)),
    ('jnp.sort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]), descending=True)',
     [[3.0, 2.0, 1.0], [NAN, 0.0, -0.0]], 'float32', False, (2, 3)),
    ('jnp.sort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]), axis=None)',
     [-0.0, 0.0, 1.0, 2.0, 3.0, NAN], 'float32', False, (6,)),
    ('jnp.sort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]), axis=0)',
     [[3.0, -0.0, 0.0], [NAN, 1.0, 2.0]], 'float32', False, (2, 3)),
    ('jnp.sort(2., axis=None)', [2.0], 'float32', True, (1,)),
    ('jnp.sort(jnp.array([True, False]))', [False, True], 'bool', False, (2,)),
    ('jnp.sort(jnp.array([1+2j, 1+1j, 0+5j]))', [5j, (1+1j), (1+2j)], 'complex64', False, (3,)),
    ('jnp.sort(jnp.full((2,), 2.))', [2.0, 2.0], 'float32', True, (2,)),
    ("jnp.sort(jnp.array([3, 1, 2], 'uint8'))", [1, 2, 3], 'uint8', False, (3,)),
    ('jnp.argsort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]))',
     [[1, 2, 0], [1, 2, 0]], 'int32', False, (2, 3)),
    ('jnp.argsort(jnp.array([1, 3, 3, 2]), descending=True)', [1, 2, 3, 0], 'int32', False, (4,)),
    ('jnp.argsort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]), axis=None)',
     [4, 5, 1, 2, 0, 3], 'int32', False, (6,)),
    ("jnp.argsort(jnp.array([[3., 1, 2], [np.nan, -0., 0.]]), dtype='int16')",
     [[1, 2, 0], [1, 2, 0]], 'int16', False, (2, 3)),
    ('jnp.argsort(jnp.full((2,), 2.))', [0, 1], 'int32', False, (2,)),
    ('jnp.argsort(jnp.array([2, 1, 2, 1]), axis=0)', [1, 3, 0, 2], 'int32', False, (4,)),
    ('jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 0, 5]))',
     [1, 0, 4], 'int32', False, (3,)),
    ("jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 0, 5]), side='right')",
     [3, 0, 4], 'int32', False, (3,)),
    ('jnp.searchsorted(jnp.array([1, 2, 2, 3]), 2)', 1, 'int32', False, ()),
    ('jnp.searchsorted(jnp.array([1., 2, 2, 3]), 2)', 1, 'int32', False, ()),
    ('jnp.searchsorted(jnp.array([3, 1, 2]), 2, sorter=jnp.array([1, 2, 0]))',
     1, 'int32', False, ()),
    ('jnp.searchsorted(jnp.array([0., 1., 2.]), jnp.array([[0.5, 2.5], [-1., 1.]]))',
     [[1, 3], [0, 1]], 'int32', False, (2, 2)),
    ('jnp.lexsort([jnp.array([1, 1, 0]), jnp.array([2, 1, 1])])', [2, 1, 0], 'int32', False, (3,)),
    ('jnp.lexsort((jnp.array([3, 1, 2]),))', [1, 2, 0], 'int32', False, (3,)),
    ('jnp.lexsort(jnp.array([[1, 2, 0], [0, 0, 0]]))', [2, 0, 1], 'int32', False, (3,)),
    ('jnp.lexsort([jnp.array([[1, 0], [0, 1]]), jnp.array([[1, 1], [0, 0]])], axis=0)',
     [[1, 1], [0, 0]], 'int32', False, (2, 2)),
    ('jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2)', [1, 2, 3, 5, 4], 'int32', False, (5,)),
    ('jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 2)', [1, 3, 4, 0, 2], 'int32', False, (5,)),
    ('jnp.partition(jnp.array([[5, 1, 4, 2, 3]]), 2, axis=1)',
     [[1, 2, 3, 5, 4]], 'int32', False, (1, 5)),
    ('jnp.partition(jnp.array([5, 1, 4, 2, 3]), -1)', [1, 2, 3, 4, 5], 'int32', False, (5,)),
    ('jnp.argpartition(jnp.array([[3, 1], [0, 2], [1, 1]]), 0, axis=0)',
     [[1, 0], [0, 1], [2, 2]], 'int32', False, (3, 2)),
    ('jnp.sort_complex(jnp.array([3, 1, 2]))', [(1+0j), (2+0j), (3+0j)], 'complex64', False, (3,)),
]

# expected values from JAX 0.10.2: functions returning lists/tuples (kind, [(values, dtype, weak)])
LIST_CASES = [
    ('jnp.meshgrid(jnp.arange(2), jnp.arange(3.))',
     list, [([[0, 1], [0, 1], [0, 1]], 'int32', False), ([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], 'float32', False)]),
    ("jnp.meshgrid(jnp.arange(2), jnp.arange(3.), indexing='ij')",
     list, [([[0, 0, 0], [1, 1, 1]], 'int32', False), ([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]], 'float32', False)]),
    ('jnp.meshgrid(jnp.arange(2), jnp.arange(3.), sparse=True)',
     list, [([[0, 1]], 'int32', False), ([[0.0], [1.0], [2.0]], 'float32', False)]),
    ('jnp.meshgrid(jnp.arange(2), jnp.arange(3), jnp.arange(2), sparse=True)',
     list, [([[[0], [1]]], 'int32', False), ([[[0]], [[1]], [[2]]], 'int32', False), ([[[0, 1]]], 'int32', False)]),
    ('jnp.meshgrid(jnp.arange(2))', list, [([0, 1], 'int32', False)]),
    ('jnp.meshgrid()', list, []),
    ('jnp.split(jnp.arange(6), 3)',
     list, [([0, 1], 'int32', False), ([2, 3], 'int32', False), ([4, 5], 'int32', False)]),
    ('jnp.split(jnp.arange(5), [1, 3])',
     list, [([0], 'int32', False), ([1, 2], 'int32', False), ([3, 4], 'int32', False)]),
    ('jnp.split(jnp.arange(5), jnp.array([1, 3]))',
     list, [([0], 'int32', False), ([1, 2], 'int32', False), ([3, 4], 'int32', False)]),
    ('jnp.split(jnp.arange(5), (2,))',
     list, [([0, 1], 'int32', False), ([2, 3, 4], 'int32', False)]),
    ('jnp.array_split(jnp.arange(5), 3)',
     list, [([0, 1], 'int32', False), ([2, 3], 'int32', False), ([4], 'int32', False)]),
    ('jnp.split(jnp.arange(6.).reshape(2, 3), 3, axis=1)',
     list, [([[0.0], [3.0]], 'float32', False), ([[1.0], [4.0]], 'float32', False), ([[2.0], [5.0]], 'float32', False)]),
    ('jnp.split(jnp.full((2, 2), 2.), 2)',
     list, [([[2.0, 2.0]], 'float32', True), ([[2.0, 2.0]], 'float32', True)]),
    ('jnp.hsplit(jnp.arange(6).reshape(2, 3), [1])',
     list, [([[0], [3]], 'int32', False), ([[1, 2], [4, 5]], 'int32', False)]),
    ('jnp.vsplit(jnp.arange(6).reshape(2, 3), 2)',
     list, [([[0, 1, 2]], 'int32', False), ([[3, 4, 5]], 'int32', False)]),
    ('jnp.dsplit(jnp.arange(8).reshape(1, 2, 4), 2)',
     list, [([[[0, 1], [4, 5]]], 'int32', False), ([[[2, 3], [6, 7]]], 'int32', False)]),
    ('jnp.hsplit(jnp.arange(4), 2)', list, [([0, 1], 'int32', False), ([2, 3], 'int32', False)]),
    ('jnp.broadcast_arrays(jnp.arange(6.).reshape(2, 3), 1., jnp.arange(3))',
     list, [([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], 'float32', False), ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], 'float32', True), ([[0, 1, 2], [0, 1, 2]], 'int32', False)]),
    ('jnp.broadcast_arrays(1., jnp.ones(2))',
     list, [([1.0, 1.0], 'float32', True), ([1.0, 1.0], 'float32', False)]),
    ('jnp.broadcast_arrays(1., 2)', list, [(1.0, 'float32', True), (2, 'int32', True)]),
    ('jnp.broadcast_arrays()', list, []),
    ('jnp.atleast_1d(1., jnp.arange(2))',
     list, [([1.0], 'float32', True), ([0, 1], 'int32', False)]),
    ('jnp.atleast_2d(1, 2.)', list, [([[1]], 'int32', True), ([[2.0]], 'float32', True)]),
    ('jnp.atleast_2d()', list, []),
    ('jnp.atleast_3d(1, jnp.arange(2))',
     list, [([[[1]]], 'int32', True), ([[[0], [1]]], 'int32', False)]),
    ('jnp.linspace(0, 1, 5, retstep=True)',
     tuple, [([0.0, 0.25, 0.5, 0.75, 1.0], 'float32', False), (0.25, 'float32', False)]),
    ('jnp.linspace(0, 2, 4, endpoint=False, retstep=True)',
     tuple, [([0.0, 0.5, 1.0, 1.5], 'float32', False), (0.5, 'float32', False)]),
]
SHAPE_RESULTS = [
    ('jnp.broadcast_shapes((2, 1), (3,))', (2, 3)),
    ('jnp.broadcast_shapes()', ()),
    ('jnp.broadcast_shapes(3, (2, 1))', (2, 3)),
    ('jnp.broadcast_shapes((1, 4), (5, 1), (4,))', (5, 4)),
    ('jnp.shape([[1, 2]])', (1, 2)),
    ('jnp.shape(jnp.zeros((2, 0)))', (2, 0)),
    ('jnp.shape(3.)', ()),
    ('jnp.ndim(1.)', 0),
    ('jnp.ndim(jnp.zeros((1, 2, 3)))', 3),
    ('jnp.ndim([[1, 2]])', 2),
    ('jnp.size(jnp.zeros((2, 3)), 0)', 2),
    ('jnp.size([[1, 2]])', 2),
    ('jnp.size(jnp.zeros((2, 3)))', 6),
    ('jnp.size(2.)', 1),
]

# expected exceptions from JAX 0.10.2: (expression, class, exact message)
ERROR_CASES = [
    ('jnp.zeros(2.5)',
     TypeError, 'Shapes must be 1D sequences of concrete values of integer type, got (2.5,).'),
    ('jnp.zeros((2, None))',
     TypeError, 'Shapes must be 1D sequences of concrete values of integer type, got (2, None).'),
    ('jnp.zeros(3, 4)',
     TypeError, "Cannot interpret '4' as a data type.\n\nDid you accidentally write `jax.numpy.zeros(3, 4)` when you meant `jax.numpy.zeros((3, 4))`, i.e. with a single tuple argument for the shape?"),
    ('jnp.zeros(i for i in [1])',
     TypeError, 'expected sequence object with len >= 0 or a single integer'),
    ("jnp.zeros(3, dtype='U')",
     TypeError, 'JAX only supports number, bool, and string dtypes, got dtype U in zeros'),
    ("jnp.ones(2, 'foo')", TypeError, "data type 'foo' not understood"),
    ('jnp.zeros(-1)',
     TypeError, 'broadcast_in_dim shape must have every element be nonnegative, got (-1,).'),
    ('jnp.full((2, -1), 1.)',
     TypeError, 'broadcast_in_dim shape must have every element be nonnegative, got (2, -1).'),
    ('jnp.eye(2, -1)', ValueError, 'negative dimensions are not allowed, got 2 and -1'),
    ('jnp.tri(-1)', TypeError, 'iota shape must have every element be nonnegative, got (-1, -1).'),
    ('jnp.ones_like(jnp.ones(2), shape=(-1,))',
     TypeError, 'broadcast_in_dim shape must have every element be nonnegative, got (-1,).'),
    ('jnp.full(3, [1, 2, 3])',
     TypeError, "full requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.full((2, 2), jnp.arange(3))',
     ValueError, 'Incompatible types for broadcasting: input type=int32[3] and requested type=int32[2,2]'),
    ('jnp.full_like([1, 2], 2)',
     TypeError, "full_like requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.zeros_like([1, 2])',
     TypeError, "zeros_like requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.arange(0, 3, 0)', ZeroDivisionError, 'division by zero'),
    ('jnp.arange(3j)',
     ValueError, 'Passing complex start/stop/step to jnp.arange is no longer supported starting in JAX v0.10.0.'),
    ('jnp.arange(jnp.arange(2))',
     ValueError, 'jax.numpy.arange: arguments must be scalars; got stop=[0 1]'),
    ('jnp.arange([1, 2])',
     TypeError, "arange requires ndarray, scalar, or None arguments, got <class 'list'> at position 0."),
    ('jnp.linspace(0, 1, -1)', ValueError, 'Number of samples, -1, must be non-negative.'),
    ('jnp.linspace(0, 1, 2.5)', TypeError, "'float' object cannot be interpreted as an integer"),
    ('jnp.eye(-1)', ValueError, 'negative dimensions are not allowed, got -1 and None'),
    ('jnp.eye(2, k=1.5)', ValueError, 'k must be a scalar integer; got 1.5'),
    ('jnp.eye(2.5)',
     TypeError, "Shapes must be 1D sequences of concrete values of integer type, got (2.5,). argument of 'N' jnp.eye()."),
    ('jnp.eye(2, 3.5)',
     TypeError, "Shapes must be 1D sequences of concrete values of integer type, got (3.5,). argument 'M' of jnp.eye()."),
    ("jnp.meshgrid(jnp.arange(2), indexing='xx')",
     ValueError, "Valid values for indexing are 'xy' and 'ij', got xx"),
    ('jnp.meshgrid([1, 2])',
     TypeError, "meshgrid requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.meshgrid(jnp.ones((2, 2)))',
     ValueError, 'Arguments to jax.numpy.meshgrid must be 1D, got shapes [(2, 2)]'),
    ('jnp.meshgrid(1., 2.)',
     ValueError, 'Arguments to jax.numpy.meshgrid must be 1D, got shapes [(), ()]'),
    ('jnp.array(None)', ValueError, 'None is not a valid value for jnp.array'),
    ('jnp.array([1, None])', ValueError, 'None is not a valid value for jnp.array'),
    ("jnp.array('a')",
     TypeError, "Value 'a' with dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX."),
    ('jnp.array([[1], [1, 2]])',
     ValueError, 'setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part.'),
    ('jnp.array(2**40)', OverflowError, 'Python int 1099511627776 too large to convert to int32'),
    ('jnp.array([2**40])', OverflowError, 'Python integer 1099511627776 out of bounds for int32'),
    ("jnp.array(300, dtype='int8')", OverflowError, 'Python integer 300 out of bounds for int8'),
    ("jnp.array([1], order='F')", NotImplementedError, "Only implemented for order='K'"),
    ('jnp.astype(jnp.arange(3), object)',
     TypeError, "JAX only supports number, bool, and string dtypes, got dtype <class 'object'> in astype"),
    ('jnp.copy([1, 2])',
     TypeError, "copy requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), (4, 2))',
     TypeError, 'cannot reshape array of shape (2, 3) (size 6) into shape (4, 2) (size 8)'),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), (4, -1))',
     TypeError, 'cannot reshape array of shape (2, 3) (size 6) into shape (4, -1) because the product of specified axis sizes (4) does not evenly divide 6'),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), (-1, -1))',
     TypeError, 'can only specify one unknown axis size with a `-1` value, got (-1, -1)'),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), (-2, 3))',
     TypeError, 'cannot reshape array of shape (2, 3) (size 6) into shape (-2, 3) (size -6)'),
    ("jnp.reshape(jnp.arange(6.).reshape(2, 3), (3, 2), order='A')",
     NotImplementedError, 'np.reshape order=A is not implemented.'),
    ("jnp.reshape(jnp.arange(6.).reshape(2, 3), (3, 2), order='X')",
     ValueError, "Unexpected value for 'order' argument: X."),
    ('jnp.reshape(jnp.arange(6.).reshape(2, 3), (3., 2))',
     TypeError, 'Shapes must be 1D sequences of concrete values of integer type, got (3.0, 2).'),
    ('jnp.reshape([1, 2], (1, 2))',
     TypeError, "reshape requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ("jnp.ravel(jnp.arange(6.).reshape(2, 3), order='K')",
     NotImplementedError, "Ravel not implemented for order='K'."),
    ('jnp.transpose(jnp.arange(6.).reshape(2, 3), (0,))',
     TypeError, "transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for operand shape (2, 3)."),
    ('jnp.transpose(jnp.arange(6.).reshape(2, 3), (0, 0))',
     TypeError, "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) for operand shape (2, 3)."),
    ('jnp.transpose(jnp.arange(6.).reshape(2, 3), (2, 0))',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.permute_dims(jnp.arange(6.).reshape(2, 3), (0, 0))',
     TypeError, "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) for operand shape (2, 3)."),
    ('jnp.matrix_transpose(jnp.arange(3))',
     ValueError, 'x must be at least two-dimensional for matrix_transpose; got ndim=1'),
    ('jnp.swapaxes(jnp.arange(6.).reshape(2, 3), 0, 2)',
     IndexError, 'index 2 is out of bounds for axis 0 with size 2'),
    ('jnp.moveaxis(jnp.zeros((2, 3, 4)), (0, 1), (2,))',
     ValueError, 'Inconsistent number of elements: 2 vs 1'),
    ('jnp.moveaxis(jnp.zeros((2, 3, 4)), 3, 0)',
     ValueError, 'axis 3 is out of bounds for array of dimension 3'),
    ('jnp.rollaxis(jnp.zeros((2, 3)), 0, 5)', ValueError, 'start=5 must satisfy -2<=start<=2'),
    ('jnp.expand_dims(jnp.arange(6.).reshape(2, 3), 3)',
     ValueError, 'axis 3 is out of bounds for array of dimension 3'),
    ('jnp.expand_dims(jnp.arange(6.).reshape(2, 3), 1.5)',
     TypeError, "'float' object is not iterable"),
    ('jnp.squeeze(jnp.arange(6.).reshape(2, 3), 0)',
     ValueError, 'cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and dimensions=(0,)'),
    ('jnp.squeeze(jnp.arange(6.).reshape(2, 3), 2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.squeeze(jnp.zeros((1, 2, 1)), (0, 0))', ValueError, 'dimensions are not unique: (0, 0)'),
    ('jnp.squeeze(jnp.arange(6.).reshape(2, 3), 1.5)', TypeError, "'float' object is not iterable"),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3), jnp.arange(3.)])',
     TypeError, 'Cannot concatenate arrays with different numbers of dimensions: got (2, 3), (3,).'),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3), jnp.zeros((2, 2))])',
     TypeError, 'Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension 0 for shapes (2, 3), (2, 2).'),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3), jnp.zeros((3, 2))], axis=1)',
     TypeError, 'Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension 1 for shapes (2, 3), (3, 2).'),
    ('jnp.concatenate([])', ValueError, 'Need at least one array to concatenate.'),
    ('jnp.concatenate([1., 2.])', ValueError, 'Zero-dimensional arrays cannot be concatenated.'),
    ('jnp.concatenate([jnp.float32(1.), jnp.float32(2.)])',
     ValueError, 'Zero-dimensional arrays cannot be concatenated.'),
    ('jnp.concatenate([jnp.arange(6.).reshape(2, 3), jnp.arange(6.).reshape(2, 3)], axis=2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.concatenate([[1, 2], [3]])',
     TypeError, "concatenate requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.concatenate(jnp.arange(3))',
     ValueError, 'Zero-dimensional arrays cannot be concatenated.'),
    ('jnp.concatenate(jnp.float32(1))', ValueError, 'Need at least one array to concatenate.'),
    ('jnp.stack([])', ValueError, 'Need at least one array to stack.'),
    ('jnp.stack([jnp.arange(6.).reshape(2, 3), jnp.arange(6.).reshape(2, 3).T])',
     ValueError, 'All input arrays must have the same shape. Got (2, 3), (3, 2).'),
    ('jnp.stack([jnp.arange(6.).reshape(2, 3), jnp.arange(6.).reshape(2, 3)], axis=3)',
     ValueError, 'axis 3 is out of bounds for array of dimension 3'),
    ('jnp.stack([[1, 2], [3, 4]])',
     TypeError, "stack requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.stack([jnp.arange(6.).reshape(2, 3)], out=1)',
     NotImplementedError, "The 'out' argument to jnp.stack is not supported."),
    ('jnp.vstack([[1, 2]])',
     TypeError, "vstack requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.split(jnp.arange(5), 2)',
     ValueError, 'array split does not result in an equal division: rest is 1'),
    ('jnp.split(jnp.arange(5), 0)', ZeroDivisionError, 'integer division or modulo by zero'),
    ('jnp.array_split(jnp.arange(5), 0)', ZeroDivisionError, 'integer division or modulo by zero'),
    ('jnp.split([1, 2], 2)',
     TypeError, "split requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.broadcast_to(jnp.arange(6.).reshape(2, 3), (3, 3))',
     ValueError, 'Incompatible types for broadcasting: input type=float32[2,3] and requested type=float32[3,3]'),
    ('jnp.broadcast_to(jnp.arange(6.).reshape(2, 3), (3,))',
     ValueError, 'Cannot broadcast to shape with fewer dimensions: arr_shape=(2, 3) shape=(3,)'),
    ('jnp.broadcast_to(jnp.arange(6.).reshape(2, 3), (2, 3.))',
     TypeError, 'Shapes must be 1D sequences of concrete values of integer type, got (2, 3.0).'),
    ('jnp.broadcast_shapes((2, 1), (3, 4))',
     ValueError, 'Incompatible shapes for broadcasting: shapes=[(2, 1), (3, 4)]'),
    ('jnp.broadcast_shapes((2,), (3,))',
     ValueError, 'Incompatible shapes for broadcasting: shapes=[(2,), (3,)]'),
    ('jnp.broadcast_arrays(jnp.arange(6.).reshape(2, 3), jnp.arange(2))',
     ValueError, 'Incompatible shapes for broadcasting: shapes=[(2, 3), (2,)]'),
    ('jnp.broadcast_arrays([1], 2)',
     TypeError, "broadcast_arrays requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), [1, 2], axis=1)',
     TypeError, "repeat requires ndarray or scalar arguments, got <class 'list'> at position 1."),
    ('jnp.repeat(jnp.arange(6.).reshape(2, 3), jnp.array([1, 2]), axis=1)',
     ValueError, 'operands could not be broadcast together with remapped shapes [original->remapped]: (2,)  and requested shape (3,)'),
    ('jnp.repeat(1, jnp.array([1, 2]))',
     ValueError, 'operands could not be broadcast together with remapped shapes [original->remapped]: (2,)  and requested shape (1,)'),
    ('jnp.flip(jnp.arange(6.).reshape(2, 3), 2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.flip(jnp.arange(6.).reshape(2, 3), (0, 0))',
     TypeError, 'rev dimensions must be unique, got (0, 0).'),
    ('jnp.fliplr(jnp.arange(3))', ValueError, 'axis 1 is out of bounds for array of dimension 1'),
    ('jnp.flipud(2.)', ValueError, 'axis 0 is out of bounds for array of dimension 0'),
    ('jnp.roll(jnp.arange(6.).reshape(2, 3), (1, 2, 3), (0, 1))',
     ValueError, 'shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (2,) and arg 1 with shape (3,).'),
    ('jnp.roll(jnp.arange(6.).reshape(2, 3), 1, 2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.pad(jnp.arange(3), ((1, 2), (3, 4)))',
     ValueError, 'jnp.pad: pad_width with nd=1 has unsupported shape (2, 2). Valid shapes are (1, 2), (1, 2), (2,), (1,), or ().'),
    ('jnp.pad(jnp.arange(3), -1)', ValueError, "index can't contain negative values"),
    ("jnp.pad(jnp.arange(3), 1, mode='foo')",
     NotImplementedError, "Unimplemented padding mode 'foo' for np.pad."),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), 1.5)',
     TypeError, '`pad_width` must be of integral type.'),
    ("jnp.pad(jnp.arange(6.).reshape(2, 3), 1, mode='edge', constant_values=3)",
     ValueError, "unsupported keyword arguments for mode 'edge': {'constant_values'}"),
    ("jnp.pad(jnp.zeros(0), (1, 5), mode='edge')",
     ValueError, "Cannot apply 'edge' padding to empty axis"),
    ("jnp.pad(jnp.zeros((0, 2)), 1, mode='wrap')",
     ValueError, "Cannot apply 'wrap' padding to empty axis"),
    ("jnp.pad(jnp.zeros((2, 0)), 1, mode='reflect')",
     ValueError, "Cannot apply 'reflect' padding to empty axis"),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), [[1], ])',
     ValueError, 'jnp.pad: pad_width with nd=2 has unsupported shape (1, 1). Valid shapes are (2, 2), (1, 2), (2,), (1,), or ().'),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), 1, constant_values=(1, 2, 3))',
     ValueError, 'jnp.pad: constant_values has unsupported shape (3,). If the shape is 1D or 2D, the last dimension must be of size 1 or 2.'),
    ('jnp.pad(jnp.arange(6.).reshape(2, 3), ((1, 2), (3,)))',
     TypeError, '`pad_width` entries must be the same shape: ((1, 2), (3,))'),
    ('jnp.tril(jnp.arange(3))', ValueError, 'Argument to jax.numpy.tril must be at least 2D'),
    ('jnp.triu(5)', ValueError, 'Argument to jax.numpy.triu must be at least 2D'),
    ('jnp.diag(jnp.zeros((2, 2, 2)))', ValueError, 'diag input must be 1d or 2d'),
    ('jnp.diagonal(jnp.arange(3))',
     ValueError, 'diagonal requires an array of at least two dimensions.'),
    ('jnp.diagonal(jnp.arange(6.).reshape(2, 3), 0, 1, 1)',
     TypeError, "transpose permutation isn't a permutation of operand dimensions, got permutation (1, 1, 0) for operand shape (2, 3)."),
    ('jnp.diagonal(jnp.arange(6.).reshape(2, 3), 0, 0, 2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.atleast_1d([1, 2])',
     TypeError, "atleast_1d requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.sort(2.)', ValueError, 'axis -1 is out of bounds for array of dimension 0'),
    ("jnp.sort(jnp.arange(6.).reshape(2, 3), kind='quicksort')",
     TypeError, "'kind' argument to sort is not supported. Use stable=True or stable=False to specify sort stability."),
    ("jnp.sort(jnp.arange(6.).reshape(2, 3), order='a')",
     TypeError, "'order' argument to sort is not supported."),
    ('jnp.sort(jnp.arange(6.).reshape(2, 3), axis=2)',
     ValueError, 'axis 2 is out of bounds for array of dimension 2'),
    ('jnp.sort([3, 1])',
     TypeError, "sort requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ("jnp.argsort(jnp.arange(6.).reshape(2, 3), kind='stable')",
     TypeError, "'kind' argument to argsort is not supported. Use stable=True or stable=False to specify sort stability."),
    ("jnp.argsort(jnp.arange(6.).reshape(2, 3), order='a')",
     TypeError, "'order' argument to argsort is not supported."),
    ('jnp.argsort(2.)', ValueError, 'axis -1 is out of bounds for array of dimension 0'),
    ("jnp.searchsorted(jnp.array([1., 2, 2, 3]), 2, side='x')",
     ValueError, "invalid argument side='x', expected 'left' or 'right'"),
    ('jnp.searchsorted(jnp.ones((2, 2)), 2)', ValueError, 'a should be 1-dimensional'),
    ('jnp.searchsorted([1, 2], 2)',
     TypeError, "searchsorted requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.lexsort([])', TypeError, 'need sequence of keys with len > 0 in lexsort'),
    ('jnp.lexsort([jnp.array([1, 1, 0]), jnp.array([2, 1])])',
     ValueError, 'all keys need to be the same shape'),
    ('jnp.partition(jnp.array([5, 1, 4, 2, 3]), 5)',
     ValueError, 'axis 5 is out of bounds for array of dimension 5'),
    ('jnp.partition(jnp.array([1j, 2]), 0)',
     NotImplementedError, 'jnp.partition for complex dtype is not implemented.'),
]


@pytest.mark.parametrize("expr,values,dtype,weak,shape", CREATION_CASES,
                         ids=[c[0] for c in CREATION_CASES])
def test_creation_matches_jax(expr, values, dtype, weak, shape):
    check(eval(expr), values, dtype, weak, shape)


@pytest.mark.parametrize("expr,values,dtype,weak,shape", SHAPE_CASES,
                         ids=[c[0] for c in SHAPE_CASES])
def test_shapes_and_sorting_match_jax(expr, values, dtype, weak, shape):
    check(eval(expr), values, dtype, weak, shape)


@pytest.mark.parametrize("expr,kind,parts", LIST_CASES, ids=[c[0] for c in LIST_CASES])
def test_functions_returning_several_arrays(expr, kind, parts):
    result = eval(expr)
    assert type(result) is kind
    assert len(result) == len(parts)
    for r, (values, dtype, weak) in zip(result, parts):
        check(r, values, dtype, weak)


@pytest.mark.parametrize("expr,expected", SHAPE_RESULTS, ids=[c[0] for c in SHAPE_RESULTS])
def test_shape_queries(expr, expected):
    assert eval(expr) == expected


@pytest.mark.parametrize("expr,exc,message", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_jax(expr, exc, message):
    with pytest.raises(Exception) as info:
        eval(expr)
    assert type(info.value) is exc
    assert str(info.value) == message


# --- details that the tables do not show -------------------------------------------

def test_asarray_does_not_copy_and_array_does():
    x = jnp.arange(3.)
    assert jnp.asarray(x) is x
    assert jnp.asarray(x, dtype="float32") is x
    y = jnp.array(x)
    assert y is not x
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    z = jnp.copy(x)
    assert z is not x and z.dtype == x.dtype


def test_array_positional_copy_order_ndmin_are_deprecated():
    with pytest.warns(DeprecationWarning, match="positionally is deprecated"):
        x = jnp.array([1, 2], "float32", False, "K", 2)
    check(x, [[1., 2.]], "float32", False)


def test_astype_method_and_copy_argument():
    x = jnp.arange(3)
    check(x.astype("float16"), [0, 1, 2], "float16", False)
    check(jnp.astype(x, "int32", copy=True), [0, 1, 2], "int32", False)
    assert jnp.astype(x, "int32") is x


def test_linspace_retstep_and_integer_rounding():
    # expected values from JAX 0.10.2: integer outputs are floored, not rounded
    check(jnp.linspace(0, 10, 4, dtype=int), [0, 3, 6, 10], "int32", False)
    samples, step = jnp.linspace(-1., 1., 5, retstep=True)
    check(samples, [-1., -0.5, 0., 0.5, 1.], "float32", False)
    check(step, 0.5, "float32", False)


def test_repeat_with_scalar_array_repeats_matches_numpy():
    x = np.arange(6.).reshape(2, 3)
    got = jnp.repeat(jnp.asarray(x), jnp.asarray(2), axis=1)
    np.testing.assert_array_equal(np.asarray(got), np.repeat(x, 2, axis=1))


def test_split_points_past_the_end_are_an_error_unlike_numpy():
    # JAX 0.10.2 turns the points into section sizes (here 2, 7, -4) and lax.split
    # rejects the negative one; NumPy would return an empty last piece.
    with pytest.raises(ValueError, match="Sizes passed to split must be nonnegative"):
        jnp.split(jnp.arange(5), [2, 9])


# --- against NumPy on random data -----------------------------------------------------

_rng = np.random.default_rng(0)
_X = {
    "f32": _rng.standard_normal((3, 4, 5)).astype(np.float32),
    "i32": _rng.integers(-9, 9, (3, 4, 5)).astype(np.int32),
    "bool": _rng.integers(0, 2, (3, 4, 5)).astype(bool),
    "f64": _rng.standard_normal((3, 4, 5)),  # canonicalized to float32
}

NUMPY_UNARY = [
    # (name, function of the module (np or jnp) and the array)
    ("reshape", lambda m, x: m.reshape(x, (4, -1))),
    ("reshape_F", lambda m, x: m.reshape(x, (5, 12), order="F")),
    ("ravel", lambda m, x: m.ravel(x)),
    ("ravel_F", lambda m, x: m.ravel(x, order="F")),
    ("transpose", lambda m, x: m.transpose(x)),
    ("transpose_axes", lambda m, x: m.transpose(x, (1, 2, 0))),
    ("matrix_transpose", lambda m, x: m.matrix_transpose(x)),
    ("permute_dims", lambda m, x: m.permute_dims(x, (2, 0, 1))),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 2)),
    ("moveaxis", lambda m, x: m.moveaxis(x, (0, 2), (1, 0))),
    ("rollaxis", lambda m, x: m.rollaxis(x, 2, 1)),
    ("expand_dims", lambda m, x: m.expand_dims(x, (0, 4))),
    ("squeeze", lambda m, x: m.squeeze(m.expand_dims(x, (1, 3)), axis=3)),
    ("concatenate", lambda m, x: m.concatenate([x, x[:1]], axis=0)),
    ("concatenate_none", lambda m, x: m.concatenate([x, x], axis=None)),
    ("concatenate_array", lambda m, x: m.concatenate(x, axis=1)),
    ("stack", lambda m, x: m.stack([x, x, x], axis=2)),
    ("stack_array", lambda m, x: m.stack(x, axis=-1)),
    ("hstack", lambda m, x: m.hstack([x, x])),
    ("vstack", lambda m, x: m.vstack([x[0], x[1]])),
    ("dstack", lambda m, x: m.dstack([x[0], x[1]])),
    ("column_stack", lambda m, x: m.column_stack([x[0, 0], x[1, 1]])),
    ("broadcast_to", lambda m, x: m.broadcast_to(x[:, :1], (2, 3, 4, 5))),
    ("tile", lambda m, x: m.tile(x[0], (2, 1, 3))),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=1)),
    ("repeat_flat", lambda m, x: m.repeat(x[0], 3)),
    ("repeat_counts", lambda m, x: m.repeat(x, np.array([0, 2, 1, 3]), axis=1)),
    ("flip", lambda m, x: m.flip(x)),
    ("flip_axes", lambda m, x: m.flip(x, (0, 2))),
    ("fliplr", lambda m, x: m.fliplr(x)),
    ("flipud", lambda m, x: m.flipud(x)),
    ("roll", lambda m, x: m.roll(x, 7)),
    ("roll_axes", lambda m, x: m.roll(x, (-1, 3), (0, 2))),
    ("pad_constant", lambda m, x: m.pad(x, ((1, 0), (0, 2), (3, 1)))),
    ("pad_edge", lambda m, x: m.pad(x, ((2, 1), (0, 3), (1, 1)), mode="edge")),
    ("pad_wrap", lambda m, x: m.pad(x, ((4, 1), (0, 3), (7, 1)), mode="wrap")),
    ("pad_reflect", lambda m, x: m.pad(x, ((4, 1), (0, 3), (7, 1)), mode="reflect")),
    ("pad_symmetric", lambda m, x: m.pad(x, ((4, 1), (0, 3), (7, 1)), mode="symmetric")),
    ("tril", lambda m, x: m.tril(x)),
    ("tril_k", lambda m, x: m.tril(x, 2)),
    ("triu_k", lambda m, x: m.triu(x, -1)),
    ("diag", lambda m, x: m.diag(x[0], 1)),
    ("diag_1d", lambda m, x: m.diag(x[0, 0], -2)),
    ("diagonal", lambda m, x: m.diagonal(x, 1, 2, 1)),
    ("diagonal_neg", lambda m, x: m.diagonal(x, -1, 0, 2)),
    ("atleast_3d", lambda m, x: m.atleast_3d(x[0, 0])),
    ("sort", lambda m, x: m.sort(x)),
    ("sort_axis0", lambda m, x: m.sort(x, axis=0)),
    ("sort_none", lambda m, x: m.sort(x, axis=None)),
    ("argsort", lambda m, x: m.argsort(x, kind="stable") if m is np else m.argsort(x)),
    ("argsort_axis1", lambda m, x: m.argsort(x, axis=1, kind="stable") if m is np
     else m.argsort(x, axis=1)),
    ("lexsort", lambda m, x: m.lexsort(x[:, 0])),
]

# NumPy's int64 results (argsort, lexsort) are int32 in minijax, as in JAX.


@pytest.mark.parametrize("kind", list(_X))
@pytest.mark.parametrize("name,fn", NUMPY_UNARY, ids=[n for n, _ in NUMPY_UNARY])
def test_against_numpy(name, fn, kind):
    x = _X[kind]
    if kind == "bool" and name.startswith("pad_") and name != "pad_constant":
        x = x.astype(np.int32)
    want = np.asarray(fn(np, x))
    got = fn(jnp, jnp.asarray(x))
    assert got.dtype == _canonical(want.dtype)
    assert not got.weak_type
    np.testing.assert_allclose(np.asarray(got), want.astype(_canonical(want.dtype)),
                               rtol=1e-6)


def test_creation_against_numpy():
    cases = [
        (lambda m: m.zeros((2, 3), m.int8), None),
        (lambda m: m.ones(4), None),
        (lambda m: m.full((2, 2), np.float32(1.5)), None),
        (lambda m: m.eye(4, 3, -1), None),
        (lambda m: m.identity(3, dtype=int), None),
        (lambda m: m.tri(4, 2, 1), None),
        (lambda m: m.arange(2, 20, 3), None),
        (lambda m: m.arange(-1., 1., 0.125), None),
        (lambda m: m.linspace(2., 3., 7), 1e-6),
        (lambda m: m.linspace(np.zeros(2), np.arange(2.) + 1, 5, axis=1), 1e-6),
        (lambda m: m.logspace(0., 2., 5), 1e-5),
        (lambda m: m.geomspace(2., 32., 5), 1e-5),
    ]
    for fn, rtol in cases:
        want = fn(np)
        got = fn(jnp)
        assert got.dtype == _canonical(want.dtype)
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol or 0)


def test_meshgrid_and_split_against_numpy():
    a, b, c = np.arange(3), np.arange(4.), np.arange(2)
    for kw in [{}, {"indexing": "ij"}, {"sparse": True}]:
        for got, want in zip(jnp.meshgrid(a, b, c, **kw), np.meshgrid(a, b, c, **kw)):
            np.testing.assert_array_equal(np.asarray(got), want)
    x = _X["f32"]
    for got, want in zip(jnp.array_split(x, 3, axis=2), np.array_split(x, 3, axis=2)):
        np.testing.assert_array_equal(np.asarray(got), want)


def test_searchsorted_against_numpy():
    a = np.sort(_rng.integers(0, 10, 20)).astype(np.float32)
    v = _rng.integers(-2, 12, (3, 4)).astype(np.float32)
    for side in ("left", "right"):
        got = jnp.searchsorted(a, v, side=side)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), np.searchsorted(a, v, side=side))


# --- hypothesis: random shapes --------------------------------------------------------

_dims = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _data(shape):
    return np.arange(math.prod(shape), dtype=np.float32).reshape(shape)


@given(_dims, st.data())
def test_reshape_property(shape, data):
    x = _data(shape)
    new_shape = data.draw(st.permutations(list(shape))).copy() if shape else []
    if new_shape and math.prod(shape):
        new_shape[data.draw(st.integers(0, len(new_shape) - 1))] = -1
    order = data.draw(st.sampled_from(["C", "F"]))
    got = jnp.reshape(jnp.asarray(x), tuple(new_shape), order=order)
    np.testing.assert_array_equal(np.asarray(got),
                                  np.reshape(x, tuple(new_shape), order=order))


@given(_dims, st.data())
def test_transpose_property(shape, data):
    x = _data(shape)
    axes = data.draw(st.permutations(range(len(shape))))
    got = jnp.transpose(jnp.asarray(x), axes)
    np.testing.assert_array_equal(np.asarray(got), np.transpose(x, axes))
    assert got.shape == tuple(shape[a] for a in axes)


_dtype = st.sampled_from([np.int8, np.uint8, np.int32, np.float16, np.float32, np.bool_])


@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.integers(1, 4),
       _dtype, st.data())
def test_concatenate_property(shape, n, dtype, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        parts.append(_data(s).astype(dtype))
    got = jnp.concatenate([jnp.asarray(p) for p in parts], axis=axis)
    want = np.concatenate(parts, axis=axis)
    assert got.dtype == np.dtype(dtype)  # mixed dtypes: see the tables above
    np.testing.assert_array_equal(np.asarray(got), want)


@given(_dims, st.integers(1, 3), st.data())
def test_stack_property(shape, n, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    parts = [_data(shape) + i for i in range(n)]
    got = jnp.stack([jnp.asarray(p) for p in parts], axis=axis)
    np.testing.assert_array_equal(np.asarray(got), np.stack(parts, axis=axis))


@given(_dims, st.data())
def test_broadcast_to_property(shape, data):
    # make a broadcastable source: drop leading dims, set some dims to 1
    k = data.draw(st.integers(0, len(shape)))
    src = [1 if data.draw(st.booleans()) else d for d in shape[k:]]
    x = _data(src)
    got = jnp.broadcast_to(jnp.asarray(x), shape)
    np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(x, shape))
    assert got.shape == tuple(shape)


@given(st.lists(_dims, min_size=1, max_size=3))
def test_broadcast_shapes_property(shapes):
    try:
        want = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
            jnp.broadcast_shapes(*shapes)
    else:
        assert jnp.broadcast_shapes(*shapes) == want


@pytest.mark.parametrize("mode", ["symmetric", "reflect"])
@pytest.mark.parametrize("reflect_type", ["even", "odd"])
@pytest.mark.parametrize("shape, pad_width", [
    ((2,), (1, 5)), ((2,), (5, 1)), ((3,), (4, 4)), ((2, 3), ((1, 5), (2, 7))),
])
def test_pad_mirror_modes_longer_than_the_axis_match_numpy(mode, reflect_type, shape, pad_width):
    # padding wider than the axis mirrors repeatedly, in chunks of the unpadded size
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    expected = np.pad(a, pad_width, mode=mode, reflect_type=reflect_type)
    actual = jnp.pad(jnp.asarray(a), pad_width, mode=mode, reflect_type=reflect_type)
    np.testing.assert_array_equal(np.asarray(actual), expected)
