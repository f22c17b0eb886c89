"""Statistical sanity of the samplers, with fixed keys (so the tests never fail by chance).

Tolerances are several standard errors wide: a wrong transformation of the
bits (a missing scale, a shifted range) fails them by far.
"""
import math

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import random

#: Every test draws with a sampler, a jitted function: on both backends (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("jit_backend")

N = 200_000
KEY = random.key(2024)


def _draw(fn, *args, **kwargs):
    return np.asarray(fn(KEY, *args, **kwargs), np.float64)


def _close(value, expected, n_sigmas, sigma):
    assert abs(value - expected) < n_sigmas * sigma, (value, expected, sigma)


@pytest.mark.parametrize("name,draw,mean,var", [
    ("uniform", lambda: _draw(random.uniform, (N,)), 0.5, 1 / 12),
    ("uniform[-2,5)", lambda: _draw(random.uniform, (N,), minval=-2., maxval=5.), 1.5, 49 / 12),
    ("normal", lambda: _draw(random.normal, (N,)), 0.0, 1.0),
    ("exponential", lambda: _draw(random.exponential, (N,)), 1.0, 1.0),
    ("laplace", lambda: _draw(random.laplace, (N,)), 0.0, 2.0),
    ("logistic", lambda: _draw(random.logistic, (N,)), 0.0, math.pi ** 2 / 3),
    ("gumbel", lambda: _draw(random.gumbel, (N,)), np.euler_gamma, math.pi ** 2 / 6),
    ("bernoulli", lambda: _draw(random.bernoulli, 0.3, (N,)), 0.3, 0.21),
    ("randint", lambda: _draw(random.randint, (N,), 0, 10), 4.5, 8.25),
])
def test_mean_and_variance(name, draw, mean, var):
    x = draw()
    _close(x.mean(), mean, 5, math.sqrt(var / N))
    assert abs(x.var() / var - 1) < 0.03, (name, x.var(), var)


def test_uniform_range_and_float16():
    x = np.asarray(random.uniform(KEY, (N,), minval=3., maxval=4.))
    assert x.min() >= 3. and x.max() < 4.
    h = np.asarray(random.uniform(KEY, (N,), jnp.float16))
    assert h.dtype == np.float16 and h.min() >= 0 and h.max() < 1
    assert len(np.unique(h)) == 1024  # the 10 random mantissa bits, every value reached


def test_randint_chi_square():
    counts = np.bincount(np.asarray(random.randint(KEY, (N,), 0, 10)), minlength=10)
    expected = N / 10
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 27.88  # the 99.9% quantile of chi-square with 9 degrees of freedom


def test_randint_bounds_and_dtypes():
    x = np.asarray(random.randint(KEY, (N,), -3, 4, jnp.int8))
    assert x.dtype == np.int8 and x.min() == -3 and x.max() == 3
    u = np.asarray(random.randint(KEY, (N,), 0, 256, jnp.uint8))
    assert u.min() == 0 and u.max() == 255


def test_normal_tails_and_shape_of_distribution():
    x = _draw(random.normal, (N,))
    for k, p in [(1, 0.6827), (2, 0.9545), (3, 0.9973)]:
        _close((np.abs(x) < k).mean(), p, 5, math.sqrt(p * (1 - p) / N))


def test_truncated_normal_stays_inside():
    x = _draw(random.truncated_normal, -1., 2., (N,))
    assert x.min() > -1 and x.max() < 2
    # mean of a standard normal truncated to (a, b): (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    Phi = lambda t: 0.5 * (1 + math.erf(t / math.sqrt(2)))  # noqa: E731
    _close(x.mean(), (phi(-1) - phi(2)) / (Phi(2) - Phi(-1)), 5, math.sqrt(1 / N))


def test_categorical_frequencies_follow_softmax():
    logits = jnp.log(jnp.array([0.1, 0.2, 0.7]))
    counts = np.bincount(np.asarray(random.categorical(KEY, logits, shape=(N,))), minlength=3)
    np.testing.assert_allclose(counts / N, [0.1, 0.2, 0.7], atol=0.005)


def test_choice_with_p_frequencies():
    draws = np.asarray(random.choice(KEY, 4, (N,), p=jnp.array([0.1, 0.2, 0.3, 0.4])))
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / N, [0.1, 0.2, 0.3, 0.4],
                               atol=0.005)


def test_shuffles_are_permutations():
    p = np.asarray(random.permutation(KEY, 1000))
    assert sorted(p.tolist()) == list(range(1000)) and (p != np.arange(1000)).any()
    c = np.asarray(random.choice(KEY, 50, (50,), replace=False))
    assert sorted(c.tolist()) == list(range(50))
    rows = np.asarray(random.permutation(KEY, jnp.arange(20).reshape(4, 5), axis=1,
                                         independent=True))
    assert all(sorted(r) == list(range(5 * i, 5 * i + 5)) for i, r in enumerate(rows.tolist()))


def test_first_position_of_a_permutation_is_uniform():
    keys = random.split(KEY, 2000)
    firsts = np.array([int(random.permutation(k, 4)[0]) for k in keys[:400]])
    counts = np.bincount(firsts, minlength=4)
    assert ((counts - 100) ** 2 / 100).sum() < 16.27  # chi-square, 3 dof, 99.9%


def test_multivariate_normal_covariance():
    cov = np.array([[4., 2.], [2., 3.]])
    x = np.asarray(random.multivariate_normal(KEY, jnp.array([1., -2.]), jnp.array(cov), (N,)))
    np.testing.assert_allclose(x.mean(0), [1., -2.], atol=0.02)
    np.testing.assert_allclose(np.cov(x.T), cov, rtol=0.02)


def test_split_streams_are_uncorrelated():
    k1, k2 = random.split(KEY)
    a, b = _draw(random.normal, (N,)), np.asarray(random.normal(k2, (N,)))
    c = np.asarray(random.normal(k1, (N,)))
    for x, y in [(a, b), (b, c), (a, c)]:
        assert abs(np.corrcoef(x, y)[0, 1]) < 5 / math.sqrt(N)


def test_neighbouring_seeds_give_unrelated_streams():
    xs = np.stack([np.asarray(random.uniform(random.key(s), (10_000,))) for s in range(4)])
    corr = np.corrcoef(xs)
    assert np.abs(corr - np.eye(4)).max() < 5 / math.sqrt(10_000)
