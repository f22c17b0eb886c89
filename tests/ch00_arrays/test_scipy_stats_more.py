"""The further distributions of ``minijax.scipy.stats`` against ``scipy.stats``."""
import numpy as np
import pytest
import scipy.stats as ss

import minijax
from minijax.scipy import stats

K = np.arange(-1, 12).astype(np.float32)
X = np.linspace(-3, 6, 19).astype(np.float32)


def close(got, want, rtol=2e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=rtol,
                               atol=atol)


def test_discrete_distributions_match_scipy():
    close(stats.binom.logpmf(K, 10, 0.3), ss.binom.logpmf(K, 10, 0.3), rtol=1e-4)
    close(stats.binom.pmf(K, 10, 0.3, loc=1), ss.binom.pmf(K, 10, 0.3, loc=1), rtol=1e-4)
    close(stats.binom.pmf(0, 0, 0.5), 1.0)
    close(stats.nbinom.logpmf(K, 3.5, 0.4), ss.nbinom.logpmf(K, 3.5, 0.4), rtol=1e-4)
    close(stats.nbinom.pmf(K, 2, 0.6, loc=2), ss.nbinom.pmf(K, 2, 0.6, loc=2), rtol=1e-4)
    close(stats.betabinom.logpmf(K, 10, 2.0, 3.5), ss.betabinom.logpmf(K, 10, 2.0, 3.5),
          rtol=1e-4)
    close(stats.betabinom.pmf(K, 10, 0.5, 0.5, loc=1), ss.betabinom.pmf(K, 10, 0.5, 0.5, loc=1),
          rtol=1e-4)
    assert np.isnan(float(stats.betabinom.logpmf(1, 5, -1.0, 1.0)))


def test_multinomial_matches_scipy_and_wants_integers():
    x, p = np.array([[2, 1, 3], [0, 6, 0], [1, 1, 1]]), np.array([0.2, 0.5, 0.3])
    for row in x[:2]:  # (JAX compares n with the sum of all of x, so one row at a time)
        close(stats.multinomial.logpmf(row, 6, p), ss.multinomial.logpmf(row, 6, p), rtol=1e-5)
    assert float(stats.multinomial.logpmf(x[2], 6, p)) == -np.inf
    with pytest.raises(ValueError, match="integer type"):
        stats.multinomial.logpmf(x.astype(np.float32), 6, p)


@pytest.mark.parametrize("name", ["gumbel_r", "gumbel_l"])
def test_gumbel_matches_scipy(name):
    ours, theirs = getattr(stats, name), getattr(ss, name)
    for fn in ("logpdf", "pdf", "logcdf", "cdf", "sf", "logsf"):
        close(getattr(ours, fn)(X, 0.5, 1.5), getattr(theirs, fn)(X, 0.5, 1.5), rtol=2e-4,
              atol=1e-5)
    q = np.array([0.01, 0.3, 0.5, 0.99], np.float32)
    close(ours.ppf(q, 0.5, 1.5), theirs.ppf(q, 0.5, 1.5), rtol=1e-4)
    assert np.isnan(np.asarray(ours.ppf(np.array([0.0, 1.5])))).all()
    assert np.isnan(float(ours.logpdf(0.0, 0.0, -1.0)))


def test_pareto_gennorm_vonmises_wrapcauchy_match_scipy():
    x = np.linspace(0.5, 6, 12).astype(np.float32)
    for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        close(getattr(stats.pareto, fn)(x, 2.5, loc=0.2), getattr(ss.pareto, fn)(x, 2.5, loc=0.2),
              rtol=1e-4, atol=1e-6)
    q = np.array([0.0, 0.3, 0.9], np.float32)
    close(stats.pareto.ppf(q, 2.5, 0.2, 1.5), ss.pareto.ppf(q, 2.5, 0.2, 1.5), rtol=1e-5)
    for beta in (1.0, 1.5, 3.0):
        close(stats.gennorm.logpdf(X, beta), ss.gennorm.logpdf(X, beta), rtol=1e-4)
        close(stats.gennorm.cdf(X, beta), ss.gennorm.cdf(X, beta), rtol=1e-4, atol=1e-6)
    angles = np.linspace(-3, 3, 13).astype(np.float32)
    close(stats.vonmises.logpdf(angles, 2.5), ss.vonmises.logpdf(angles, 2.5), rtol=1e-5)
    close(stats.vonmises.pdf(angles, 40.0), ss.vonmises.pdf(angles, 40.0), rtol=1e-4)
    inside = np.linspace(0, 6.28, 9).astype(np.float32)
    close(stats.wrapcauchy.logpdf(inside, 0.4), ss.wrapcauchy.logpdf(inside, 0.4), rtol=1e-5)
    assert float(stats.wrapcauchy.logpdf(-1.0, 0.4)) == -np.inf


@pytest.mark.parametrize("a, b", [(-1.0, 2.0), (0.5, 3.0), (-4.0, -1.5), (5.0, 9.0)])
def test_truncnorm_matches_scipy(a, b):
    x = np.linspace(a - 1, b + 1, 15).astype(np.float32)
    for fn in ("logpdf", "pdf", "cdf", "sf"):
        close(getattr(stats.truncnorm, fn)(x, a, b), getattr(ss.truncnorm, fn)(x, a, b),
              rtol=5e-4, atol=1e-6)
    inside = x[(x > a) & (x < b)]
    for fn in ("logcdf", "logsf"):
        close(getattr(stats.truncnorm, fn)(inside, a, b), getattr(ss.truncnorm, fn)(inside, a, b),
              rtol=5e-4, atol=1e-5)


def test_distributions_have_gradients():
    g = minijax.grad(lambda p: stats.binom.logpmf(3.0, 10.0, p))(0.3)
    close(g, 3 / 0.3 - 7 / 0.7, rtol=1e-5)
    g = minijax.grad(lambda x: stats.gumbel_r.logpdf(x))(0.7)
    close(g, -1 + np.exp(-0.7), rtol=1e-5)
