"""Lowerings beyond elementwise math: bits, erf_inv, concatenate, pad, cumulative
ops, dynamic slices and threefry2x32, checked against NumPy / the impl rules."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax import prng
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(0)
A = rng.integers(-9, 9, (3, 4)).astype(np.int32)
B = rng.integers(-9, 9, (3, 2)).astype(np.int32)
F = rng.standard_normal((3, 5)).astype(np.float32)


def check(f, *args, numpy_f=None):
    """Lowered to Numba (no fallback), and bit-identical to ``numpy_f`` (or ``f``'s
    op-by-op result: the NumPy impl rules)."""
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args)
    outs, expected = jitted(*args), (numpy_f or f)(*args)
    if not isinstance(outs, (tuple, list)):
        outs, expected = [outs], [expected]
    for out, exp in zip(outs, expected):
        exp = np.asarray(exp)
        assert out.dtype == exp.dtype and out.shape == exp.shape
        np.testing.assert_array_equal(np.asarray(out), exp)


def _bits(x, y):
    return (lax.shift_left(x, y), lax.shift_right_logical(x, y),
            lax.shift_right_arithmetic(x, y), lax.population_count(x))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8, np.uint64])
def test_shifts_and_population_count_follow_xla_for_large_counts(dtype):
    bits = 8 * np.dtype(dtype).itemsize
    x = np.array([1, -1, 7, -(2 ** (bits - 1)), 2 ** (bits - 1) - 1]).astype(dtype)
    y = np.array([0, 1, bits - 1, bits, -1]).astype(dtype)  # -1: a huge unsigned count
    check(_bits, x, y)


def test_shift_values_at_the_bit_width():
    x, y = np.array([-8, -8, 5], np.int32), np.array([32, 40, 33], np.int32)
    outs = cpu_jit(_bits)(x, y)
    np.testing.assert_array_equal(np.asarray(outs[0]), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(outs[1]), [0, 0, 0])
    np.testing.assert_array_equal(np.asarray(outs[2]), [-1, -1, 0])  # the sign fills
    np.testing.assert_array_equal(np.asarray(outs[3]), [29, 29, 2])


def test_bitcast_convert_type_same_width():
    f = np.array([1.5, -0.0, np.inf, 3e-39], np.float32)
    check(lambda v: (lax.bitcast_convert_type(v, jnp.uint32), lax.bitcast_convert_type(v[1], jnp.int32)),
          f, numpy_f=lambda v: (v.view(np.uint32), v[1:2].view(np.int32)[0]))


def test_bitcast_convert_type_between_widths():
    """Narrower: a new trailing axis of parts; wider: the trailing axis is consumed
    (``Array.view``); a scalar becomes a vector of its parts."""
    f = np.array([[1.5, -0.0], [np.inf, 3e-39]], np.float32)
    b = np.arange(16, dtype=np.uint8).reshape(2, 2, 4)
    check(lambda v, w, s: (lax.bitcast_convert_type(v, jnp.uint8),
                           lax.bitcast_convert_type(w, jnp.float32),
                           lax.bitcast_convert_type(s, jnp.int16)),
          f, b, np.float32(2.5),
          numpy_f=lambda v, w, s: (v.view(np.uint8).reshape(2, 2, 4),
                                   w.view(np.float32).reshape(2, 2),
                                   s.reshape(1).view(np.int16)))


def test_erf_inv_is_bit_identical_to_the_interpreter():
    x = np.concatenate([np.linspace(-1, 1, 2001, dtype=np.float32),
                        np.array([np.nan, 1.5, -0.0, 0.9999999, -0.99999994], np.float32)])
    check(lax.erf_inv, x)


@pytest.mark.slow  # several Numba compilations
def test_concatenate_and_pad():
    def f(a, b, p):
        return (lax.concatenate([a, b, a], 1),
                lax.pad(a, p, ((1, 2, 0), (0, 0, 1))),        # edges and interior
                lax.pad(a, np.int32(-7), ((-1, -2, 2), (2, -3, 1))),  # negative: crop
                lax.pad(a, p, ((-3, 0, 0), (0, 0, 0))))       # nothing left
    check(f, A, B, np.int32(5))


@pytest.mark.parametrize("op", [lax.cumsum, lax.cumprod, lax.cummax, lax.cummin])
def test_cumulative_ops_along_each_axis_and_reversed(op):
    def f(x, i):
        return tuple(op(v, axis=ax, reverse=rev) for v in (x, i)
                     for ax in (0, 1) for rev in (False, True))
    check(f, F, A)


def test_dynamic_slice_and_update_clamp_their_starts():
    def f(x, u, i, j):
        return lax.dynamic_slice(x, (i, j), (2, 2)), lax.dynamic_update_slice(x, u, (i, j))
    for i, j in [(0, 0), (2, 3), (-1, 5), (1, -4)]:
        check(f, A, B, np.int32(i), np.int32(j))


def test_threefry2x32_is_bit_identical_to_numpy():
    k1, k2 = np.uint32(0x12345678), np.uint32(0xDEADBEEF)
    x1 = rng.integers(0, 2 ** 32, (1, 7), dtype=np.uint32)
    x2 = rng.integers(0, 2 ** 32, (2, 7), dtype=np.uint32)
    check(lambda *a: tuple(prng.threefry2x32_p.bind(*a)), k1, k2, x1, x2,
          numpy_f=prng.threefry2x32_numpy)
    # JAX's published test vector (Salmon et al. 2011, via jax's random_test)
    out = cpu_jit(lambda *a: tuple(prng.threefry2x32_p.bind(*a)))(
        np.uint32(0x13198a2e), np.uint32(0x03707344), np.uint32(0x243f6a88), np.uint32(0x85a308d3))
    assert [int(o) for o in out] == [0xc4923a9c, 0x483df7a0]


def test_random_bits_uniform_and_normal_lower_and_match_the_interpreter():
    from minijax import random
    key = random.key(42)

    def f(k):
        return (random.bits(k, (5, 3)), random.bits(k, (4,), jnp.uint8),
                random.uniform(k, (1000,)), random.normal(k, (1000,)))  # + shifts, bitcast, erf_inv
    assert not is_fallback(cpu_jit(f), key)
    with pytest.warns(DeprecationWarning):  # jit(backend=...) is deprecated, as in JAX
        interpreted = minijax.jit(f, backend="interpreter")
    outs, expected = cpu_jit(f)(key), interpreted(key)
    for out, exp in zip(outs, expected):
        assert out.dtype == exp.dtype
        np.testing.assert_array_equal(np.asarray(out), np.asarray(exp))
    # the key words reach the kernel: threefry2x32_numpy of key [0, 42], counter (0, j)
    b1, b2 = prng.threefry2x32_numpy(np.uint32(0), np.uint32(42), np.uint32(0),
                                     np.arange(15, dtype=np.uint32))
    np.testing.assert_array_equal(np.asarray(outs[0]).ravel(), b1 ^ b2)


def test_keys_made_inside_the_jaxpr_are_lowered():
    from minijax import random
    f = cpu_jit(lambda k: random.bits(random.split(k)[0], (4,)))
    assert not is_fallback(f, random.key(0))
    # eager threefry bits equal JAX 0.10.2's (checked in tests/ch13_random)
    expected = np.asarray(random.bits(random.split(random.key(0))[0], (4,)))
    np.testing.assert_array_equal(np.asarray(f(random.key(0))), expected)


Z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)


def test_complex_literals_and_reductions_are_lowered():
    """Complex constants are written ``np.complex64(complex(re, im))``; sums and
    products of complex numbers reduce in their own dtype (checked against NumPy)."""
    def f(z):
        return (z * (1 + 2j) - (0.5 - 1j), jnp.sum(z, axis=1), jnp.prod(z, axis=0),
                jnp.sum(z))
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, Z)
    outs = jitted(Z)
    expected = (Z * np.complex64(1 + 2j) - np.complex64(0.5 - 1j), Z.sum(axis=1),
                Z.prod(axis=0), Z.sum())
    for out, exp in zip(outs, expected):
        assert out.dtype == np.complex64 and out.shape == exp.shape
        np.testing.assert_allclose(np.asarray(out), exp, rtol=2e-6)
    assert "np.complex64(complex(1.0, 2.0))" in kernel_source(jitted, Z)
