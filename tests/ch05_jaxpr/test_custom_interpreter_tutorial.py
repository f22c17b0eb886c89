"""Chapter 05: JAX's tutorial "Writing custom Jaxpr interpreters in JAX", run as written
(with ``import minijax as jax``), on ``jax.extend.core``.

The tutorial reads a jaxpr's ``invars``/``outvars``/``constvars``/``eqns``,
writes its own ``eval_jaxpr`` with ``core.Literal`` and ``primitive.bind``, and
then an interpreter that *inverts* a function by walking its jaxpr backwards.
Its printed output was recorded with JAX 0.10.2 (variable ids vary run to run,
so they are masked). The tutorial imports ``safe_map`` from JAX's private
``jax._src.util``; it is written out here: ``map`` that checks the lengths.
"""
import re
from functools import wraps

import numpy as np

import minijax as jax
import minijax.numpy as jnp
from minijax import lax
from minijax.extend import core


def safe_map(f, *args):
    args = list(map(list, args))
    n = len(args[0])
    for arg in args[1:]:
        assert len(arg) == n, f"length mismatch: {list(map(len, args))}"
    return list(map(f, *args))


def examine_jaxpr(closed_jaxpr):
    jaxpr = closed_jaxpr.jaxpr
    print("invars:", jaxpr.invars)
    print("outvars:", jaxpr.outvars)
    print("constvars:", jaxpr.constvars)
    for eqn in jaxpr.eqns:
        print("equation:", eqn.invars, eqn.primitive, eqn.outvars, eqn.params)
    print()
    print("jaxpr:", jaxpr)


def masked(text):
    return re.sub(r"Var\(id=\d+\)", "Var", text)


def test_examine_jaxpr(capsys):
    def foo(x):
        return x + 1

    def bar(w, b, x):
        return jnp.dot(w, x) + b + jnp.ones(5), x

    examine_jaxpr(jax.make_jaxpr(foo)(5))
    examine_jaxpr(jax.make_jaxpr(bar)(jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10)))
    # from JAX 0.10.2 (which prints the literal 1 as Literal(TypedInt(1, dtype=int32)))
    assert masked(capsys.readouterr().out) == """\
invars: [Var:int32[]]
outvars: [Var:int32[]]
constvars: []
equation: [Var:int32[], Literal(1)] add [Var:int32[]] {}

jaxpr: { lambda ; a:i32[]. let b:i32[] = add a 1:i32[] in (b,) }
invars: [Var:float32[5,10], Var:float32[5], Var:float32[10]]
outvars: [Var:float32[5], Var:float32[10]]
constvars: []
equation: [Var:float32[5,10], Var:float32[10]] dot_general [Var:float32[5]] \
{'dimension_numbers': (((1,), (0,)), ((), ())), 'precision': None, \
'preferred_element_type': dtype('float32'), 'out_sharding': None}
equation: [Var:float32[5], Var:float32[5]] add [Var:float32[5]] {}
equation: [Literal(1.0)] broadcast_in_dim [Var:float32[5]] \
{'shape': (5,), 'broadcast_dimensions': (), 'sharding': None}
equation: [Var:float32[5], Var:float32[5]] add [Var:float32[5]] {}

jaxpr: { lambda ; a:f32[5,10] b:f32[5] c:f32[10]. let
    d:f32[5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a c
    e:f32[5] = add d b
    f:f32[5] = broadcast_in_dim 1.0:f32[]
    g:f32[5] = add e f
  in (g, c) }
"""


# --- the tutorial's own evaluator --------------------------------------------------------
def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.invars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns:
        invals = safe_map(read, eqn.invars)
        outvals = eqn.primitive.bind(*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outvals = [outvals]
        safe_map(write, eqn.outvars, outvals)
    return safe_map(read, jaxpr.outvars)


def f(x):
    return jnp.exp(jnp.tanh(x))


def test_the_tutorial_eval_jaxpr():
    closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
    out, = eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, jnp.ones(5))
    np.testing.assert_allclose(out, [2.1416876] * 5, rtol=1e-6)  # from JAX 0.10.2
    np.testing.assert_allclose(out, np.exp(np.tanh(np.ones(5))), rtol=1e-6)


# --- the inverse interpreter -------------------------------------------------------------
inverse_registry = {}
inverse_registry[lax.exp_p] = jnp.log
inverse_registry[lax.tanh_p] = jnp.arctanh


def inverse(fun):
    @wraps(fun)
    def wrapped(*args, **kwargs):
        closed_jaxpr = jax.make_jaxpr(fun)(*args, **kwargs)
        out = inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)
        return out[0]
    return wrapped


def inverse_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(var):
        if type(var) is core.Literal:
            return var.val
        return env[var]

    def write(var, val):
        env[var] = val

    safe_map(write, jaxpr.outvars, args)
    safe_map(write, jaxpr.constvars, consts)
    for eqn in jaxpr.eqns[::-1]:
        invals = safe_map(read, eqn.outvars)
        if eqn.primitive not in inverse_registry:
            raise NotImplementedError(f"{eqn.primitive} does not have registered inverse.")
        outval = inverse_registry[eqn.primitive](*invals)
        safe_map(write, eqn.invars, [outval])
    return safe_map(read, jaxpr.invars)


def test_inverse():
    f_inv = inverse(f)
    assert jnp.allclose(f_inv(f(1.0)), 1.0)
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(inverse(f))(f(1.))) == \
        "{ lambda ; a:f32[]. let b:f32[] = log a; c:f32[] = atanh b in (c,) }"
    xs = (jnp.arange(5) + 1.) / 5.
    np.testing.assert_allclose(jax.vmap(inverse(f))(f(xs)), xs, rtol=1e-5)


def test_inverse_without_a_registered_rule():
    try:
        inverse(jnp.sin)(0.5)
    except NotImplementedError as e:
        assert str(e) == "sin does not have registered inverse."
    else:
        raise AssertionError("expected NotImplementedError")


def test_the_extend_core_objects():
    cj = jax.make_jaxpr(lambda a: a * 2.0 + 1.0)(3.0)
    assert isinstance(cj, core.ClosedJaxpr) and isinstance(cj.jaxpr, core.Jaxpr)
    eqn = cj.jaxpr.eqns[0]
    assert isinstance(eqn.invars[0], core.Var) and isinstance(eqn.invars[1], core.Literal)
    assert isinstance(eqn.primitive, core.Primitive) and eqn.primitive.name == "mul"
    lit = eqn.invars[1]
    assert (str(lit), lit.val, str(lit.aval)) == ("Literal(2.0)", 2.0, "~float32[]")  # JAX 0.10.2
    assert float(core.jaxpr_as_fun(cj)(4.0)[0]) == 9.0  # from JAX 0.10.2
