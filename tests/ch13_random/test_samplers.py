"""Every sampler against the bits real JAX 0.10.2 drew from the same keys.

The draws are defined once in ``random_draws.py``; ``jax_random_values.py``
holds what JAX returned (expected values from JAX 0.10.2). Splitting, folding,
bits, uniform floats, integers, booleans, shuffles and categorical draws must
agree bit for bit. Draws that go through ``erf_inv``/``log``/``log1p``, or
through ``a * b + c`` (which XLA fuses into one rounding), may differ from
JAX's by a few units in the last place: those are compared with a tolerance,
after checking that the uniform numbers underneath are bit-identical.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
import minijax.control_flow  # noqa: F401  (chapter 08 adds lax.scan, lax.fori_loop)
from minijax import lax, random, vmap

import jax_random_values as jax_values
import random_draws as draws

KEY_NAMES = list(draws.KEYS)

#: The draws that only make keys or take raw bits (``key``, ``split``, ``fold_in``,
#: ``bits``) run eagerly. Every other draw calls a sampler, a jitted function as in
#: JAX (``uniform`` is ``jit(_uniform)``): its tests run on both backends.
KEYS_AND_BITS = {"split", "split3", "split2x2", "split_tree", "fold_in", "fold_split", "bits",
                 "bits_u8", "bits_u16", "bits_scalar", "vmap_bits", "vmap_split", "vmap_fold_in",
                 "vmap_key", "vmap_axis1", "scan_fold_in", "fori_split"}

def _draws(table: dict, *, jitted: bool) -> list:
    """The draws of ``table`` that call a sampler (``jitted``) or not."""
    return [d for d in table if (d not in KEYS_AND_BITS) == jitted]


def _key(name):
    return draws.KEYS[name](random)


def assert_bitwise_equal(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if got.dtype.kind in "fc":  # compare bit patterns: -0.0 != 0.0, nan == nan
        got, expected = got.view(f"u{got.itemsize}"), expected.view(f"u{got.itemsize}")
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", draws.SEEDS)
def test_prngkey_seeds(seed):
    assert_bitwise_equal(random.PRNGKey(seed), jax_values.SEEDS[seed])
    assert_bitwise_equal(random.key_data(random.key(seed)), jax_values.SEEDS[seed])


def _check(table: str, key_name: str, draw: str) -> None:
    """An EXACT draw is JAX's, bit for bit; a LARGE one has the digest of JAX's."""
    got = getattr(draws, table)[draw](random, jnp, _key(key_name))
    expected = getattr(jax_values, table)[key_name][draw]
    if table == "LARGE":
        assert draws.digest(got) == expected
    else:
        assert_bitwise_equal(got, expected)


def _cases(*, jitted: bool) -> list:
    return [(table, d) for table in ("EXACT", "LARGE")
            for d in _draws(getattr(draws, table), jitted=jitted)]


@pytest.mark.parametrize("key_name", KEY_NAMES)
@pytest.mark.parametrize("table,draw", _cases(jitted=False))
def test_keys_and_bits(table, key_name, draw):
    _check(table, key_name, draw)


@pytest.mark.parametrize("key_name", KEY_NAMES)
@pytest.mark.parametrize("table,draw", _cases(jitted=True))
def test_draws(table, key_name, draw, jit_backend):
    _check(table, key_name, draw)


#: The CLOSE draws that are JAX's bit for bit on the interpreter and the Numba
#: backend, since float32 exp, log, log1p and erf_inv follow XLA's algorithms. The
#: others: uniform with minval/maxval (and truncated_normal, built on it), where
#: XLA fuses ``u * (maxval - minval) + minval`` into one FMA; complex64 normal on
#: the Numba backend (its complex division). The CUDA simulator's math is its own.
BITWISE_CLOSE = {"normal", "normal_f16", "exponential", "gumbel", "gumbel_high", "laplace",
                 "logistic", "multivariate_normal"}


@pytest.mark.parametrize("key_name", KEY_NAMES)
@pytest.mark.parametrize("draw", _draws(draws.CLOSE, jitted=True))
def test_transcendental_draws(key_name, draw, jit_backend):
    got = np.asarray(draws.CLOSE[draw](random, jnp, _key(key_name)))
    expected = jax_values.CLOSE[key_name][draw]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if draw in BITWISE_CLOSE and jit_backend != "cuda":
        assert_bitwise_equal(got, expected)
        return
    rtol = 4e-3 if got.dtype == np.float16 else 2e-5
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("key_name", KEY_NAMES)
def test_the_uniforms_under_normal_are_exact(key_name, jit_backend):
    """normal = sqrt(2) * erf_inv(u): the u are JAX's, bit for bit."""
    k = _key(key_name)
    lo = np.nextafter(np.float32(-1), np.float32(0))
    u = np.asarray(random.uniform(k, (8,), minval=lo, maxval=1.))
    expected = np.asarray(jax_values.CLOSE[key_name]["normal"])
    np.testing.assert_allclose(np.sqrt(2) * _erfinv(u), expected, rtol=1e-5, atol=1e-6)


