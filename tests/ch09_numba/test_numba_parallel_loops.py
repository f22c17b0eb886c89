"""How big loop nests are launched in parallel, and products of batched,
transposed operands (``backends/cpu/writer.py``).

A fused loop nest of at least ``ELEMENTWISE_PARALLEL_THRESHOLD`` elements is a ``prange``
loop; the kernel is compiled with Numba's parallel rewrites restricted to
``prange`` (the others cost compile time and gain nothing here). Results are
checked against NumPy.
"""
import re

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from minijax.backends.cpu import helpers, loops
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(7)
ROWS = loops.ELEMENTWISE_PARALLEL_THRESHOLD // 256 + 44           # 300 rows of 256: a big nest
BIG = rng.standard_normal((ROWS, 256)).astype(np.float32)
SQUARE = (rng.standard_normal((300, 300)) / 10).astype(np.float32)  # 90000 >= 2**16


def compiled(f, *args):
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args)
    return jitted, kernel_source(jitted, *args)


def wave(x):
    return jnp.sin(x) * 2.0 + jnp.exp(-x * x) - jnp.tanh(x)


WAVE, WAVE_SRC = compiled(wave, BIG)


def wave_numpy(x):
    x = x.astype(np.float64)
    return np.sin(x) * 2 + np.exp(-x * x) - np.tanh(x)


def test_a_big_fused_kernel_matches_numpy():
    np.testing.assert_allclose(np.asarray(WAVE(BIG)), wave_numpy(BIG), rtol=2e-6, atol=2e-6)


def test_a_big_fused_kernel_runs_its_outer_loop_with_prange():
    assert f"for i0 in prange({ROWS}):" in WAVE_SRC
    assert "for i1 in range(256):" in WAVE_SRC
    assert "parallel=dict(prange=True, numpy=False" in WAVE_SRC
    assert WAVE_SRC.count("parallel=dict(") == 1  # the entry only; helpers stay serial


def test_every_function_keeps_its_njit_options():
    imported = re.search(r"^from (minijax_helpers_\w+) import (.*)$", WAVE_SRC, re.M)
    assert imported, "the kernel imports its helpers from the shared module"
    assert {"_exp32", "_sin_end", "_tanh32"} <= set(imported.group(2).split(", "))
    library = helpers.helper_library_source()
    decorators = re.findall(r"@njit\([^)]*\)", WAVE_SRC) + re.findall(r"@njit\([^)]*\)", library)
    assert len(decorators) >= 2  # the helpers (sin, exp, tanh) and the entry
    for d in decorators:
        assert 'nogil=True, cache=True, error_model="numpy"' in d
    assert "parallel" not in library  # helpers stay serial
    assert re.search(r'fastmath=\{"contract"\}\)\ndef _sin_end\(', library)
    assert re.search(r'no_cfunc_wrapper=True\)\ndef _exp32\(', library)  # fma32, no contraction


def test_a_big_loop_nest_inside_fori_loop():
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 0.5 + 1.0, x)
    jitted, src = compiled(f, BIG)
    assert "while True:" in src or "for it" in src
    assert "prange(" in src
    expected = BIG.astype(np.float64)
    for _ in range(3):
        expected = np.sin(expected) * 0.5 + 1
    np.testing.assert_allclose(np.asarray(jitted(BIG)), expected, rtol=2e-6, atol=2e-6)


def test_a_big_nest_still_reuses_the_buffer_of_a_matmul():
    side = int(np.sqrt(loops.ELEMENTWISE_PARALLEL_THRESHOLD)) + 8
    square = rng.standard_normal((side, side)).astype(np.float32)
    jitted, src = compiled(lambda x: jnp.dot(x, x) + 3.0, square)
    assert "reuses the buffer" in src and f"prange({side})" in src
    x = square.astype(np.float64)
    np.testing.assert_allclose(np.asarray(jitted(square)), x @ x + 3, rtol=1e-4, atol=1e-3)


# --- batched products: transposed operands are copied by element loops ------------------
A = rng.standard_normal((2, 3, 4)).astype(np.float32)
B = rng.standard_normal((4, 2, 5)).astype(np.float32)
BATCHED = (((2,), (0,)), ((0,), (1,)))  # contract A's 2 with B's 0; batch A's 0 with B's 1


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_batched_dot_with_a_transposed_operand(dtype):
    a, b = (A * 4).astype(dtype), (B * 4).astype(dtype)
    jitted, src = compiled(lambda x, y: lax.dot_general(x, y, BATCHED), a, b)
    assert ".transpose(" not in src  # Numba compiles x.transpose(perm) slowly
    expected = np.einsum("bmk,kbn->bmn", a.astype(np.float64), b.astype(np.float64))
    out = np.asarray(jitted(a, b))
    assert out.dtype == dtype and out.shape == (2, 3, 5)
    np.testing.assert_allclose(out, expected.astype(dtype), rtol=1e-5, atol=1e-5)


def test_a_transposed_product_is_the_product_of_the_swapped_operands():
    """grad of ``x @ w`` w.r.t. ``w`` is ``(g^T x)^T``-shaped work: reverse mode writes
    a dot_general and a transpose; the plan folds them into one product (no copy)."""
    import minijax
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    w = np.linspace(0.5, -0.5, 6, dtype=np.float32).reshape(3, 2)
    loss = lambda w, x: jnp.sum(jnp.tanh(x @ w))  # noqa: E731
    jitted = cpu_jit(minijax.grad(loss))
    assert not is_fallback(jitted, w, x)
    text = kernel_source(jitted, w, x)
    assert "transpose" not in text.split("The plan:")[1]
    expected = x.astype(np.float64).T @ (1 - np.tanh(x.astype(np.float64) @ w) ** 2)
    np.testing.assert_allclose(np.asarray(jitted(w, x)), expected, rtol=1e-5)
