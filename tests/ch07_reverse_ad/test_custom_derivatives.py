"""Chapter 07: ``custom_jvp`` and ``custom_vjp`` — values, transformations, jaxprs, errors.

Expected values, printed jaxprs and messages are JAX 0.10.2's; derivatives
that are the true ones are also checked against finite differences.
"""
from functools import partial

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.custom_derivatives import SymbolicZero, custom_jvp, custom_vjp
from tests.ch07_reverse_ad.conftest import per_element_derivatives

float0 = jax.dtypes.float0


def finite_difference(f, x, eps=1e-3):
    """Central differences of a scalar function, in float64."""
    x = np.asarray(x, np.float64)
    grads = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        dx = np.zeros_like(x)
        dx[i] = eps
        grads[i] = (f(x + dx) - f(x - dx)) / (2 * eps)
    return grads


# --- custom_jvp: a numerically stable rule ------------------------------------------------
@custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return log1pexp(x), t * (1. - 1. / (1. + jnp.exp(x)))


XS = np.array([-3., 0., 2., 100.], np.float32)
# expected values from JAX 0.10.2
LOG1PEXP_GRADS = [0.04742587, 0.5, 0.8807971, 1.]


def test_defjvp_returns_the_rule_and_keeps_the_name():
    assert log1pexp.jvp is log1pexp_jvp
    assert log1pexp.__name__ == "log1pexp"


def test_custom_jvp_value_is_the_function():
    # the primal computation is unchanged: it overflows to inf at 100 in float32
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(log1pexp(XS), [0.04858733, 0.6931472, 2.126928, np.inf],
                               rtol=1e-6)


def test_custom_jvp_rule_is_used_by_grad():
    # the automatic derivative of log(1 + exp(x)) is nan at x = 100; the rule's is 1
    # expected values from JAX 0.10.2
    assert np.isnan(jax.grad(lambda x: jnp.log(1. + jnp.exp(x)))(100.))
    assert float(jax.grad(log1pexp)(100.)) == 1.0
    np.testing.assert_allclose(jax.vmap(jax.grad(log1pexp))(XS), LOG1PEXP_GRADS, rtol=1e-6)


@per_element_derivatives
def test_custom_jvp_under_transformations(transform, jit_backend):
    out = np.asarray(transform(log1pexp)(XS))
    diag = np.diagonal(out) if out.ndim == 2 else out
    np.testing.assert_allclose(diag, LOG1PEXP_GRADS, rtol=1e-6)


def test_custom_jvp_second_derivatives():
    # expected values from JAX 0.10.2 (the rule is differentiated in turn)
    np.testing.assert_allclose(jax.grad(jax.grad(log1pexp))(1.0), 0.19661194, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(log1pexp)(1.0), 0.19661194, rtol=1e-6)


def test_custom_jvp_true_rule_matches_finite_differences():
    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), jnp.cos(x) * tx * y + jnp.sin(x) * ty

    x0, y0 = np.float32(0.7), np.float32(-1.3)
    gx, gy = jax.grad(f, (0, 1))(x0, y0)
    np.testing.assert_allclose(gx, finite_difference(lambda x: np.sin(x) * y0, x0), rtol=1e-4)
    np.testing.assert_allclose(gy, finite_difference(lambda y: np.sin(x0) * y, y0), rtol=1e-4)


def test_custom_jvp_in_scan_under_grad():
    def loss(xs):
        return jax.lax.scan(lambda c, x: (c + log1pexp(c * x), None), 0.5, xs)[0]

    def loss_np(xs):
        c = 0.5
        for x in xs:
            c = c + np.log1p(np.exp(c * x))
        return c

    xs = np.array([0.1, -0.4, 0.3], np.float32)
    np.testing.assert_allclose(jax.grad(loss)(xs), finite_difference(loss_np, xs), rtol=1e-3)


