"""Chapter 09: cond, while and scan become native branches and loops of ONE kernel.

Expected values come from NumPy (plain Python loops over float32 arrays),
never from minijax itself. Every function here must compile (no fallback).
"""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.backends.cpu import loops
from minijax.backends.cpu.rules import LOWERINGS, Rule
from minijax.checkpoint import checkpoint_name
from tests.ch09_numba.conftest import kernel_source, cpu_jit, is_fallback

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3)).astype(np.float32)


def source(jitted, *args) -> str:
    """The entry function of the kernel (after the module docstring)."""
    return kernel_source(jitted, *args).split('"""')[-1]


def assert_close(got, expected, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


# --- cond / switch ----------------------------------------------------------------
def _switch(i, x):
    return lax.switch(i, [lambda a: a + 1, lambda a: a * 2, lambda a: -a], x)


SWITCH = cpu_jit(_switch)
COND = cpu_jit(lambda x: lax.cond(x.sum() > 0, lambda a: (a * 2, a.sum()),
                                  lambda a: (a - 1, jnp.float32(0)), x))


@pytest.mark.parametrize("index, expected", [(0, X + 1), (1, X * 2), (2, -X),
                                             (7, -X), (-3, X + 1)])  # clamped, as XLA does
def test_switch_is_a_native_if_elif_else(index, expected):
    assert_close(SWITCH(np.int32(index), X), expected)
    assert not is_fallback(SWITCH, np.int32(index), X)


def test_switch_source():
    text = source(SWITCH, np.int32(0), X)
    assert "if " in text and "elif " in text and "else:" in text
    assert "parallel=True" not in text and "prange" not in text  # a small kernel stays serial


@pytest.mark.parametrize("x", [X, -np.abs(X)])
def test_cond_with_several_outputs(x):
    y, s = COND(x)
    assert not is_fallback(COND, x)
    if x.sum() > 0:
        assert_close(y, x * 2)
        assert_close(s, x.sum(dtype=np.float32))
    else:
        assert_close(y, x - 1)
        assert_close(s, np.float32(0))


# --- while_loop / fori_loop -----------------------------------------------------------
def _collatz_and_doubling(n, x):
    def cond(c):
        return c["n"] != 1

    def body(c):
        n = jnp.where(c["n"] % 2 == 0, c["n"] // 2, 3 * c["n"] + 1)
        return {"n": n, "steps": c["steps"] + 1, "x": c["x"] * 1.5}
    out = lax.while_loop(cond, body, {"n": n, "steps": 0, "x": x})
    return out, lax.fori_loop(0, 5, lambda i, c: c * 2 + i, x)


WHILE = cpu_jit(_collatz_and_doubling)


def test_while_loop_with_a_pytree_carry_and_fori_loop():
    out, doubled = WHILE(np.int32(27), X)
    assert not is_fallback(WHILE, np.int32(27), X)
    assert int(out["n"]) == 1 and int(out["steps"]) == 111
    assert out["steps"].dtype == np.int32
    x = X
    for _ in range(111):
        x = x * np.float32(1.5)
    assert_close(out["x"], x)
    y = X
    for i in range(5):
        y = y * np.float32(2) + np.float32(i)
    assert_close(doubled, y)
    text = source(WHILE, np.int32(27), X)
    assert "while True:" in text and "break" in text


# --- scan -------------------------------------------------------------------------
def _scan(x, reverse):
    def body(carry, row):
        i, total, flag = carry["i"], carry["total"], carry["flag"]
        new = {"i": i + 1, "total": total + row, "flag": jnp.logical_not(flag)}
        return new, (row * total, i, flag)
    init = {"i": jnp.int32(0), "total": jnp.zeros(3, jnp.float32), "flag": True}
    return lax.scan(body, init, x, reverse=reverse)


SCAN = cpu_jit(_scan, static_argnums=1)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_carries_of_several_dtypes_and_stacked_ys(reverse):
    carry, (prods, steps, flags) = SCAN(X, reverse)
    assert not is_fallback(SCAN, X, reverse)
    total, i, flag = np.zeros(3, np.float32), 0, True
    exp_prods, exp_steps, exp_flags = np.zeros_like(X), np.zeros(4, np.int32), np.zeros(4, bool)
    for k in (range(3, -1, -1) if reverse else range(4)):
        exp_prods[k], exp_steps[k], exp_flags[k] = X[k] * total, i, flag
        total, i, flag = total + X[k], i + 1, not flag
    assert_close(carry["total"], total)
    assert int(carry["i"]) == 4 and carry["i"].dtype == np.int32
    assert bool(carry["flag"]) is True and carry["flag"].dtype == np.bool_
    assert_close(prods, exp_prods)
    assert_close(steps, exp_steps)
    assert_close(flags, exp_flags)
    text = source(SCAN, X, reverse)
    assert ("range(3, -1, -1)" in text) == reverse
    assert "for it0 in range(" in text


def test_scan_without_xs_zero_length_and_map():
    def f(x):
        powers = lax.scan(lambda c, _: (c * 2, c), x[0], None, length=3)
        empty = lax.scan(lambda c, r: (c + r, c), x[0], x[:0])
        return powers, empty, lax.map(lambda r: r.sum(), x)
    f_jit = cpu_jit(f)
    (last, ys), (c0, ys0), sums = f_jit(X)
    assert not is_fallback(f_jit, X)
    assert_close(last, X[0] * 8)
    assert_close(ys, np.stack([X[0], X[0] * 2, X[0] * 4]))
    assert_close(c0, X[0])
    assert ys0.shape == (0, 3)
    assert_close(sums, X.sum(1))


def test_nested_control_flow_and_constants_of_inner_jits():
    scale = np.arange(3, dtype=np.float32)  # a constant captured by an inner jit
    inner = minijax.jit(lambda a: a * scale)

    def body(c, row):
        c = lax.cond(row.sum() > 0, lambda q: inner(q) + row,
                     lambda q: lax.while_loop(lambda v: v.sum() < 50, lambda v: v * 2 + 1, q), c)
        return c, c.max()
    f_jit = cpu_jit(lambda x: lax.scan(body, jnp.ones(3), x))
    carry, maxes = f_jit(X)
    assert not is_fallback(f_jit, X)
    c, exp = np.ones(3, np.float32), []
    for row in X:
        if row.sum() > 0:
            c = c * scale + row
        else:
            while c.sum() < 50:
                c = c * np.float32(2) + np.float32(1)
        exp.append(c.max())
    assert_close(carry, c)
    assert_close(maxes, np.array(exp, np.float32))
    text = source(f_jit, X)
    assert "while True:" in text and "for it0" in text and "if " in text


# --- transformations: grad and vmap produce more control flow ---------------------
def test_grad_of_scan_and_fori_loop():
    def loss(x):
        c, ys = lax.scan(lambda c, r: (jnp.sin(c) * r, c), jnp.ones(3), x)
        return c.sum() + ys.sum()
    g = cpu_jit(minijax.grad(loss))
    x = X.astype(np.float64)
    # forward: c_{k+1} = sin(c_k) * x_k; backward by hand
    cs = [np.ones(3)]
    for row in x:
        cs.append(np.sin(cs[-1]) * row)
    grad, ct = np.zeros_like(x), np.ones(3)  # d(c_4.sum())/d c_4
    for k in range(3, -1, -1):
        grad[k] = ct * np.sin(cs[k])
        ct = ct * x[k] * np.cos(cs[k]) + (1.0 if k > 0 else 0.0)  # + ys[k] = c_k
    assert_close(g(X), grad.astype(np.float32), rtol=1e-4)
    assert not is_fallback(g, X)

    h = cpu_jit(minijax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * c, x).sum()))
    v, dv = x, np.ones_like(x)
    for _ in range(3):
        v, dv = np.sin(v) * v, dv * (np.cos(v) * v + np.sin(v))
    assert_close(h(X), dv.astype(np.float32), rtol=1e-4)
    assert not is_fallback(h, X)


