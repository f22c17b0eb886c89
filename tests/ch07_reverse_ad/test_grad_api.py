"""Chapter 07: the public API — grad, value_and_grad, vjp, linearize, linear_transpose,
jacrev, hessian — with pytrees, auxiliary outputs, higher-order derivatives and JAX's errors.

Values are closed forms, NumPy Jacobians and finite differences, or were
hard-coded from JAX 0.10.2 where they are conventions (dtypes, weak types).
"""
import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything)
import minijax.numpy as jnp
from minijax import lax
from minijax.autodiff import (grad, hessian, jacobian, jacrev, linear_transpose, linearize,
                              value_and_grad, vjp)
from minijax.interpreters.ad import float0, jacfwd, jvp
from minijax.interpreters.batching import vmap
from minijax.interpreters.partial_eval import ShapeDtypeStruct


def close(x, y, **kw):
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6, **kw)


def same(x, value, dtype=np.float32, weak=False):
    """``x`` is an Array with this value, dtype and weak type (as JAX returns it)."""
    close(x, value)
    assert x.dtype == dtype and x.aval.weak_type == weak


# --- grad ----------------------------------------------------------------------------------
def test_grad_values_and_types():
    # expected values from JAX 0.10.2
    same(grad(jnp.tanh)(0.2), 0.961043, weak=True)
    same(grad(lambda x: x)(3.0), 1.0, weak=True)
    same(grad(jnp.sin)(np.float32(1.0)), 0.5403023)
    same(grad(lambda x: x * 2)(jnp.ones(())), 2.0)
    same(grad(lambda x: jnp.sum(x * 1.0))(jnp.ones(2, jnp.float16)), [1, 1], np.float16)


def test_grad_argnums_and_kwargs():
    f = lambda x, y: x * y ** 2  # noqa: E731
    same(grad(f, argnums=1)(3.0, 2.0), 12.0, weak=True)
    gy, gx = grad(f, argnums=(1, 0))(3.0, 2.0)
    same(gy, 12.0, weak=True)
    same(gx, 4.0, weak=True)
    same(grad(f, argnums=-1)(3.0, 2.0), 12.0, weak=True)
    same(grad(lambda x, y=2.0: x * y)(3.0, y=5.0), 5.0, weak=True)


def test_grad_pytrees():
    g = grad(lambda p: p["w"] @ p["b"])({"w": jnp.array([1., 2.]), "b": jnp.array([3., 4.])})
    assert sorted(g) == ["b", "w"]
    close(g["w"], [3., 4.])
    close(g["b"], [1., 2.])
    g = grad(lambda x: jnp.sin(x[0]) + x[1] ** 2)((1.0, 2.0))
    assert isinstance(g, tuple)
    close(g, (np.cos(1.0), 4.0))
    g = grad(lambda x: x["a"] * x["b"][0])({"a": 1.0, "b": [2.0, 3.0]})
    close(g["a"], 2.0)
    close(g["b"], [1.0, 0.0])  # an unused input gets a zero


def test_grad_has_aux_and_value_and_grad():
    g, aux = grad(lambda x: (x ** 2, {"aux": x}), has_aux=True)(3.0)
    same(g, 6.0, weak=True)
    assert aux == {"aux": 3.0}
    value, g = value_and_grad(lambda x: x ** 2)(3.0)
    same(value, 9.0, weak=True)
    same(g, 6.0, weak=True)
    (value, aux), g = value_and_grad(lambda x: (x ** 2, x + 1), has_aux=True)(3.0)
    close((value, aux, g), (9.0, 4.0, 6.0))
    assert not isinstance(aux, minijax.core.Tracer)


def test_grad_of_constant_and_of_integer_input():
    same(grad(lambda x: jnp.float32(3.0))(2.0), 0.0, weak=True)
    same(grad(lambda x, y: y)(2.0, 1.0), 0.0, weak=True)
    gx, gi = grad(lambda x, i: x * i, allow_int=True, argnums=(0, 1))(2.0, 3)
    same(gx, 3.0, weak=True)
    assert gi.dtype == float0 and gi.shape == ()


def test_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] = 1 and d/dx [x * d/dy (x y)] = 2x
    same(grad(lambda x: x * grad(lambda y: x + y)(1.0))(2.0), 1.0, weak=True)
    same(grad(lambda x: x * grad(lambda y: x * y)(1.0))(2.0), 4.0, weak=True)


