"""``minijax.scipy.ndimage.map_coordinates`` and ``cluster.vq.vq`` against SciPy."""
import numpy as np
import pytest
import scipy.cluster.vq
import scipy.ndimage

import minijax
import minijax.numpy as jnp
from minijax.scipy import cluster, ndimage

rng = np.random.default_rng(11)
IMAGE = rng.normal(size=(5, 7)).astype(np.float32)
COORDS = [rng.uniform(-2, 6, size=10).astype(np.float32),
          rng.uniform(-2, 8, size=10).astype(np.float32)]


#: JAX's modes as SciPy names them: its "constant" and "wrap" treat the array as a
#: grid of cells padded with cval (or wrapped around), SciPy's "grid-" modes
_SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap"}


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_map_coordinates_matches_scipy(order, mode):
    got = ndimage.map_coordinates(IMAGE, COORDS, order=order, mode=mode, cval=-1.5)
    want = scipy.ndimage.map_coordinates(IMAGE, COORDS, order=order,
                                         mode=_SCIPY_MODE.get(mode, mode), cval=-1.5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_map_coordinates_integers_round_and_errors():
    ints = jnp.arange(12).reshape(3, 4)
    out = ndimage.map_coordinates(ints, [jnp.array([0.5, 1.5]), jnp.array([1.5, 2.5])], order=1)
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, [4, 9])  # 3.5 and 8.5 rounded away from zero
    np.testing.assert_allclose(  # from JAX 0.10.2
        ndimage.map_coordinates(jnp.arange(12.0).reshape(3, 4),
                                [jnp.array([0.5, 1.5]), jnp.array([1.5, 2.5])], order=1),
        [3.5, 8.5])
    with pytest.raises(NotImplementedError, match="order<=1"):
        ndimage.map_coordinates(IMAGE, COORDS, order=3)
    with pytest.raises(ValueError, match="length input.ndim"):
        ndimage.map_coordinates(IMAGE, COORDS[:1], order=1)


def test_map_coordinates_has_a_gradient():
    g = minijax.grad(lambda img: ndimage.map_coordinates(img, COORDS, order=1).sum())(IMAGE)
    eps = 1e-2
    bump = np.zeros_like(IMAGE)
    bump[2, 3] = eps
    f = lambda img: float(scipy.ndimage.map_coordinates(img, COORDS, order=1).sum())  # noqa: E731
    np.testing.assert_allclose(g[2, 3], (f(IMAGE + bump) - f(IMAGE - bump)) / (2 * eps),
                               rtol=1e-3, atol=1e-3)


def test_vq_matches_scipy():
    obs = rng.normal(size=(8, 3)).astype(np.float32)
    book = rng.normal(size=(4, 3)).astype(np.float32)
    codes, dist = cluster.vq.vq(obs, book)
    want_codes, want_dist = scipy.cluster.vq.vq(obs, book)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_allclose(dist, want_dist, rtol=1e-6)
    codes, _ = cluster.vq.vq(obs[:, 0], book[:, 0])  # 1-d: scalars
    np.testing.assert_array_equal(codes, scipy.cluster.vq.vq(obs[:, 0], book[:, 0])[0])
    with pytest.raises(ValueError, match="same rank"):
        cluster.vq.vq(obs, book[0])