def _erfinv(u):
    from scipy.special import erfinv
    return erfinv(u.astype(np.float64))


@pytest.mark.parametrize("draw", _draws(draws.TRANSFORMS, jitted=False))
def test_keys_and_bits_under_transformations(draw):
    assert_bitwise_equal(draws.TRANSFORMS[draw](random, jnp, lax, vmap),
                         jax_values.TRANSFORMS[draw])


@pytest.mark.parametrize("draw", _draws(draws.TRANSFORMS, jitted=True))
def test_draws_under_transformations(draw, jit_backend):
    assert_bitwise_equal(draws.TRANSFORMS[draw](random, jnp, lax, vmap),
                         jax_values.TRANSFORMS[draw])


def test_jit_gives_the_eager_bits(jit_backend):
    from minijax.jit import jit
    k = random.key(0)
    assert_bitwise_equal(jit(lambda k: random.uniform(k, (8,)))(k),
                         jax_values.EXACT["key0"]["uniform"])
    assert_bitwise_equal(jit(lambda k: random.randint(k, (8,), 0, 10))(k),
                         jax_values.EXACT["key0"]["randint"])
    assert_bitwise_equal(random.key_data(jit(random.split)(k)),
                         jax_values.EXACT["key0"]["split"])
    assert_bitwise_equal(jit(lambda k: random.permutation(k, 10))(k),
                         jax_values.EXACT["key0"]["permutation"])


def test_dtypes_of_draws(jit_backend):
    k = random.key(0)
    assert random.uniform(k).dtype == np.float32 and not random.uniform(k).weak_type
    assert random.normal(k, (2,), jnp.float16).dtype == np.float16
    assert random.randint(k, (2,), 0, 3).dtype == np.int32
    assert random.randint(k, (2,), 0, 3, jnp.uint8).dtype == np.uint8
    assert random.bits(k).dtype == np.uint32
    assert random.bits(k, (), jnp.uint16).dtype == np.uint16
    assert random.bernoulli(k).dtype == np.bool_
    assert random.categorical(k, jnp.zeros(3)).dtype == np.int32
    assert random.permutation(k, 3).dtype == np.int32
    assert random.choice(k, jnp.arange(3.), (2,)).dtype == np.float32


def test_float64_request_is_truncated_with_jax_warning(jit_backend):
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
        x = random.uniform(random.key(0), (2,), jnp.float64)
    assert_bitwise_equal(x, jax_values.EXACT["key0"]["uniform"][:2])


def test_minval_above_maxval_as_jax(jit_backend):
    # expected values from JAX 0.10.2: uniform clamps to minval, randint returns minval
    k = random.key(0)
    np.testing.assert_array_equal(random.uniform(k, (2,), minval=1., maxval=0.), [1., 1.])
    np.testing.assert_array_equal(random.randint(k, (3,), 5, 2), [5, 5, 5])


def test_normal_of_a_million(jit_backend):
    """A large draw (its speed is measured in bench/bench_random.py, not here)."""
    x = random.normal(random.key(0), (10**6,))
    assert x.shape == (10**6,) and x.dtype == np.float32
    v = np.asarray(x)
    assert abs(v.mean()) < 5e-3 and abs(v.std() - 1) < 5e-3
