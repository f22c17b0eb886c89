"""``jax.scipy.stats.mode``, ``sem`` and ``poisson.entropy`` against SciPy and JAX 0.10.2."""
import numpy as np
import pytest
import scipy.stats

import minijax.numpy as jnp
from minijax.scipy import stats

X1 = np.array([[1, 2, 1, 3, 2, 1], [3, 1, 3, 2, 1, 3], [1, 2, 2, 3, 1, 2]])


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mode_matches_scipy(axis, keepdims):
    got = stats.mode(X1, axis=axis, keepdims=keepdims)
    want = scipy.stats.mode(X1, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(got.mode, want.mode)
    np.testing.assert_array_equal(got.count, want.count)
    assert got.mode.dtype == jnp.int32 and got.count.dtype == jnp.int32  # as JAX 0.10.2


def test_mode_ties_pick_the_smallest_and_errors():
    m, c = stats.mode(jnp.array([2, 4, 1, 1, 3, 4, 4, 2, 3]))
    assert (int(m), int(c)) == (4, 3)  # from JAX 0.10.2
    m, c = stats.mode(jnp.array([3., 1., 3., 1., 2.]))
    assert (float(m), int(c)) == (1.0, 2)
    with pytest.raises(ValueError, match="Illegal nan_policy"):
        stats.mode(X1, nan_policy="ignore")


@pytest.mark.parametrize("axis", [0, 1, None])
def test_sem_matches_scipy(axis):
    np.testing.assert_allclose(stats.sem(X1, axis=axis), scipy.stats.sem(X1, axis=axis),
                               rtol=1e-6)
    x2 = np.array([[1, 2, 3, np.nan, 4, 2], [4, 5, 4, 3, np.nan, 1], [7, np.nan, 8, 7, 9, np.nan]])
    np.testing.assert_allclose(stats.sem(x2, nan_policy="omit"),
                               scipy.stats.sem(x2, nan_policy="omit"), rtol=1e-6)
    assert np.isnan(np.asarray(stats.sem(x2))[1])


def test_poisson_entropy():
    mu = np.array([0.5, 3., 20., 150.], np.float32)
    np.testing.assert_allclose(stats.poisson.entropy(mu), scipy.stats.poisson.entropy(mu),
                               rtol=1e-5)
    # from JAX 0.10.2 (its float32 lgamma/exp/log differ from ours in the last digit)
    np.testing.assert_allclose(stats.poisson.entropy(mu),
                               [0.9276376, 1.9314697, 2.912522, 3.9237006], rtol=3e-6)
    assert float(stats.poisson.entropy(0.0)) == 0.0
    assert stats.poisson.entropy(jnp.ones((2, 1)), jnp.zeros(3)).shape == (2, 3)


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata_matches_scipy(method):
    x = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3]], np.float32)
    np.testing.assert_array_equal(stats.rankdata(x, method), scipy.stats.rankdata(x, method))
    for axis in (0, 1):
        np.testing.assert_array_equal(stats.rankdata(x, method, axis=axis),
                                      scipy.stats.rankdata(x, method, axis=axis))
    with_nan = x.copy()
    with_nan[0, 2] = np.nan
    got = np.asarray(stats.rankdata(with_nan, method, axis=1))
    assert np.isnan(got[0]).all() and not np.isnan(got[1]).any()
    assert stats.rankdata(x, method).dtype == jnp.float32
    with pytest.raises(ValueError, match="unknown method"):
        stats.rankdata(x, "median")
