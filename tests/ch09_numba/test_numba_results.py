"""Results of Numba kernels against NumPy: fusion, reductions, dot, XLA semantics."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3)).astype(np.float32)
W = rng.standard_normal((3, 5)).astype(np.float32)
B = rng.standard_normal((5,)).astype(np.float32)


def selu(x, alpha=1.6732632, scale=1.0507010):
    return scale * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def test_selu_matches_numpy_and_stays_float32():
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    f = cpu_jit(selu)
    out = f(x)
    assert not is_fallback(f, x)
    expected = 1.0507010 * np.where(x > 0, x, 1.6732632 * np.exp(x.astype(np.float64)) - 1.6732632)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=2e-6, atol=1e-6)


def test_elementwise_chain_with_broadcasting_and_mixed_dtypes():
    def f(x, i, v):
        y = x * i + v[None, :]          # int32 promoted to float32, broadcast row
        z = (x > 0).astype(jnp.int32) + i
        return jnp.tanh(y) * 2.0, z, jnp.outer(v, v), jnp.arange(6).reshape(2, 3) + 1
    i = np.arange(3, dtype=np.int32)
    v = np.array([0.5, -1.0, 2.0], np.float32)
    outs = cpu_jit(f)(X, i, v)
    expected = (np.tanh(X * i + v[None, :]) * 2, (X > 0).astype(np.int32) + i,
                np.outer(v, v), np.arange(6).reshape(2, 3) + 1)
    for out, exp, dtype in zip(outs, expected, [np.float32, np.int32, np.float32, np.int32]):
        assert out.dtype == dtype
        np.testing.assert_allclose(np.asarray(out), exp, rtol=1e-6, atol=1e-6)


def test_reductions_with_fused_producers():
    def f(x):
        return (jnp.sum(x * 2.0, axis=0), jnp.max(jnp.exp(x), axis=1), jnp.argmax(x, axis=1),
                jnp.argmin(x, axis=0), jnp.prod(x), jnp.min(x), jnp.mean(x ** 2))
    outs = cpu_jit(f)(X)
    expected = (np.sum(X * 2, axis=0), np.max(np.exp(X), axis=1), np.argmax(X, axis=1),
                np.argmin(X, axis=0), np.prod(X), np.min(X), np.mean(X ** 2))
    for out, exp in zip(outs, expected):
        assert out.dtype == (np.int32 if exp.dtype.kind == "i" else np.float32)
        np.testing.assert_allclose(np.asarray(out), exp, rtol=1e-5, atol=1e-6)


def test_softmax_fuses_and_matches_numpy():
    def softmax(x):
        e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)
    out = cpu_jit(softmax)(X)
    e = np.exp(X - X.max(-1, keepdims=True))
    np.testing.assert_allclose(np.asarray(out), e / e.sum(-1, keepdims=True), rtol=1e-6)


@pytest.mark.slow  # several Numba compilations
def test_dot_matmul_and_mlp():
    def mlp(x, w, b):
        h = jnp.tanh(x @ w + b)
        return h, jnp.sum(h), x.T @ x
    h, s, gram = cpu_jit(mlp)(X, W, B)
    ref = np.tanh(X @ W + B)
    np.testing.assert_allclose(np.asarray(h), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(s), ref.sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gram), X.T @ X, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_batched_and_integer_dot():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    out = cpu_jit(lambda a, b: jnp.einsum("bij,bjk->bik", a, b))(a, b)
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5, atol=1e-6)
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = cpu_jit(lambda a, b: a @ b)(i, i.T.copy())
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), i @ i.T)


def test_integer_division_truncates_as_xla():
    a = np.array([7, -7, 7, -7, 5, -2**31, -2**31, -2**31, 2**31 - 1], np.int32)
    b = np.array([2, 2, -2, -2, 0, -1, 33, -3, -2**31], np.int32)
    q, r, fq, fr = cpu_jit(lambda a, b: (lax.div(a, b), lax.rem(a, b), a // b, a % b))(a, b)
    # expected values from JAX 0.10.2 (C semantics; x / 0 = -1, x % 0 = x, INT_MIN / -1
    # wraps; |INT_MIN| does not fit in int32, so the kernel divides in 64 bits)
    np.testing.assert_array_equal(np.asarray(q), [3, -3, -3, 3, -1, -2**31, -65075262,
                                                  715827882, 0])
    np.testing.assert_array_equal(np.asarray(r), [1, -1, 1, -1, 5, 0, -2, -2, 2**31 - 1])
    np.testing.assert_array_equal(np.asarray(fq), [3, -4, -4, 3, -2, -2**31, -65075263,
                                                   715827882, -1])
    np.testing.assert_array_equal(np.asarray(fr), [1, 1, -1, -1, 0, 0, 31, -2, -1])
    assert q.dtype == r.dtype == fq.dtype == fr.dtype == np.int32


def test_max_min_propagate_nan():
    a = np.array([1.0, np.nan, -0.0, 3.0], np.float32)
    b = np.array([np.nan, 2.0, 0.0, 1.0], np.float32)
    mx, mn, red, arg = cpu_jit(lambda a, b: (lax.max(a, b), lax.min(a, b), jnp.max(a),
                                             jnp.argmax(a)))(a, b)
    np.testing.assert_array_equal(np.asarray(mx), [np.nan, np.nan, 0.0, 3.0])
    np.testing.assert_array_equal(np.asarray(mn), [np.nan, np.nan, -0.0, 1.0])
    assert np.signbit(np.asarray(mn)[2]) and not np.signbit(np.asarray(mx)[2])
    assert np.isnan(float(red)) and int(arg) == 1  # the first NaN wins


def test_conversions_and_scalars():
    x = np.array([-2.7, -0.5, 0.5, 2.5, np.nan, 3e9, np.inf, -np.inf], np.float32)
    i, r, e, s = cpu_jit(lambda x: (x.astype(jnp.int32), lax.round(x), jnp.round(x),
                                    jnp.sign(x)))(x)
    # expected values from JAX 0.10.2
    np.testing.assert_array_equal(np.asarray(i)[:6], [-2, 0, 0, 2, 0, 2**31 - 1])  # saturates
    np.testing.assert_array_equal(np.asarray(r), [-3, -1, 1, 3, np.nan, 3e9, np.inf, -np.inf])
    np.testing.assert_array_equal(np.asarray(e), np.round(x))                  # to even
    np.testing.assert_array_equal(np.asarray(s), [-1, -1, 1, 1, np.nan, 1, 1, -1])
    out = cpu_jit(lambda s: jnp.sin(s) * 2 + 1)(np.float32(0.5))
    assert out.shape == () and out.dtype == np.float32
    np.testing.assert_allclose(float(out), np.sin(0.5) * 2 + 1, rtol=1e-6)


def test_nested_jit_is_inlined_and_shapes_lowered():
    inner = cpu_jit(lambda z: jnp.sin(z) * 2)
    def f(x):
        return inner(x) + inner(x + 1), x.reshape(12), x[1:3, ::2], jnp.flip(x, 0), x.T
    f_jit = cpu_jit(f)
    outs = f_jit(X)
    assert not is_fallback(f_jit, X)
    expected = (np.sin(X) * 2 + np.sin(X + 1) * 2, X.reshape(12), X[1:3, ::2], X[::-1], X.T)
    for out, exp in zip(outs, expected):
        np.testing.assert_allclose(np.asarray(out), exp, rtol=1e-6)


@pytest.mark.numba_fallback  # a test of the fallback itself
def test_unsupported_primitive_falls_back_to_the_interpreter(monkeypatch):
    from minijax.backends.cpu.rules import LOWERINGS
    from minijax.control_flow.conditionals import cond_p
    monkeypatch.delitem(LOWERINGS, cond_p)  # as if cond had no lowering
    def f(x):
        return lax.cond(x.sum() > 0, lambda z: z * 2, lambda z: -z, x)
    f_jit = cpu_jit(f)
    assert is_fallback(f_jit, X)
    assert "cond" in kernel_source(f_jit, X).splitlines()[0]
    np.testing.assert_allclose(np.asarray(f_jit(X)), X * 2 if X.sum() > 0 else -X)


def test_outputs_that_are_inputs_or_literals():
    a, b, c = cpu_jit(lambda x: (x, x + 1, 3.0))(X)
    np.testing.assert_array_equal(np.asarray(a), X)
    np.testing.assert_array_equal(np.asarray(b), X + 1)
    assert float(c) == 3.0 and c.dtype == np.float32
