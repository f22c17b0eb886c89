"""Control flow under every transformation: vmap (against stacking), jvp and grad
(against finite differences), jit, and their compositions."""
import numpy as np
import pytest

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.cond, lax.scan...)
import minijax.numpy as jnp
from minijax import lax
from minijax.autodiff import grad, jacrev, linearize
from minijax.jit import jit

# --- the functions under test: (name, f, example argument) ------------------------------------
W = np.array([0.3, -0.7, 1.1], np.float32)


def f_cond(x):
    return lax.cond(x > 0.5, lambda x: x * jnp.sin(x), lambda x: jnp.cos(x) - x ** 3, x)


def f_switch(x):
    i = jnp.floor(x * 2).astype(jnp.int32)
    return lax.switch(i, [jnp.sin, lambda x: x * x, lambda x: jnp.exp(-x)], x)


def f_scan(x):
    def step(c, w):
        h = jnp.tanh(c["h"] * w + x)
        return {"h": h, "n": c["n"] + 1}, h * c["h"]
    carry, ys = lax.scan(step, {"h": x, "n": 0}, W)
    return carry["h"] + ys.sum()


def f_scan_reverse(x):
    return lax.scan(lambda c, w: (c * w + jnp.sin(x), c), x, W, reverse=True)[1].sum()


def f_fori(x):
    return lax.fori_loop(0, 4, lambda i, c: c * 0.9 + jnp.sin(c * x + i), x)


def f_fori_index(x):
    return lax.fori_loop(0, 3, lambda i, c: c + jnp.asarray(W)[i] * jnp.cos(c * x), 1.)


def f_map(x):
    return lax.map(lambda w: jnp.sin(w * x), W).sum()


def f_assoc(x):
    return lax.associative_scan(jnp.multiply, W * x + 1.).sum()


def f_nested(x):
    def step(c, w):
        c = lax.cond(w > 0, lambda c: c * x, lambda c: c + jnp.sin(x), c)
        return lax.fori_loop(0, 2, lambda i, d: d * 0.5 + x, c), None
    return lax.scan(step, x, W)[0]


FUNS = [f_cond, f_switch, f_scan, f_scan_reverse, f_fori, f_fori_index, f_map, f_assoc, f_nested]
POINTS = [0.2, 0.9]


def _numeric_grad(f, x, eps=1e-3):
    x = np.float64(x)
    return (float(f(np.float32(x + eps))) - float(f(np.float32(x - eps)))) / (2 * eps)


@pytest.mark.parametrize("f", FUNS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", POINTS)
def test_jvp_and_grad_match_finite_differences(f, x, jit_backend):
    expected = _numeric_grad(f, x)
    _, t = minijax.jvp(f, (np.float32(x),), (np.float32(1.),))
    np.testing.assert_allclose(float(t), expected, rtol=2e-2, atol=2e-3)
    np.testing.assert_allclose(float(grad(f)(np.float32(x))), expected, rtol=2e-2, atol=2e-3)
    np.testing.assert_allclose(float(jit(grad(f))(np.float32(x))), expected, rtol=2e-2,
                               atol=2e-3)


@pytest.mark.parametrize("f", FUNS, ids=lambda f: f.__name__)
def test_vmap_matches_stacking(f, jit_backend):
    xs = np.array([0.1, 0.4, 0.6, 1.2], np.float32)
    expected = np.stack([np.asarray(f(x)) for x in xs])
    np.testing.assert_allclose(np.asarray(minijax.vmap(f)(xs)), expected, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jit(minijax.vmap(f))(xs)), expected, rtol=1e-5)
    grads = np.stack([np.asarray(grad(f)(x)) for x in xs])
    np.testing.assert_allclose(np.asarray(minijax.vmap(grad(f))(xs)), grads, rtol=1e-5)


def test_vmap_of_cond_with_batched_predicate_is_a_select():
    f = minijax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))
    jaxpr = minijax.make_jaxpr(f)(np.array([True, False]), np.ones(2, np.float32))
    assert "cond" not in [e.primitive.name for e in jaxpr.eqns]
    assert "select_n" in [e.primitive.name for e in jaxpr.eqns]
    # unbatched predicate: the cond stays a cond
    g = minijax.vmap(lambda x: lax.cond(True, jnp.sin, jnp.cos, x))
    assert "cond" in [e.primitive.name for e in minijax.make_jaxpr(g)(np.ones(2)).eqns]


def test_vmap_with_in_axes_and_pytrees():
    def f(p, xs):
        return lax.scan(lambda c, x: (c * p["a"] + x, c + p["b"]), 0., xs)
    p = {"a": np.array([0.5, 2.], np.float32), "b": np.float32(1.)}
    xs = np.arange(6., dtype=np.float32).reshape(3, 2)  # scanned axis 0, batched axis 1
    carry, ys = minijax.vmap(f, in_axes=({"a": 0, "b": None}, 1))(p, xs)
    for k in range(2):
        ec, eys = f({"a": p["a"][k], "b": p["b"]}, xs[:, k])
        np.testing.assert_allclose(np.asarray(carry[k]), np.asarray(ec))
        np.testing.assert_allclose(np.asarray(ys[k]), np.asarray(eys))