def test_custom_jvp_jvp_and_linearize():
    y, t = jax.jvp(log1pexp, (2.0,), (3.0,))
    np.testing.assert_allclose((y, t), (2.126928, 3 * 0.8807971), rtol=1e-6)
    y, f_jvp = jax.linearize(log1pexp, 2.0)
    np.testing.assert_allclose(f_jvp(3.0), 3 * 0.8807971, rtol=1e-6)


def test_defjvps_and_multiple_outputs():
    @custom_jvp
    def h(x, y):
        return x * y, x + y

    h.defjvps(lambda t, ans, x, y: (t * y, t), lambda t, ans, x, y: (x * t, t))
    jac = jax.jacobian(h, argnums=(0, 1))(1.0, 2.0)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(np.array(jac, dtype=np.float32), [[2., 1.], [1., 1.]])


def test_defjvps_none_means_zero():
    @custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(None, lambda t, ans, x, y: x * t)
    assert float(jax.grad(f, 0)(3., 4.)) == 0.0
    assert float(jax.grad(f, 1)(3., 4.)) == 3.0


def test_nondiff_argnums_function_argument():
    @partial(custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        x, = primals
        t, = tangents
        return app(f, x), 2.0 * t

    assert float(app(jnp.sin, 1.0)) == pytest.approx(np.sin(1.0))
    assert float(jax.grad(lambda x: app(jnp.sin, x))(1.0)) == 2.0
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(lambda x: app(jnp.sin, x))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=app
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      jvp=app_jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""


@partial(custom_jvp, nondiff_argnums=(1,))
def scale(x, s):
    return x * s


@scale.defjvp
def scale_jvp(s, primals, tangents):
    x, = primals
    t, = tangents
    return scale(x, s), t * s * 10.


def test_nondiff_argnums_array_argument_has_no_gradient():
    # expected values from JAX 0.10.2
    assert float(jax.grad(scale)(1., 2.)) == 20.0
    assert float(jax.grad(scale, 1)(1., 2.)) == 0.0
    np.testing.assert_allclose(jax.vmap(jax.grad(scale), (0, None))(jnp.ones(2), 3.), [30., 30.])


def test_nondiff_argnames():
    @partial(custom_jvp, nondiff_argnames=("n",))
    def powr(x, n):
        return x ** n

    powr.defjvp(lambda n, p, t: (powr(p[0], n), n * p[0] ** (n - 1) * t[0]))
    assert powr.nondiff_argnums == (1,)
    assert float(jax.grad(powr)(2., 3)) == 12.0


def test_nondiff_array_argument_jaxpr():
    # the nondiff argument is cut off with stop_gradient and becomes a constant (operand)
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(jax.grad(scale))(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = stop_gradient b
    d:f32[] = stop_gradient c
    _:f32[] = custom_jvp_call[
      name=scale
      call_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = mul f e in (g,) }
      jvp=scale_jvp
      num_consts=1
      symbolic_zeros=False
    ] d a
    h:f32[] = mul 1.0:f32[] 10.0:f32[]
    i:f32[] = mul h c
  in (i,) }"""


def test_symbolic_zeros():
    seen = []

    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((type(tx) is SymbolicZero, type(ty) is SymbolicZero))
        out = 0.
        if type(tx) is not SymbolicZero:
            out = out + jnp.cos(x) * tx * y
        if type(ty) is not SymbolicZero:
            out = out + jnp.sin(x) * ty
        return f(x, y), out

    assert float(jax.grad(f)(1., 2.)) == pytest.approx(2 * np.cos(1.))
    assert float(jax.grad(f, 1)(1., 2.)) == pytest.approx(np.sin(1.))
    assert seen == [(False, True), (True, False)]


def test_integer_output_tangent_is_float0():
    @custom_jvp
    def f(x):
        return x * 2., jnp.int32(3)

    f.defjvp(lambda p, t: (f(*p), (t[0] * 2., np.zeros((), float0))))
    assert float(jax.grad(lambda x: f(x)[0])(1.)) == 2.0
    (y, n), (ty, tn) = jax.jvp(f, (1.,), (1.,))
    assert float(ty) == 2.0 and tn.dtype == float0


# --- custom_jvp: printed jaxprs --------------------------------------------------------------
# expected values from JAX 0.10.2
LOG1PEXP_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=log1pexp
      call_jaxpr={ lambda ; c:f32[]. let
          d:f32[] = exp c
          e:f32[] = add 1.0:f32[] d
          f:f32[] = log e
        in (f,) }
      jvp=log1pexp_jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""

# expected values from JAX 0.10.2: the rule's equations, then the transposed tangent part
LOG1PEXP_GRAD_JAXPR = """\
{ lambda ; a:f32[]. let
    _:f32[] = custom_jvp_call[
      name=log1pexp
      call_jaxpr={ lambda ; b:f32[]. let
          c:f32[] = exp b
          d:f32[] = add 1.0:f32[] c
          e:f32[] = log d
        in (e,) }
      jvp=log1pexp_jvp
      symbolic_zeros=False
    ] a
    f:f32[] = exp a
    g:f32[] = add 1.0:f32[] f
    h:f32[] = div 1.0:f32[] g
    i:f32[] = sub 1.0:f32[] h
    j:f32[] = mul 1.0:f32[] i
  in (j,) }"""


def test_custom_jvp_jaxprs():
    assert str(jax.make_jaxpr(log1pexp)(1.0)) == LOG1PEXP_JAXPR
    assert str(jax.make_jaxpr(jax.grad(log1pexp))(1.0)) == LOG1PEXP_GRAD_JAXPR
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(jax.vmap(log1pexp))(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = custom_jvp_call[
      name=log1pexp
      call_jaxpr={ lambda ; c:f32[3]. let
          d:f32[3] = exp c
          e:f32[3] = add 1.0:f32[] d
          f:f32[3] = log e
        in (f,) }
      jvp=log1pexp_jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""


def test_custom_jvp_closure_is_a_leading_operand():
    def h(y):
        @custom_jvp
        def f(x):
            return x * y

        f.defjvp(lambda p, t: (f(p[0]), t[0] * y))
        return f(1.0)

    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(h)(2.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul d c in (e,) }
      jvp=<lambda>
      num_consts=1
      symbolic_zeros=False
    ] a 1.0:f32[]
  in (b,) }"""