# --- higher order ----------------------------------------------------------------------------
XS = np.linspace(-2, 2, 7).astype(np.float32)


def test_higher_derivatives_of_sin():
    d2 = vmap(grad(grad(jnp.sin)))(XS)
    d3 = vmap(grad(grad(grad(jnp.sin))))(XS)
    close(d2, -np.sin(XS))
    close(d3, -np.cos(XS))
    close(grad(grad(lambda x: x ** 4))(1.5), 12 * 1.5 ** 2)


def test_hessian_vector_product_is_forward_over_reverse():
    f = lambda x: jnp.sum(x ** 3) + x[0] * x[1]  # noqa: E731
    x, v = np.array([1., 2., 3.], np.float32), np.array([1., -1., 2.], np.float32)
    g, hvp = jvp(grad(f), (x,), (v,))
    close(g, 3 * x ** 2 + np.array([x[1], x[0], 0]))
    hess = np.diag(6 * x) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    close(hvp, hess @ v)
    close(jacfwd(jacrev(f))(x), hess)
    close(hessian(f)(x), hess)
    close(jacrev(jacrev(f))(x), hess)


def test_vmap_of_grad_and_grad_of_vmap():
    close(vmap(grad(lambda x: x ** 3))(jnp.arange(3.0)), [0., 3., 12.])
    close(grad(lambda x: jnp.sum(vmap(lambda v: v ** 3)(x)))(jnp.arange(3.0)), [0., 3., 12.])
    per_example = vmap(grad(lambda w, x: jnp.tanh(w @ x)), in_axes=(None, 0))
    w, xs = np.array([.5, -1.], np.float32), np.arange(6.0, dtype=np.float32).reshape(3, 2)
    close(per_example(w, xs), (1 - np.tanh(xs @ w) ** 2)[:, None] * xs)
    # expected values from JAX 0.10.2
    close(vmap(jacrev(lambda x: x * x[0]))(jnp.arange(6.0).reshape(2, 3)),
          [[[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[6, 0, 0], [4, 3, 0], [5, 0, 3]]])


def test_done_when_loop_matches_finite_differences():
    def f(y, np=jnp):
        for _ in range(10):
            y = np.sin(y) + 0.1 * np.cos(y * y) - np.tanh(y)
        return np.sum(y)

    x = np.array([0.3, -1.2, 2.0, 0.7], np.float32)
    g = grad(f)(x)
    h, eye = 1e-6, np.eye(4)
    fd = [(f(x + h * e, np=np) - f(x - h * e, np=np)) / (2 * h) for e in eye]
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-4, atol=1e-5)


# --- vjp -------------------------------------------------------------------------------------
def test_vjp_values_and_pytrees():
    # expected values from JAX 0.10.2
    y, f_vjp = vjp(lambda x, y: (jnp.sin(x), jnp.cos(y)), 0.5, 1.0)
    xbar, ybar = f_vjp((-0.7, 0.3))
    close((xbar, ybar), (-0.61430776, -0.2524413))
    _, f_vjp = vjp(lambda x: {"a": x, "b": [x * 2, x * 3]}, 1.0)
    close(f_vjp({"a": 1.0, "b": [1.0, 2.0]}), (9.0,))
    _, f_vjp, aux = vjp(lambda x: (x * 2, x), 1.0, has_aux=True)
    assert aux == 1.0
    _, f_vjp = vjp(lambda x, i: (x * 2, i), 1.0, 2)
    xbar, ibar = f_vjp((1.0, np.zeros((), float0)))
    close(xbar, 2.0)
    assert ibar.dtype == float0