def test_vmap_of_cond_and_of_while_with_a_batched_predicate():
    vcond = cpu_jit(minijax.vmap(lambda a: lax.cond(a.sum() > 0, lambda q: q * 2,
                                                    lambda q: q - 1, a)))
    assert "select_n" in str(minijax.make_jaxpr(vcond)(X))
    assert_close(vcond(X), np.where(X.sum(1, keepdims=True) > 0, X * 2, X - 1))
    assert not is_fallback(vcond, X)

    vwhile = cpu_jit(minijax.vmap(lambda a: lax.while_loop(lambda v: v.sum() < 10,
                                                           lambda v: v + 1.5, a)))
    rows = []
    for row in X:
        while row.sum() < 10:
            row = row + np.float32(1.5)
        rows.append(row)
    assert_close(vwhile(X), np.stack(rows))
    assert not is_fallback(vwhile, X)
    assert ".any()" in source(vwhile, X)


# --- calls inlined like jit ----------------------------------------------------------
@minijax.custom_jvp
def _exp(x):
    return jnp.exp(x)


_exp.defjvp(lambda primals, tangents: (_exp(primals[0]), tangents[0] * 3.0))


@minijax.custom_vjp
def _triple(x):
    return x * 3.0


_triple.defvjp(lambda x: (_triple(x), None), lambda res, ct: (ct * 2.0,))


