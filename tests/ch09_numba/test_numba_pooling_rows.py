"""Pooling NHWC images a row of features at a time, and the transpose of average
pooling without its padded copy (``backends/cpu/windowed.py``, ``plan/windows.py``).

When a window leaves the trailing axes alone (the features of an NHWC image),
the CPU kernel folds whole rows of features; and ``pad`` (zeros) read by a
window sum (how JAX writes the gradient of average pooling) becomes that window
sum's own padding and base dilation, so the padded array is never written.
Neither may change a bit: the window is visited in the same order, from the
same identity. Values are checked against NumPy references that fold each
window in float32 in row-major order (XLA's order), and against values recorded
from JAX 0.10.2.
"""
import itertools

import numpy as np
import pytest

import minijax
from minijax import lax

from tests.ch00_arrays.test_reduce_window import _padding as _pads
from tests.ch09_numba.conftest import cpu_jit, kernel_source

rng = np.random.default_rng(9)
INIT = {"sum": 0.0, "max": -np.inf, "min": np.inf}
FN = {"sum": lax.add, "max": lax.max, "min": lax.min}


def fold(kind, acc, v):
    """One step of the fold, as XLA's CPU code does it in float32."""
    if kind == "sum":
        return np.float32(acc + v)
    if np.isnan(acc) or np.isnan(v):
        return np.float32(np.nan)
    return np.float32(max(acc, v) if kind == "max" else min(acc, v))


