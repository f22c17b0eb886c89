"""Chapter 06 — printed jaxprs of jit programs match JAX 0.10.2 character for character.

A ``jit`` call inside a traced function is one equation, ``jit[name=f
jaxpr={ ... }]``, whose default-valued parameters are hidden; the inner
jaxpr's variables are named like the equation's operands; a jaxpr used twice
(or a large one) is printed once, before the program, as ``let f = { ... } in``.
``jvp`` and ``vmap`` of a ``jit`` give a new ``jit`` equation; ``inline=True``
copies the equations instead.
"""
import functools

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.dtypes import float0
from minijax.interpreters.ad import jvp
from minijax.interpreters.batching import vmap
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.jit import jit


def f(x):
    return jnp.sin(x) * 2.


def g(x, y):
    return jit(f)(x) + y


C = np.arange(3., dtype=np.float32)


def big(x):
    for _ in range(11):
        x = jnp.sin(x)
    return x


def pyt(d, n):
    return {'a': d['x'] * n, 'b': d['y'].sum()}


def two(x, n):
    return x * n


F0 = np.zeros((), dtype=float0)

# expected values from JAX 0.10.2
CASES = [
    ('jit_f', lambda: make_jaxpr(jit(f))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=f\n'
     '      jaxpr={ lambda ; a:f32[]. let\n'
     '          c:f32[] = sin a\n'
     '          b:f32[] = mul c 2.0:f32[]\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('jit_twice_shared', lambda: make_jaxpr(lambda x: jit(f)(x) + jit(f)(x))(1.),
     'let f = { lambda ; a:f32[]. let\n'
     '    b:f32[] = sin a\n'
     '    c:f32[] = mul b 2.0:f32[]\n'
     '  in (c,) } in\n'
     '{ lambda ; d:f32[]. let\n'
     '    e:f32[] = jit[name=f jaxpr=f] d\n'
     '    g:f32[] = jit[name=f jaxpr=f] d\n'
     '    h:f32[] = add e g\n'
     '  in (h,) }'),
    ('jvp_of_jit', lambda: make_jaxpr(lambda x: jvp(jit(f), (x,), (x,)))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] c:f32[] = jit[\n'
     '      name=f\n'
     '      jaxpr={ lambda ; a:f32[] d:f32[]. let\n'
     '          e:f32[] = sin a\n'
     '          f:f32[] = cos a\n'
     '          g:f32[] = mul d f\n'
     '          b:f32[] = mul e 2.0:f32[]\n'
     '          c:f32[] = mul g 2.0:f32[]\n'
     '        in (b, c) }\n'
     '    ] a a\n'
     '  in (b, c) }'),
    ('vmap_of_jit', lambda: make_jaxpr(vmap(jit(f)))(jnp.ones(3)),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=f\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:f32[3] = sin a\n'
     '          b:f32[3] = mul c 2.0:f32[]\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('inline', lambda: make_jaxpr(jit(f, inline=True))(1.),
     '{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }'),
    ('inline_under_jvp', lambda: make_jaxpr(lambda x: jvp(jit(f, inline=True), (x,), (x,)))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = sin a\n'
     '    c:f32[] = cos a\n'
     '    d:f32[] = mul a c\n'
     '    e:f32[] = mul b 2.0:f32[]\n'
     '    f:f32[] = mul d 2.0:f32[]\n'
     '  in (e, f) }'),
    ('jit_of_jit', lambda: make_jaxpr(jit(g))(1., 2.),
     '{ lambda ; a:f32[] b:f32[]. let\n'
     '    c:f32[] = jit[\n'
     '      name=g\n'
     '      jaxpr={ lambda ; a:f32[] b:f32[]. let\n'
     '          d:f32[] = jit[\n'
     '            name=f\n'
     '            jaxpr={ lambda ; a:f32[]. let\n'
     '                e:f32[] = sin a\n'
     '                d:f32[] = mul e 2.0:f32[]\n'
     '              in (d,) }\n'
     '          ] a\n'
     '          c:f32[] = add d b\n'
     '        in (c,) }\n'
     '    ] a b\n'
     '  in (c,) }'),
    ('closed_over_array', lambda: make_jaxpr(jit(lambda x: x * C))(jnp.ones(3)),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda c:f32[3]; a:f32[3]. let b:f32[3] = mul a c in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('closed_over_array_twice', lambda: make_jaxpr(lambda x: jit(lambda y: y * C)(x) * C)(jnp.ones(3)),
     '{ lambda a:f32[3]; b:f32[3]. let\n'
     '    c:f32[3] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda d:f32[3]; b:f32[3]. let c:f32[3] = mul b d in (c,) }\n'
     '    ] b\n'
     '    e:f32[3] = mul c a\n'
     '  in (e,) }'),
    ('static_arg', lambda: make_jaxpr(jit(two, static_argnums=1), static_argnums=1)(1., 3),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=two\n'
     '      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 3.0:f32[] in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('static_argname', lambda: make_jaxpr(jit(two, static_argnames='n'), static_argnums=1)(1., 3),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=two\n'
     '      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 3.0:f32[] in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('pytree_in_out', lambda: make_jaxpr(jit(pyt, static_argnums=1), static_argnums=1)({'x': 1., 'y': jnp.ones(2)}, 3),
     '{ lambda ; a:f32[] b:f32[2]. let\n'
     '    c:f32[] d:f32[] = jit[\n'
     '      name=pyt\n'
     '      jaxpr={ lambda ; a:f32[] b:f32[2]. let\n'
     '          c:f32[] = mul a 3.0:f32[]\n'
     '          d:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n'
     '        in (c, d) }\n'
     '    ] a b\n'
     '  in (c, d) }'),
    ('big_hoisted', lambda: make_jaxpr(jit(big))(1.),
     'let big = { lambda ; a:f32[]. let\n'
     '    b:f32[] = sin a\n'
     '    c:f32[] = sin b\n'
     '    d:f32[] = sin c\n'
     '    e:f32[] = sin d\n'
     '    f:f32[] = sin e\n'
     '    g:f32[] = sin f\n'
     '    h:f32[] = sin g\n'
     '    i:f32[] = sin h\n'
     '    j:f32[] = sin i\n'
     '    k:f32[] = sin j\n'
     '    l:f32[] = sin k\n'
     '  in (l,) } in\n'
     '{ lambda ; m:f32[]. let n:f32[] = jit[name=big jaxpr=big] m in (n,) }'),
    ('identity', lambda: make_jaxpr(jit(lambda x: x))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[name=<lambda> jaxpr={ lambda ; a:f32[]. let  in (a,) }] a\n'
     '  in (b,) }'),
    ('literal_out', lambda: make_jaxpr(jit(lambda x: 1.))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[]. let  in (1.0:f32[],) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('repeated_outs', lambda: make_jaxpr(jit(lambda x, y: (x, x, 3.)))(1., 2.),
     '{ lambda ; a:f32[] b:f32[]. let\n'
     '    c:f32[] d:f32[] e:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] b:f32[]. let  in (a, a, 3.0:f32[]) }\n'
     '    ] a b\n'
     '  in (c, d, e) }'),
    ('int_literal', lambda: make_jaxpr(lambda x: jit(lambda y: y + 1)(x))(1),
     '{ lambda ; a:i32[]. let\n'
     '    b:i32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:i32[]. let b:i32[] = add a 1:i32[] in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('donated', lambda: make_jaxpr(jit(lambda x, y: x * y, donate_argnums=0))(jnp.ones(3), 2.),
     '{ lambda ; a:f32[3] b:f32[]. let\n'
     '    c:f32[3] = jit[\n'
     '      name=<lambda>\n'
     '      donated_invars=(True, False)\n'
     '      jaxpr={ lambda ; a:f32[3] b:f32[]. let\n'
     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
     '          c:f32[3] = mul a d\n'
     '        in (c,) }\n'
     '    ] a b\n'
     '  in (c,) }'),
    ('keep_unused', lambda: make_jaxpr(jit(lambda x, y: x * y, keep_unused=True))(2., jnp.ones(3)),
     '{ lambda ; a:f32[] b:f32[3]. let\n'
     '    c:f32[3] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] b:f32[3]. let\n'
     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
     '          c:f32[3] = mul d b\n'
     '        in (c,) }\n'
     '      keep_unused=True\n'
     '    ] a b\n'
     '  in (c,) }'),
    ('dropvar_inside', lambda: make_jaxpr(lambda x: jit(f)(x) + jit(pyt, static_argnums=1)({'x': x, 'y': x}, 2)['a'])(jnp.ones(3)),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=f\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:f32[3] = sin a\n'
     '          b:f32[3] = mul c 2.0:f32[]\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    d:f32[3] _:f32[] = jit[\n'
     '      name=pyt\n'
     '      jaxpr={ lambda ; a:f32[3] e:f32[3]. let\n'
     '          d:f32[3] = mul a 2.0:f32[]\n'
     '          _:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n'
     '        in (d, _) }\n'
     '    ] a a\n'
     '    f:f32[3] = add b d\n'
     '  in (f,) }'),
    ('closed_over_tracer', lambda: make_jaxpr(lambda x: jit(lambda y: y * x)(1.))(2.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] c:f32[]. let b:f32[] = mul c a in (b,) }\n'
     '    ] a 1.0:f32[]\n'
     '  in (b,) }'),
    ('jvp_closed_over_tracer', lambda: make_jaxpr(lambda x: jvp(lambda z: jit(lambda y: y * z)(1.), (x,), (1.,)))(2.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] c:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] d:f32[] e:f32[]. let\n'
     '          b:f32[] = mul d a\n'
     '          c:f32[] = mul d e\n'
     '        in (b, c) }\n'
     '    ] a 1.0:f32[] 1.0:f32[]\n'
     '  in (b, c) }'),
    ('vmap_in_axes_none', lambda: make_jaxpr(vmap(jit(lambda x, y: x * y), in_axes=(0, None)))(jnp.ones((2, 3)), 2.),
     '{ lambda ; a:f32[2,3] b:f32[]. let\n'
     '    c:f32[2,3] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[2,3] b:f32[]. let\n'
     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
     '          c:f32[2,3] = mul a d\n'
     '        in (c,) }\n'
     '    ] a b\n'
     '  in (c,) }'),
    ('vmap_out_axis_1', lambda: make_jaxpr(vmap(jit(lambda x, y: (x * y, y)), in_axes=(None, 1)))(2., jnp.ones((2, 3))),
     '{ lambda ; a:f32[] b:f32[2,3]. let\n'
     '    c:f32[2,3] d:f32[2,3] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] b:f32[2,3]. let\n'
     '          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
     '          c:f32[2,3] = mul e b\n'
     '        in (c, b) }\n'
     '    ] a b\n'
     '    f:f32[3,2] = transpose[permutation=(1, 0)] c\n'
     '    g:f32[3,2] = transpose[permutation=(1, 0)] d\n'
     '  in (f, g) }'),
    ('jvp_int_arg', lambda: make_jaxpr(lambda x: jvp(jit(lambda a, n: a * n), (x, 3), (1., F0)))(2.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] c:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[] d:i32[] e:f32[]. let\n'
     '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d\n'
     '          b:f32[] = mul a f\n'
     '          c:f32[] = mul e f\n'
     '        in (b, c) }\n'
     '    ] a 3:i32[] 1.0:f32[]\n'
     '  in (b, c) }'),
    ('jit_jit_sin', lambda: make_jaxpr(jit(jit(jnp.sin)))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=sin\n'
     '      jaxpr={ lambda ; a:f32[]. let\n'
     '          b:f32[] = jit[\n'
     '            name=sin\n'
     '            jaxpr={ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }\n'
     '          ] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('jit_in_vmap_in_jit', lambda: make_jaxpr(jit(vmap(jit(f))))(jnp.ones(2)),
     '{ lambda ; a:f32[2]. let\n'
     '    b:f32[2] = jit[\n'
     '      name=f\n'
     '      jaxpr={ lambda ; a:f32[2]. let\n'
     '          b:f32[2] = jit[\n'
     '            name=f\n'
     '            jaxpr={ lambda ; a:f32[2]. let\n'
     '                c:f32[2] = sin a\n'
     '                b:f32[2] = mul c 2.0:f32[]\n'
     '              in (b,) }\n'
     '          ] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('jit_of_jvp', lambda: make_jaxpr(jit(lambda x: jvp(f, (x,), (1.,))))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] c:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; a:f32[]. let\n'
     '          d:f32[] = sin a\n'
     '          e:f32[] = cos a\n'
     '          f:f32[] = mul 1.0:f32[] e\n'
     '          b:f32[] = mul d 2.0:f32[]\n'
     '          c:f32[] = mul f 2.0:f32[]\n'
     '        in (b, c) }\n'
     '    ] a\n'
     '  in (b, c) }'),
    ('partial_named', lambda: make_jaxpr(jit(functools.partial(two, n=2.)))(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=two\n'
     '      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('no_args', lambda: make_jaxpr(lambda x: jit(lambda: jnp.float32(2.) * 3.)() + x)(1.),
     '{ lambda ; a:f32[]. let\n'
     '    b:f32[] = jit[\n'
     '      name=<lambda>\n'
     '      jaxpr={ lambda ; . let b:f32[] = mul 2.0:f32[] 3.0:f32[] in (b,) }\n'
     '    ] \n'
     '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
     '    d:f32[] = add b c\n'
     '  in (d,) }'),
]


@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_printed_jaxpr_matches_jax(name, make, expected):
    assert str(make()) == expected


def test_jit_equation_params_are_jaxs():
    """The equation carries JAX's eleven params, so later chapters can read them."""
    eqn = make_jaxpr(jit(f))(1.).eqns[0]
    assert eqn.primitive.name == "jit"
    assert sorted(eqn.params) == [
        "compiler_options_kvs", "ctx_mesh", "donated_invars", "in_layouts", "in_shardings",
        "inline", "jaxpr", "keep_unused", "name", "out_layouts", "out_shardings"]
    p = eqn.params
    assert p["name"] == "f" and p["inline"] is False and p["keep_unused"] is False
    assert p["donated_invars"] == (False,) and p["in_layouts"] == (None,)
    assert repr(p["in_shardings"]) == "(UnspecifiedValue,)"
    assert repr(p["ctx_mesh"]) == "Mesh(axis_sizes=(), axis_names=())"
    assert type(p["jaxpr"]).__name__ == "ClosedJaxpr"


def test_check_jaxpr_accepts_jit_programs():
    from minijax.jaxpr import check_jaxpr
    for name, make, _ in CASES:
        check_jaxpr(make().jaxpr)
