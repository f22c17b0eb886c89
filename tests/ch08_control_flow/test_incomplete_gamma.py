"""The incomplete gamma functions (loops: this chapter's) and the CDFs built on
them, against SciPy, with printed results recorded from JAX 0.10.2."""
import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as ss

import minijax
import minijax.numpy as jnp
from minijax.scipy import special, stats

X = np.linspace(-3.5, 4.0, 13).astype(np.float32)
POS = np.linspace(0.05, 6.0, 11).astype(np.float32)
K = np.arange(-1, 7).astype(np.float32)

CASES = [
    ("special.gammainc", lambda x: special.gammainc(2.5, x), lambda x: sp.gammainc(2.5, x), POS * 3),
    ("special.gammaincc", lambda x: special.gammaincc(x, 4.0), lambda x: sp.gammaincc(x, 4.0),
     POS * 3),
    ("gamma.cdf", lambda x: stats.gamma.cdf(x, 2.5, 0, 1.5), lambda x: ss.gamma.cdf(x, 2.5, 0, 1.5),
     X),
    ("gamma.sf", lambda x: stats.gamma.sf(x, 2.5), lambda x: ss.gamma.sf(x, 2.5), X),
    ("chi2.cdf", lambda x: stats.chi2.cdf(x, 3.0), lambda x: ss.chi2.cdf(x, 3.0), X),
    ("chi2.sf", lambda x: stats.chi2.sf(x, 3.0), lambda x: ss.chi2.sf(x, 3.0), X),
    ("poisson.cdf", lambda k: stats.poisson.cdf(k, 2.5), lambda k: ss.poisson.cdf(k, 2.5), K + 0.5),
]


@pytest.mark.parametrize("name, fn, reference, x", CASES, ids=[c[0] for c in CASES])
def test_against_scipy(name, fn, reference, x):
    want = reference(x.astype(np.float64))
    got = fn(jnp.asarray(x))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=1e-6)


def test_a_grid_of_shapes_and_points():
    a = np.array([0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 100.0], np.float32)[:, None]
    x = np.array([0.0, 0.1, 1.0, 3.0, 7.5, 20.0, 60.0, 150.0], np.float32)[None, :]
    np.testing.assert_allclose(np.asarray(special.gammainc(a, x)),
                               sp.gammainc(a.astype(float), x.astype(float)), atol=1e-6)
    np.testing.assert_allclose(np.asarray(special.gammaincc(a, x)),
                               sp.gammaincc(a.astype(float), x.astype(float)), atol=1e-6)
    out = special.gammainc(jnp.array([-1., 1., 1.]), jnp.array([1., -1., np.nan]))
    assert np.isnan(np.asarray(out)).all()


def test_printed_results_as_jax():
    # recorded from JAX 0.10.2
    assert repr(special.gammainc(2.0, 1.5)) == "Array(0.44217455, dtype=float32, weak_type=True)"
    assert repr(special.gammaincc(2.0, 1.5)) == "Array(0.55782545, dtype=float32, weak_type=True)"


def test_under_jit(jit_backend):
    np.testing.assert_allclose(np.asarray(minijax.jit(stats.chi2.cdf)(jnp.abs(X), 3.0)),
                               ss.chi2.cdf(np.abs(X), 3.0), rtol=2e-5, atol=1e-6)
