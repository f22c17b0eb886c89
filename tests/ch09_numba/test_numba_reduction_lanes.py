"""Reductions over the innermost axes, accumulated in lanes
(``backends/cpu/writer.KernelWriter._lanes_loop_nest``).

A sum, product, max or min over the last axes (the kept axes first) is cut into
rows of ``LANES`` partial results that LLVM can vectorize, folded in a fixed
order at the end; the partial row at the end goes into lane 0. Results are
checked against NumPy (in float64 for sums and products), NaNs included.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.backends.cpu.writer import LANES
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(5)
WIDTHS = [LANES - 1, LANES, LANES + 5, 3 * LANES, 1000]


def lowered(f, *args):
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args)
    return jitted, kernel_source(jitted, *args)


@pytest.mark.parametrize("width", WIDTHS)
def test_row_reductions_match_numpy(width):
    x = rng.standard_normal((7, width)).astype(np.float32)
    jitted, src = lowered(lambda x: (jnp.sum(x, axis=1), jnp.max(x, axis=1),
                                     jnp.min(x, axis=1), jnp.prod(1 + x / 64, axis=1)), x)
    assert ("_lanes = np.empty" in src) == (width >= LANES)
    s, hi, lo, p = (np.asarray(o) for o in jitted(x))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(s, x64.sum(1), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(hi, x.max(1))
    np.testing.assert_array_equal(lo, x.min(1))
    factors = (1 + x / np.float32(64)).astype(np.float64)  # rounded to float32, as in the kernel
    np.testing.assert_allclose(p, factors.prod(1), rtol=1e-6)


@pytest.mark.parametrize("where", [3, LANES + 2, 2 * LANES + 1])  # a lane, another lane, the tail
def test_a_nan_anywhere_in_the_row_wins_max_and_min(where):
    x = rng.standard_normal((4, 2 * LANES + 3)).astype(np.float32)
    x[2, where] = np.nan
    jitted, _ = lowered(lambda x: (jnp.max(x, axis=-1), jnp.min(x, axis=-1)), x)
    for out, ref in zip(jitted(x), (x.max(1), x.min(1))):
        np.testing.assert_array_equal(np.asarray(out), ref)  # NaN in row 2 only


def test_full_and_trailing_multi_axis_reductions():
    x = rng.standard_normal((3, 5, 130)).astype(np.float32)
    jitted, src = lowered(lambda x: (jnp.sum(x), jnp.sum(x, axis=(1, 2)), jnp.max(x)), x)
    assert src.count("_lanes = np.empty") == 3
    total, per_block, hi = (np.asarray(o) for o in jitted(x))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(total, x64.sum(), rtol=1e-6)
    np.testing.assert_allclose(per_block, x64.sum((1, 2)), rtol=1e-6)
    assert hi == x.max()


def test_a_fused_producer_and_a_store_inside_the_lanes():
    """softmax's pattern: exp(x - max) is stored and summed in the same nest."""
    x = rng.standard_normal((6, 200)).astype(np.float32)
    jitted, src = lowered(lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True), x)
    assert "_lanes = np.empty" in src
    e = np.exp(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(jitted(x)), e / e.sum(1, keepdims=True), rtol=2e-6)


def test_integer_sums_are_exact_and_leading_axis_reductions_keep_the_plain_loop():
    x = rng.integers(-1000, 1000, (9, 300)).astype(np.int32)
    jitted, src = lowered(lambda x: (jnp.sum(x, axis=1), jnp.sum(x, axis=0)), x)
    assert src.count("_lanes = np.empty") == 1  # axis 0: vectorized over the kept axis already
    rows, cols = (np.asarray(o) for o in jitted(x))
    np.testing.assert_array_equal(rows, x.sum(1))
    np.testing.assert_array_equal(cols, x.sum(0))


def test_a_big_nest_runs_chunks_of_rows_in_parallel_with_the_same_bits(monkeypatch):
    """Each row is still summed by one thread in one order: the serial kernel
    (a threshold above the size) gives the same bits."""
    from minijax.backends.cpu import writer
    x = rng.standard_normal((300, 260)).astype(np.float32)  # 78000 >= 2**16 elements

    def f(x):
        return jnp.sum(jnp.exp(x), axis=1), jnp.max(x * 2.0, axis=1)
    jitted, src = lowered(f, x)
    assert "for i0c in prange(" in src
    parallel = [np.asarray(o) for o in jitted(x)]
    monkeypatch.setattr(writer, "PARALLEL_THRESHOLD", 10 ** 9)
    serial_jit, serial_src = lowered(lambda x: f(x), x)
    assert "prange" not in serial_src
    for a, b in zip(parallel, serial_jit(x)):
        np.testing.assert_array_equal(a, np.asarray(b))
    np.testing.assert_allclose(parallel[0], np.exp(x.astype(np.float64)).sum(1), rtol=1e-6)
