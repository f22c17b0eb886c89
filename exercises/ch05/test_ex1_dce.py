"""Check of exercise 1 of chapter 05: ``dce_jaxpr`` prints what JAX's does, and evaluates right."""
import numpy as np
import pytest
from _load import load

import minijax
import minijax.numpy as jnp
from minijax.jaxpr import check_jaxpr, eval_jaxpr

ex = load(__file__, "ex1_dce")


def g1(x, y):
    a = jnp.sin(x); b = jnp.cos(y); c = a * 2.0; _ = jnp.exp(b)
    return c, b + 1.0


def g2(x, y, z):
    return x * y, jnp.sin(z)


def g3(x):
    t = jnp.exp(jnp.log(x)); _ = jnp.sum(t)
    return x + 1.0


def g4(x, y):
    a = x * y; b = jnp.tanh(a); c = b - x; d = jnp.sin(c); e = jnp.cos(c)
    return d, e, a


CASES = [  # (function, arguments, used outputs, the DCE'd jaxpr, used inputs) from JAX 0.10.2
    (g1, (1., 2.), [True, False],
     "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }",
     [True, False]),
    (g2, (1., 2., 3.), [False, True], "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }",
     [False, False, True]),
    (g3, (np.ones(3, np.float32),), [True],
     "{ lambda ; a:f32[3]. let b:f32[3] = add a 1.0:f32[] in (b,) }", [True]),
    (g4, (1., 2.), [False, True, False],
     "{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = mul a b\n    d:f32[] = tanh c\n"
     "    e:f32[] = sub d a\n    f:f32[] = cos e\n  in (f,) }", [True, True]),
    (g4, (1., 2.), [True, True, True],
     "{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = mul a b\n    d:f32[] = tanh c\n"
     "    e:f32[] = sub d a\n    f:f32[] = sin e\n    g:f32[] = cos e\n  in (f, g, c) }",
     [True, True]),
    (g4, (1., 2.), [False, False, False], "{ lambda ; . let  in () }", [False, False]),
]


@pytest.mark.parametrize("fun,args,used,want,want_used_inputs", CASES)
def test_dce_prints_as_jax(fun, args, used, want, want_used_inputs):
    closed = minijax.make_jaxpr(fun)(*args)
    new, used_inputs = ex.dce_jaxpr(closed.jaxpr, used)
    check_jaxpr(new)
    assert str(new) == want
    assert list(used_inputs) == want_used_inputs


def test_dce_keeps_the_values():
    closed = minijax.make_jaxpr(g4)(1., 2.)
    new, used_inputs = ex.dce_jaxpr(closed.jaxpr, [True, False, True])
    x, y = np.float32(0.7), np.float32(-1.3)
    ins = [v for v, u in zip((x, y), used_inputs) if u]
    d, a = eval_jaxpr(new, closed.consts, *ins)
    c = np.tanh(x * y) - x
    np.testing.assert_allclose([d, a], [np.sin(c), x * y], rtol=1e-6)


def test_dce_leaves_the_original_alone():
    closed = minijax.make_jaxpr(g1)(1., 2.)
    before = str(closed)
    ex.dce_jaxpr(closed.jaxpr, [True, False])
    assert str(closed) == before