# --- custom_jvp: errors -----------------------------------------------------------------------
def _f2(x, y):
    return x * y, x + y


def _raises(exc, message, thunk):
    with pytest.raises(exc) as info:
        thunk()
    assert str(info.value) == message


def test_custom_jvp_without_rule():
    @custom_jvp
    def k(x):
        return x

    _raises(AttributeError, "No JVP defined for custom_jvp function k using defjvp.",
            lambda: k(1.0))


def test_custom_jvp_rule_output_checks():
    # expected values from JAX 0.10.2
    f = custom_jvp(_f2)
    f.defjvp(lambda p, t: 1.0)
    _raises(TypeError, "Custom JVP rule <lambda> for function _f2 must produce a pair (list "
            "or tuple of length two) representing primal and tangent outputs, but got 1.0.",
            lambda: jax.jvp(f, (1., 2.), (1., 1.)))
    f.defjvp(lambda p, t: ((p[0], p[1]), [t[0], t[1]]))
    _raises(TypeError, "Custom JVP rule <lambda> for function _f2 must produce primal and "
            "tangent outputs with equal container (pytree) structures, but got "
            "PyTreeDef((*, *)) and PyTreeDef([*, *]) respectively.",
            lambda: jax.jvp(f, (1., 2.), (1., 1.)))
    f.defjvp(lambda p, t: ((p[0] * p[1], p[0] + p[1]), (t[0], jnp.ones(3))))
    _raises(TypeError, "Custom JVP rule must produce primal and tangent outputs with "
            "corresponding shapes and dtypes, but got:\n  primal float32[] with tangent "
            "float32[3], expecting tangent float32[]",
            lambda: jax.jvp(f, (1., 2.), (1., 1.)))
    g = custom_jvp(lambda x: x)
    g.defjvp(lambda p, t: (p[0], jnp.int32(1)))
    _raises(TypeError, "Custom JVP rule must produce primal and tangent outputs with "
            "corresponding shapes and dtypes. Expected float32[] (tangent type of float32[]) "
            "but got int32[].", lambda: jax.jvp(g, (1.,), (1.,)))