def test_vjp_errors():
    _, f_vjp = vjp(lambda x: x * 2, 1.0)
    with pytest.raises(TypeError, match="was called with 2 arguments,\nbut functions returned"):
        f_vjp(1.0, 2.0)
    with pytest.raises(ValueError, match=r"unexpected tree structure.\n\nThe argument to a VJP "
                       r"function returned by `jax.vjp` must match the pytree\nstructure of "
                       r"the differentiated function <lambda> at .*\n\nBut the tree structures "
                       r"differ:\n  \* out was a pytree leaf in the original output, but a "
                       r"<class 'dict'> here, so their Python types differ."):
        f_vjp({"a": 1.0})
    with pytest.raises(ValueError, match=re_escape(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            "float32[3], but expected float32[] because the corresponding output of the "
            "differentiated function had JAX type float32[]")):
        f_vjp(jnp.ones(3))
    with pytest.raises(ValueError, match="got int32\\[\\], but expected float32\\[\\]"):
        f_vjp(1)
    _, f_vjp = vjp(lambda x: x * 2, 1)  # integer output: any cotangent dtype goes
    assert f_vjp(1)[0].dtype == float0
    with pytest.raises(TypeError, match="expected function with aux output to return a "
                       "two-element tuple, but got type"):
        vjp(lambda x: x, 1.0, has_aux=True)
    with pytest.raises(TypeError, match="Argument 'a' of type <class 'str'> is not a valid "
                       "JAX type."):
        vjp(lambda x: x, "a")


def re_escape(s):
    import re
    return re.escape(s)


# --- linearize -------------------------------------------------------------------------------
def test_linearize():
    # expected values from JAX 0.10.2
    y, f_jvp = linearize(lambda x: 3. * jnp.sin(x) + jnp.cos(x / 2.), 2.)
    same(y, 3.2681944, weak=True)
    same(f_jvp(3.), -5.007528, weak=True)
    same(f_jvp(4.), -6.676704, weak=True)
    _, f_jvp = linearize(lambda x, y: (x * y, x), 2., 3.)
    close(f_jvp(1., 1.), (5.0, 1.0))
    _, f_jvp, aux = linearize(lambda x: (x * 2, x ** 2), 2., has_aux=True)
    same(aux, 4.0, weak=True)
    _, f_jvp = linearize(lambda x: 3.0, 2.)
    same(f_jvp(1.), 0.0, weak=True)
    _, f_jvp = linearize(lambda x: x * 2, 1)
    assert f_jvp(np.zeros((), float0)).dtype == float0


def test_linearize_errors():
    _, f_jvp = linearize(lambda x: x * 2, 2.)
    with pytest.raises(TypeError, match=re_escape("expected PyTreeDef((*,)), got "
                                                  "PyTreeDef((*, *))")):
        f_jvp(1., 2.)
    with pytest.raises(ValueError, match=re_escape(
            "linearized function called on tangent values inconsistent with the original "
            "primal values:\nGot tangent aval float32[3] for primal aval ~float32[] but "
            "expected ~float32[].")):
        f_jvp(jnp.ones(3))


def test_linearize_does_not_retrace():
    calls = []

    def f(x):
        calls.append(1)
        return jnp.sin(x) * x

    _, f_jvp = linearize(f, 1.0)
    for t in (1.0, 2.0, 3.0):
        close(f_jvp(t), t * (np.cos(1.0) * 1.0 + np.sin(1.0)))
    assert len(calls) == 1


# --- linear_transpose -----------------------------------------------------------------------
def test_linear_transpose():
    # expected values from JAX 0.10.2
    s = ShapeDtypeStruct((), np.float32)
    xt, yt = linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, s, s)(1.0)
    same(xt, 0.5)
    same(yt, -0.5)
    (ct,) = linear_transpose(lambda x: {"s": jnp.sum(x), "d": x[::2]}, jnp.ones(4))(
        {"s": 2.0, "d": jnp.ones(2)})
    close(ct, [3., 2., 3., 2.])
    (ct,) = linear_transpose(lambda x: 2 * x, 1)(3)
    assert ct == 6 and ct.dtype == np.int32


def test_linear_transpose_errors():
    with pytest.raises(TypeError, match=re_escape(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            "integer -> integer functions, but got [dtype('float32')] -> [dtype('int32')].")):
        linear_transpose(lambda x: x.astype(int), 1.0)
    f_t = linear_transpose(lambda x: 2 * x, 1.0)
    with pytest.raises(TypeError, match=re_escape("cotangent tree does not match function "
                                                  "output, expected PyTreeDef(*) but got "
                                                  "PyTreeDef((*,))")):
        f_t((3.0,))
    with pytest.raises(TypeError, match="cotangent type does not match function output"):
        f_t(jnp.ones(2))


