"""float16 in compiled kernels: computed in float32, rounded after every operation,
stored as its 16 bits (``backends/cpu/syntax.py``). Checked against NumPy's float16,
which computes the same way (float32, then one rounding per operation)."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from tests.ch09_numba.conftest import cpu_jit, is_fallback, kernel_source

F16 = np.float16
rng = np.random.default_rng(1616)
X = (rng.standard_normal((6, 5)) * 20).astype(F16)
Y = (rng.standard_normal((6, 5)) * 3).astype(F16)
ALL_HALVES = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(F16)


def _same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got.view(np.uint16) if got.dtype == F16 else got,
                                  expected.view(np.uint16) if expected.dtype == F16 else expected)


def test_every_float16_converts_exactly_to_float32_and_back():
    to32 = cpu_jit(lambda h: h.astype(jnp.float32))
    back = cpu_jit(lambda x: x.astype(jnp.float16))
    x = np.asarray(to32(ALL_HALVES))
    expected = ALL_HALVES.astype(np.float32)
    same = (x.view(np.uint32) == expected.view(np.uint32)) | (np.isnan(x) & np.isnan(expected))
    assert same.all()
    h = np.asarray(back(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_array_equal(h.view(np.uint16)[finite], ALL_HALVES.view(np.uint16)[finite])
    assert np.isnan(h[~finite]).all()
    assert not is_fallback(to32, ALL_HALVES) and not is_fallback(back, expected)


def test_float32_to_float16_rounds_to_nearest_even_as_numpy():
    halves = np.unique(ALL_HALVES[np.isfinite(ALL_HALVES)].astype(np.float64))
    midpoints = ((halves[1:] + halves[:-1]) / 2).astype(np.float32)  # ties, exactly
    bits = rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([midpoints, np.nextafter(midpoints, np.float32(np.inf)),
                        np.nextafter(midpoints, np.float32(-np.inf)), bits.view(np.float32),
                        np.float32([65504, 65519.996, 65520, 1e6, 2.9802322e-08, 2.98e-08,
                                    -0.0, np.inf, -np.inf])])
    x = x[~np.isnan(x)]
    with np.errstate(over="ignore"):
        _same(cpu_jit(lambda x: x.astype(jnp.float16))(x), x.astype(F16))


def test_arithmetic_rounds_after_each_operation():
    def f(x, y):
        return (x * y + x) / (y - 1.5), jnp.maximum(x, y), -jnp.abs(x), x > y
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, X, Y)
    with np.errstate(all="ignore"):
        expected = ((X * Y + X) / (Y - F16(1.5)), np.maximum(X, Y), -np.abs(X), X > Y)
    for got, want in zip(jitted(X, Y), expected):
        _same(got, want)


@pytest.mark.parametrize("fn", ["exp", "log1p", "tanh", "sin", "sqrt"])
def test_transcendentals_are_numpys_within_one_float16_ulp(fn):
    x = np.abs(X) / F16(8) if fn in ("log1p", "sqrt") else X / F16(8)
    jitted = cpu_jit(getattr(jnp, fn))
    got = np.asarray(jitted(x))
    assert got.dtype == F16 and not is_fallback(jitted, x)
    expected = getattr(np, fn)(x.astype(np.float64)).astype(F16)  # correctly rounded
    ulps = np.abs(got.view(np.int16).astype(np.int32) - expected.view(np.int16).astype(np.int32))
    assert ulps.max() <= 1


def test_data_movement_moves_the_bits():
    def f(x, y):
        z = jnp.concatenate([x, y], axis=0).T
        return z[1:4, ::2], jnp.reshape(x, (5, 6)), lax.bitcast_convert_type(x, jnp.uint16)
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, X, Y)
    z = np.concatenate([X, Y], axis=0).T
    for got, want in zip(jitted(X, Y), (z[1:4, ::2], X.reshape(5, 6), X.view(np.uint16))):
        _same(got, want)


def test_float16_scalars_in_and_out():
    jitted = cpu_jit(lambda s, x: (s * 3.0, x * s, lax.bitcast_convert_type(s, jnp.int16)))
    s = F16(0.1)
    out = jitted(s, X)
    _same(out[0], np.asarray(s * F16(3)))
    _same(out[1], X * s)
    _same(out[2], np.asarray(s).view(np.int16))
    assert not is_fallback(jitted, s, X)


def test_uint16_bits_become_float16_as_random_uniform_does():
    def f(bits):
        mantissa = lax.shift_right_logical(bits, np.uint16(6)) | np.uint16(0x3C00)
        return lax.bitcast_convert_type(mantissa, jnp.float16) - 1.0
    bits = rng.integers(0, 2 ** 16, 64, dtype=np.uint32).astype(np.uint16)
    jitted = cpu_jit(f)
    _same(jitted(bits), ((bits >> 6) | 0x3C00).view(F16) - F16(1))
    assert "_h2f(" in kernel_source(jitted, bits)


@pytest.mark.numba_fallback  # a float16 reduction still runs on the interpreter
def test_a_float16_reduction_falls_back_with_its_reason():
    jitted = cpu_jit(lambda x: lax.reduce_sum(x, axes=(0,)))
    assert is_fallback(jitted, X)
    assert "reduce_sum on float16" in kernel_source(jitted, X).splitlines()[0]
    _same(jitted(X), np.sum(X, axis=0, dtype=F16))