def test_custom_jvp_primal_output_checks():
    # JAX checks these when the function was traced before the rule ran (jvp of jit)
    # expected values from JAX 0.10.2
    f = custom_jvp(_f2)
    f.defjvp(lambda p, t: ([p[0], p[1]], [t[0], t[1]]))
    _raises(TypeError, "Custom JVP rule <lambda> for function _f2 must produce a pair (list or "
            "tuple of length two) where the first element represents the primal output (equal "
            "in value to the output of the custom_jvp-decorated function _f2, and in "
            "particular of the same container/pytree structure), but instead the JVP rule "
            "output's first element had container/pytree structure:\n    [float32[], "
            "float32[]]\nwhile the custom_jvp-decorated function _f2 had output "
            "container/pytree structure:\n    (float32[], float32[]).",
            lambda: jax.jvp(jax.jit(f), (1., 2.), (1., 1.)))
    g = custom_jvp(_f2)
    g.defjvp(lambda p, t: ((p[0], jnp.ones(3)), (t[0], jnp.ones(3))))
    _raises(TypeError, "Custom JVP rule <lambda> for function _f2 must produce a pair (list or "
            "tuple of length two) where the first element represents the primal output (equal "
            "in value to the output of the custom_jvp-decorated function _f2, and in "
            "particular with leaves of the same shape/dtype), but instead the JVP rule "
            "output's first element had shapes/dtypes of:\n    (float32[], float32[3])\nwhile "
            "the custom_jvp-decorated function _f2 had output shapes/dtypes of:\n    "
            "(float32[], float32[])",
            lambda: jax.jvp(jax.jit(g), (1., 2.), (1., 1.)))


def test_custom_jvp_keyword_arguments():
    # expected values from JAX 0.10.2
    assert float(jax.grad(lambda x: log1pexp(x=x))(0.)) == 0.5
    _raises(TypeError, "The input arguments to the custom_jvp-decorated function log1pexp "
            "could not be resolved to positional-only arguments. Binding failed with the "
            "error:\nmissing a required argument: 'x'", lambda: log1pexp(y=1.))


def test_defjvps_with_nondiff_argnums():
    _raises(TypeError, "Can't use ``defjvps`` with ``nondiff_argnums``.",
            lambda: custom_jvp(lambda f, x: x, nondiff_argnums=(0,)).defjvps(None, None))


# --- custom_vjp ---------------------------------------------------------------------------------
@custom_vjp
def clip_gradient(x, lo, hi):
    return x


def _clip_fwd(x, lo, hi):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (jnp.clip(g, lo, hi), None, None)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def clipped(x):
    return 10. * jnp.sin(clip_gradient(x, -1., 1.))


def test_custom_vjp_value_is_the_function():
    assert float(clipped(0.3)) == pytest.approx(10 * np.sin(0.3), rel=1e-6)
    assert float(clip_gradient(2.0, -1., 1.)) == 2.0


@pytest.mark.parametrize("transform", [
    lambda f: jax.grad(f),
    lambda f: jax.jit(jax.grad(f)),
    lambda f: jax.grad(jax.jit(f)),
], ids=["grad", "jit_grad", "grad_jit"])
def test_custom_vjp_bwd_is_used(transform, jit_backend):
    # bwd clips the incoming cotangent 10 cos x: 1 at 0.3, where the true derivative is 9.55
    assert float(transform(clipped)(0.3)) == 1.0
    assert float(transform(clipped)(1.5)) == pytest.approx(10 * np.cos(1.5), rel=1e-5)


