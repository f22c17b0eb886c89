"""Chapter 07: ``grad`` and ``jit`` compose — partial evaluation and transposition of ``jit_p``.

Under ``grad``, a ``jit`` call is split (partial evaluation of its jaxpr) into
a *known* ``jit`` computing the primal outputs and the residuals now, and an
*unknown*, linear ``jit`` that is staged; the backward pass transposes that
one into a third ``jit``. The printed jaxprs are JAX 0.10.2's.
"""
import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything)
import minijax.numpy as jnp
from minijax.autodiff import grad, hessian, jacrev, value_and_grad
from minijax.interpreters.ad import jvp
from minijax.interpreters.batching import vmap
from minijax.interpreters.linearize import dce_jaxpr
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.jit import jit

f1 = lambda x: jnp.sin(jnp.cos(x))  # noqa: E731


@jit
def g(x, y):
    return jnp.sin(x) * y, jnp.cos(y)


def h(x):
    a, b = g(x, 2.0 * x)
    return a + b


# expected values from JAX 0.10.2
CASES = [
    ('grad_of_jit', lambda: grad(jit(f1)), 3.0, """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] c:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          d:f32[] = cos a
          b:f32[] = sin a
          _:f32[] = sin d
          c:f32[] = cos d
        in (_, b, c) }
    ] a
    e:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; b:f32[] c:f32[] f:f32[]. let
          g:f32[] = mul f c
          h:f32[] = neg g
          e:f32[] = mul h b
        in (e,) }
    ] b c 1.0:f32[]
  in (e,) }"""),
    ('jit_of_grad', lambda: jit(grad(f1)), 3.0, """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = cos a
          d:f32[] = sin a
          e:f32[] = sin c
          f:f32[] = cos c
          g:f32[] = mul 1.0:f32[] f
          h:f32[] = neg g
          b:f32[] = mul h d
        in (b,) }
    ] a
  in (b,) }"""),
    ('grad_through_inner_jit', lambda: grad(h), 3.0, """\
{ lambda ; a:f32[]. let
    b:f32[] = mul 2.0:f32[] a
    c:f32[] d:f32[] e:f32[] f:f32[] g:f32[] = jit[
      name=g
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          f:f32[] = sin a
          e:f32[] = cos a
          c:f32[] = mul f b
          d:f32[] = cos b
          g:f32[] = sin b
        in (c, d, e, f, g) }
    ] a b
    _:f32[] = add c d
    h:f32[] i:f32[] = jit[
      name=g
      jaxpr={ lambda ; e:f32[] b:f32[] f:f32[] g:f32[] j:f32[] k:f32[]. let
          l:f32[] = neg k
          m:f32[] = mul l g
          n:f32[] = mul f j
          i:f32[] = add_any m n
          o:f32[] = mul j b
          h:f32[] = mul o e
        in (h, i) }
    ] e b f g 1.0:f32[] 1.0:f32[]
    p:f32[] = mul 2.0:f32[] i
    q:f32[] = add_any h p
  in (q,) }"""),
    ('grad_of_nested_jits', lambda: grad(jit(h)), 3.0, """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] c:f32[] d:f32[] e:f32[] = jit[
      name=h
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = mul 2.0:f32[] a
          f:f32[] g:f32[] b:f32[] d:f32[] e:f32[] = jit[
            name=g
            jaxpr={ lambda ; a:f32[] c:f32[]. let
                d:f32[] = sin a
                b:f32[] = cos a
                f:f32[] = mul d c
                g:f32[] = cos c
                e:f32[] = sin c
              in (f, g, b, d, e) }
          ] a c
          _:f32[] = add f g
        in (_, b, c, d, e) }
    ] a
    h:f32[] = jit[
      name=h
      jaxpr={ lambda ; b:f32[] c:f32[] d:f32[] e:f32[] i:f32[]. let
          j:f32[] k:f32[] = jit[
            name=g
            jaxpr={ lambda ; b:f32[] c:f32[] d:f32[] e:f32[] i:f32[] l:f32[]. let
                m:f32[] = neg l
                n:f32[] = mul m e
                o:f32[] = mul d i
                k:f32[] = add_any n o
                p:f32[] = mul i c
                j:f32[] = mul p b
              in (j, k) }
          ] b c d e i i
          q:f32[] = mul 2.0:f32[] k
          h:f32[] = add_any j q
        in (h,) }
    ] b c d e 1.0:f32[]
  in (h,) }"""),
    ('forwarded_residual', lambda: grad(jit(lambda x: x * x)), 3.0, """\
{ lambda ; a:f32[]. let
    _:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let _:f32[] = mul a a in (_,) }
    ] a
    b:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[] c:f32[]. let
          d:f32[] = mul a c
          e:f32[] = mul c a
          b:f32[] = add_any d e
        in (b,) }
    ] a 1.0:f32[]
  in (b,) }"""),
    ('vector', lambda: grad(jit(lambda x: jnp.sum(jnp.sin(x) * x))), jnp.ones(3), """\
{ lambda ; a:f32[3]. let
    _:f32[] b:f32[3] c:f32[3] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[3] = sin a
          b:f32[3] = cos a
          d:f32[3] = mul c a
          _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
        in (_, b, c) }
    ] a
    e:f32[3] = jit[
      name=<lambda>
      jaxpr={ lambda ; b:f32[3] a:f32[3] c:f32[3] f:f32[]. let
          g:f32[3] = broadcast_in_dim f
          h:f32[3] = mul c g
          i:f32[3] = mul g a
          j:f32[3] = mul i b
          e:f32[3] = add_any h j
        in (e,) }
    ] b a c 1.0:f32[]
  in (e,) }"""),
    ('second_order', lambda: grad(grad(jit(jnp.sin))), 1.0, """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] _:f32[] c:f32[] = jit[
      name=sin
      jaxpr={ lambda ; a:f32[]. let
          _:f32[] = sin a
          _:f32[] = cos a
          b:f32[] = cos a
          c:f32[] = sin a
        in (_, b, _, c) }
    ] a
    _:f32[] = jit[
      name=sin
      jaxpr={ lambda ; b:f32[] d:f32[]. let _:f32[] = mul d b in (_,) }
    ] b 1.0:f32[]
    e:f32[] = jit[
      name=sin
      jaxpr={ lambda ; f:f32[] g:f32[]. let e:f32[] = mul f g in (e,) }
    ] 1.0:f32[] 1.0:f32[]
    h:f32[] = jit[
      name=sin
      jaxpr={ lambda ; c:f32[] e:f32[]. let
          i:f32[] = neg e
          h:f32[] = mul i c
        in (h,) }
    ] c e
  in (h,) }"""),

]