def window_fold(x, kind, dims, strides, padding, base, wdil):
    """The window reduction by its definition: each window folded from the
    identity in float32, its elements in row-major order, padding and holes
    skipped."""
    x = np.asarray(x, np.float32)
    big = [1 + b * (n - 1) for n, b in zip(x.shape, base)]
    span = [1 + d * (k - 1) for k, d in zip(dims, wdil)]
    out_shape = [(b + lo + hi - s) // st + 1
                 for b, (lo, hi), s, st in zip(big, padding, span, strides)]
    out = np.empty(out_shape, np.float32)
    for o in itertools.product(*map(range, out_shape)):
        acc = np.float32(INIT[kind])
        for k in itertools.product(*map(range, dims)):
            q = [oo * st + kk * d - lo for oo, st, kk, d, (lo, _) in
                 zip(o, strides, k, wdil, padding)]
            if all(0 <= qq < b and qq % bb == 0 for qq, b, bb in zip(q, big, base)):
                acc = fold(kind, acc, x[tuple(qq // bb for qq, bb in zip(q, base))])
        out[o] = acc
    return out


def bits(x):
    """The float32 bits, every NaN as one NaN (its sign and payload are not compared)."""
    x = np.array(x, np.float32)
    x[np.isnan(x)] = np.nan
    return x.view(np.uint32)


NHWC_CASES = {  # dims, strides, padding, base_dilation, window_dilation (features left alone)
    "2x2 stride 2": ((1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    "3x3 stride 2 SAME": ((1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    "explicit padding": ((1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (2, 1), (0, 2), (0, 0)), None, None),
    "base dilation": ((1, 3, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (0, 0), (0, 0)),
                      (1, 2, 3, 1), None),
    "window dilation": ((1, 2, 2, 1), (1, 1, 2, 1), "VALID", None, (1, 2, 1, 1)),
    "batch windowed too": ((2, 2, 1, 1), (1, 1, 1, 1), "VALID", None, None),
}


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("case", NHWC_CASES)
def test_nhwc_pooling_goes_a_row_at_a_time_with_the_bits_of_the_definition(kind, case):
    dims, strides, padding, base, wdil = NHWC_CASES[case]
    x = (rng.standard_normal((3, 7, 6, 5)) * 10.0 ** rng.integers(-3, 6, (3, 7, 6, 5))
         ).astype(np.float32)
    x[0, 1, 1, 2] = np.nan
    x[1, 2, 3, 0] = -0.0
    f = cpu_jit(lambda x: lax.reduce_window(x, INIT[kind], FN[kind], dims, strides, padding,
                                            base, wdil))
    assert "at a time" in kernel_source(f, x)
    ones = (1,) * 4
    want = window_fold(x, kind, dims, strides, _pads(x.shape, dims, strides, padding, wdil),
                       base or ones, wdil or ones)
    np.testing.assert_array_equal(bits(f(x)), bits(want))


def test_a_windowed_last_axis_keeps_the_element_loops():
    x = rng.standard_normal((2, 6, 6)).astype(np.float32)
    f = cpu_jit(lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2), (1, 2, 2), "VALID"))
    assert "at a time" not in kernel_source(f, x)
    want = window_fold(x, "sum", (1, 2, 2), (1, 2, 2), ((0, 0),) * 3, (1, 1, 1), (1, 1, 1))
    np.testing.assert_array_equal(bits(f(x)), bits(want))


def test_integer_rows_wrap_as_integers():
    x = rng.integers(-2 ** 31, 2 ** 31 - 1, (2, 4, 4, 3), dtype=np.int64).astype(np.int32)
    f = cpu_jit(lambda x: lax.reduce_window(x, np.int32(0), lax.add, (1, 2, 2, 1),
                                            (1, 2, 2, 1), "VALID"))
    got = np.asarray(f(x))
    want = x.reshape(2, 2, 2, 2, 2, 3).astype(np.int64).sum(axis=(2, 4))
    want = ((want + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


# --- the transpose of average pooling: pad + window sum, folded ----------------------------
def avg_pool_transpose(window, strides, padding):
    def pool(h):
        return lax.reduce_window(h, 0.0, lax.add, window, strides, padding)
    return lambda h, g: minijax.vjp(pool, h)[1](g)[0]


# from JAX 0.10.2: the digits CNN's pooling (2x2, stride 2), one cotangent -0.0
G1 = np.array([-0.0, -0.016708428040146828, -0.18777482211589813, 0.9525678157806396,
               0.4867924749851227, -0.3196272850036621, 0.15375912189483643,
               0.5527752041816711, 1.3713452816009521, 0.12982802093029022,
               1.4476189613342285, -0.5941755175590515, -0.23383170366287231,
               -1.487204909324646, 0.8218958973884583, -1.0326086282730103,
               -1.032463788986206, 0.8420940637588501, -0.5326586365699768,
               -0.7531147599220276, 0.953045666217804, -0.1843002885580063, 0.92033851146698,
               -0.4026825726032257], np.float32).reshape(2, 2, 2, 3)

# from JAX 0.10.2: overlapping 3x3 windows, stride 2, SAME, cotangents of very
# different sizes (the order of the additions shows in the last bits)
G3 = np.array([2040.9190673828125, -25556.650390625, 418098.84375, -0.05677695944905281,
               -4526493.0, -2.1559715605690144e-05, -0.00020199861319269985, -2319323.75,
               -8652131.0, 0.33229994773864746, 0.00022578661446459591, -0.03526308014988899,
               -2.8128741178079508e-05, -668046.375, -1055.1505126953125, -390.80096435546875,
               0.004819453693926334, -2.385535955429077], np.float32).reshape(1, 3, 3, 2)
OUT3 = np.array([
    2040.9190673828125, -25556.650390625, 420139.75, -25556.70703125, 418098.84375,
    -0.05677695944905281, -4108394.25, -0.05679851770401001, -4526493.0,
    -2.1559715605690144e-05, 2040.9188232421875, -2344880.5, -8231991.0, -2344880.25,
    -8234032.0, 0.27552297711372375, -12760525.0, 0.24023835361003876, -4526493.0,
    -0.03528463840484619, -0.00020199861319269985, -2319323.75, -8652131.0, -2319323.5,
    -8652131.0, 0.33229994773864746, -8652131.0, 0.2970368564128876, 0.00022578661446459591,
    -0.03526308014988899, -0.00023012734891381115, -2987370.0, -8653186.0, -2987760.75,
    -8653186.0, -390.4686584472656, -8653186.0, -392.88946533203125, 0.0050452402792871,
    -2.4207990169525146, -2.8128741178079508e-05, -668046.375, -1055.1505126953125,
    -668437.1875, -1055.1505126953125, -390.80096435546875, -1055.145751953125,
    -393.1864929199219, 0.004819453693926334, -2.385535955429077], np.float32).reshape(1, 5, 5, 2)


def test_the_avg_pool_transpose_writes_no_padded_copy():
    f = cpu_jit(avg_pool_transpose((1, 2, 2, 1), (1, 2, 2, 1), "VALID"))
    h = np.zeros((2, 4, 4, 3), np.float32)
    src = kernel_source(f, h, G1)
    assert "pad[" not in src.split('"""', 2)[2]  # the kernel (the docstring shows the jaxpr)
    assert "base_dilation=(1, 2, 2, 1)" in src and "a row of (3,) at a time" in src
    got = np.asarray(f(h, G1))
    # each element is its window's one cotangent, added to the sum's 0.0 (so -0.0 is +0.0)
    want = np.float32(0.0) + np.repeat(np.repeat(G1, 2, axis=1), 2, axis=2)
    np.testing.assert_array_equal(bits(got), bits(want))
    assert not np.signbit(got[0, 0, 0, 0])  # from JAX 0.10.2: +0.0


def test_overlapping_windows_add_in_jaxs_order():
    f = cpu_jit(avg_pool_transpose((1, 3, 3, 1), (1, 2, 2, 1), "SAME"))
    h = np.zeros((1, 5, 5, 2), np.float32)
    got = np.asarray(f(h, G3))
    np.testing.assert_array_equal(bits(got), bits(OUT3))
    # the NumPy reference: the padded, dilated cotangent summed window by window in order
    padded = np.zeros((1, 7, 7, 2), np.float32)
    padded[:, 1:6:2, 1:6:2] = G3
    want = window_fold(padded, "sum", (1, 3, 3, 1), (1,) * 4, ((0, 0),) * 4, (1,) * 4, (1,) * 4)
    np.testing.assert_array_equal(bits(want), bits(OUT3))
    # and the order matters here: summed backwards, some elements differ
    backwards = window_fold(padded[:, ::-1, ::-1], "sum", (1, 3, 3, 1), (1,) * 4,
                            ((0, 0),) * 4, (1,) * 4, (1,) * 4)[:, ::-1, ::-1]
    assert np.any(bits(backwards) != bits(OUT3))


def test_a_pad_read_elsewhere_too_stays():
    """The window sum reads the pad's operand; the pad is still written for its other reader."""
    def f(x):
        p = lax.pad(x, 0.0, ((0, 0, 0), (1, 1, 1), (0, 0, 0)))
        return lax.reduce_window(p, 0.0, lax.add, (1, 2, 1), (1, 1, 1), "VALID"), p * 2
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s, p2 = cpu_jit(f)(x)
    padded = np.zeros((2, 7, 4), np.float32)
    padded[:, 1:6:2] = x
    np.testing.assert_array_equal(np.asarray(p2), padded * 2)
    want = window_fold(padded, "sum", (1, 2, 1), (1,) * 3, ((0, 0),) * 3, (1,) * 3, (1,) * 3)
    np.testing.assert_array_equal(bits(s), bits(want))


def test_a_pad_with_another_value_is_not_folded():
    def f(x):
        p = lax.pad(x, 1.0, ((0, 0, 0), (1, 1, 1), (0, 0, 0)))
        return lax.reduce_window(p, 0.0, lax.add, (1, 2, 1), (1, 1, 1), "VALID")
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    padded = np.ones((2, 7, 4), np.float32)
    padded[:, 1:6:2] = x
    want = window_fold(padded, "sum", (1, 2, 1), (1,) * 3, ((0, 0),) * 3, (1,) * 3, (1,) * 3)
    np.testing.assert_array_equal(bits(cpu_jit(f)(x)), bits(want))