# --- jacrev and hessian ----------------------------------------------------------------------
def test_jacrev_matches_numpy():
    def f(x):
        return jnp.asarray([x[0], 5 * x[2], 4 * x[1] ** 2 - 2 * x[2], x[2] * jnp.sin(x[0])])

    x = np.array([1., 2., 3.], np.float32)
    expected = np.array([[1, 0, 0], [0, 0, 5], [0, 16, -2], [3 * np.cos(1.), 0, np.sin(1.)]])
    close(jacrev(f)(x), expected)
    close(jacfwd(f)(x), expected)
    close(jacobian(lambda x: x ** 2)(jnp.array([1., 2.])), [[2., 0.], [0., 4.]])
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    close(jacrev(lambda x: jnp.tanh(a @ x))(x), (1 - np.tanh(a @ x) ** 2)[:, None] * a)


def test_jacrev_pytrees_argnums_and_aux():
    jx, jy = jacrev(lambda x, y: x * y, argnums=(0, 1))(jnp.ones(2), 3.0)
    close(jx, 3 * np.eye(2))
    close(jy, [1., 1.])
    jac, aux = jacrev(lambda x: (x * 2, jnp.sum(x)), has_aux=True)(jnp.ones(2))
    close(jac, 2 * np.eye(2))
    close(aux, 2.0)
    jac = jacrev(lambda d: {"p": d["a"] * d["b"], "q": jnp.sum(d["a"])})(
        {"a": jnp.array([1., 2.]), "b": 3.0})
    close(jac["p"]["a"], 3 * np.eye(2))
    close(jac["p"]["b"], [1., 2.])
    close(jac["q"]["a"], [1., 1.])
    close(jac["q"]["b"], 0.0)
    # expected weak types from JAX 0.10.2
    assert jac["p"]["b"].aval.weak_type and not jac["p"]["a"].aval.weak_type


def test_hessian():
    # the examples of JAX's docstring (expected values from JAX 0.10.2)
    g = lambda x: x[0] ** 3 - 2 * x[0] * x[1] - x[1] ** 6  # noqa: E731
    close(hessian(g)(jnp.array([1., 2.])), [[6., -2.], [-2., -480.]])
    h = hessian(lambda d: {"c": jnp.power(d["a"], d["b"])})(
        {"a": jnp.arange(2.) + 1., "b": jnp.arange(2.) + 2.})
    close(h["c"]["a"]["a"], [[[2, 0], [0, 0]], [[0, 0], [0, 12]]])
    np.testing.assert_allclose(h["c"]["b"]["b"][1, 1, 1], 3.843624, rtol=1e-5)
    hxx_hxy, hyx_hyy = hessian(lambda x, y: jnp.sum(x * y ** 2), argnums=(0, 1))(
        jnp.ones(2), jnp.arange(2.0))
    close(hxx_hxy, [np.zeros((2, 2)), np.diag([0., 2.])])
    close(hyx_hyy, [np.diag([0., 2.]), 2 * np.eye(2)])


