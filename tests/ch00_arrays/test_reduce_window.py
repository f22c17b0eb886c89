"""Windowed reductions (``lax.reduce_window``: sum, max and min pooling) and
the two primitives of max/min pooling's derivatives: values against direct
NumPy loops written here, gradients against the winner of each window and
finite differences, printed jaxprs and errors recorded from JAX 0.10.2, vmap
against a loop, and jit on every backend."""
import itertools

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

rng = np.random.default_rng(0)
IDENTITY = {"sum": 0.0, "max": -np.inf, "min": np.inf}
FN = {"sum": lax.add, "max": lax.max, "min": lax.min}


def direct(x, kind, dims, strides, padding, base, wdil):
    """The windowed reduction by its definition, element by element."""
    x = np.asarray(x, np.float64)
    big = [1 + b * (n - 1) for n, b in zip(x.shape, base)]
    span = [1 + d * (k - 1) for k, d in zip(dims, wdil)]
    out_shape = [max((b + lo + hi - s) // st + 1, 0)
                 for b, (lo, hi), s, st in zip(big, padding, span, strides)]
    out = np.zeros(out_shape)
    for o in itertools.product(*map(range, out_shape)):
        vals = [IDENTITY[kind]]
        for k in itertools.product(*map(range, dims)):
            q = [oo * st + kk * d - lo for oo, st, kk, d, (lo, _) in zip(o, strides, k, wdil, padding)]
            if all(0 <= qq < b and qq % bb == 0 for qq, b, bb in zip(q, big, base)):
                vals.append(x[tuple(qq // bb for qq, bb in zip(q, base))])
        out[o] = {"sum": np.sum, "max": np.max, "min": np.min}[kind](vals)
    return out


CASES = [  # shape, dims, strides, padding, base_dilation, window_dilation
    ((2, 7, 6), (1, 2, 2), (1, 2, 2), "VALID", None, None),
    ((2, 7, 6), (1, 3, 2), (1, 2, 1), "SAME", None, None),
    ((3, 7, 5), (2, 3, 2), (1, 2, 2), ((0, 0), (1, 2), (0, 1)), (1, 2, 1), (1, 1, 2)),
    ((9,), (3,), (2,), ((2, -1),), None, None),
]


def _padding(shape, dims, strides, padding, wdil):
    if not isinstance(padding, str):
        return padding
    span = [1 + d * (k - 1) for k, d in zip(dims, wdil or (1,) * len(dims))]
    return lax.padtype_to_pads(shape, span, strides, padding)


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_match_the_definition(kind, case, jit_backend):
    shape, dims, strides, padding, base, wdil = CASES[case]
    x = rng.standard_normal(shape).astype(np.float32)
    f = jax.jit(lambda x: lax.reduce_window(x, IDENTITY[kind], FN[kind], dims, strides, padding,
                                            base, wdil))
    got = f(x)
    ones = (1,) * len(shape)
    want = direct(x, kind, dims, strides, _padding(shape, dims, strides, padding, wdil),
                  base or ones, wdil or ones)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_integers_and_their_identities(jit_backend):
    x = rng.integers(-9, 9, (5, 8)).astype(np.int32)
    lowest = jnp.iinfo(jnp.int32).min
    got = jax.jit(lambda x: (lax.reduce_window(x, 0, lax.add, (2, 3), (1, 2), "VALID"),
                             lax.reduce_window(x, lowest, lax.max, (2, 3), (1, 2), "SAME")))(x)
    ones = (1, 1)
    np.testing.assert_array_equal(np.asarray(got[0]),
                                  direct(x, "sum", (2, 3), (1, 2), ((0, 0), (0, 0)), ones, ones))
    np.testing.assert_array_equal(np.asarray(got[1]), direct(
        x, "max", (2, 3), (1, 2), _padding((5, 8), (2, 3), (1, 2), "SAME", None), ones, ones))
    assert got[0].dtype == got[1].dtype == np.int32


def _winner_grad(x, dims, strides, padding, kind, ct):
    """The gradient of max/min pooling: each cotangent onto the first best element of its window."""
    g = np.zeros(x.shape)
    for o in itertools.product(*map(range, ct.shape)):
        best, at = None, None
        for k in itertools.product(*map(range, dims)):
            q = tuple(oo * st + kk - lo for oo, st, kk, (lo, _) in zip(o, strides, k, padding))
            v = x[q] if all(0 <= qq < n for qq, n in zip(q, x.shape)) else IDENTITY[kind]
            if best is None or (v > best if kind == "max" else v < best):
                best, at = v, q
        if all(0 <= qq < n for qq, n in zip(at, x.shape)):
            g[at] += ct[o]
    return g


@pytest.mark.parametrize("kind", ["max", "min"])
def test_pooling_gradient_goes_to_each_windows_winner(kind, jit_backend):
    x = rng.standard_normal((2, 7, 6)).astype(np.float32)
    padding = ((0, 0), (1, 1), (1, 0))
    pool = lambda x: lax.reduce_window(x, IDENTITY[kind], FN[kind], (1, 3, 3), (1, 2, 2),  # noqa: E731
                                       padding)
    out = pool(x)
    ct = rng.standard_normal(out.shape).astype(np.float32)
    g = jax.jit(jax.grad(lambda x: jnp.sum(pool(x) * ct)))(x)
    np.testing.assert_allclose(np.asarray(g), _winner_grad(x, (1, 3, 3), (1, 2, 2), padding,
                                                           kind, ct), rtol=1e-6, atol=1e-6)
    _, t = jax.jit(lambda x: jax.jvp(pool, (x,), (2 * x,)))(x)
    np.testing.assert_allclose(np.asarray(t), 2 * np.asarray(out), rtol=1e-6)  # homogeneous


def test_sum_pooling_gradient_matches_finite_differences(jit_backend):
    x = rng.standard_normal((2, 7, 6)).astype(np.float32)
    pool = lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 2), (1, 2, 1), "SAME",  # noqa: E731
                                       (1, 2, 1), (1, 1, 2))
    loss = lambda x: jnp.sum(jnp.sin(pool(x)))  # noqa: E731
    g = np.asarray(jax.jit(jax.grad(loss))(x))
    for _ in range(5):
        i = tuple(rng.integers(0, n) for n in x.shape)
        up, down = x.astype(np.float64), x.astype(np.float64)
        up[i] += 1e-3
        down[i] -= 1e-3
        numeric = (float(loss(up.astype(np.float32))) - float(loss(down.astype(np.float32)))) / 2e-3
        assert abs(g[i] - numeric) < 2e-2


def test_vmap_matches_a_loop(jit_backend):
    xs = rng.standard_normal((3, 2, 7, 6)).astype(np.float32)
    pool = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3), (1, 2, 2), "SAME")  # noqa: E731
    grad = jax.grad(lambda x: jnp.sum(jnp.sin(pool(x))))
    for f in (pool, grad):
        got = jax.jit(jax.vmap(f, in_axes=2))(xs)
        want = np.stack([np.asarray(f(xs[:, :, k])) for k in range(7)])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


