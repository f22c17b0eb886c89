"""The CPU lowering of convolutions (``backends/cpu/conv.py``): its three forms.

Each form is checked on the convolutions that choose it (the generated
kernel says which), against the definition written in NumPy here or in the
chapter 00 tests (float64 loops, no im2col): im2col + products, the batch
sum (the kernel's gradient, computed from the input and the cotangent in
their own NHWC layout) and the kernel-position products (fewer output than
input features: the gradient with respect to a one-channel image). Gradients
of NHWC convolutions, as chapter 14's CNN takes them, are checked against a
NumPy reference, and the results against themselves under 1 and 2 threads.
"""
import numba
import numpy as np
import pytest

import minijax as jax
from minijax import lax
from tests.ch00_arrays.test_convolution import direct_conv
from tests.ch09_numba.conftest import cpu_jit, kernel_source

rng = np.random.default_rng(19)

#: The comment each form writes into the kernel.
MARKS = {"im2col": "rows of P: im2col", "batch sum": "shares of the rows of P'",
         "kernel-position products": "Y = X @ K"}

#: JAX's dimension numbers for the kernel's gradient of an NHWC/HWIO convolution
#: (from JAX 0.10.2's jaxpr of jax.grad): batch and features swap roles.
KERNEL_GRAD_DN = lax.ConvDimensionNumbers((3, 0, 1, 2), (3, 0, 1, 2), (2, 3, 0, 1))
NHWC = ("NHWC", "HWIO", "NHWC")

CASES = {  # name: (form, lhs shape, rhs shape, strides, padding, lhs_dil, rhs_dil, dn)
    "kernel grad, SAME": ("batch sum", (8, 6, 7, 3), (8, 6, 7, 4), (1, 1), [(1, 1), (1, 1)],
                          (1, 1), (1, 1), KERNEL_GRAD_DN),
    "kernel grad, strided and dilated": ("batch sum", (6, 9, 8, 2), (6, 4, 3, 5), (1, 2),
                                         [(1, 0), (0, 1)], (1, 1), (2, 3), KERNEL_GRAD_DN),
    "one output feature": ("kernel-position products", (4, 7, 6, 6), (3, 3, 6, 1), (1, 1),
                           [(1, 1), (1, 1)], (1, 1), (1, 1), NHWC),
    "input dilated (a strided conv's input grad)": (
        "kernel-position products", (3, 5, 4, 8), (3, 2, 8, 2), (1, 1), [(2, 2), (1, 1)],
        (2, 2), (1, 1), NHWC),
    "strided, kernel dilated, NCHW": ("kernel-position products", (2, 8, 9, 7), (3, 8, 2, 3),
                                      (2, 1), [(1, 2), (0, 1)], (1, 1), (1, 2), None),
    "more output features": ("im2col", (3, 6, 5, 4), (3, 3, 4, 6), (1, 1), [(1, 1), (0, 2)],
                             (1, 1), (1, 1), NHWC),
}


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("case", CASES)
def test_each_form_matches_the_definition(case, dtype):
    form, ls, rs, strides, padding, ld, rd, spec = CASES[case]
    if dtype == np.int32:
        x, w = rng.integers(-4, 5, ls).astype(dtype), rng.integers(-4, 5, rs).astype(dtype)
    else:
        x, w = rng.standard_normal(ls).astype(dtype), rng.standard_normal(rs).astype(dtype)
    f = cpu_jit(lambda x, w: lax.conv_general_dilated(x, w, strides, padding, ld, rd, spec))
    assert MARKS[form] in kernel_source(f, x, w)
    got = np.asarray(f(x, w))
    want = direct_conv(x, w, strides, padding, ld, rd, lax.conv_dimension_numbers(ls, rs, spec))
    assert got.dtype == dtype and got.shape == want.shape
    if dtype == np.int32:
        np.testing.assert_array_equal(got, want.astype(dtype))
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def nhwc_grads(x, w, g, strides, padding, rhs_dilation):
    """The gradients of ``sum(conv(x, w) * g)`` (NHWC, HWIO) in float64, one
    kernel position at a time: the window that position reads is a strided
    slice of the padded input; the kernel's gradient contracts it with ``g``,
    and ``g`` times the kernel position's matrix is added back into it."""
    x, w, g = (a.astype(np.float64) for a in (x, w, g))
    (plo, phi), (qlo, qhi) = padding
    padded = np.pad(x, ((0, 0), (plo, phi), (qlo, qhi), (0, 0)))
    dpadded, dw = np.zeros_like(padded), np.zeros_like(w)
    ho, wo = g.shape[1:3]
    for kh in range(w.shape[0]):
        for kw in range(w.shape[1]):
            r0, c0 = kh * rhs_dilation[0], kw * rhs_dilation[1]
            rows = slice(r0, r0 + strides[0] * (ho - 1) + 1, strides[0])
            cols = slice(c0, c0 + strides[1] * (wo - 1) + 1, strides[1])
            dw[kh, kw] = np.einsum("nhwc,nhwo->co", padded[:, rows, cols], g)
            dpadded[:, rows, cols] += np.einsum("nhwo,co->nhwc", g, w[kh, kw])
    return dpadded[:, plo:plo + x.shape[1], qlo:qlo + x.shape[2]], dw


GRAD_CASES = [  # x shape, w shape (HWIO), strides, padding, rhs_dilation
    ((4, 9, 8, 1), (3, 3, 1, 5), (1, 1), [(1, 1), (1, 1)], (1, 1)),   # chapter 14's first layer
    ((5, 4, 4, 6), (3, 3, 6, 8), (1, 1), [(1, 1), (1, 1)], (1, 1)),   # and its second
    ((3, 9, 7, 6), (3, 2, 6, 2), (2, 1), [(1, 1), (0, 1)], (1, 2)),
    ((2, 7, 7, 4), (3, 3, 4, 8), (2, 2), [(0, 0), (0, 0)], (1, 1)),
]


@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_nhwc_gradients_match_numpy(case):
    xs, ws, strides, padding, rd = GRAD_CASES[case]
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=rd,
                                        dimension_numbers=NHWC)
    g = rng.standard_normal(jax.eval_shape(conv, x, w).shape).astype(np.float32)
    grads = cpu_jit(lambda x, w, g: jax.vjp(conv, x, w)[1](g))
    dx, dw = grads(x, w, g)
    want_dx, want_dw = nhwc_grads(x, w, g, strides, padding, rd)
    np.testing.assert_allclose(np.asarray(dx), want_dx, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dw), want_dw, rtol=1e-5, atol=1e-4)


def test_the_results_do_not_depend_on_the_number_of_threads():
    """Blocks and partial sums are fixed by the shapes: 1 or 2 threads, same bits."""
    x = rng.standard_normal((16, 12, 12, 8)).astype(np.float32)
    w = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    g = rng.standard_normal((16, 12, 12, 16)).astype(np.float32)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC)
    f = cpu_jit(lambda x, w, g: (conv(x, w), *jax.vjp(conv, x, w)[1](g)))
    source = kernel_source(f, x, w, g)
    assert all(mark in source for mark in MARKS.values()) and "prange" in source
    before = numba.get_num_threads()
    results = []
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            results.append([np.asarray(r) for r in f(x, w, g)])
    finally:
        numba.set_num_threads(before)
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)