# --- errors ----------------------------------------------------------------------------------
ERRORS = [  # expected messages from JAX 0.10.2
    (lambda: grad(jnp.sin)(jnp.ones(3)), TypeError,
     "Gradient only defined for scalar-output functions. Output had shape: (3,)."),
    (lambda: grad(lambda x: None)(1.0), TypeError,
     "Gradient only defined for scalar-output functions. Output was None."),
    (lambda: grad(lambda x: x * 1.0)(3), TypeError,
     "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, "
     "use vjp or set allow_int to True."),
    (lambda: grad(lambda x: x)(True), TypeError, "but got bool. If you want to use"),
    (lambda: grad(lambda x: x * 1.0)(1 + 2j), TypeError,
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
     "but got complex64. For holomorphic differentiation, pass holomorphic=True. For "
     "differentiation of non-holomorphic functions involving complex outputs, use jax.vjp "
     "directly."),
    (lambda: grad(lambda x: x * 1.0, holomorphic=True)(1.0), TypeError,
     "grad with holomorphic=True requires inputs with complex dtype, but got float32."),
    (lambda: grad(lambda x: x.astype(int))(1.0), TypeError,
     "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
     "but got int32. For differentiation of functions with integer outputs, use jax.vjp "
     "directly."),
    (lambda: grad(lambda x, y: x * y, argnums=2)(1.0, 2.0), TypeError,
     "differentiating with respect to argnums=2 requires at least 3 positional arguments "
     "to be passed by the caller, but got only 2 positional arguments."),
    (lambda: grad(lambda x, y: x * y, argnums=(0, 3))(1.0, 2.0), TypeError,
     "differentiating with respect to argnums=(0, 3) requires at least 4 positional"),
    (lambda: grad(lambda x, y: x * y, argnums=-3)(1.0, 2.0), ValueError,
     "but got value -3 for len(args) == 2."),
    (lambda: grad(lambda x: x)(), TypeError,
     "differentiating with respect to argnums=0 requires at least 1 positional arguments"),
    (lambda: grad(lambda x: x, has_aux=True)(1.0), TypeError,
     "expected function with aux output to return a two-element tuple, but got type"),
    (lambda: grad(lambda x: (x, 2, 3), has_aux=True)(1.0), TypeError,
     "expected function with aux output to return a two-element tuple, but got type "
     "<class 'tuple'>"),
    (lambda: grad(1.0), TypeError, "Expected a callable value, got 1.0"),
    (lambda: grad(lambda x: x)("a"), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type."),
    (lambda: grad(lambda x: "a")(1.0), TypeError,
     "Argument 'a' of type <class 'str'> is not a valid JAX type"),
    (lambda: grad(lambda x: x, reduce_axes=("i",)), NotImplementedError,
     "reduce_axes argument to grad is deprecated"),
    (lambda: jacrev(lambda x: x)(1), TypeError,
     "jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got int32."),
    (lambda: jacrev(lambda x: x.astype(int))(1.0), TypeError,
     "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
     "but got int32."),
]


@pytest.mark.parametrize("thunk,cls,message", ERRORS, ids=range(len(ERRORS)))
def test_errors(thunk, cls, message):
    with pytest.raises(cls, match=re_escape(message)):
        thunk()


def test_complex_gradients():
    # expected values from JAX 0.10.2
    close(grad(lambda x: jnp.abs(x))(1 + 2j), 0.4472136 - 0.8944272j)
    close(grad(lambda x: x.real)(1 + 2j), 1.0 + 0j)
    same(grad(lambda x: x * 1j, holomorphic=True)(1.0j), 1j, np.complex64, weak=True)
    same(grad(lambda x: x ** 2, holomorphic=True)(1.0 + 1j), 2 + 2j, np.complex64, weak=True)


def test_lax_ops_under_grad_of_select():
    x = np.array([1., 3., 2., 4.], np.float32)
    close(grad(lambda x: jnp.sum(jnp.where(x > 1.5, x ** 2, -x)))(x), np.where(x > 1.5, 2 * x, -1))
    close(grad(lambda x: jnp.sum(lax.select(x > 1.5, x, 2 * x)))(x), np.where(x > 1.5, 1., 2.))


def test_higher_derivatives_of_weak_scalars_stay_weak():
    # expected values from JAX 0.10.2: the constants of a jvp rule (the 2 of x**2)
    # are Python scalars for a weak scalar x, so they do not make the result strong
    for f, expected in [(lambda x: x ** 2, 2.0), (lambda x: x ** 3, 4.2),
                        (lambda x: minijax.numpy.sin(x) * x ** 2, 3.1143267)]:
        out = minijax.grad(minijax.grad(f))(0.7)
        assert out.weak_type and out.dtype == np.float32
        np.testing.assert_allclose(float(out), expected, rtol=1e-6)
    primal, tangent = minijax.jvp(minijax.grad(lambda x: x ** 2), (0.7,), (1.0,))
    assert primal.weak_type and tangent.weak_type


def test_printed_tracers_under_grad_are_jaxs(capsys, jit_backend):
    # expected text from JAX 0.10.2
    def f(x):
        print(x)
        return jnp.sin(x) * 2
    grad(f)(1.0)
    grad(f)(np.float32(1.5))
    minijax.vjp(f, np.ones(3, np.float32))
    jvp(f, (1.0,), (1.0,))
    minijax.jit(grad(f))(1.0)
    grad(grad(f))(1.0)
    assert capsys.readouterr().out.splitlines() == [
        "GradTracer(primal=1.0, typeof(tangent)=f32[])",
        "GradTracer(primal=1.5, typeof(tangent)=f32[])",
        "GradTracer(primal=[1. 1. 1.], typeof(tangent)=f32[3])",
        "JVPTracer(primal=1.0, tangent=1.0)",
        "GradTracer(primal=JitTracer(~float32[]), typeof(tangent)=f32[])",
        "GradTracer(primal=GradTracer(primal=1.0, typeof(tangent)=f32[]), typeof(tangent)=f32[])",
    ]
