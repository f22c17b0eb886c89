"""Chapter 09's own float32 matrix product (``backends/cpu/small_gemm.py``).

Checked three ways: against NumPy in float64 (every transposition, shapes
with every edge of the tiles, rows apart, ``out +=``); bit for bit against
the definition it claims, ``fma`` steps in the order of ``p`` (emulated in
extended precision); and bit for bit against what XLA computes under JAX
0.10.2 for the digits MLP's products. And kernels really call it.
"""
import hashlib

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.backends.cpu import small_gemm

SHAPES = [(1, 1, 1), (3, 5, 7), (4, 64, 9), (7, 65, 33), (100, 256, 256), (100, 10, 256),
          (17, 130, 3), (256, 256, 100), (5, 16, 0)]


def _operands(rng, m, n, k, ta, tb):
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    return a, b


def _op(x, t):
    return x.T if t else x


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_against_numpy(m, n, k, ta, tb):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a, b = _operands(rng, m, n, k, ta, tb)
    got = small_gemm.matmul(a, b, trans_a=ta, trans_b=tb)
    want = _op(a, ta).astype(np.float64) @ _op(b, tb).astype(np.float64)
    assert got.shape == (m, n) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1, np.abs(want).max(initial=0)))


def test_accumulate_and_rows_apart():
    """``out += a @ b`` into a block of a wider matrix, reading blocks of wider ones."""
    rng = np.random.default_rng(0)
    big_a = rng.standard_normal((30, 50)).astype(np.float32)
    big_b = rng.standard_normal((40, 70)).astype(np.float32)
    big_out = rng.standard_normal((30, 90)).astype(np.float32)
    before = big_out.copy()
    a, b, out = big_a[:, 3:40], big_b[2:39, 5:60], big_out[:, 10:65]
    small_gemm.matmul(a, b, out=out, accumulate=True)
    want = before[:, 10:65] + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(big_out[:, 10:65], want, rtol=1e-5, atol=1e-4)
    untouched = np.ones(90, bool)
    untouched[10:65] = False
    np.testing.assert_array_equal(big_out[:, untouched], before[:, untouched])


def _fma_in_order(a, b):
    """The definition, one rounding per step: s = fma(a[i, p], b[p, j], s), p = 0, 1, ...
    (a product of two float32 is exact in extended precision; the sum is rounded
    once there and once to float32, which differs from one rounding so rarely that
    these inputs, small integers over powers of two, never meet it)."""
    s = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        exact = a[:, p, None].astype(np.longdouble) * b[None, p, :].astype(np.longdouble)
        s = (exact + s.astype(np.longdouble)).astype(np.float32)
    return s


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False)])
def test_bits_are_in_order_fma_steps(ta, tb):
    rng = np.random.default_rng(1)
    m, n, k = 13, 37, 50
    a = (rng.integers(-2 ** 11, 2 ** 11, (m, k)) / 2 ** rng.integers(0, 12, (m, k))).astype(np.float32)
    b = (rng.integers(-2 ** 11, 2 ** 11, (k, n)) / 2 ** rng.integers(0, 12, (k, n))).astype(np.float32)
    want = _fma_in_order(a, b)
    got = small_gemm.matmul(np.ascontiguousarray(a.T) if ta else a,
                            np.ascontiguousarray(b.T) if tb else b, trans_a=ta, trans_b=tb)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def _digest(x) -> str:
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]


def test_bits_of_jax():
    """The MLP's three kinds of products (forward, and both of the backward pass),
    jitted: the same bits as JAX 0.10.2 on the CPU."""
    rng = np.random.default_rng(20)
    a = rng.standard_normal((100, 64)).astype(np.float32)
    b = rng.standard_normal((64, 256)).astype(np.float32)
    c = rng.standard_normal((256, 256)).astype(np.float32)
    h = np.asarray(minijax.jit(lambda a, b: a @ b)(a, b))
    assert _digest(h) == "404e362a17b8ae05"        # from JAX 0.10.2
    assert h[3, :3].tolist() == [14.940189361572266, -5.974287986755371, 6.882936954498291]
    h2 = np.asarray(minijax.jit(lambda h, c: h @ c.T)(h, c))
    assert _digest(h2) == "ac8ca49924b4c634"       # from JAX 0.10.2
    h3 = np.asarray(minijax.jit(lambda a, h: a.T @ h)(a, h))
    assert _digest(h3) == "b37359633be414df"       # from JAX 0.10.2


def test_kernels_call_it():
    """A jitted product calls our product, not OpenBLAS's sgemm directly."""
    x = np.ones((8, 8), np.float32)
    source = minijax.jit(lambda x: jnp.tanh(x @ x)).lower(x).compile().as_text(emitted=True)
    assert small_gemm.SYMBOL in source and "numba_xxgemm" not in source


def test_what_goes_to_blas():
    """Decided by the call's arguments alone (never by the machine's state)."""
    s = ord("s")
    assert small_gemm.handles(s, 1.0, 0.0, 100, 256, 256)
    assert small_gemm.handles(s, 1.0, 1.0, 100, 256, 256)
    assert not small_gemm.handles(ord("d"), 1.0, 0.0, 10, 10, 10)      # float64
    assert not small_gemm.handles(s, 2.0, 0.0, 10, 10, 10)             # alpha
    assert not small_gemm.handles(s, 1.0, 0.0, 10, 10, small_gemm.MAX_K + 1)
    big = small_gemm.MAX_WORK // 1024 + 1
    assert not small_gemm.handles(s, 1.0, 0.0, big, 1024, 1024)


def test_a_product_blas_computes_is_right_too():
    """Past MAX_K the call goes on to BLAS, through the same symbol."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, small_gemm.MAX_K + 5)).astype(np.float32)
    b = rng.standard_normal((small_gemm.MAX_K + 5, 4)).astype(np.float32)
    np.testing.assert_allclose(small_gemm.matmul(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("width", [8, 16])
def test_ir_for_both_vector_widths(width):
    """The module is valid LLVM IR for AVX2's 8 floats and AVX-512's 16."""
    import llvmlite.binding as llvm
    module = llvm.parse_assembly(small_gemm.gemm_ir(width))
    module.verify()
    assert small_gemm.SYMBOL in {f.name for f in module.functions}
