"""Buffer reuse (``backends/plan/buffers.buffer_donors``): a loop nest may write its result
into the buffer of a temporary it reads for the last time, never into one that
is read later, directly or through a view. Results checked against NumPy."""
import numpy as np

import minijax.numpy as jnp
from minijax import lax
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def source(f, *args):
    jitted = cpu_jit(f)
    assert not is_fallback(jitted, *args)
    return jitted, kernel_source(jitted, *args)


def test_the_result_of_a_matmul_is_overwritten_by_its_only_reader():
    jitted, src = source(lambda x: jnp.dot(x, x.T) + 3.0, X)
    assert "reuses the buffer" in src
    np.testing.assert_allclose(np.asarray(jitted(X)), X @ X.T + 3, rtol=1e-6)


def test_a_temporary_read_again_later_keeps_its_buffer():
    def f(x):
        b = jnp.dot(x, x.T)
        c = jnp.sin(b) + 1.0          # not b's last reader...
        d = jnp.dot(c, b)             # ...this is
        return d + b
    jitted, src = source(f, X)
    b = X @ X.T
    c = np.sin(b) + 1
    np.testing.assert_allclose(np.asarray(jitted(X)), c @ b + b, rtol=1e-5)


def test_a_view_of_a_temporary_keeps_it_alive():
    def f(x):
        b = jnp.exp(x) * 2.0           # a stored temporary
        v = lax.reshape(b, (4, 3))     # a view of b's buffer
        c = b + 1.0                    # b's last direct reader
        return c, v * 3.0              # ...but v still reads b's memory
    jitted, _ = source(f, X)
    c, v = jitted(X)
    b = np.exp(X) * 2
    np.testing.assert_allclose(np.asarray(c), b + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(v), b.reshape(4, 3) * 3, rtol=1e-6)


def test_outputs_are_never_overwritten():
    def f(x):
        b = jnp.dot(x, x.T)
        return b, b * 2.0
    jitted, _ = source(f, X)
    b, c = jitted(X)
    np.testing.assert_allclose(np.asarray(b), X @ X.T, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(c), 2 * (X @ X.T), rtol=1e-6)


def test_reuse_inside_a_loop_body():
    def f(x):
        def body(i, c):
            return jnp.tanh(jnp.dot(c, c.T) @ c) * 0.1 + c
        return lax.fori_loop(0, 3, body, x)
    jitted, _ = source(f, X)
    c = X.astype(np.float64)
    for _ in range(3):
        c = np.tanh((c @ c.T) @ c) * 0.1 + c
    np.testing.assert_allclose(np.asarray(jitted(X)), c, rtol=1e-5)