def test_vmap_while_with_unbatched_predicate():
    f = lambda x, n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.))
    out = minijax.vmap(f, in_axes=(0, None))(np.arange(4., dtype=np.float32), 3)
    np.testing.assert_array_equal(np.asarray(out[0]), 3)
    np.testing.assert_allclose(np.asarray(out[1]), np.arange(4.) ** 3)


def test_nested_vmap_of_while(jit_backend):
    steps = lambda n: lax.while_loop(lambda c: c[0] > 1, lambda c: (c[0] // 2, c[1] + 1),
                                     (n, 0))[1]
    ns = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    expected = np.vectorize(lambda n: int(n).bit_length() - 1)(ns)
    np.testing.assert_array_equal(np.asarray(minijax.vmap(minijax.vmap(steps))(ns)), expected)


def test_grad_of_while_loop_raises_jax_error():
    # expected message from JAX 0.10.2
    msg = ("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
           "with dynamic start/stop values. Try using lax.scan, or using fori_loop with "
           "static start/stop.")
    f = lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * x, 1.)
    with pytest.raises(ValueError) as info:
        grad(f)(2.)
    assert str(info.value) == msg
    g = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, 1.)
    with pytest.raises(ValueError) as info:
        jit(grad(g))(2., 3)  # under jit, n is traced: the loop is a while
    assert str(info.value) == msg
    # forward mode and linearize do work
    np.testing.assert_allclose(float(minijax.jvp(f, (2.,), (1.,))[1]), 4 * 2. ** 3)
    np.testing.assert_allclose(float(linearize(f, 2.)[1](1.)), 4 * 2. ** 3)


def test_jacrev_of_scan_and_higher_order():
    f = lambda xs: lax.scan(lambda c, x: (c * x, c), 1., xs)[1]
    xs = np.array([1., 2., 3.], np.float32)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(jacrev(f)(xs)), [[0, 0, 0], [1, 0, 0], [2, 1, 0]])
    sc = lambda w: lax.scan(lambda c, x: (c * w + x, c), 1., jnp.arange(3.))[0]
    # w**3 + w + 2: second derivative 6 w
    np.testing.assert_allclose(float(grad(grad(sc))(2.)), 12.)
    np.testing.assert_allclose(float(grad(grad(f_cond))(0.2)),
                               float(grad(grad(lambda x: jnp.cos(x) - x ** 3))(0.2)), rtol=1e-6)


def test_grad_of_cond_only_reaches_the_taken_branch():
    f = lambda x, y: lax.cond(x > 0, lambda: x * y, lambda: y ** 3)
    gx, gy = grad(f, argnums=(0, 1))(1., 2.)
    assert (float(gx), float(gy)) == (2., 1.)
    gx, gy = grad(f, argnums=(0, 1))(-1., 2.)
    assert (float(gx), float(gy)) == (0., 12.)


def test_grad_of_scan_saves_residuals_per_iteration():
    """The known scan returns each iteration's residual as an extra ``ys``."""
    sc = lambda w: lax.scan(lambda c, x: (c * w + x, c), 1., jnp.arange(3.))[0]
    jaxpr = minijax.make_jaxpr(grad(sc))(2.)
    fwd, bwd = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert fwd.outvars[-1].aval.shape == (3,)  # the stacked carries
    assert bwd.params["reverse"] is True
    assert bwd.invars[-1] is fwd.outvars[-1]


def test_grad_of_scan_hoists_invariants_and_forwards_xs():
    """Residuals of constants alone are computed once, before the loop; a residual
    that is a slice of ``xs`` is ``xs`` itself: only the others are stacked."""
    f = lambda w, xs: lax.scan(lambda c, x: (c * jnp.sin(w) + jnp.cos(x * w), None), 1., xs)[0]
    text = str(minijax.make_jaxpr(grad(f))(2., jnp.arange(3.))).split("\n")
    # expected values from JAX 0.10.2 (its transposed body orders two additions differently)
    assert text[:19] == """\
{ lambda ; a:f32[] b:f32[3]. let
    c:f32[] = sin a
    d:f32[] = cos a
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    _:f32[] f:f32[3] g:f32[3] = scan[
      jaxpr={ lambda ; h:f32[] i:f32[] j:f32[] k:f32[]. let
          l:f32[] = mul j h
          m:f32[] = mul k i
          n:f32[] = cos m
          o:f32[] = sin m
          p:f32[] = convert_element_type[new_dtype=float32 weak_type=False] l
          q:f32[] = add p n
        in (q, j, o) }
      length=3
      num_carry=1
      num_consts=2
      reverse=False
      unroll=1
    ] c e 1.0:f32[] b""".split("\n")
    assert text[-2] == "    ] d c 0.0:f32[] 1.0:f32[] f b g"
    np.testing.assert_allclose(float(grad(f)(2., jnp.arange(3.))), -0.9290789, rtol=1e-6)
