"""bfloat16 in compiled kernels, as float16 (``backends/cpu/syntax.py``): a float32
variable in the loop nest, its 16 bits (uint16) in memory, every result rounded to
bfloat16 (``_round_bf16``). Checked against ``ml_dtypes``, which computes the same
way (float32, then one rounding per operation), as XLA's CPU backend does."""
import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

import minijax.numpy as jnp  # noqa: E402
from tests.ch09_numba.conftest import cpu_jit, is_fallback, kernel_source  # noqa: E402

BF16 = jnp.bfloat16


def test_bfloat16_kernel_rounds_every_result():
    """Each bfloat16 operation in a fused kernel rounds (as ml_dtypes does op by op)."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(1000) * 50).astype(np.float32).astype(ml_dtypes.bfloat16)
    b = (rng.standard_normal(1000) * 3).astype(np.float32).astype(ml_dtypes.bfloat16)
    with np.errstate(all="ignore"):
        expected = (a * b + a) / (b - ml_dtypes.bfloat16(1.5))
    jitted = cpu_jit(lambda a, b: (a * b + a) / (b - 1.5))
    assert not is_fallback(jitted, a, b)
    got = np.asarray(jitted(a, b))
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))


def test_float32_to_bfloat16_rounds_to_nearest_even():
    """Every tie, its neighbours and random bit patterns, against ml_dtypes' astype."""
    kept = np.arange(0, 1 << 16, 7, dtype=np.uint32) << 16
    ties = (kept | 0x8000).view(np.float32)
    rng = np.random.default_rng(1)
    ties = ties[~np.isnan(ties)]
    x = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)),
                        np.nextafter(ties, np.float32(-np.inf)),
                        rng.integers(0, 2 ** 32, 20_000, dtype=np.uint64).astype(
                            np.uint32).view(np.float32),
                        np.float32([3.4e38, -3.4e38, np.inf, -np.inf, -0.0, 1e-40])])
    x = x[~np.isnan(x)]
    jitted = cpu_jit(lambda x: x.astype(BF16))
    assert not is_fallback(jitted, x)
    got = np.asarray(jitted(x))
    np.testing.assert_array_equal(got.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))


def test_bfloat16_kernel_source_names_its_helpers():
    x = np.linspace(-3.7, 5.3, 12).astype(np.float32).astype(ml_dtypes.bfloat16)
    jitted = cpu_jit(lambda x: jnp.exp(x) * 2.0)
    assert not is_fallback(jitted, x)
    source = kernel_source(jitted, x)
    assert "_bf2f(" in source and "_round_bf16(" in source and "_f2bf(" in source


def test_scalars_conversions_and_nans():
    """0-d bfloat16 values in and out, float16 <-> bfloat16 (a conversion between two
    16-bit floats still rounds), NaN kept as the quiet NaN of its sign, bit casts."""
    from minijax import lax
    a = np.float32([1.2345, -300.7, 65504.0, 1e-6, np.nan, -np.nan]).astype(ml_dtypes.bfloat16)
    h = np.float16([1.2345, -300.7, 65504.0, 6e-8])

    def f(a, h, s):
        return (a * s, h.astype(BF16), a.astype(jnp.float16), s * 3.0,
                lax.bitcast_convert_type(a, jnp.uint16))
    jitted = cpu_jit(f)
    s = np.asarray(2.5, ml_dtypes.bfloat16)
    assert not is_fallback(jitted, a, h, s)
    with np.errstate(all="ignore"):
        expected = (a * s, h.astype(ml_dtypes.bfloat16), a.astype(np.float16),
                    s * ml_dtypes.bfloat16(3.0), a.view(np.uint16))
    for got, want in zip(jitted(a, h, s), expected):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint16),
                                      np.atleast_1d(want).view(np.uint16))


def test_jnp_sum_runs_in_a_kernel():
    """jnp.sum converts bfloat16 to float32 first (as JAX), so the kernel sums float32."""
    x = np.arange(300).astype(ml_dtypes.bfloat16)
    jitted = cpu_jit(jnp.sum)
    assert not is_fallback(jitted, x)
    assert float(jitted(x)) == 44800.0  # from JAX 0.10.2
