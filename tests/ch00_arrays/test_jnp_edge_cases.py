"""Edge cases where minijax once differed from JAX 0.10.2, eager and under ``jit``.

Each expected value below came from JAX 0.10.2 on the CPU.
"""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

f32 = np.float32


@pytest.fixture(params=["eager", "jit"])
def run(request, jit_backend):
    return (lambda f: f) if request.param == "eager" else minijax.jit


def test_searchsorted_puts_nan_last_as_sort_does(run):
    a = np.array([0, 1, np.nan], f32)
    v = np.array([np.nan, 0.5, np.inf], f32)
    left = run(lambda a, v: jnp.searchsorted(a, v))(a, v)
    right = run(lambda a, v: jnp.searchsorted(a, v, side="right"))(a, v)
    np.testing.assert_array_equal(np.asarray(left), [2, 1, 2])
    np.testing.assert_array_equal(np.asarray(right), [3, 1, 2])
    ints = run(lambda a, v: jnp.searchsorted(a, v))(np.arange(5), np.array([-1, 2, 9]))
    np.testing.assert_array_equal(np.asarray(ints), [0, 2, 5])


def test_var_with_an_integer_dtype_gives_float32(run):
    a = np.array([[1.5, 2.0], [3.0, -4.0]], f32)
    out = run(lambda a: jnp.var(a, axis=0, dtype=jnp.int32))(a)
    assert out.dtype == np.float32 and out.weak_type
    np.testing.assert_array_equal(np.asarray(out), [1.0, 9.0])


def test_median_over_a_nonempty_axis_of_an_empty_array(run):
    out = run(lambda a: jnp.median(a, axis=-1))(np.zeros((0, 3), f32))
    assert out.shape == (0,) and out.dtype == np.float32


def test_ldexp_with_exponents_beyond_the_float_range(run):
    x = np.array([-0.0, 0.0, 1.0, 3.0, 1e-30, 3e38, np.inf, 1.5], f32)
    n = np.array([2**31 - 1, 200, -200, 10, 200, -300, -5, 3], np.int32)
    out = np.asarray(run(jnp.ldexp)(x, n))
    np.testing.assert_array_equal(out, np.array([-0.0, 0.0, 0.0, 3072.0, 1.606938e30, 0.0, np.inf,
                                                 12.0], f32))
    assert np.signbit(out[0]) and not np.signbit(out[1])
    # away from the edges it is exact: x * 2**n in float64, rounded once
    rng = np.random.default_rng(0)
    x = rng.standard_normal(64).astype(f32)
    n = rng.integers(-100, 100, 64).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(run(jnp.ldexp)(x, n)),
                                  (x.astype(np.float64) * 2.0 ** n).astype(f32))


def test_ogrid_gives_a_list_as_jax():
    grids = jnp.ogrid[0:3, 0:2]  # a list in JAX 0.10.2 (NumPy gives a tuple)
    assert type(grids) is list and [g.shape for g in grids] == [(3, 1), (1, 2)]


def test_unique_pads_its_indices_with_the_first_one(run):
    # expected values from JAX 0.10.2
    a = np.array([3, 1, 2, 1, 3, 0, 2, 1, 3, 3], np.int32)
    values, index = run(lambda a: jnp.unique(a, size=6, return_index=True, fill_value=9))(a)
    np.testing.assert_array_equal(np.asarray(values), [0, 1, 2, 3, 9, 9])
    np.testing.assert_array_equal(np.asarray(index), [5, 1, 2, 0, 5, 5])
