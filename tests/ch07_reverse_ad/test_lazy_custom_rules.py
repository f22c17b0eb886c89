"""Chapter 07: custom rules run lazily, as JAX's do.

Under ``jvp`` and ``grad`` only the rule runs (``custom_jvp``'s jvp rule,
``custom_vjp``'s ``fwd`` and ``bwd``): the decorated function is neither traced
nor called beside it. Under ``jit`` and ``make_jaxpr`` the function is traced
once and the rule waits in the jaxpr until something differentiates it. The
tests count the Python calls of the function and of its rules under each
transformation; every expected list was recorded with JAX 0.10.2.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

X = jnp.float32(1.0)
XS = jnp.arange(3.0)


def counted_custom_jvp(calls):
    """A fresh custom_jvp sin (no cache shared between cases) that logs its calls."""
    @jax.custom_jvp
    def f(x):
        calls.append("f")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("jvp")
        (x,), (t,) = primals, tangents
        return jnp.sin(x), jnp.cos(x) * t
    return f


def counted_custom_vjp(calls):
    @jax.custom_vjp
    def h(x):
        calls.append("h")
        return jnp.sin(x)

    def h_fwd(x):
        calls.append("fwd")
        return jnp.sin(x), jnp.cos(x)

    def h_bwd(res, g):
        calls.append("bwd")
        return (res * g,)

    h.defvjp(h_fwd, h_bwd)
    return h


# (name, how to run f, the calls JAX 0.10.2 makes)  # from JAX 0.10.2
JVP_CASES = [
    ("eager", lambda f: f(X), ["f"]),
    ("jvp", lambda f: jax.jvp(f, (X,), (X,)), ["jvp"]),
    ("grad", lambda f: jax.grad(f)(X), ["jvp"]),
    ("jit_grad", lambda f: jax.jit(jax.grad(f))(X), ["jvp"]),
    ("vmap_grad", lambda f: jax.vmap(jax.grad(f))(XS), ["jvp"]),
    ("grad_vmap", lambda f: jax.grad(lambda v: jax.vmap(f)(v).sum())(XS), ["jvp"]),
    ("jit", lambda f: jax.jit(f)(X), ["f"]),
    ("make_jaxpr", lambda f: jax.make_jaxpr(f)(X), ["f"]),
    ("vmap", lambda f: jax.vmap(f)(XS), ["f"]),
    ("jvp_jit", lambda f: jax.jvp(jax.jit(f), (X,), (X,)), ["f", "jvp"]),
    ("grad_jit", lambda f: jax.grad(jax.jit(f))(X), ["f", "jvp"]),
    ("jvp_vmap", lambda f: jax.jvp(jax.vmap(f), (XS,), (XS,)), ["jvp"]),
    ("vmap_jvp", lambda f: jax.vmap(lambda a: jax.jvp(f, (a,), (a,)))(XS), ["jvp"]),
    ("linearize", lambda f: jax.linearize(f, X), ["jvp"]),
    ("linearize_apply", lambda f: jax.linearize(f, X)[1](X), ["jvp"]),
    ("vjp", lambda f: jax.vjp(f, X), ["jvp"]),
    ("hessian", lambda f: jax.hessian(f)(X), ["jvp"]),
    ("jvp_grad", lambda f: jax.jvp(jax.grad(f), (X,), (X,)), ["jvp"]),
    ("grad_grad", lambda f: jax.grad(jax.grad(f))(X), ["jvp"]),
    ("jit_vmap_grad", lambda f: jax.jit(jax.vmap(jax.grad(f)))(XS), ["jvp"]),
    # staged by a higher-order primitive first, differentiated afterwards: the rule
    # runs once even where the jaxpr is differentiated twice (cond's branches)
    ("grad_checkpoint", lambda f: jax.grad(jax.checkpoint(f))(X), ["f", "jvp"]),
    ("grad_scan", lambda f: jax.grad(lambda c: jax.lax.scan(
        lambda c, _: (f(c), None), c, None, length=2)[0])(X), ["f", "jvp"]),
    ("grad_cond", lambda f: jax.grad(lambda c: jax.lax.cond(c > 0, f, jnp.cos, c))(X),
     ["f", "jvp"]),
    ("jvp_while", lambda f: jax.jvp(lambda c: jax.lax.while_loop(
        lambda c: c < 3, lambda c: f(c) + c + 1, c), (X,), (X,)), ["f", "jvp"]),
    ("jacrev", lambda f: jax.jacrev(f)(XS), ["jvp"]),
    ("jacfwd", lambda f: jax.jacfwd(f)(XS), ["jvp"]),
    ("vmap_vmap", lambda f: jax.vmap(jax.vmap(f))(jnp.ones((2, 3))), ["f"]),
    ("grad_vmap_vmap", lambda f: jax.grad(lambda v: jax.vmap(jax.vmap(f))(v).sum())(
        jnp.ones((2, 3))), ["jvp"]),
    ("vmap_grad_jit", lambda f: jax.vmap(jax.grad(jax.jit(f)))(XS), ["f", "jvp"]),
    ("eval_shape", lambda f: jax.eval_shape(f, X), ["f"]),
    ("value_and_grad", lambda f: jax.value_and_grad(f)(X), ["jvp"]),
]

VJP_CASES = [
    ("eager", lambda h: h(X), ["h"]),
    ("grad", lambda h: jax.grad(h)(X), ["fwd", "bwd"]),
    ("jit_grad", lambda h: jax.jit(jax.grad(h))(X), ["fwd", "bwd"]),
    ("vmap_grad", lambda h: jax.vmap(jax.grad(h))(XS), ["fwd", "bwd"]),
    ("jit", lambda h: jax.jit(h)(X), ["h"]),
    ("make_jaxpr", lambda h: jax.make_jaxpr(h)(X), ["h"]),
    ("vmap", lambda h: jax.vmap(h)(XS), ["h"]),
    ("grad_jit", lambda h: jax.grad(jax.jit(h))(X), ["h", "fwd", "bwd"]),
    ("vjp", lambda h: jax.vjp(h, X), ["fwd"]),
    ("vjp_and_pullback", lambda h: jax.vjp(h, X)[1](X), ["fwd", "bwd"]),
    ("linearize", lambda h: jax.linearize(h, X), ["fwd"]),
    ("jit_vmap_grad", lambda h: jax.jit(jax.vmap(jax.grad(h)))(XS), ["fwd", "bwd"]),
    ("grad_grad", lambda h: jax.grad(jax.grad(h))(X), ["fwd", "bwd"]),
    ("grad_scan", lambda h: jax.grad(lambda c: jax.lax.scan(
        lambda c, _: (h(c), None), c, None, length=2)[0])(X), ["h", "fwd", "bwd"]),
    ("grad_checkpoint", lambda h: jax.grad(jax.checkpoint(h))(X), ["h", "fwd", "bwd"]),
    ("grad_fori_loop", lambda h: jax.grad(lambda c: jax.lax.fori_loop(
        0, 2, lambda i, c: h(c), c))(X), ["h", "fwd", "bwd"]),
    ("jacrev", lambda h: jax.jacrev(h)(XS), ["fwd", "bwd"]),
    ("vmap_grad_jit", lambda h: jax.vmap(jax.grad(jax.jit(h)))(XS), ["h", "fwd", "bwd"]),
    # (grad of a cond: JAX 0.10.2 calls bwd twice, ["h", "fwd", "bwd", "bwd"]; minijax once)
]


@pytest.mark.parametrize("run, expected", [c[1:] for c in JVP_CASES],
                         ids=[c[0] for c in JVP_CASES])
def test_custom_jvp_calls_match_jax(run, expected):
    calls = []
    run(counted_custom_jvp(calls))
    assert calls == expected


@pytest.mark.parametrize("run, expected", [c[1:] for c in VJP_CASES],
                         ids=[c[0] for c in VJP_CASES])
def test_custom_vjp_calls_match_jax(run, expected):
    calls = []
    run(counted_custom_vjp(calls))
    assert calls == expected


def test_values_are_unchanged_by_laziness():
    calls = []
    f, h = counted_custom_jvp(calls), counted_custom_vjp(calls)
    for fun in (f, h):
        np.testing.assert_allclose(jax.grad(fun)(X), np.cos(1.0), rtol=1e-6)
        np.testing.assert_allclose(jax.vmap(jax.grad(fun))(XS), np.cos(np.arange(3.0)),
                                   rtol=1e-6)
        np.testing.assert_allclose(jax.grad(lambda v: jax.vmap(fun)(v).sum())(XS),
                                   np.cos(np.arange(3.0)), rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(f, (X,), (2.0 * X,))[1], 2 * np.cos(1.0), rtol=1e-6)


def test_a_rule_calling_the_function_calls_it_outside_the_transformation():
    # The rule's own call f(x) runs on plain values: JAX calls the rule, then f.
    calls = []

    @jax.custom_jvp
    def f(x):
        calls.append("f")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("jvp")
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t

    jax.grad(f)(X)
    assert calls == ["jvp", "f"]  # from JAX 0.10.2
    calls.clear()
    jax.hessian(f)(X)
    assert calls == ["jvp", "jvp", "f"]  # from JAX 0.10.2


@jax.custom_jvp
def relu_by_python_if(x):
    if x > 0:  # Python control flow on a value: fine where only the rule is traced
        return x
    return 0.0 * x


@relu_by_python_if.defjvp
def relu_by_python_if_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return relu_by_python_if(x), jnp.where(x > 0, t, 0.0)


def test_python_control_flow_in_the_function_works_under_jvp_and_grad():
    primal, tangent = jax.jvp(relu_by_python_if, (X,), (X,))
    assert (float(primal), float(tangent)) == (1.0, 1.0)  # from JAX 0.10.2
    assert float(jax.grad(relu_by_python_if)(X)) == 1.0  # from JAX 0.10.2
    assert float(jax.grad(relu_by_python_if)(-X)) == 0.0


def test_python_control_flow_in_the_function_still_fails_under_vmap():
    # vmap runs the function itself (batched), as JAX does
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.vmap(relu_by_python_if)(XS)


def test_custom_jvp_closing_over_a_vmapped_value():
    def outer(y):
        @jax.custom_jvp
        def f(x):
            return jnp.sin(x) * y

        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), jnp.cos(x) * t * y
        return f(2.0)

    # from JAX 0.10.2
    np.testing.assert_allclose(jax.vmap(outer)(XS), [0., 0.9092974, 1.8185948], rtol=1e-6)


def test_custom_vjp_closing_over_a_vmapped_value():
    def outer(y):
        @jax.custom_vjp
        def h(x):
            return jnp.sin(x) * y

        h.defvjp(lambda x: (jnp.sin(x) * y, jnp.cos(x)), lambda r, g: (r * g,))
        return h(y)

    # from JAX 0.10.2
    np.testing.assert_allclose(jax.vmap(outer)(XS), [0., 0.84147096, 1.8185948], rtol=1e-6)


def test_custom_vjp_fwd_closing_over_a_differentiated_value_escapes():
    # fwd runs outside the linearization, so the closed-over tracer escapes (as in JAX)
    def outer(y):
        @jax.custom_vjp
        def h(x):
            return jnp.sin(x) * y

        h.defvjp(lambda x: (jnp.sin(x) * y, jnp.cos(x)), lambda r, g: (r * g,))
        return h(y)

    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.grad(outer)(3.0)
    with pytest.raises(jax.custom_derivatives.CustomVJPException):
        jax.grad(jax.jit(outer))(3.0)  # traced first: the closure is a constant of the call


def test_unbatched_output_of_a_vmapped_custom_jvp_stays_unbatched():
    @jax.custom_jvp
    def f(x, c):
        return jnp.sin(x), c * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, c), (tx, tc) = primals, tangents
        return f(x, c), (jnp.cos(x) * tx, 2.0 * tc)

    out = jax.vmap(f, in_axes=(0, None), out_axes=(0, None))(XS, 3.0)
    np.testing.assert_allclose(out[0], np.sin(np.arange(3.0)), rtol=1e-6)
    assert float(out[1]) == 6.0
    jac = jax.jacfwd(lambda v: f(v, 3.0)[0])(XS)
    np.testing.assert_allclose(jac, np.diag(np.cos(np.arange(3.0))), rtol=1e-6, atol=1e-7)
