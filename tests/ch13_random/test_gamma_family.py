"""gamma, loggamma and the samplers built on them (beta, dirichlet, chisquare, f, t,
generalized_normal, ball), the counting samplers (poisson, binomial, multinomial) and
wald: JAX's samples for JAX's keys, JAX's jaxpr, and the derivative of a gamma
sample in ``a`` (implicit reparameterization) against JAX and against SciPy.

The draws are defined once in ``gamma_family_draws.py``; ``jax_gamma_family_values.py``
holds what JAX 0.10.2 returned. Draws whose arithmetic is comparisons, integer
counting or exactly rounded operations are JAX's bit for bit; the others go through
``log``/``erf_inv``/``pow`` and through ``a * b + c`` (which XLA fuses into one
rounding), and agree to a few units in the last place (rtol 1e-6).
"""
import numpy as np
import pytest
import scipy.special
import scipy.stats

import minijax
import minijax.random as r
from minijax import lax

import gamma_family_draws as draws
import jax_gamma_family_values as jax_values

#: draws that are JAX's, bit for bit, for every key recorded
BITWISE = {"gamma_scalar", "loggamma", "chisquare", "poisson_small", "poisson_large",
           "poisson_shape", "poisson_zero", "binomial", "binomial_shape", "multinomial",
           "multinomial_batch", "vmap_poisson"}
#: the draws also run on the CUDA simulator (its Python threads are slow: one key each)
CUDA_SUBSET = {"gamma_alphas", "loggamma", "beta", "poisson_small", "binomial",
               "multinomial", "vmap_alpha", "vmap_poisson", "grad_gamma"}
TINY = float(np.finfo(np.float32).tiny)


def _no_large_draws_on_the_simulator(jit_backend):
    if jit_backend == "cuda":
        pytest.skip("large draws: the CUDA simulator's threads are Python threads")


def _expected(key_name, draw):
    dtype, values = jax_values.VALUES[(key_name, draw)]
    return np.asarray(values, dtype)


@pytest.mark.slow  # a kernel per draw, compiled for the cpu backend (~3-10 s each)
@pytest.mark.parametrize("draw", sorted(draws.DRAWS))
@pytest.mark.parametrize("key_name", sorted(draws.KEYS))
def test_jaxs_samples(jit_backend, key_name, draw):
    if jit_backend == "cuda" and (key_name != "key0" or draw not in CUDA_SUBSET):
        pytest.skip("the CUDA simulator runs a subset: its threads are Python threads")
    got = np.asarray(draws.DRAWS[draw](minijax, draws.KEYS[key_name](r)))
    want = _expected(key_name, draw)
    assert got.dtype == want.dtype and got.shape == want.shape
    if draw in BITWISE:
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"),
                                      want.view(f"u{want.itemsize}"))
    else:
        # XLA flushes subnormal results to zero (a gamma(0.05) sample of 1e-38): atol.
        # Derivatives add lgamma/digamma and the sums of random_gamma_grad: ~10 ulps.
        rtol = 2e-6 if "grad" in draw or "jacfwd" in draw else 1e-6
        np.testing.assert_allclose(got, want, rtol=rtol, atol=TINY)


@pytest.mark.slow
def test_a_few_samples_written_out(jit_backend):
    """The same comparison, with JAX's numbers in view (gamma(key(0), a), a = 0.5, 1, 2, 5)."""
    got = r.gamma(r.key(0), np.array([0.5, 1.0, 2.0, 5.0], np.float32))
    # from JAX 0.10.2
    np.testing.assert_allclose(got, [0.8845648, 0.7262849, 1.1290071, 8.08006], rtol=1e-6)
    # from JAX 0.10.2
    assert r.gamma(r.key(0), 2.0).tolist() == 1.5897877216339111


def test_jaxprs_are_jaxs():
    key = r.key(0)
    assert str(minijax.make_jaxpr(lambda k: r.gamma(k, 2.0))(key)) == jax_values.GAMMA_JAXPR
    got = str(minijax.make_jaxpr(lambda k: r.loggamma(k, np.ones(3, np.float32)))(key))
    assert got == jax_values.LOGGAMMA_JAXPR
    # two calls of one jit (_gamma) are printed once, before the program, as JAX does
    assert str(minijax.make_jaxpr(lambda k: r.beta(k, 2.0, 3.0))(key)) == jax_values.BETA_JAXPR


def test_a_closed_over_key_is_a_constvar():
    """A key has no literal syntax: closed over, it is a constant input, as in JAX."""
    key = r.key(0)
    got = str(minijax.make_jaxpr(lambda a: r.fold_in(key, 1))(2.0))
    assert got == jax_values.FOLD_IN_CLOSURE_JAXPR