@pytest.mark.parametrize("name,make,x,expected", CASES, ids=[c[0] for c in CASES])
def test_jaxpr_matches_jax(name, make, x, expected):
    assert str(make_jaxpr(make())(x)) == expected


def close(x, y):
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


def test_values(jit_backend):
    d_f1 = lambda x: -np.cos(np.cos(x)) * np.sin(x)  # noqa: E731
    close(grad(jit(f1))(3.0), d_f1(3.0))
    close(jit(grad(f1))(3.0), d_f1(3.0))
    close(jit(grad(f1))(2.0), d_f1(2.0))  # compiled once, run again
    d_h = np.cos(3.) * 6. + np.sin(3.) * 2. - 2. * np.sin(6.)  # h = sin(x) 2x + cos(2x)
    close(grad(h)(3.0), d_h)
    close(grad(jit(h))(3.0), d_h)
    close(jit(value_and_grad(h))(3.0), (np.sin(3.) * 6. + np.cos(6.), d_h))
    close(grad(grad(jit(jnp.sin)))(1.0), -np.sin(1.0))
    close(vmap(grad(jit(f1)))(jnp.arange(3.0)), d_f1(np.arange(3.0)))
    close(jacrev(jit(lambda x: x * x[0]))(jnp.arange(3.0)), [[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    x = np.array([1., 2.], np.float32)
    close(hessian(jit(lambda x: jnp.sum(x ** 3)))(x), np.diag(6 * x))
    close(jvp(grad(jit(lambda x: x ** 3)), (2.0,), (1.0,)), (12.0, 12.0))


def test_dce_inside_jit():
    jaxpr = make_jaxpr(lambda x: g(x, x)[1])(1.0).jaxpr
    new, used = dce_jaxpr(jaxpr, [True])
    (eqn,) = new.eqns
    assert str(eqn.params["jaxpr"]) == "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"
    assert len(eqn.outvars) == 1 and len(eqn.invars) == 1 and used == [True]
    kept = make_jaxpr(lambda x: jit(lambda x, y: jnp.cos(y), keep_unused=True)(x, x))(1.0)
    (eqn,) = dce_jaxpr(kept.jaxpr, [True])[0].eqns
    assert len(eqn.invars) == 2
