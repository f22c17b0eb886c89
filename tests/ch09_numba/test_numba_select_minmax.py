"""XLA's max and min in kernels, as selects (``helpers.select_max``/``select_min``).

The helpers ``_fmax``/``_fmin`` (every float ``max``/``min``, ReLU, max
pooling) are branch-free: LLVM ``select`` instructions instead of jumps,
which the processor guessed wrong on data of random sign. The results must
be XLA's, bit for bit: NaN propagates, ``max(-0., 0.)`` is ``0.``,
``min(-0., 0.)`` is ``-0.``.
"""
import itertools

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

from tests.ch09_numba.conftest import cpu_jit, kernel_source

SPECIAL = [np.nan, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf]
X, Y = (np.array(v, np.float32) for v in zip(*itertools.product(SPECIAL, SPECIAL)))
nan, inf = np.nan, np.inf
# from JAX 0.10.2: jnp.maximum(X, Y) and jnp.minimum(X, Y), jitted
MAX = np.array([nan, nan, nan, nan, nan, nan, nan, nan, 0.0, 0.0, 1.0, 0.0, inf, 0.0, nan, 0.0,
                -0.0, 1.0, -0.0, inf, -0.0, nan, 1.0, 1.0, 1.0, 1.0, inf, 1.0, nan, 0.0, -0.0, 1.0,
                -1.0, inf, -1.0, nan, inf, inf, inf, inf, inf, inf, nan, 0.0, -0.0, 1.0, -1.0, inf,
                -inf], np.float32)
MIN = np.array([nan, nan, nan, nan, nan, nan, nan, nan, 0.0, -0.0, 0.0, -1.0, 0.0, -inf, nan,
                -0.0, -0.0, -0.0, -1.0, -0.0, -inf, nan, 0.0, -0.0, 1.0, -1.0, 1.0, -inf, nan,
                -1.0, -1.0, -1.0, -1.0, -1.0, -inf, nan, 0.0, -0.0, 1.0, -1.0, inf, -inf, nan,
                -inf, -inf, -inf, -inf, -inf, -inf], np.float32)


def same_bits(got, want):
    """Equal bits, every NaN counted as one NaN (its payload is the processor's)."""
    got, want = np.array(got), np.array(want)
    assert got.dtype == want.dtype
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok].view(np.uint8), want[ok].view(np.uint8))


@pytest.mark.parametrize("fn, want", [(jnp.maximum, MAX), (jnp.minimum, MIN)],
                         ids=["max", "min"])
def test_special_values_are_xlas(fn, want):
    f = cpu_jit(fn)
    assert "_fmax(" in kernel_source(f, X, Y) or "_fmin(" in kernel_source(f, X, Y)
    same_bits(f(X, Y), want)


def test_float16_is_computed_as_float32():
    x, y = X.astype(np.float16), Y.astype(np.float16)
    same_bits(cpu_jit(jnp.maximum)(x, y), MAX.astype(np.float16))
    same_bits(cpu_jit(jnp.minimum)(x, y), MIN.astype(np.float16))


def test_relu_on_values_of_random_sign():
    """The case the selects are for: a ReLU after a convolution, half the values negative."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((100, 8, 8, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    got = np.asarray(cpu_jit(lambda a, b: minijax.nn.relu(a + b))(a, b))
    want = np.maximum(a + b, np.float32(0)) + np.float32(0)  # + 0: NumPy's max(-0., 0.) is -0.
    same_bits(got, want)


def test_max_pooling_with_nan_and_signed_zeros():
    x = np.array([[-0.0, 0.0, 1.0, nan], [-0.0, -0.0, -2.0, 3.0]], np.float32)[None, :, :, None]
    f = cpu_jit(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 1), (1, 1, 2, 1),
                                            "VALID"))
    # max(-inf, -0., 0.) is 0.; max(1, nan) is nan; max(-inf, -0., -0.) is -0.; max(-2, 3) is 3
    same_bits(f(x), np.array([[0.0, nan], [-0.0, 3.0]], np.float32)[None, :, :, None])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8, np.bool_,
                                   np.complex64])
def test_select_with_a_random_mask_is_numpys_where(dtype):
    """``select_n`` with a bool predicate is one ``select`` (``helpers._select``), no jump."""
    rng = np.random.default_rng(2)
    mask = rng.random((40, 33)) > 0.5
    a, b = (rng.standard_normal((2, 40, 33)) * 5).astype(dtype)
    if dtype == np.complex64:
        a = (a + 1j * rng.standard_normal((40, 33))).astype(dtype)
    f = cpu_jit(lambda m, a, b: lax.select(m, a, b))
    assert "_select(" in kernel_source(f, mask, a, b)
    got = np.asarray(f(mask, a, b))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.where(mask, a, b))


def test_the_gradient_of_relu_on_random_signs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((100, 256)).astype(np.float32)
    g = rng.standard_normal((100, 256)).astype(np.float32)
    f = cpu_jit(lambda x, g: minijax.vjp(minijax.nn.relu, x)[1](g)[0])
    same_bits(f(x, g), np.where(x > 0, g, np.float32(0.0)))
