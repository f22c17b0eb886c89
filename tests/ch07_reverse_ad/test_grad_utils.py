"""Chapter 07: ``jax.test_util.check_grads``, ``jax.custom_gradient``, ``jax.closure_convert``.

Expected values were recorded with JAX 0.10.2; ``check_grads`` is checked on
derivatives known to be right (it must pass) and on rules made wrong on purpose
(it must fail, where JAX's fails, naming the check that failed).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.test_util import check_grads


# --- check_grads -------------------------------------------------------------------------
def test_check_grads_passes_on_true_derivatives():
    x = np.linspace(-1., 1., 5).astype(np.float32)
    check_grads(jnp.sin, (x,), order=2)
    check_grads(lambda a, b: jnp.sum(a * jnp.tanh(b)), (x, x[::-1].copy()), order=2,
                modes=["rev"])
    check_grads(lambda t: {"y": t["a"] ** 2 + 1.0}, ({"a": x},), order=1)
    check_grads(lambda a: a * 3.0, (2.0,), order=3)  # a Python scalar argument


def sin_with_rule(scale=1.0, stop_second_order=False):
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        slope = jnp.cos(x)
        if stop_second_order:
            slope = jax.lax.stop_gradient(slope)
        return f(x), scale * slope * t
    return f


X = np.array([0.3, 0.7, 1.1], np.float32)


def test_check_grads_catches_a_wrong_rule_in_both_modes():
    wrong = sin_with_rule(scale=1.01)
    with pytest.raises(AssertionError, match="JVP tangent"):
        check_grads(wrong, (X,), order=1, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        check_grads(wrong, (X,), order=1, modes=["rev"])


def test_check_grads_tolerances():
    wrong = sin_with_rule(scale=1.01)  # 1% off: above float32's default 2e-3
    check_grads(wrong, (X,), order=1, rtol=0.05)
    check_grads(wrong, (X,), order=1, atol=0.05, rtol=0.05)
    check_grads(wrong, (X,), order=1, rtol={np.float32: 0.05})


def test_check_grads_step_size():
    check_grads(jnp.sin, (X,), order=1, eps=1e-3)
    with pytest.raises(AssertionError):
        check_grads(jnp.sin, (X,), order=1, eps=0.5)  # a coarse step is inaccurate


def test_check_grads_higher_orders():
    f = sin_with_rule(stop_second_order=True)  # right slope, wrong second derivative
    check_grads(f, (X,), order=1)
    with pytest.raises(AssertionError, match="JVP of JVP"):
        check_grads(f, (X,), order=2, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP of VJP"):
        check_grads(f, (X,), order=2, modes=["rev"])


def test_check_grads_modes_select_what_runs():
    @jax.custom_vjp
    def g(x):
        return jnp.sin(x)
    g.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, ct: (c * ct,))
    check_grads(g, (X,), order=1, modes=["rev"])
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        check_grads(g, (X,), order=1, modes=["fwd"])


# --- custom_gradient ---------------------------------------------------------------------
@jax.custom_gradient
def square(x):
    return x ** 2, lambda g: (g * x,)


def test_custom_gradient_uses_the_returned_pull_back():
    assert float(square(3.)) == 9.0  # from JAX 0.10.2
    assert float(jax.grad(square)(3.)) == 3.0  # from JAX 0.10.2 (the stated, not the true 6)
    assert float(jax.jit(jax.grad(square))(3.)) == 3.0
    np.testing.assert_allclose(jax.vmap(jax.grad(square))(jnp.arange(3.)), [0., 1., 2.])
    np.testing.assert_allclose(jax.grad(lambda v: jax.vmap(square)(v).sum())(jnp.arange(3.)),
                               [0., 1., 2.])


@jax.custom_gradient
def clip_gradient(x, lo):
    return x, lambda g: (jnp.clip(g, lo, -lo), None)


def test_custom_gradient_with_two_arguments_and_a_none_cotangent():
    g = jax.grad(lambda x: 10. * clip_gradient(x, -1.))(2.0)
    assert float(g) == 1.0  # from JAX 0.10.2
    gx, glo = jax.grad(lambda x, lo: 10. * clip_gradient(x, lo), argnums=(0, 1))(2.0, -3.)
    assert (float(gx), float(glo)) == (3.0, 0.0)  # from JAX 0.10.2


@jax.custom_gradient
def single_value_pull_back(x):
    return jnp.sin(x), lambda g: g * 2.0  # one argument: a bare cotangent is accepted


def test_custom_gradient_pull_back_may_return_a_bare_value():
    assert float(jax.grad(single_value_pull_back)(1.0)) == 2.0  # from JAX 0.10.2


def test_custom_gradient_closing_over_a_differentiated_value_escapes():
    # As in JAX 0.10.2: the function runs outside the differentiation (it is
    # custom_vjp's fwd), so a closed-over tracer being differentiated escapes.
    def f(y):
        @jax.custom_gradient
        def h(x):
            return x * y, lambda g: (g * y,)
        return h(y)

    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.grad(f)(3.0)


# --- closure_convert ---------------------------------------------------------------------
def test_closure_convert_hoists_only_values_that_may_be_differentiated():
    y = jnp.float32(3.0)
    f = lambda x: jnp.sin(x) * y  # noqa: E731
    conv, consts = jax.closure_convert(f, 1.0)
    assert consts == []  # from JAX 0.10.2: a plain array stays inside
    np.testing.assert_allclose(conv(2.0), np.sin(2.0) * 3.0, rtol=1e-6)

    def outer(y):
        conv, consts = jax.closure_convert(lambda x: jnp.sin(x) * y, 1.0)
        assert len(consts) == 1  # from JAX 0.10.2: y's tracer is hoisted
        return conv(2.0, *consts)
    np.testing.assert_allclose(jax.grad(outer)(3.0), np.sin(2.0), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(outer)(3.0), np.sin(2.0) * 3.0, rtol=1e-6)


def test_closure_convert_makes_a_closure_differentiable_through_custom_vjp():
    # the pattern closure_convert exists for: a custom_vjp taking a function argument
    from functools import partial

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def apply(f, x, *consts):
        return f(x, *consts)

    def apply_fwd(f, x, *consts):
        return f(x, *consts), (x, consts)

    def apply_bwd(f, res, g):
        x, consts = res
        _, pull_back = jax.vjp(f, x, *consts)
        return pull_back(g)

    apply.defvjp(apply_fwd, apply_bwd)

    def loss(y):
        conv, consts = jax.closure_convert(lambda x: jnp.sin(x) * y, 1.0)
        return apply(conv, 2.0, *consts)

    np.testing.assert_allclose(jax.grad(loss)(3.0), np.sin(2.0), rtol=1e-6)  # d/dy sin(2) y


def test_closure_convert_checks_the_argument_structure():
    conv, _ = jax.closure_convert(lambda a, b: a + b, 1.0, 2.0)
    with pytest.raises(TypeError, match="same Pytree structure"):
        conv((1.0, 2.0))