def test_random_gamma_grad_against_jax_and_scipy():
    a, x, want = (np.asarray(v, np.float32) for v in jax_values.GAMMA_GRAD)
    got = np.asarray(lax.random_gamma_grad(a, x))
    np.testing.assert_allclose(got, want, rtol=2e-6)
    # implicit reparameterization: x(a) = P^-1(a, u) with the quantile u = P(a, x) fixed
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    u = scipy.special.gammainc(a64, x64)
    h = 1e-6 * a64
    fd = (scipy.special.gammaincinv(a64 + h, u) - scipy.special.gammaincinv(a64 - h, u)) / (2 * h)
    np.testing.assert_allclose(got, fd, rtol=2e-4)


def test_random_gamma_grad_edges():
    a = np.array([2.0, -1.0, 0.0, np.nan, 2.0], np.float32)
    x = np.array([0.0, 1.0, 1.0, 1.0, -1.0], np.float32)
    got = np.asarray(lax.random_gamma_grad(a, x))
    assert got[0] == 0.0 and np.isnan(got[1:]).all()
    assert lax.random_gamma_grad(np.float16(2.0), np.float16(1.5)).dtype == np.float16


@pytest.mark.slow
def test_grad_of_a_sample_moves_it_along_its_quantile(jit_backend):
    """d sample / d a, from ``grad``, is the slope of ``P^-1(a, u)`` at the sample's quantile."""
    key = r.key(3)
    a = np.array([0.4, 1.5, 6.0], np.float32)
    sample = np.asarray(r.gamma(key, a)).astype(np.float64)
    grads = np.asarray(minijax.grad(lambda a: r.gamma(key, a).sum())(a))
    a64 = a.astype(np.float64)
    u = scipy.special.gammainc(a64, sample)
    h = 1e-5 * a64
    fd = (scipy.special.gammaincinv(a64 + h, u) - scipy.special.gammaincinv(a64 - h, u)) / (2 * h)
    np.testing.assert_allclose(grads, fd, rtol=1e-3)


@pytest.mark.slow
def test_loggamma_is_the_log_of_gamma(jit_backend):
    key, a = r.key(5), np.array([0.5, 1.0, 3.0, 20.0], np.float32)
    np.testing.assert_allclose(np.exp(np.asarray(r.loggamma(key, a))),
                               np.asarray(r.gamma(key, a)), rtol=1e-5)


# --- statistics of large draws against SciPy's moments ----------------------------------
N = 20_000
_STATS = {
    "gamma_half": (lambda k: r.gamma(k, 0.5, (N,)), scipy.stats.gamma(0.5)),
    "gamma_3": (lambda k: r.gamma(k, 3.0, (N,)), scipy.stats.gamma(3.0)),
    "beta": (lambda k: r.beta(k, 2.0, 5.0, (N,)), scipy.stats.beta(2.0, 5.0)),
    "chisquare": (lambda k: r.chisquare(k, 4.0, (N,)), scipy.stats.chi2(4.0)),
    "f": (lambda k: r.f(k, 5.0, 12.0, (N,)), scipy.stats.f(5.0, 12.0)),
    "t": (lambda k: r.t(k, 6.0, (N,)), scipy.stats.t(6.0)),
    "poisson": (lambda k: r.poisson(k, 4.0, (N,)), scipy.stats.poisson(4.0)),
    "poisson_large": (lambda k: r.poisson(k, 60.0, (N,)), scipy.stats.poisson(60.0)),
    "binomial": (lambda k: r.binomial(k, 30.0, 0.6, (N,)), scipy.stats.binom(30, 0.6)),
    "binomial_btrs": (lambda k: r.binomial(k, 200.0, 0.3, (N,)), scipy.stats.binom(200, 0.3)),
    "wald": (lambda k: r.wald(k, 1.5, (N,)), scipy.stats.invgauss(1.5)),
    "generalized_normal": (lambda k: r.generalized_normal(k, 3.0, (N,)),
                           scipy.stats.gennorm(3.0)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_STATS))
def test_moments_match_scipy(jit_backend, name):
    _no_large_draws_on_the_simulator(jit_backend)
    sample_fn, dist = _STATS[name]
    x = np.asarray(sample_fn(r.key(11))).astype(np.float64)
    mean, var = dist.mean(), dist.var()
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / N), (x.mean(), mean)
    assert abs(x.var() / var - 1) < 0.1, (x.var(), var)
    if isinstance(dist.dist, scipy.stats.rv_continuous):  # the whole distribution
        assert scipy.stats.kstest(x, dist.cdf).pvalue > 1e-4


@pytest.mark.slow
def test_dirichlet_and_multinomial_statistics(jit_backend):
    _no_large_draws_on_the_simulator(jit_backend)
    alpha = np.array([0.5, 2.0, 4.0], np.float32)
    x = np.asarray(r.dirichlet(r.key(2), alpha, (N,))).astype(np.float64)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(x.mean(0), scipy.stats.dirichlet(alpha).mean(), atol=0.01)
    p = np.array([0.2, 0.3, 0.5], np.float32)
    counts = np.asarray(r.multinomial(r.key(2), 12.0, p, shape=(2000, 3)))
    assert (counts.sum(-1) == 12).all()
    np.testing.assert_allclose(counts.mean(0), 12 * p, atol=0.15)


