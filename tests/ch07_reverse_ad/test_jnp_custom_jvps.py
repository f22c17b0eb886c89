"""Chapter 07: the jnp functions whose derivative JAX states with ``custom_jvp``.

``relu``, ``relu6``, ``logaddexp``, ``logaddexp2``, ``log1mexp`` and ``sinc``
are written in chapter 00 with a hook (``numpy.util.jnp_custom_jvp``) that
chapter 07 fills with the real ``custom_jvp``. Expected values and printed
jaxprs are JAX 0.10.2's.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp


def _grads(f, *args):
    return [float(g) for g in jax.grad(f, argnums=tuple(range(len(args))))(*args)]


@pytest.mark.parametrize("jitted", [False, True])
def test_derivatives_at_the_kinks_are_jaxs(jitted, jit_backend):
    # expected values from JAX 0.10.2; the formulas' own derivatives differ there
    # (max(x, 0) splits the tie: relu'(0) = 0.5; the stable logaddexp gives 0 and 1)
    wrap = jax.jit if jitted else (lambda f: f)
    assert _grads(wrap(jax.nn.relu), 0.0) == [0.0]
    assert _grads(wrap(jax.nn.relu6), 0.0) == [0.0]
    assert _grads(wrap(jax.nn.relu6), 6.0) == [0.0]
    assert _grads(wrap(jax.nn.relu6), 3.0) == [1.0]
    assert _grads(wrap(jnp.logaddexp), 1.0, 1.0) == [0.5, 0.5]
    assert _grads(wrap(jnp.logaddexp2), 1.0, 1.0) == [0.5, 0.5]
    assert _grads(wrap(jax.nn.softplus), 0.0) == [0.5]
    assert _grads(wrap(jax.nn.log_sigmoid), 0.0) == [0.5]
    assert _grads(wrap(jnp.logaddexp), -np.inf, 3.0) == [0.0, 1.0]
    np.testing.assert_allclose(_grads(wrap(jnp.logaddexp), 1.0, 3.0),
                               [0.11920291, 0.880797], rtol=1e-6)


def test_sinc_derivatives_at_zero_are_its_maclaurin_coefficients():
    # expected values from JAX 0.10.2's docstring: 0, -pi**2/3, 0, pi**4/5
    f, found = jnp.sinc, []
    for _ in range(4):
        f = jax.grad(f)
        found.append(float(f(0.0)))
    np.testing.assert_allclose(found, [0.0, -3.2898684, 0.0, 19.481818], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(float(jax.grad(jnp.sinc)(0.5)),
                               (np.pi * 0.5 * np.cos(np.pi * 0.5) - np.sin(np.pi * 0.5))
                               / (np.pi * 0.5 ** 2), rtol=1e-5)


def test_log1mexp_derivative_is_one_over_expm1(jit_backend):
    x = np.array([0.01, 0.5, 3.0], np.float32)
    grads = jax.vmap(jax.grad(jax.nn.log1mexp))(x)
    np.testing.assert_allclose(np.asarray(grads), 1 / np.expm1(x.astype(np.float64)), rtol=1e-5)


def test_values_match_numpy():
    x1 = np.array([-3.0, 0.0, 1.0, np.inf, -np.inf, 30.0], np.float32)
    x2 = np.array([2.0, 0.0, 1.0, np.inf, -np.inf, -30.0], np.float32)
    np.testing.assert_allclose(np.asarray(jnp.logaddexp(x1, x2)), np.logaddexp(x1, x2),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.logaddexp2(x1, x2)), np.logaddexp2(x1, x2),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.nn.relu6(x1)), np.clip(x1, 0, 6))
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0], np.float32)
    np.testing.assert_allclose(np.asarray(jnp.sinc(x)), np.sinc(x), atol=1e-7)


RELU_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=relu
      call_jaxpr={ lambda ; c:f32[]. let
          d:f32[] = jit[
            name=relu
            jaxpr={ lambda ; c:f32[]. let d:f32[] = max c 0.0:f32[] in (d,) }
          ] c
        in (d,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""

GRAD_RELU_JAXPR = """\
{ lambda ; a:f32[]. let
    _:f32[] = custom_jvp_call[
      name=relu
      call_jaxpr={ lambda ; b:f32[]. let
          c:f32[] = jit[
            name=relu
            jaxpr={ lambda ; b:f32[]. let c:f32[] = max b 0.0:f32[] in (c,) }
          ] b
        in (c,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
    d:bool[] = gt a 0.0:f32[]
    e:f32[] = select_n d 0.0:f32[] 1.0:f32[]
  in (e,) }"""

LOGADDEXP_JAXPR = """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = custom_jvp_call[
      name=logaddexp
      call_jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = max d e
          g:f32[] = sub d e
          h:bool[] = ne g g
          i:f32[] = add d e
          j:f32[] = abs g
          k:f32[] = neg j
          l:f32[] = exp k
          m:f32[] = log1p l
          n:f32[] = add f m
          o:f32[] = select_n h n i
        in (o,) }
      jvp=_logaddexp_jvp
      symbolic_zeros=False
    ] a b
  in (c,) }"""

LOGADDEXP2_JAXPR = """\
let jaxpr = { lambda ; a:f32[] b:f32[]. let
    c:f32[] = max a b
    d:f32[] = sub a b
    e:bool[] = ne d d
    f:f32[] = add a b
    g:f32[] = abs d
    h:f32[] = neg g
    i:f32[] = exp2 h
    j:f32[] = log1p i
    k:f32[] = mul 1.4426950408889634:f32[] j
    l:f32[] = add c k
    m:f32[] = select_n e l f
  in (m,) } in
{ lambda ; n:f32[] o:f32[]. let
    p:f32[] = custom_jvp_call[
      name=logaddexp2
      call_jaxpr=jaxpr
      jvp=_logaddexp2_jvp
      symbolic_zeros=False
    ] n o
  in (p,) }"""

SINC_JAXPR = """\
let _where = { lambda ; a:bool[] b:f32[] c:f32[]. let
    d:f32[] = select_n a c b
  in (d,) } in
{ lambda ; e:f32[]. let
    f:f32[] = jit[
      name=sinc
      jaxpr={ lambda ; e:f32[]. let
          g:bool[] = eq e 0.0:f32[]
          h:f32[] = mul 3.141592653589793:f32[] e
          i:f32[] = jit[name=_where jaxpr=_where] g 1.0:f32[] h
          j:f32[] = custom_jvp_call[
            name=_sinc_maclaurin
            call_jaxpr={ lambda ; k:f32[]. let
                l:f32[] = mul k 0.0:f32[]
                m:f32[] = add l 1.0:f32[]
              in (m,) }
            jvp=_sinc_maclaurin_jvp
            symbolic_zeros=False
          ] h
          n:f32[] = sin i
          o:f32[] = div n i
          f:f32[] = jit[name=_where jaxpr=_where] g j o
        in (f,) }
    ] e
  in (f,) }"""


def test_printed_jaxprs_are_jaxs():
    # expected text from JAX 0.10.2
    assert str(jax.make_jaxpr(jax.nn.relu)(1.0)) == RELU_JAXPR
    assert str(jax.make_jaxpr(jax.grad(jax.nn.relu))(1.0)) == GRAD_RELU_JAXPR
    assert str(jax.make_jaxpr(jnp.logaddexp)(1.0, 2.0)) == LOGADDEXP_JAXPR
    assert str(jax.make_jaxpr(jnp.logaddexp2)(1.0, 2.0)) == LOGADDEXP2_JAXPR
    assert str(jax.make_jaxpr(jnp.sinc)(1.0)) == SINC_JAXPR


def test_keyword_arguments_reach_the_function(jit_backend):
    # as JAX 0.10.2: relu(x=...) and its derivative at 0 is still 0
    np.testing.assert_array_equal(np.asarray(jax.nn.relu(x=jnp.array([-1.0, 2.0]))), [0.0, 2.0])
    assert float(jax.grad(lambda v: jax.nn.relu(x=v))(0.0)) == 0.0