# printed by JAX 0.10.2
JAXPRS = {
    "grad_max": """{ lambda ; a:f32[2,3,8,8]. let
    b:f32[2,3,4,4] = reduce_window_max[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] a
    _:f32[] = reduce_sum[axes=(0, 1, 2, 3) out_sharding=None] b
    c:f32[2,3,4,4] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3,8,8] = select_and_scatter_add[
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      select_prim=ge
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] c a
  in (d,) }""",
    "grad_sum": """{ lambda ; a:f32[2,3,8,8]. let
    b:f32[2,3,4,4] = reduce_window_sum[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] a
    _:f32[] = reduce_sum[axes=(0, 1, 2, 3) out_sharding=None] b
    c:f32[2,3,4,4] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3,9,9] = pad[
      padding_config=((np.int64(0), np.int64(0), 0), (np.int64(0), np.int64(0), 0), (np.int64(1), np.int64(1), 1), (np.int64(1), np.int64(1), 1))
    ] c 0.0:f32[]
    e:f32[2,3,8,8] = reduce_window_sum[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 1, 1)
    ] d
  in (e,) }""",
    "jvp_min": """{ lambda ; a:f32[2,3,8,8]. let
    b:f32[2,3,4,4] = reduce_window_min[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] a
    c:f32[2,3,4,4] = select_and_gather_add[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      select_prim=le
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] a a
  in (b, c) }""",
    "vmap_sum": """{ lambda ; a:f32[2,3,8,8]. let
    b:f32[2,3,4,4] = reduce_window_sum[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 1, 2, 2)
      window_strides=(1, 1, 2, 2)
    ] a
  in (b,) }""",
}


def test_printed_jaxprs_are_jaxs():
    x = jnp.ones((2, 3, 8, 8))
    assert str(jax.make_jaxpr(jax.grad(lambda x: lax.reduce_window(
        x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID").sum()))(x)) == JAXPRS["grad_max"]
    assert str(jax.make_jaxpr(jax.grad(lambda x: lax.reduce_window(
        x, 0., lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID").sum()))(x)) == JAXPRS["grad_sum"]
    assert str(jax.make_jaxpr(lambda x: jax.jvp(lambda x: lax.reduce_window(
        x, jnp.inf, lax.min, (1, 1, 2, 2), (1, 1, 2, 2), "SAME"), (x,), (x,)))(x)) == JAXPRS["jvp_min"]
    assert str(jax.make_jaxpr(jax.vmap(lambda x: lax.reduce_window(
        x, 0., lax.add, (1, 2, 2), (1, 2, 2), "VALID")))(x)) == JAXPRS["vmap_sum"]


X = jnp.ones((4, 6))
ERRORS = [  # from JAX 0.10.2
    (lambda: lax.reduce_window(X, 0., lax.add, (2,), (1,), "VALID"), TypeError,
     "reduce_window got the wrong number of window_dimensions for operand: got operand shape "
     "(4, 6) with window_dimensions (2,)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1,), "VALID"), TypeError,
     "reduce_window got inconsistent window_strides and window_dimensions: got window_strides "
     "(1,) and window_dimensions (2, 2)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 0), (1, 1), "VALID"), TypeError,
     "reduce_window window_dimensions must have every element be strictly positive, got (2, 0)."),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1, 1), "BAD"), RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got BAD."),
    (lambda: lax.reduce_window(X > 0, False, lax.add, (2, 2), (1, 1), "VALID"), TypeError,
     "operand to reduce_window_sum must have a number dtype, got bool"),
    (lambda: lax.reduce_window(X, 0., lax.add, (2, 2), (1, 1), "VALID", base_dilation=(1,)),
     TypeError, "reduce_window got inconsistent base_dilation and window_dimensions: got "
     "base_dilation (1,) and window_dimensions (2, 2)."),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_are_jaxs(case):
    call, cls, message = ERRORS[case]
    with pytest.raises(cls) as info:
        call()
    assert str(info.value) == message
