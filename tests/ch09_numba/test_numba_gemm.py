"""Matrix products as BLAS sgemm calls (``backends/cpu/helpers.gemm_helper``).

A float32 product of two matrices is written as ``_sgemm_<ta><tb>_1t(a, b, out)``:
the operands as they are stored, a transpose flag for each, on one BLAS thread
(a big product: one call per block of columns, ``test_numba_product_bits.py``).
Vectors and batches become ``_sgemm_nn_1t`` calls per batch element; integers keep plain
loops. A transpose that is not folded into a product is a copy that goes tile
by tile. Results are checked against NumPy in float64.
"""
import re

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.backends.cpu.loops import ELEMENTWISE_PARALLEL_THRESHOLD
from minijax import lax
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(11)
A = rng.standard_normal((5, 7)).astype(np.float32)   # 5x7
B = rng.standard_normal((7, 3)).astype(np.float32)   # 7x3
C = rng.standard_normal((5, 4)).astype(np.float32)   # 5x4
D = rng.standard_normal((6, 7)).astype(np.float32)   # 6x7
E = rng.standard_normal((3, 5)).astype(np.float32)   # 3x5

CASES = {  # name: (function, operands, expected, helper)
    "a @ b": (lambda a, b: a @ b, (A, B), lambda a, b: a @ b, "_sgemm_nn_1t"),
    "a.T @ c": (lambda a, c: a.T @ c, (A, C), lambda a, c: a.T @ c, "_sgemm_tn_1t"),
    "a @ d.T": (lambda a, d: lax.dot_general(a, d, (((1,), (1,)), ((), ()))), (A, D),
                lambda a, d: a @ d.T, "_sgemm_nt_1t"),
    "c.T @ e.T": (lambda c, e: lax.dot_general(c, e, (((0,), (1,)), ((), ()))), (C, E),
                  lambda c, e: c.T @ e.T, "_sgemm_tt_1t"),
}


@pytest.mark.parametrize("case", CASES)
def test_every_transpose_pair_is_one_sgemm_call(case):
    f, args, expected, helper = CASES[case]
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args)
    src = kernel_source(jitted, *args)
    assert f"{helper}(" in src and "np.dot" not in src
    want = expected(*(x.astype(np.float64) for x in args))
    out = np.asarray(jitted(*args))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_a_strided_operand_is_made_contiguous_first():
    jitted = cpu_jit(lambda x, b: x[:, 1:8] @ b)
    x = rng.standard_normal((5, 9)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jitted(x, B)),
                               x[:, 1:8].astype(np.float64) @ B, rtol=1e-5, atol=1e-5)


def test_a_product_inside_a_loop_body():
    w = (rng.standard_normal((7, 7)) / 3).astype(np.float32)

    def f(w, x):
        return lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w), x)
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, w, A)
    h = A.astype(np.float64)
    for _ in range(3):
        h = np.tanh(h @ w)
    np.testing.assert_allclose(np.asarray(jitted(w, A)), h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, expected, shapes", [
    (lambda a, v: a @ v, np.dot, ((5, 7), (7,))),
    (lambda v, a: v @ a, np.dot, ((5,), (5, 7))),
    (lambda u, v: jnp.dot(u, v), np.dot, ((7,), (7,))),
    (lambda x, y: jnp.einsum("bij,bjk->bik", x, y), lambda x, y: np.einsum("bij,bjk->bik", x, y),
     ((3, 4, 5), (3, 5, 2))),
])
def test_vectors_and_batches_are_sgemm_calls_too(f, expected, shapes):
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    jitted = cpu_jit(f)
    src = kernel_source(jitted, *args)
    assert "_sgemm_nn_1t(" in src and "np.dot" not in src
    want = expected(*(x.astype(np.float64) for x in args))
    np.testing.assert_allclose(np.asarray(jitted(*args)), want, rtol=1e-5, atol=1e-5)


def test_integer_products_stay_exact_loops():
    a = rng.integers(-9, 9, (4, 6)).astype(np.int32)
    b = rng.integers(-9, 9, (6, 3)).astype(np.int32)
    jitted = cpu_jit(lambda a, b: a @ b)
    assert "_dot_loop(" in kernel_source(jitted, a, b)
    np.testing.assert_array_equal(np.asarray(jitted(a, b)), a @ b)


# --- transposing copies (backends/cpu/loops.permuted_copy) ----------------------------------
@pytest.mark.parametrize("shape, perm", [((37, 70), (1, 0)), ((300, 301), (1, 0)),
                                         ((3, 40, 50), (0, 2, 1)), ((40, 3, 50), (2, 1, 0)),
                                         ((6, 33, 35, 2), (3, 2, 0, 1)), ((5, 4), (1, 0))])
def test_a_transposing_copy_goes_tile_by_tile(shape, perm):
    from minijax.backends.cpu.loops import TRANSPOSE_TILE
    x = rng.standard_normal(shape).astype(np.float32)
    jitted = cpu_jit(lambda x: jnp.transpose(x, perm) * 1.0)
    assert not is_fallback(jitted, x)
    src = kernel_source(jitted, x)
    j = perm.index(len(perm) - 1)
    tiled = j != len(perm) - 1 and min(shape[perm[j]], shape[perm[-1]]) >= TRANSPOSE_TILE
    assert (f"* {TRANSPOSE_TILE} + {TRANSPOSE_TILE}" in src) == tiled
    assert bool(re.search(r"_t\d in prange\(", src)) == (tiled and x.size >= ELEMENTWISE_PARALLEL_THRESHOLD)
    np.testing.assert_array_equal(np.asarray(jitted(x)), np.transpose(x, perm))