def test_checkpoint_and_custom_derivatives_are_inlined():
    def f(x):
        y = minijax.checkpoint(lambda q: checkpoint_name(jnp.sin(q), "s") * 2)(x)
        return y + _exp(x) + _triple(x)
    f_jit = cpu_jit(f)
    assert not is_fallback(f_jit, X)
    x = X.astype(np.float64)
    assert_close(f_jit(X), (np.sin(x) * 2 + np.exp(x) + x * 3).astype(np.float32), rtol=1e-5)

    g = cpu_jit(minijax.grad(lambda x: f(x).sum()))
    assert not is_fallback(g, X)
    assert_close(g(X), (np.cos(x) * 2 + 3 + 2).astype(np.float32), rtol=1e-5)


# --- what cannot be lowered falls back, whole ------------------------------------------
def _cumsum_in_a_loop(x):
    return lax.scan(lambda c, r: (c + jnp.cumsum(r), c), jnp.zeros(3), x)


def _not_implemented(w, eqn, x):
    raise NotImplementedError("not today")


@pytest.mark.numba_fallback  # a test of the fallback itself
@pytest.mark.parametrize("lowering", [None, _not_implemented])
def test_a_body_that_cannot_be_lowered_falls_back(monkeypatch, lowering):
    if lowering is None:
        monkeypatch.delitem(LOWERINGS, lax.cumsum_p)
    else:
        monkeypatch.setitem(LOWERINGS, lax.cumsum_p, Rule(lowering, "call"))
    f_jit = cpu_jit(_cumsum_in_a_loop)
    assert is_fallback(f_jit, X)
    assert "cumsum" in kernel_source(f_jit, X).splitlines()[0] or lowering is not None
    carry, ys = f_jit(X)
    assert_close(carry, np.cumsum(X, 1).sum(0))
    assert_close(ys[1:], np.cumsum(np.cumsum(X, 1), 0)[:-1])


# --- parallel loops ----------------------------------------------------------------------
def test_prange_for_large_kernels_only():
    """The big elementwise nest and the big full sum run on threads (the sum in
    64 fixed chunks, folded in order); the small nest does not."""
    n = loops.ELEMENTWISE_PARALLEL_THRESHOLD // 256
    big = rng.standard_normal((n, 256)).astype(np.float32)

    def f(x):
        return jnp.tanh(x) * 2 + x.sum(), x[:2, :2] + 1  # a big and a small loop nest
    f_jit = cpu_jit(f)
    text = source(f_jit, big)
    assert "parallel=dict(prange=True" in text and text.count("prange(") == 2
    assert f"for i0 in prange({n}):" in text
    assert "for i0c in prange(64):  # each chunk's own partial results" in text
    y, small = f_jit(big)
    x = big.astype(np.float64)
    assert_close(y, (np.tanh(x) * 2 + x.sum()).astype(np.float32), rtol=1e-5, atol=1e-4)
    assert_close(small, big[:2, :2] + 1)


def test_gcd_and_lcm_are_one_while_loop_over_a_big_array():
    # jnp.gcd is JAX's while_loop of Euclid steps (until every b is 0); unrolled to a
    # fixed 48 steps it was a 750-equation loop body that Numba took a minute to compile
    n = 80_000
    x = np.random.default_rng(0).integers(-1000, 1000, n).astype(np.int32)
    y = np.random.default_rng(1).integers(-60, 60, n).astype(np.int32)
    gcd = cpu_jit(jnp.gcd)
    assert "while True:" in source(gcd, x, y)
    np.testing.assert_array_equal(np.asarray(gcd(x, y)), np.gcd(x, y))
    np.testing.assert_array_equal(np.asarray(cpu_jit(jnp.lcm)(x, y)), np.lcm(x, y))
    # expected value from JAX 0.10.2: the product wraps
    assert int(jnp.lcm(np.int32(2147483647), np.int32(2))) == -2
