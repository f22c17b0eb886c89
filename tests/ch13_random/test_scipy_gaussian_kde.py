"""``minijax.scipy.stats.gaussian_kde`` against ``scipy.stats.gaussian_kde``."""
import numpy as np
import pytest
import scipy.stats

import minijax
import minijax.numpy as jnp
from minijax.scipy.stats import gaussian_kde

rng = np.random.default_rng(4)
DATA = rng.normal(size=(2, 30)).astype(np.float32)
WEIGHTS = rng.uniform(0.5, 2.0, size=30).astype(np.float32)
POINTS = rng.normal(size=(2, 7)).astype(np.float32)


def close(got, want, rtol=1e-4):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("bw", [None, "silverman", 0.4])
def test_evaluate_and_logpdf_match_scipy(bw):
    for weights in (None, WEIGHTS):
        ours = gaussian_kde(DATA, bw_method=bw, weights=weights)
        theirs = scipy.stats.gaussian_kde(DATA, bw_method=bw, weights=weights)
        close(ours.covariance, theirs.covariance)
        close(ours(POINTS), theirs(POINTS))
        close(ours.logpdf(POINTS), theirs.logpdf(POINTS))
        close(ours.neff, theirs.neff)


def test_integrals_match_scipy():
    ours, theirs = gaussian_kde(DATA), scipy.stats.gaussian_kde(DATA)
    mean, cov = np.array([0.2, -0.1]), np.array([[1.0, 0.3], [0.3, 0.5]])
    close(ours.integrate_gaussian(mean, cov), theirs.integrate_gaussian(mean, cov))
    other = DATA[:, :12] + 0.5
    close(ours.integrate_kde(gaussian_kde(other)),
          theirs.integrate_kde(scipy.stats.gaussian_kde(other)))
    one_d = DATA[0]
    close(gaussian_kde(one_d).integrate_box_1d(-0.5, 1.0),
          scipy.stats.gaussian_kde(one_d).integrate_box_1d(-0.5, 1.0))


def test_resample_is_a_pytree_and_errors():
    kde = gaussian_kde(DATA)
    draws = kde.resample(minijax.random.key(0), (500,))
    assert draws.shape == (2, 500)
    close(np.cov(np.asarray(draws)), np.cov(DATA) + np.asarray(kde.covariance), rtol=0.35)
    assert len(minijax.tree_util.tree_leaves(kde)) == 5
    out = minijax.jit(lambda k, p: k(p))(kde, POINTS)
    close(out, kde(POINTS))
    with pytest.raises(ValueError, match="multiple elements"):
        gaussian_kde(jnp.array([1.0]))
    with pytest.raises(ValueError, match="bw_method"):
        gaussian_kde(DATA, bw_method="wide")