def test_custom_vjp_under_vmap():
    xs = np.array([0.3, 1.5, 3.0], np.float32)
    expected = np.clip(10 * np.cos(xs), -1, 1)
    np.testing.assert_allclose(jax.vmap(jax.grad(clipped))(xs), expected, rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(jax.vmap(clipped)(x)))(xs),
                               expected, rtol=1e-5)
    np.testing.assert_allclose(np.diagonal(jax.jacrev(jax.vmap(clipped))(xs)), expected,
                               rtol=1e-5)


def test_custom_vjp_in_scan_under_grad(jit_backend):
    xs = np.array([0.3, 1.5, 3.0], np.float32)
    grads = jax.grad(lambda x: jax.lax.scan(lambda c, x: (c + clipped(x), None), 0., x)[0])(xs)
    np.testing.assert_allclose(grads, np.clip(10 * np.cos(xs), -1, 1), rtol=1e-5)


@custom_vjp
def sin_times(x, y):
    return jnp.sin(x) * y


def _st_fwd(x, y):
    return sin_times(x, y), (jnp.cos(x), jnp.sin(x), y)


def _st_bwd(res, ct):
    c, s, y = res
    return (c * y * ct, s * ct)


sin_times.defvjp(_st_fwd, _st_bwd)


def test_custom_vjp_true_rule_matches_finite_differences():
    x0, y0 = np.float32(0.7), np.float32(-1.3)
    gx, gy = jax.grad(sin_times, (0, 1))(x0, y0)
    np.testing.assert_allclose(gx, finite_difference(lambda x: np.sin(x) * y0, x0), rtol=1e-4)
    np.testing.assert_allclose(gy, finite_difference(lambda y: np.sin(x0) * y, y0), rtol=1e-4)


def test_custom_vjp_jaxprs():
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(sin_times)(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = custom_vjp_call[
      name=sin_times
      bwd=_st_bwd
      call_jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = mul f e
        in (g,) }
      fwd=_st_fwd
      symbolic_zeros=False
    ] a b
  in (c,) }"""
    # fwd runs in the forward pass, bwd in the backward pass
    assert str(jax.make_jaxpr(jax.grad(sin_times))(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] = custom_vjp_call[
      name=sin_times
      bwd=_st_bwd
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = sin c
          f:f32[] = mul e d
        in (f,) }
      fwd=_st_fwd
      symbolic_zeros=False
    ] a b
    g:f32[] = cos a
    h:f32[] = sin a
    i:f32[] = mul g b
    j:f32[] = mul i 1.0:f32[]
    _:f32[] = mul h 1.0:f32[]
  in (j,) }"""


@custom_vjp
def matmul(x, W):
    return x @ W


matmul.defvjp(lambda x, W: (matmul(x, W), (x, W)),
              lambda r, g: (g @ r[1].T, jnp.outer(r[0], g)))


def test_custom_vjp_vmap_with_an_unbatched_argument():
    # the cotangent of the shared W is summed over the batch
    W = np.arange(6., dtype=np.float32).reshape(3, 2)
    X = np.arange(12., dtype=np.float32).reshape(4, 3)
    g = jax.grad(lambda W: jnp.sum(jax.vmap(matmul, (0, None))(X, W)))(W)
    np.testing.assert_allclose(g, X.sum(0)[:, None] * np.ones((1, 2)))
    per_example = jax.vmap(jax.grad(lambda x, W: jnp.sum(matmul(x, W)), 1), (0, None))(X, W)
    np.testing.assert_allclose(per_example, X[:, :, None] * np.ones((1, 1, 2)))


