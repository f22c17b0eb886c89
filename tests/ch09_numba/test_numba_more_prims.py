"""The remaining primitives on the Numba backend: bits and float rules, digamma,
cumlogsumexp, complex numbers, threefry keys and lax.linalg, lowered without
falling back, checked against NumPy, the impl rules and values from JAX."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, random
from tests.ch09_numba.conftest import cpu_jit, is_fallback, lowering_of

NAN, INF = np.nan, np.inf


def lowered(f, *args):
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args), lowering_of(jitted, *args).as_text()[:300]
    return jitted


def same(out, expected, dtype=None):
    expected = np.asarray(expected, dtype=dtype)
    assert out.shape == expected.shape and out.dtype == expected.dtype, (out, expected)
    np.testing.assert_array_equal(np.asarray(out), expected)


# --- scalar rules ------------------------------------------------------------------------
F = np.array([0.5, 1.4616, -1.5, 100., 70000., 1e-8, NAN, -INF, 65519.], np.float32)


def _floats(x, i, u):
    return (lax.clz(i), lax.clz(u), lax.nextafter(x, jnp.zeros_like(x)),
            lax.reduce_precision(x, 5, 10), lax.reduce_precision(x, 8, 7), lax.digamma(x))


def test_clz_nextafter_reduce_precision_digamma():
    i = np.array([0, 1, -1, 255, 1 << 20], np.int32)
    u = np.array([0, 1, 200], np.uint8)
    outs = lowered(_floats, F, i, u)(F, i, u)
    # expected values from JAX 0.10.2
    same(outs[0], [32, 31, 0, 24, 11], np.int32)
    same(outs[1], [8, 7, 0], np.uint8)
    same(outs[2], [0.4999999701976776, 1.4615998268127441, -1.4999998807907104,
                   99.99999237060547, 69999.9921875, 9.99999905104687e-09, NAN,
                   -3.4028234663852886e+38, 65518.99609375], np.float32)
    same(outs[3], [0.5, 1.4619140625, -1.5, 100.0, INF, 0.0, NAN, -INF, 65504.0], np.float32)
    same(outs[4], [0.5, 1.4609375, -1.5, 100.0, 70144.0, 1.0011717677116394e-08, NAN, -INF,
                   65536.0], np.float32)
    # digamma: SciPy's psi (the impl rule), to float32 rounding
    np.testing.assert_allclose(np.asarray(outs[5]), np.asarray(lax.digamma(F)), rtol=2e-6,
                               atol=1e-9)
    assert np.isnan(np.asarray(lax.digamma(cpu_jit(lambda x: x)(np.float32(-2.0)))))


def test_cumlogsumexp():
    x = np.array([[0., 1., -INF], [INF, 2., 3.]], np.float32)
    out = lowered(lambda x: (lax.cumlogsumexp(x, axis=1, reverse=True),
                             lax.cumlogsumexp(x, axis=0)), x)(x)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(out[0]), [[1.3132617, 1.0, -INF], [INF, 3.3132617, 3.0]],
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out[1]), np.logaddexp.accumulate(x, axis=0), rtol=1e-6)


# --- complex numbers ------------------------------------------------------------------------
def test_complex64_arithmetic_and_parts():
    z = np.array([1 + 2j, -3j, 0.5 - 0.25j], np.complex64)
    r = np.array([1.0, -2.0, INF], np.float32)
    def f(z, r):
        w = lax.complex(r, lax.imag(z))
        return (z * w / (z - w), lax.real(z), lax.imag(z), lax.conj(z), lax.conj(r), w,
                jnp.exp(z), jnp.abs(z), z[::-1], z.reshape(3, 1) @ z.reshape(1, 3))
    outs = lowered(f, z, r)(z, r)
    w = np.empty(3, np.complex64)
    w.real, w.imag = r, z.imag
    with np.errstate(all="ignore"):
        expected = (z * w / (z - w), z.real, z.imag, np.conj(z), r.astype(np.complex64), w,
                    np.exp(z), np.abs(z), z[::-1], np.outer(z, z))
    for out, e in zip(outs, expected):
        assert out.dtype == e.dtype
        np.testing.assert_allclose(np.asarray(out), e, rtol=1e-6)


@pytest.mark.numba_fallback  # a test of the fallback itself
def test_complex_falls_back_cleanly_where_unsupported():
    z = np.array([1 + 2j], np.complex64)
    assert is_fallback(cpu_jit(lambda z: jnp.log1p(z)), z)   # no complex rule for log1p
    np.testing.assert_allclose(np.asarray(cpu_jit(lambda z: jnp.log1p(z))(z)),
                               np.log1p(z), rtol=1e-6)
    # ... also inside a loop's body
    looped = cpu_jit(lambda z: lax.fori_loop(0, 2, lambda i, c: jnp.log1p(c), z))
    assert is_fallback(looped, z)
    np.testing.assert_allclose(np.asarray(looped(z)), np.log1p(np.log1p(z)), rtol=1e-6)


# --- threefry keys inside a kernel -------------------------------------------------------------
def _draws(k, s):
    return (random.bits(random.split(k)[1], (3,)),
            random.bits(random.fold_in(random.PRNGKey(s), 3), (2,)),
            random.key_data(random.split(k, 3)), random.key_data(random.fold_in(k, 7)))


def test_random_split_fold_in_seed_inside_jit():
    k, s = random.key(0), np.int32(5)
    outs = lowered(_draws, k, s)(k, s)
    # expected values from JAX 0.10.2
    same(outs[0], [31327077, 89727312, 2497208264], np.uint32)
    same(outs[1], [481613680, 2294666293], np.uint32)
    same(outs[2], [[1797259609, 2579123966], [928981903, 3453687069],
                   [4146024105, 2718843009]], np.uint32)
    same(outs[3], [2716826189, 292468403], np.uint32)
    for out, e in zip(outs, _draws(k, s)):  # eager: chapter 13's NumPy threefry
        same(out, e)


def _moved_keys(k, i):
    """Keys through data movement: the kernel moves their (..., 2) key data."""
    bits = lambda keys, shape: minijax.prng.random_bits(keys, 32, shape)  # noqa: E731
    ks = random.split(k, 5)
    kk = lax.concatenate([ks[:2], ks[3:]], 0)
    return (bits(lax.transpose(lax.reshape(kk[::-1][1:3], (1, 2)), (1, 0)), (2,)),
            bits(lax.reshape(ks, (5, 1))[i], (1,)),
            bits(lax.dynamic_slice(ks, (i[0],), (2,)), (1,)))


def test_keys_through_slices_gathers_and_reshapes():
    k, i = random.key(0), np.array([3, 1], np.int32)
    outs = lowered(_moved_keys, k, i)(k, i)
    for out, e in zip(outs, _moved_keys(k, i)):
        same(out, e)


def test_keys_computed_in_the_kernel_are_returned_as_keys():
    """The training-loop pattern ``key, sub = split(key)`` returns a new key from
    the jitted step: the kernel computes its key data, the executable rewraps it."""
    def step(key, x):
        key, sub = random.split(key)
        return key, x + random.normal(sub, x.shape)

    k, x = random.key(0), np.zeros(3, np.float32)
    jitted = cpu_jit(step)
    assert not is_fallback(jitted, k, x)
    k2, y = jitted(k, x)
    assert k2.dtype == k.dtype and k2.shape == ()
    # expected values from JAX 0.10.2
    np.testing.assert_array_equal(np.asarray(random.key_data(k2)), [1797259609, 2579123966])
    np.testing.assert_allclose(np.asarray(y), [-2.4424558, -2.0356805, 0.20554423], rtol=1e-6)
    four = cpu_jit(lambda k: random.split(k, 4))
    assert not is_fallback(four, k)
    np.testing.assert_array_equal(np.asarray(random.key_data(four(k))), [
        [1797259609, 2579123966], [928981903, 3453687069],
        [4146024105, 2718843009], [2467461003, 3840466878]])


# --- lax.linalg ---------------------------------------------------------------------------------
A = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32)
B = np.arange(6, dtype=np.float32).reshape(3, 2)
STACK = np.stack([A, A[::-1, ::-1] + np.eye(3, dtype=np.float32)])


def _linalg(a, b, s):
    q, r = jnp.linalg.qr(s)
    u, sv, vh = jnp.linalg.svd(s, full_matrices=False)
    w, v = jnp.linalg.eigh(s)
    lu, piv, perm = lax.linalg.lu(s)
    return (jnp.linalg.cholesky(s), jnp.linalg.cholesky(-a), q, r, u, sv, vh, w, v,
            jnp.linalg.solve(a, b), lu, piv, perm,
            lax.linalg.lu_pivots_to_permutation(piv, 4),
            lax.linalg.triangular_solve(a, b.T, left_side=False, lower=True, transpose_a=True),
            jnp.linalg.svd(a, compute_uv=False))


@pytest.mark.slow  # LAPACK calls make one large kernel (a few seconds to compile)
def test_linalg_against_the_impl_rules():
    outs = lowered(_linalg, A, B, STACK)(A, B, STACK)
    expected = _linalg(A, B, STACK)  # eager: NumPy / SciPy
    for k, (out, e) in enumerate(zip(outs, expected)):
        assert out.shape == e.shape and out.dtype == e.dtype, k
        if k in (2, 3, 4, 6, 8):  # q, r, u, vh, v: up to the sign of each vector
            out, e = np.abs(np.asarray(out)), np.abs(np.asarray(e))
        np.testing.assert_allclose(np.asarray(out), np.asarray(e), rtol=2e-5, atol=2e-6,
                                   err_msg=str(k))
    assert np.isnan(np.asarray(outs[1])).all() or np.isnan(np.asarray(outs[1])).any()
    same(outs[11], np.asarray(expected[11]))  # pivots and permutations are exact
    same(outs[12], np.asarray(expected[12]))
