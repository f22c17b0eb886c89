"""``minijax.scipy.interpolate.RegularGridInterpolator`` against SciPy's."""
import numpy as np
import pytest
import scipy.interpolate

import minijax
import minijax.numpy as jnp
from minijax.scipy.interpolate import RegularGridInterpolator

rng = np.random.default_rng(9)
GRID = (np.array([0.0, 1.0, 2.5, 4.0]), np.array([-1.0, 0.0, 0.5, 2.0, 3.0]))
VALUES = rng.normal(size=(4, 5)).astype(np.float32)
QUERY = np.stack([rng.uniform(-0.5, 4.5, 12), rng.uniform(-1.5, 3.5, 12)], axis=-1)


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_matches_scipy_inside_and_fills_outside(method):
    ours = RegularGridInterpolator(GRID, VALUES, method=method)
    theirs = scipy.interpolate.RegularGridInterpolator(GRID, VALUES, method=method,
                                                       bounds_error=False)
    np.testing.assert_allclose(ours(QUERY), theirs(QUERY), rtol=1e-5, atol=1e-6)
    filled = RegularGridInterpolator(GRID, VALUES, method=method, fill_value=-7.0)
    got = np.asarray(filled(QUERY))
    outside = np.isnan(theirs(QUERY))
    assert outside.any() and (got[outside] == -7.0).all()


def test_jax_docstring_example_and_trailing_value_axes():
    interp = RegularGridInterpolator((jnp.array([1, 2, 3]), jnp.array([4, 5, 6])),
                                     jnp.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]]))
    np.testing.assert_allclose(interp(jnp.array([[1.5, 4.5], [2.2, 5.8]])), [30.0, 64.0],
                               rtol=1e-6)  # from JAX 0.10.2
    vec_values = rng.normal(size=(4, 5, 3)).astype(np.float32)
    ours = RegularGridInterpolator(GRID, vec_values, fill_value=None)
    theirs = scipy.interpolate.RegularGridInterpolator(GRID, vec_values, bounds_error=False,
                                                       fill_value=None)
    inside = QUERY[(QUERY[:, 0] >= 0) & (QUERY[:, 0] <= 4) & (QUERY[:, 1] >= -1)
                   & (QUERY[:, 1] <= 3)]
    np.testing.assert_allclose(ours(inside), theirs(inside), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours((inside[:, 0], inside[:, 1])), theirs(inside), rtol=1e-5,
                               atol=1e-6)


def test_is_a_pytree_and_errors():
    interp = RegularGridInterpolator(GRID, VALUES)
    leaves = minijax.tree_util.tree_leaves(interp)
    assert len(leaves) == 4  # two grid axes, the values, the fill value
    out = minijax.jit(lambda f, q: f(q))(interp, QUERY[:3].astype(np.float32))
    np.testing.assert_allclose(out, interp(QUERY[:3]), rtol=1e-6)
    with pytest.raises(ValueError, match="not defined"):
        RegularGridInterpolator(GRID, VALUES, method="cubic")
    with pytest.raises(NotImplementedError, match="bounds_error"):
        RegularGridInterpolator(GRID, VALUES, bounds_error=True)