def test_custom_vjp_pytrees():
    @custom_vjp
    def h(p):
        return {"a": p["x"] * 2., "b": p["y"] ** 2}

    h.defvjp(lambda p: (h(p), p),
             lambda p, ct: ({"x": ct["a"] * 20., "y": ct["b"] * 2 * p["y"]},))
    g = jax.grad(lambda p: h(p)["a"] + h(p)["b"])({"x": 1., "y": 3.})
    assert float(g["x"]) == 20.0 and float(g["y"]) == 6.0


def test_custom_vjp_nondiff_argnums():
    @partial(custom_vjp, nondiff_argnums=(1,))
    def w(x, n):
        return x * n

    w.defvjp(lambda x, n: (w(x, n), x), lambda n, r, g: (g * n * 100,))
    # expected values from JAX 0.10.2
    assert float(jax.grad(w)(1., 3.)) == 300.0
    np.testing.assert_allclose(jax.vmap(jax.grad(w), (0, None))(jnp.ones(3), 3.), [300.] * 3)
    with pytest.raises(jax.errors.UnexpectedTracerError, match="Found a JAX Tracer object "
                       "passed as an argument to a custom_vjp function in a position "
                       "indicated by nondiff_argnums as non-differentiable."):
        jax.jit(w)(1., 3.)


def test_custom_vjp_symbolic_zeros():
    seen = []

    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        seen.append((x.perturbed, y.perturbed))
        return g(x.value, y.value), (x.value, y.value)

    def g_bwd(res, ct):
        x, y = res
        return jnp.cos(x) * y * ct, jnp.sin(x) * ct

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    assert float(jax.grad(g)(1., 2.)) == pytest.approx(2 * np.cos(1.))
    assert float(jax.grad(g, 1)(1., 2.)) == pytest.approx(np.sin(1.))
    assert seen == [(True, False), (False, True)]


def test_custom_vjp_forward_mode_is_an_error():
    msg = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
    # expected values from JAX 0.10.2
    _raises(TypeError, msg, lambda: jax.jvp(sin_times, (1., 2.), (1., 1.)))
    _raises(TypeError, msg, lambda: jax.linearize(clipped, 0.3)[1](1.0))
    # forward over reverse: sin_times' fwd calls sin_times, under the outer jvp
    _raises(TypeError, msg, lambda: jax.hessian(sin_times)(1., 2.))
    assert float(jax.jacrev(jax.jacrev(sin_times))(1., 2.)) == pytest.approx(-2 * np.sin(1.))


def test_custom_vjp_without_rules():
    _raises(AttributeError, "No VJP defined for custom_vjp function <lambda> using defvjp.",
            lambda: custom_vjp(lambda x: x)(1.))


def _vjp_with(fwd, bwd):
    v = custom_vjp(_mul)
    v.defvjp(fwd, bwd)
    return v


def _mul(x, y):
    return x * y


def _mul_fwd(x, y):
    return _mul(x, y), (x, y)


def test_custom_vjp_bwd_output_checks():
    # expected values from JAX 0.10.2
    structure = ("Custom VJP bwd rule must produce an output with the same container (pytree) "
                 "structure as the args tuple of the primal function, and in particular must "
                 "produce a tuple of length equal to the number of arguments to the primal "
                 "function, but got bwd output structure {} for primal input structure "
                 "PyTreeDef((*, *)).")
    _raises(TypeError, structure.format("PyTreeDef(*)"),
            lambda: jax.grad(_vjp_with(_mul_fwd, lambda r, g: g))(1., 2.))
    _raises(TypeError, structure.format("PyTreeDef((*,))"),
            lambda: jax.grad(_vjp_with(_mul_fwd, lambda r, g: (g,)))(1., 2.))
    _raises(ValueError, "Custom VJP bwd rule must produce an output with the same type as the "
            "args tuple of the primal function, but at output[0] the bwd rule produced an "
            "output of type float32[3] corresponding to an input of type float32[], so the "
            "shapes do not match",
            lambda: jax.grad(_vjp_with(_mul_fwd, lambda r, g: (jnp.ones(3), None)))(1., 2.))
    _raises(ValueError, "Custom VJP bwd rule must produce an output with the same type as the "
            "args tuple of the primal function, but at output[0] the bwd rule produced an "
            "output of type int32[3] corresponding to an input of type float32[], so the "
            "dtypes do not match, and the shapes do not match",
            lambda: jax.grad(_vjp_with(_mul_fwd, lambda r, g: (jnp.ones(3, jnp.int32), None)))(
                1., 2.))
    # a list of the right length is accepted, and None means a zero cotangent
    grads = jax.grad(_vjp_with(_mul_fwd, lambda r, g: [g * r[1], None]), (0, 1))(1., 2.)
    assert [float(g) for g in grads] == [2.0, 0.0]


