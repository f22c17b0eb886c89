"""``lax.reduce_window`` with a computation other than a sum, max or min: the
generic ``reduce_window`` primitive holding the computation's jaxpr. Values
and printed jaxprs from JAX 0.10.2 (its docstring example among them), vmap,
jvp, JAX's error for reverse mode, several operands reduced together, and jit
on every backend."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

rng = np.random.default_rng(0)
Y = rng.standard_normal((3, 7)).astype(np.float32)


def logsumexp_pool(y):
    return lax.reduce_window(y, -jnp.inf, jnp.logaddexp, (2, 3), (1, 2), "SAME")


def test_the_docstring_example(jit_backend):
    x = jnp.arange(10, dtype="float32")
    initial = jnp.float32(1)
    out = jax.jit(lambda x: lax.reduce_window(x, initial, lax.mul, window_dimensions=(2,)))(x)
    # from JAX 0.10.2
    assert repr(out) == "Array([ 0.,  2.,  6., 12., 20., 30., 42., 56., 72.], dtype=float32)"


def _reference(y, fn, init, dims, strides, pads):
    out_shape = [(n + lo + hi - k) // s + 1 for n, (lo, hi), k, s in zip(y.shape, pads, dims, strides)]
    out = np.empty(out_shape, np.float64)
    for o in np.ndindex(*out_shape):
        acc = init
        for k in np.ndindex(*dims):
            i = [oo * s + kk - lo for oo, s, kk, (lo, _) in zip(o, strides, k, pads)]
            if all(0 <= ii < n for ii, n in zip(i, y.shape)):
                acc = fn(acc, float(y[tuple(i)]))
        out[o] = acc
    return out


def test_values_match_a_python_fold(jit_backend):
    got = jax.jit(logsumexp_pool)(Y)
    pads = lax.padtype_to_pads(Y.shape, (2, 3), (1, 2), "SAME")
    want = _reference(Y, np.logaddexp, -np.inf, (2, 3), (1, 2), pads)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    dilated = jax.jit(lambda y: lax.reduce_window(y, 1., lax.mul, (2, 2), (1, 1), "VALID",
                                                  base_dilation=(2, 1), window_dilation=(1, 2)))(Y)
    # from JAX 0.10.2: holes of the base dilation are skipped (as padding is)
    np.testing.assert_allclose(np.asarray(dilated)[:, 0], [0.08052, -1.19846, -1.19846, 0.6781],
                               atol=1e-5)


def test_vmap_and_jvp(jit_backend):
    ys = np.stack([Y, 2 * Y])
    np.testing.assert_allclose(np.asarray(jax.jit(jax.vmap(logsumexp_pool))(ys)),
                               np.stack([np.asarray(logsumexp_pool(y)) for y in ys]), rtol=1e-6)
    _, t = jax.jit(lambda y: jax.jvp(logsumexp_pool, (y,), (y,)))(Y)
    # from JAX 0.10.2 (rounded to 4 decimals)
    want = [[0.4171, 0.034, -0.0408, 0.8171], [0.36, -0.6245, 0.4191, 0.5286],
            [-0.9245, -0.5019, 0.6597, 0.7654]]
    np.testing.assert_allclose(np.asarray(t), want, atol=2e-4)


def test_several_operands_reduced_together(jit_backend):
    f = lambda a, b: lax.reduce_window(  # noqa: E731
        (a, b), (0., 1.), lambda u, v: (u[0] + v[0], u[1] * v[1]), (2,), (1,), "VALID")
    s, p = jax.jit(f)(Y[0], Y[1])
    np.testing.assert_allclose(np.asarray(s), Y[0][:-1] + Y[0][1:], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(p), Y[1][:-1] * Y[1][1:], rtol=1e-6)


def test_reverse_mode_is_jaxs_error():
    with pytest.raises(ValueError, match="Linearization failed to produce known values for all "
                                         "output primals"):
        jax.grad(lambda y: jnp.sum(logsumexp_pool(y)))(Y)


# printed by JAX 0.10.2
MUL_JAXPR = """\
{ lambda ; a:f32[10]. let
    b:f32[5] = reduce_window[
      base_dilation=(1,)
      consts=()
      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }
      padding=((0, 0),)
      window_dilation=(1,)
      window_dimensions=(2,)
      window_strides=(2,)
    ] a 1.0:f32[]
  in (b,) }"""


def test_printed_jaxpr_is_jaxs():
    x = jnp.arange(10, dtype="float32")
    assert str(jax.make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (2,), "VALID"))(x)) \
        == MUL_JAXPR