@pytest.mark.slow
def test_ball_points_are_inside_and_spread(jit_backend):
    _no_large_draws_on_the_simulator(jit_backend)
    pts = np.asarray(r.ball(r.key(4), 3, 2.0, (5000,))).astype(np.float64)
    norms = np.linalg.norm(pts, axis=-1)
    assert pts.shape == (5000, 3) and (norms <= 1).all()
    # uniform in the ball: P(|x| <= t) = t^3
    assert abs((norms <= 0.5).mean() - 0.125) < 0.02
    l1 = np.abs(np.asarray(r.ball(r.key(4), 2, 1.0, (5000,)))).sum(-1)
    assert (l1 <= 1 + 1e-6).all() and abs((l1 <= 0.5).mean() - 0.25) < 0.03


# --- dtypes, shapes and errors as JAX's ---------------------------------------------------
def test_dtypes_and_shapes():
    """(``eval_shape``: traced, not run.)"""
    def shape_dtype(fn, *args):
        out = minijax.eval_shape(fn, r.key(0), *args)
        return out.shape, out.dtype
    ones = np.ones((2, 1), np.float32)
    assert shape_dtype(lambda k, a: r.gamma(k, a, (3, 2, 4)), ones) == ((3, 2, 4), np.float32)
    assert shape_dtype(lambda k: r.loggamma(k, 1.0, dtype=np.float16)) == ((), np.float16)
    assert shape_dtype(lambda k: r.poisson(k, np.ones(3, np.float32))) == ((3,), np.int32)
    assert shape_dtype(lambda k: r.poisson(k, 2.0, (2,), dtype=np.uint8)) == ((2,), np.uint8)
    assert shape_dtype(lambda k: r.binomial(k, 5.0, 0.5)) == ((), np.float32)
    assert shape_dtype(lambda k: r.dirichlet(k, np.ones(4, np.float32), (2, 3))) == (
        (2, 3, 4), np.float32)
    assert shape_dtype(lambda k: r.ball(k, 4, shape=(2,))) == ((2, 4), np.float32)
    assert shape_dtype(lambda k, b: r.beta(k, 1.0, b, (3, 2, 5)), ones) == ((3, 2, 5), np.float32)
    assert shape_dtype(lambda k: r.multinomial(k, 5.0, np.ones((2, 3), np.float32) / 3)) == (
        (2, 3), np.float32)


@pytest.mark.numba_fallback  # the CPU kernels do not carry float16 values through loops yet
def test_float16_gamma(jit_backend):
    if jit_backend == "cuda":
        pytest.skip("the CUDA kernels do not carry float16 values through loops yet")
    got = r.gamma(r.key(0), 1.0, dtype=np.float16)
    assert got.dtype == np.float16
    assert np.asarray(got).view(np.uint16) == 14477  # 0.569 (from JAX 0.10.2), bit for bit


@pytest.mark.parametrize("call, error, message", [
    # the messages are JAX 0.10.2's
    (lambda k: r.gamma(k, 2.0, dtype=np.int32), ValueError,
     "dtype argument to `gamma` must be a float dtype, got int32"),
    (lambda k: r.loggamma(k, 1.0, dtype=np.int32), ValueError,
     "dtype argument to `gamma` must be a float dtype, got int32"),
    (lambda k: r.gamma(k, np.ones(3, np.float32), shape=(2,)), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"),
    (lambda k: r.dirichlet(k, 1.0), ValueError,
     "dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0"),
    (lambda k: r.beta(k, 1 + 2j, 2.0), minijax.dtypes.TypePromotionError,
     "In arguments to beta, cannot safely cast argument of type complex64 to float32"),
    (lambda k: r.wald(k, 1 + 1j), minijax.dtypes.TypePromotionError,
     "In arguments to wald, cannot safely cast argument of type complex64 to float32"),
    (lambda k: r.binomial(k, 2.0, 0.5, dtype=np.int32), ValueError,
     "dtype argument to `binomial` must be a float dtype, got int32"),
    (lambda k: r.ball(k, 2.5), TypeError, "'float' object cannot be interpreted as an integer"),
    (lambda k: r.gamma(r.split(k), 1.0), ValueError, "gamma accepts a single key"),
])
def test_errors_as_jax(call, error, message):
    with pytest.raises(error, match=message):
        call(r.key(0))


def test_under_disable_jit():
    """Python loops instead of compiled ones (keys in the carries): the same samples."""
    with minijax.disable_jit():
        counts = r.poisson(r.key(0), np.array([0.5, 2.0, 5.0, 9.0], np.float32))
        samples = r.gamma(r.key(0), np.array([0.5, 1.0, 2.0, 5.0], np.float32))
    np.testing.assert_array_equal(counts, _expected("key0", "poisson_small"))
    # from JAX 0.10.2
    np.testing.assert_allclose(samples, [0.8845648, 0.7262849, 1.1290071, 8.08006], rtol=1e-6)