def test_custom_vjp_fwd_output_checks():
    # expected values from JAX 0.10.2
    _raises(TypeError, "Custom VJP fwd rule <lambda> for function _mul must produce a pair "
            "(list or tuple of length two) where the first element represents the primal "
            "output (equal to those of the custom_vjp-decorated function _mul) and the second "
            "element represents residuals (i.e. values stored from the forward pass for use on "
            "the backward pass), but instead of a pair the fwd rule <lambda> produced 3.0.",
            lambda: jax.grad(_vjp_with(lambda x, y: 3.0, lambda r, g: (g, g)))(1., 2.))
    _raises(TypeError, "Custom VJP fwd rule <lambda> for function _mul must produce a pair "
            "(list or tuple of length two) where the first element represents the primal "
            "output (equal to the output of the custom_vjp-decorated function _mul) and the "
            "second element represents residuals (i.e. values stored from the forward pass "
            "for use on the backward pass), but instead the fwd rule output's first element "
            "had shapes/dtypes of:\n    float32[2]\nwhile the custom_vjp-decorated function "
            "_mul had output shapes/dtypes of:\n    float32[]",
            lambda: jax.grad(jax.jit(_vjp_with(lambda x, y: (jnp.ones(2), None),
                                               lambda r, g: (g, g))))(1., 2.))


# --- dead-code elimination: unused outputs are dropped from the call and its rules ----------
def test_unused_outputs_are_dropped_inside_checkpoint():
    from minijax.checkpoint import checkpoint

    @custom_jvp
    def h(x):
        return jnp.sin(x), jnp.cos(x)

    h.defjvps(lambda t, ans, x: (jnp.cos(x) * t, -jnp.sin(x) * t))

    @custom_vjp
    def v(x):
        return jnp.sin(x), jnp.cos(x)

    v.defvjp(lambda x: (v(x), x), lambda x, g: (jnp.cos(x) * g[0] - jnp.sin(x) * g[1],))
    f_h = checkpoint(lambda x: h(x)[0] * 2.)
    f_v = checkpoint(lambda x: v(x)[1] * 2.)
    assert float(jax.grad(f_h)(1.0)) == pytest.approx(2 * np.cos(1.0))
    assert float(jax.grad(f_v)(1.0)) == pytest.approx(-2 * np.sin(1.0))
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(jax.grad(f_h))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=h
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
    _:f32[] = mul b 2.0:f32[]
    e:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; f:f32[] g:f32[]. let
          h:f32[] = cos f
          i:f32[] = mul g 2.0:f32[]
          j:f32[] = mul h i
        in (j,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (e,) }"""
    assert str(jax.make_jaxpr(jax.grad(f_v))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_vjp_call[
      name=v
      bwd=<lambda>
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = cos c in (d,) }
      fwd=<lambda>
      symbolic_zeros=False
    ] a
    _:f32[] = mul b 2.0:f32[]
    e:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; f:f32[] g:f32[]. let
          h:f32[] = mul g 2.0:f32[]
          i:f32[] = cos f
          j:f32[] = mul i 0.0:f32[]
          k:f32[] = sin f
          l:f32[] = mul k h
          m:f32[] = sub j l
        in (m,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (e,) }"""
