"""A jitted matrix product gives the same bits whatever the machine's load.

Before each kernel call the thread budget (``minijax.backends.cpu.thread_budget``)
gives OpenBLAS and Numba as many threads as there are free cores: two on an
idle 2-core machine, one on a busy one. OpenBLAS's ``sgemm`` on two threads
cuts the product into other blocks than on one, and its block edges sum in
another order, so the last bits of the result used to depend on the load.
A jitted function must give the same bits on every call: the products now
run on one BLAS thread each (a very big one in blocks of columns fixed by
the shapes, spread over Numba's threads, as many as the budget gives).

Each case runs once as if the machine were busy (one free core) and once as if
it were idle (every core free); the bits must be equal, and close to NumPy's
float64 product.
"""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.backends.cpu import blas_threads, thread_budget

from tests.ch09_numba.conftest import cpu_jit, kernel_source

needs_two_threads = pytest.mark.skipif(
    not blas_threads.have_local_threads or blas_threads.default_threads < 2
    or thread_budget.cores() < 2,
    reason="one BLAS thread or one core here: the count cannot change")

rng = np.random.default_rng(20)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def blas_count() -> int:
    """OpenBLAS's thread count now (set and put back: the setter returns the old one)."""
    n = blas_threads.set_threads(1)
    blas_threads.set_threads(n)
    return n


def run_with_free_cores(monkeypatch, free: int, fn, *args):
    """``fn(*args)`` as NumPy arrays, the thread budget seeing ``free`` free cores."""
    others = thread_budget.cores() - free
    monkeypatch.setattr(thread_budget, "others_running", lambda: others)
    thread_budget._forget_sample()
    try:
        out = minijax.tree_util.tree_map(np.asarray, fn(*args))
        minijax.block_until_ready(out)
        expected = thread_budget.threads_for(others, thread_budget.cores(),
                                             blas_threads.default_threads)
        assert blas_count() == expected  # the count the budget gave was really in force
        return out
    finally:
        thread_budget._forget_sample()
        blas_threads.set_threads(blas_threads.default_threads)


def assert_same_bits_busy_and_idle(monkeypatch, fn, *args):
    busy = run_with_free_cores(monkeypatch, 1, fn, *args)
    idle = run_with_free_cores(monkeypatch, thread_budget.cores(), fn, *args)
    for b, i in zip(minijax.tree_util.tree_leaves(busy), minijax.tree_util.tree_leaves(idle)):
        assert b.dtype == i.dtype
        differ = int(np.sum(b.view(np.uint32) != i.view(np.uint32)))
        assert differ == 0, f"{differ} of {b.size} elements differ between 1 and 2 threads"
    return idle


# The products of the digits MLP's training step (64-256-256-10, batch 100):
# forward x @ w, then the gradients g @ w.T (inputs) and h.T @ g (weights).
PRODUCTS = {
    "x @ w1": (lambda a, b: a @ b, (100, 64), (64, 256)),
    "h @ w2": (lambda a, b: a @ b, (100, 256), (256, 256)),
    "h @ w3": (lambda a, b: a @ b, (100, 256), (256, 10)),
    "g @ w2.T": (lambda a, b: lax.dot_general(a, b, (((1,), (1,)), ((), ()))),
                 (100, 256), (256, 256)),
    "g @ w3.T": (lambda a, b: lax.dot_general(a, b, (((1,), (1,)), ((), ()))),
                 (100, 10), (256, 10)),
    "h.T @ g (w2)": (lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))),
                     (100, 256), (100, 256)),
    "x.T @ g (w1)": (lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))),
                     (100, 64), (100, 256)),
    "batched": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (3, 100, 256), (3, 256, 256)),
}


@needs_two_threads
@pytest.mark.parametrize("case", PRODUCTS)
def test_a_product_has_the_same_bits_on_one_and_two_threads(monkeypatch, case):
    fn, sa, sb = PRODUCTS[case]
    a, b = f32(*sa), f32(*sb)
    jitted = cpu_jit(fn)
    out = assert_same_bits_busy_and_idle(monkeypatch, jitted, a, b)
    want = np.asarray(fn(a.astype(np.float64), b.astype(np.float64))
                      if case != "batched" else np.einsum("bij,bjk->bik", a.astype(np.float64),
                                                          b.astype(np.float64)))
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def mlp_step(params, x, y):
    """One SGD step of a 64-256-256-10 relu MLP with a softmax cross-entropy loss."""
    def loss(params):
        h = x
        for w, b in params[:-1]:
            h = minijax.nn.relu(h @ w + b)
        w, b = params[-1]
        return -jnp.mean(jnp.sum(minijax.nn.log_softmax(h @ w + b) * y, axis=-1))
    value, grads = minijax.value_and_grad(loss)(params)
    return minijax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), value


@needs_two_threads
def test_an_mlp_training_step_has_the_same_bits_on_one_and_two_threads(monkeypatch):
    sizes = (64, 256, 256, 10)
    params = [(f32(m, n, scale=1 / np.sqrt(m)), f32(n, scale=0.1))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = rng.random((100, 64), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 100)]
    jitted = cpu_jit(mlp_step)
    new_params, value = assert_same_bits_busy_and_idle(monkeypatch, jitted, params, x, y)
    # the loss against NumPy in float64
    h = x.astype(np.float64)
    for w, b in params[:-1]:
        h = np.maximum(h @ w + b, 0)
    z = h @ params[-1][0] + params[-1][1]
    z = z - z.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    np.testing.assert_allclose(value, -np.mean(np.sum(logp * y, -1)), rtol=1e-5)


def test_a_very_big_product_is_cut_into_column_blocks_by_its_shape():
    """The blocks are written into the kernel: they depend on the shapes alone."""
    a, b = f32(256, 512), f32(512, 512)
    src = kernel_source(cpu_jit(lambda a, b: a @ b), a, b)
    assert "_sgemm_nn_1t(" in src and "prange(4)" in src
    mlp = kernel_source(cpu_jit(lambda a, b: a @ b), f32(100, 256), f32(256, 256))
    assert "_sgemm_nn_1t(" in mlp and "prange(" not in mlp  # whole, on one thread


@needs_two_threads
@pytest.mark.parametrize("trans", ["a @ b", "a.T @ b.T"])
def test_a_product_in_blocks_has_the_same_bits_on_one_and_two_threads(monkeypatch, trans):
    if trans == "a @ b":
        fn, a, b = (lambda a, b: a @ b), f32(256, 512), f32(512, 520)
        want = a.astype(np.float64) @ b
    else:
        fn = lambda a, b: lax.dot_general(a, b, (((0,), (1,)), ((), ())))  # noqa: E731
        a, b = f32(512, 256), f32(520, 512)
        want = a.T.astype(np.float64) @ b.T
    jitted = cpu_jit(fn)
    assert "prange(" in kernel_source(jitted, a, b)
    out = assert_same_bits_busy_and_idle(monkeypatch, jitted, a, b)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-3)
