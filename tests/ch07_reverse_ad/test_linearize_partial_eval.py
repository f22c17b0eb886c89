"""Chapter 07: partial evaluation — PartialVal, JaxprTrace, partial_eval_jaxpr_nounits,
dce_jaxpr — and the linear jaxpr that linearize builds with them.
"""
import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything)
import minijax.numpy as jnp
from minijax.abstract_arrays import ShapedArray
from minijax.core import set_current_trace
from minijax.interpreters.linearize import (JaxprTrace, JaxprTracer, PartialVal, dce_jaxpr,
                                            linearize, partial_eval_jaxpr_nounits)
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.jaxpr import eval_jaxpr

F32 = ShapedArray((), np.dtype(np.float32))


def f(a, b):
    return jnp.cos(a), -jnp.sin(a) * b


def test_partial_val():
    k, u = PartialVal.known(2.0), PartialVal.unknown(F32)
    assert k.is_known() and k.get_known() == 2.0 and k.get_aval().dtype == np.float32
    assert not u.is_known() and u.get_known() is None and u.get_aval() == F32


def test_jaxpr_trace_evaluates_known_and_stages_unknown():
    trace = JaxprTrace()
    x = trace.new_arg(PartialVal.known(np.float32(0.5)))
    t = trace.new_arg(PartialVal.unknown(F32))
    assert isinstance(t, JaxprTracer) and not isinstance(x, JaxprTracer)
    with set_current_trace(trace):
        c = jnp.cos(x)       # known: computed now
        y = jnp.sin(x) * t   # unknown: staged, sin(x) becomes a residual
    np.testing.assert_allclose(c, np.cos(0.5), rtol=1e-6)
    assert trace.is_unknown(y) and y.to_concrete_value() is None
    jaxpr, consts = trace.to_jaxpr([y])
    assert str(jaxpr) == \
        "{ lambda ; a:f32[]. let b:f32[] = mul 0.4794255495071411:f32[] a in (b,) }"
    assert consts == []


# expected values from JAX 0.10.2
KNOWN_A = """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    d:f32[] = neg c
  in (b, d) }"""
UNKNOWN_A = "{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b in (c,) }"
KNOWN_B = "{ lambda ; a:f32[]. let  in (a,) }"
UNKNOWN_B = """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = cos b
    d:f32[] = sin b
    e:f32[] = neg d
    f:f32[] = mul e a
  in (c, f) }"""


def test_partial_eval_jaxpr_nounits_matches_jax():
    cj = make_jaxpr(f)(1.0, 2.0)
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(cj, [False, True], False)
    assert (str(known), str(unknown), out_uk) == (KNOWN_A, UNKNOWN_A, [False, True])
    assert [a.str_short() for a in res] == ["float32[]"]
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(cj, [True, False], False)
    assert (str(known), str(unknown), out_uk) == (KNOWN_B, UNKNOWN_B, [True, True])


@pytest.mark.parametrize("unknowns", [[False, True], [True, False], [False, False],
                                      [True, True]])
@pytest.mark.parametrize("instantiate", [False, True])
def test_known_then_unknown_computes_the_original(unknowns, instantiate):
    cj = make_jaxpr(f)(1.0, 2.0)
    args = [np.float32(0.3), np.float32(-1.5)]
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(cj, unknowns, instantiate)
    known_outs = eval_jaxpr(known.jaxpr, known.consts,
                            *[a for a, uk in zip(args, unknowns) if not uk])
    n_known = len(known_outs) - len(res)
    residuals = known_outs[n_known:]
    unknown_outs = eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals,
                              *[a for a, uk in zip(args, unknowns) if uk])
    k, u = iter(known_outs[:n_known]), iter(unknown_outs)
    outs = [next(u) if uk else next(k) for uk in out_uk]
    np.testing.assert_allclose(outs, [np.cos(0.3), -np.sin(0.3) * -1.5], rtol=1e-6)
    if instantiate:
        assert out_uk == [True, True]


def test_dce_jaxpr_matches_jax():
    jaxpr = make_jaxpr(f)(1.0, 2.0).jaxpr
    # expected values from JAX 0.10.2
    new, used = dce_jaxpr(jaxpr, [False, True])
    assert str(new) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = sin a
    d:f32[] = neg c
    e:f32[] = mul d b
  in (e,) }"""
    assert used == [True, True]
    new, used = dce_jaxpr(jaxpr, [True, False])
    assert str(new) == "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"
    assert used == [True, False]
    new, used = dce_jaxpr(jaxpr, [True, False], instantiate=True)
    assert str(new) == "{ lambda ; a:f32[] b:f32[]. let c:f32[] = cos a in (c,) }"
    assert used == [True, True]


def test_linearize_builds_a_linear_jaxpr_with_residuals():
    x = np.arange(3.0, dtype=np.float32)
    y, f_jvp = linearize(lambda x: jnp.sin(x) * 2.0, x)
    assert str(f_jvp.jaxpr) == """\
{ lambda a:f32[3]; b:f32[3]. let
    c:f32[3] = mul b a
    d:f32[3] = mul c 2.0:f32[]
  in (d,) }"""
    np.testing.assert_allclose(f_jvp.consts[0], np.cos(x), rtol=1e-6)  # the residual
    np.testing.assert_allclose(f_jvp(np.ones(3, np.float32)), 2 * np.cos(x), rtol=1e-6)


def test_linearize_under_make_jaxpr_stages_the_primal_computation():
    def lin(x):
        y, f_jvp = linearize(lambda x: jnp.sin(jnp.cos(x)), x)
        return y, f_jvp(1.0)
    # expected values from JAX 0.10.2 (jax.linearize prints the same equations)
    assert str(make_jaxpr(lin)(3.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    d:f32[] = sin b
    e:f32[] = cos b
    f:f32[] = mul 1.0:f32[] c
    g:f32[] = neg f
    h:f32[] = mul g e
  in (d, h) }"""
