"""Chapter 04: vmap composes with the other interpreters (jvp, printing, itself).

Derivatives are checked against their closed forms and finite differences;
batched values against NumPy loops.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters import ad, batching
from minijax.interpreters.ad import jvp
from minijax.interpreters.batching import vmap
from minijax.interpreters.printing import print_primitives

xs = np.linspace(-1, 1, 5, dtype=np.float32)
ones = np.ones(5, np.float32)


def f(x):
    return jnp.sin(x) * x


def df(x):
    return np.cos(x) * x + np.sin(x)


def test_vmap_of_jvp():
    y, t = vmap(lambda x, v: jvp(f, (x,), (v,)))(xs, ones)
    np.testing.assert_allclose(y, np.sin(xs) * xs, rtol=1e-6)
    np.testing.assert_allclose(t, df(xs), rtol=1e-6)


def test_jvp_of_vmap():
    y, t = jvp(vmap(f), (xs,), (ones,))
    np.testing.assert_allclose(y, np.sin(xs) * xs, rtol=1e-6)
    np.testing.assert_allclose(t, df(xs), rtol=1e-6)


def test_jvp_of_vmap_with_unbatched_tangent_input():
    """The weights are shared by the batch; their tangent flows into every example."""
    W = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    loss = lambda w, x: jnp.tanh(w @ x).sum()
    dW = np.ones_like(W)
    _, t1 = jvp(lambda w: vmap(lambda x: loss(w, x))(X), (W,), (dW,))
    t2 = vmap(lambda x: jvp(lambda w: loss(w, x), (W,), (dW,))[1])(X)
    eps = 1e-3
    fd = [(loss(W + eps * dW, x) - loss(W - eps * dW, x)) / (2 * eps) for x in X]
    np.testing.assert_allclose(t1, t2, rtol=1e-6)
    np.testing.assert_allclose(t1, np.array(fd), rtol=1e-2)


def test_vmap_of_vmap_of_jvp_in_axes_1():
    x = np.random.default_rng(0).normal(size=(3, 2, 4)).astype(np.float32)
    g = lambda v: jvp(lambda u: jnp.sum(u ** 3), (v,), (jnp.ones_like(v),))[1]
    out = vmap(vmap(g, in_axes=1), in_axes=1)(x)  # examples are x[:, i, j]
    np.testing.assert_allclose(out, (3 * x ** 2).sum(0), rtol=1e-5)


def test_push_basis_makes_jacfwd_one_vmapped_jvp():
    ad.set_push_basis(batching.push_basis)  # what minijax/__init__ installs
    x = np.array([0.5, -1.0, 2.0], np.float32)
    jac = ad.jacfwd(lambda v: jnp.sin(v) * jnp.sum(v))(x)
    want = np.diag(np.cos(x) * x.sum()) + np.sin(x)[:, None]
    np.testing.assert_allclose(jac, want, rtol=1e-5, atol=1e-6)
    log = []
    print_primitives(ad.jacfwd(lambda v: jnp.sin(v) * 2.0), echo=False, log=log)(x)
    assert sum(" cos " in line for line in log) == 1  # one pass for all three columns


def test_print_trace_inside_and_outside_vmap():
    outer, inner = [], []
    print_primitives(vmap(lambda v: jnp.sin(v)), echo=False, log=outer)(np.ones((3, 2)))
    vmap(print_primitives(lambda v: jnp.sin(v), echo=False, log=inner))(np.ones((3, 2)))
    assert outer == ["b:f32[3,2] = sin a"]  # the batched program
    assert inner == ["b:f32[2] = sin a"]  # one example's program


@pytest.mark.parametrize("in_axes", [0, 1])
def test_batched_matrix_vector_product_is_one_dot_general(in_axes):
    log = []
    m = np.ones((2, 3), np.float32)
    vs = np.ones((4, 3), np.float32) if in_axes == 0 else np.ones((3, 4), np.float32)
    out = print_primitives(vmap(lambda v: lax.dot(m, v), in_axes=in_axes), echo=False,
                           log=log)(vs)
    np.testing.assert_array_equal(out, np.full((4, 2), 3.0))
    assert [line.split(" = ")[1].split("[")[0] for line in log][0] == "dot_general"
