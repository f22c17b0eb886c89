"""Chapter 05 — the IR objects, their printing, eval_jaxpr and check_jaxpr.

Hand-built jaxprs (including jaxprs nested in params, as ``jit`` and ``cond``
will make them) print as JAX 0.10.2 printed the same hand-built jaxprs;
``eval_jaxpr`` reproduces NumPy's results; ``check_jaxpr`` rejects ill-formed
jaxprs with JAX's messages.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.errors import JaxprTypeError
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var,
                           check_jaxpr, eval_jaxpr, jaxpr_as_fun, new_jaxpr_eqn)
from minijax.tree_util import tree_flatten

f32 = ShapedArray((), np.float32)
f3 = ShapedArray((3,), np.float32)
i32 = ShapedArray((), np.int32)


def E(prim, ins, outs, **params):
    return new_jaxpr_eqn(ins, outs, prim, params)


def sin(i, o):
    return E(lax.sin_p, [i], [o], accuracy=None)


# =============================================================================
# The objects
# =============================================================================
def test_closed_jaxpr_fields():
    c = jnp.array([1.0, 2.0, 3.0])
    closed = make_jaxpr(lambda x, n: (jnp.sum(x * c) * 2.0, n))(jnp.ones(3), 1)
    assert isinstance(closed, ClosedJaxpr) and isinstance(closed.jaxpr, Jaxpr)
    assert closed.consts == [c] and closed.literals is closed.consts
    assert closed.in_avals == [f3, ShapedArray((), np.int32, weak_type=True)]
    assert closed.out_avals == [f32, ShapedArray((), np.int32, weak_type=True)]
    assert closed.effects == frozenset() and closed.jaxpr.effects == frozenset()
    assert closed.eqns is closed.jaxpr.eqns and len(closed.eqns) == 3
    assert len(closed.jaxpr.constvars) == 1 and closed.jaxpr.constvars[0].aval == f3
    mul, total, double = closed.eqns
    assert isinstance(mul, JaxprEqn) and mul.primitive is lax.mul_p
    assert mul.invars[1] is closed.jaxpr.constvars[0] and mul.effects == frozenset()
    assert total.primitive is lax.reduce_sum_p and total.params["axes"] == (0,)
    lit = double.invars[1]
    assert isinstance(lit, Literal) and lit.aval == f32 and float(np.asarray(lit.val)) == 2.0
    assert closed.jaxpr.outvars[1] is closed.jaxpr.invars[1]


def test_var_identity_and_repr():
    a, b = Var(f32), Var(f32)
    assert a != b and len({a, b}) == 2
    assert repr(a).startswith("Var(id=") and repr(a).endswith("):float32[]")
    assert repr(DropVar(f32)) == "_"
    assert repr(Literal(2.0, f32)) == "Literal(2.0)"


def test_eqn_replace_keeps_other_fields():
    a, b = Var(f32), Var(f32)
    eqn = sin(a, b)
    other = eqn.replace(params={})
    assert other.params == {} and other.invars == [a] and other.primitive is lax.sin_p
    assert eqn.params == {"accuracy": None}


# =============================================================================
# Printing hand-built jaxprs, with jaxprs nested in params
# =============================================================================
def inner(n=1):
    """``sin``, ``add x x``, ``sin``... on one f32 input."""
    vs, eqns = [Var(f32)], []
    for i in range(n):
        y = Var(f32)
        eqns.append(sin(vs[-1], y) if i % 2 == 0 else E(lax.add_p, [vs[-1], vs[-1]], [y]))
        vs.append(y)
    return Jaxpr([], [vs[0]], [vs[-1]], eqns)


def outer(build):
    a = Var(f32)
    eqns, outs = build(a)
    return Jaxpr([], [a], outs, eqns)


J1, J12, JA, JB = inner(2), inner(12), inner(1), inner(2)


def _used_once(a):
    c = Var(f32)
    return [E(lax.copy_p, [a], [c], name="f", jaxpr=ClosedJaxpr(J1, []))], [c]


def _used_twice(a):
    c, d = Var(f32), Var(f32)
    return [E(lax.copy_p, [a], [c], name="f", jaxpr=ClosedJaxpr(J1, [])),
            E(lax.copy_p, [c], [d], name="f", jaxpr=ClosedJaxpr(J1, []))], [d]


def _big_once(a):
    c = Var(f32)
    return [E(lax.copy_p, [a], [c], name="<lambda>", jaxpr=J12)], [c]


def _branches(a):
    c = Var(f32)
    return [E(lax.select_n_p, [a, a], [c],
              branches=(ClosedJaxpr(JA, []), ClosedJaxpr(JB, [])))], [c]


def _dropvar_no_outputs_literals(a):
    c, e = Var(f32), Var(f32)
    return ([E(lax.select_n_p, [a, a], [c, DropVar(f32)], branches=(JA, JB)),
             E(lax.copy_p, [c], [], jaxpr=JA),
             sin(Literal(np.float32(2.5), f32), e)],
            [e, c, Literal(3, i32)])


def _name_clash(a):
    c, d = Var(f32), Var(f32)
    return [E(lax.copy_p, [a], [c], name="f", jaxpr=J1),
            E(lax.copy_p, [c], [d], name="f", jaxpr=JA),
            E(lax.copy_p, [d], [d], name="f", jaxpr=JA)], [d]


def _param_values(a):
    c = Var(f32)
    return [E(lax.copy_p, [a], [c], name="g", fn=len, t=(1, 2), n=None,
              fs=frozenset({3, 1}), s="str", dt=np.dtype("int8"))], [c]


# expected values from JAX 0.10.2 (the same jaxprs built with jax._src.core)
HAND_BUILT = [
    ("nested_inline", _used_once, {},
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = copy[\n"
     "      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = add d d in (e,) }\n"
     "      name=f\n"
     "    ] a\n"
     "  in (b,) }"),
    ("shared_when_used_twice", _used_twice, {},
     "let f = { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = add b b in (c,) } in\n"
     "{ lambda ; d:f32[]. let\n"
     "    e:f32[] = copy[jaxpr=f name=f] d\n"
     "    g:f32[] = copy[jaxpr=f name=f] e\n"
     "  in (g,) }"),
    ("shared_when_big", _big_once, {},
     "let lambda = { lambda ; a:f32[]. let\n"
     "    b:f32[] = sin a\n"
     "    c:f32[] = add b b\n"
     "    d:f32[] = sin c\n"
     "    e:f32[] = add d d\n"
     "    f:f32[] = sin e\n"
     "    g:f32[] = add f f\n"
     "    h:f32[] = sin g\n"
     "    i:f32[] = add h h\n"
     "    j:f32[] = sin i\n"
     "    k:f32[] = add j j\n"
     "    l:f32[] = sin k\n"
     "    m:f32[] = add l l\n"
     "  in (m,) } in\n"
     "{ lambda ; n:f32[]. let o:f32[] = copy[jaxpr=lambda name=<lambda>] n in (o,) }"),
    ("tuple_of_jaxprs", _branches, {},
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = select_n[\n"
     "      branches=(\n"
     "        { lambda ; c:f32[]. let d:f32[] = sin c in (d,) }\n"
     "        { lambda ; e:f32[]. let f:f32[] = sin e; g:f32[] = add f f in (g,) }\n"
     "      )\n"
     "    ] a a\n"
     "  in (b,) }"),
    ("dropvar_no_outvars_literals", _dropvar_no_outputs_literals, {},
     "let jaxpr = { lambda ; a:f32[]. let b:f32[] = sin a in (b,) } in\n"
     "{ lambda ; c:f32[]. let\n"
     "    d:f32[] _:f32[] = select_n[\n"
     "      branches=(\n"
     "        jaxpr\n"
     "        { lambda ; e:f32[]. let f:f32[] = sin e; g:f32[] = add f f in (g,) }\n"
     "      )\n"
     "    ] c c\n"
     "    copy[jaxpr=jaxpr] d\n"
     "    h:f32[] = sin 2.5:f32[]\n"
     "  in (h, d, 3:i32[]) }"),
    ("without_shapes", _dropvar_no_outputs_literals, {"print_shapes": False},
     "let jaxpr = { lambda ; a. let b = sin a in (b,) } in\n"
     "{ lambda ; c. let\n"
     "    d _ = select_n[\n"
     "      branches=(jaxpr { lambda ; e. let f = sin e; g = add f f in (g,) })\n"
     "    ] c c\n"
     "    copy[jaxpr=jaxpr] d\n"
     "    h = sin 2.5:f32[]\n"
     "  in (h, d, 3:i32[]) }"),
    ("shared_name_skipped_by_vars", _name_clash, {},
     "let f = { lambda ; a:f32[]. let b:f32[] = sin a in (b,) } in\n"
     "{ lambda ; c:f32[]. let\n"
     "    d:f32[] = copy[\n"
     "      jaxpr={ lambda ; e:f32[]. let g:f32[] = sin e; h:f32[] = add g g in (h,) }\n"
     "      name=f\n"
     "    ] c\n"
     "    i:f32[] = copy[jaxpr=f name=f] d\n"
     "    i:f32[] = copy[jaxpr=f name=f] i\n"
     "  in (i,) }"),
    ("param_values_with_str", _param_values, {},
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = copy[\n"
     "      dt=int8\n"
     "      fn=<built-in function len>\n"
     "      fs=frozenset({1, 3})\n"
     "      n=None\n"
     "      name=g\n"
     "      s=str\n"
     "      t=(1, 2)\n"
     "    ] a\n"
     "  in (b,) }"),
]


@pytest.mark.parametrize("build, kwargs, expected", [c[1:] for c in HAND_BUILT],
                         ids=[c[0] for c in HAND_BUILT])
def test_hand_built_jaxpr_prints_like_jax(build, kwargs, expected):
    assert outer(build).pretty_print(**kwargs) == expected


def test_many_binders_break_the_lambda_line():
    x = Var(f3)
    jaxpr = Jaxpr([x], [Var(f3) for _ in range(12)], [x], [])
    # expected values from JAX 0.10.2
    assert str(jaxpr) == (
        "{ lambda a:f32[3]; b:f32[3] c:f32[3] d:f32[3] e:f32[3] f:f32[3] g:f32[3] h:f32[3]\n"
        "    i:f32[3] j:f32[3] k:f32[3] l:f32[3] m:f32[3]. let\n"
        "    \n"
        "  in (a,) }")


# =============================================================================
# eval_jaxpr: an interpreter, checked against NumPy
# =============================================================================
W = np.arange(6, dtype=np.float32).reshape(2, 3) / 10

ROUND_TRIPS = [
    ("log2", lambda x: jnp.log(x) / jnp.log(2.0), (np.float32(3.0),),
     lambda x: np.log2(x)),
    ("affine", lambda x, b: jnp.asarray(W) @ x + b, (np.ones(3, np.float32), np.float32(0.5)),
     lambda x, b: W @ x + b),
    ("softmax", lambda x: jnp.exp(x - x.max()) / jnp.exp(x - x.max()).sum(),
     (np.array([1.0, 2.0, 3.0], np.float32),),
     lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum()),
    ("scatter_gather", lambda x: x.at[1].add(2.0)[jnp.array([0, 1, 1])],
     (np.arange(4, dtype=np.float32),), lambda x: np.array([0.0, 3.0, 3.0])),
    ("int_ops", lambda x: (x // 3, x % 3, -x), (np.arange(-4, 5, dtype=np.int32),),
     lambda x: (np.floor_divide(x, 3), np.mod(x, 3), -x)),
    ("pytree", lambda d: d["a"] * d["b"][0] - d["b"][1],
     ({"a": np.float32(2.0), "b": (np.float32(3.0), np.float32(1.0))},),
     lambda d: np.float32(5.0)),
    ("python_loop", lambda x: [x := jnp.sin(x) for _ in range(3)][-1], (np.float32(1.0),),
     lambda x: np.sin(np.sin(np.sin(x)))),
]


@pytest.mark.parametrize("fun, args, reference", [c[1:] for c in ROUND_TRIPS],
                         ids=[c[0] for c in ROUND_TRIPS])
def test_eval_jaxpr_matches_numpy(fun, args, reference, jit_backend):
    closed = make_jaxpr(fun)(*args)
    flat_args, _ = tree_flatten(args)
    outs = eval_jaxpr(closed.jaxpr, closed.consts, *flat_args)
    expected, _ = tree_flatten(reference(*args))
    assert len(outs) == len(expected)
    for out, want in zip(outs, expected):
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)


def test_jaxpr_as_fun_returns_a_list():
    closed = make_jaxpr(lambda x, y: (x * y, x - y))(2.0, 3.0)
    outs = jaxpr_as_fun(closed)(np.float32(2.0), np.float32(5.0))
    assert isinstance(outs, list) and [float(o) for o in outs] == [10.0, -3.0]


def test_eval_jaxpr_with_literal_and_input_outputs():
    closed = make_jaxpr(lambda x: (x, 1.0, 2))(1.0)
    assert eval_jaxpr(closed.jaxpr, closed.consts, 7.0) == [7.0, 1.0, 2]


def test_eval_jaxpr_rejects_wrong_argument_count():
    closed = make_jaxpr(lambda x, y: x + y)(1.0, 2.0)
    with pytest.raises(TypeError, match="takes 0 consts and 2 args"):
        eval_jaxpr(closed.jaxpr, [], 1.0)


def test_eval_jaxpr_is_traceable_again():
    """Evaluating a jaxpr under make_jaxpr records the same equations."""
    closed = make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
    again = make_jaxpr(jaxpr_as_fun(closed))(1.0)
    assert str(again) == str(closed)


# =============================================================================
# check_jaxpr
# =============================================================================
def test_traced_jaxprs_typecheck():
    c = jnp.ones(3)
    for fun, args in [(lambda x: jnp.log(x) / jnp.log(2.0), (3.0,)),
                      (lambda x: (x @ jnp.ones((3, 2)), x.at[0].add(1.0)), (jnp.ones(3),)),
                      (lambda x, i: (x * c)[i], (jnp.ones(3), 1)),
                      (lambda x, y: lax.sort((x, y), num_keys=1)[0], (jnp.ones(3), jnp.ones(3)))]:
        check_jaxpr(make_jaxpr(fun)(*args).jaxpr)


a, b, c = Var(f32), Var(f32), Var(f32)
_many = [Var(f32) for _ in range(30)]

# expected values from JAX 0.10.2 (jax._src.core.check_jaxpr on the same jaxprs)
BAD = [
    ("unbound", Jaxpr([], [a], [c], [sin(b, c)]),
     "Variable 'c' not defined\n\nin equation:\n\nb:f32[] = sin c\n\nfrom source: \n\n"
     "while checking jaxpr:\n\n{ lambda ; a:f32[]. let b:f32[] = sin c in (b,) }"),
    ("bound_twice", Jaxpr([], [a], [a], [sin(a, a)]),
     "Variable 'a' already bound\n\nin equation:\n\na:f32[] = sin a\n\nfrom source: \n\n"
     "while checking jaxpr:\n\n{ lambda ; a:f32[]. let a:f32[] = sin a in (a,) }"),
    ("duplicate_invars", Jaxpr([], [a, a], [a], []),
     "Variable 'a' already bound\n\nwhile checking jaxpr:\n\n"
     "{ lambda ; a:f32[] a:f32[]. let  in (a,) }"),
    ("wrong_shape", Jaxpr([], [a], [b], [E(lax.add_p, [a, a], [Var(f3)]), sin(a, b)]),
     "Value for variable '_' inconsistently typed as f32[] for let-binder of type f32[3]"
     "\n\nin equation:\n\n_:f32[3] = add a a\n\nfrom source: \n\nwhile checking jaxpr:\n\n"
     "{ lambda ; a:f32[]. let _:f32[3] = add a a; b:f32[] = sin a in (b,) }"),
    ("wrong_dtype", Jaxpr([], [a], [b], [E(lax.convert_element_type_p, [a], [b],
                                          new_dtype=np.dtype("int32"), weak_type=False,
                                          sharding=None)]),
     "Value for variable 'b' inconsistently typed as i32[] for let-binder of type f32[]"
     "\n\nin equation:\n\nb:f32[] = convert_element_type[new_dtype=int32 weak_type=False] a"
     "\n\nfrom source: \n\nwhile checking jaxpr:\n\n{ lambda ; a:f32[]. let\n"
     "    b:f32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n  in (b,) }"),
    ("unbound_outvar", Jaxpr([], [a], [c], []),
     "Variable 'b' not defined\n\nwhile checking jaxpr:\n\n{ lambda ; a:f32[]. let  in (b,) }"),
    ("bad_literal", Jaxpr([], [a], [b], [E(lax.add_p, [a, Literal(np.float32(1), i32)], [b])]),
     "Literal value 1.0 does not match its type annotation i32[]\n\nin equation:\n\n"
     "b:f32[] = add a 1.0:i32[]\n\nfrom source: \n\nwhile checking jaxpr:\n\n"
     "{ lambda ; a:f32[]. let b:f32[] = add a 1.0:i32[] in (b,) }"),
    ("long_jaxpr_window", Jaxpr([], [_many[0]], [_many[-1]],
                                [sin(_many[i], _many[i + 1]) for i in range(14)]
                                + [sin(c, _many[15])]
                                + [sin(_many[i], _many[i + 1]) for i in range(15, 29)]),
     "Variable 'p' not defined\n\nin equation:\n\no:f32[] = sin p\n\nfrom source: \n\n"
     "while checking jaxpr:\n\n{ lambda ; a:f32[]. let\n    ...\n"
     + "".join(f"    {v}:f32[] = sin {u}\n" for u, v in zip("efghijklm", "fghijklmn"))
     + "    _:f32[] = sin n\n    o:f32[] = sin p\n    q:f32[] = sin o\n"
     + "".join(f"    {v}:f32[] = sin {u}\n" for u, v in zip("qrstuvwx", "rstuvwxy"))
     + "    ...\n  in (bd,) }"),
]


@pytest.mark.parametrize("jaxpr, message", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_check_jaxpr_rejects_with_jax_message(jaxpr, message):
    with pytest.raises(JaxprTypeError) as info:
        check_jaxpr(jaxpr)
    assert str(info.value) == message
    assert isinstance(info.value, TypeError)


def test_check_jaxpr_accepts_good_hand_built_jaxprs():
    x3 = Var(f3)
    check_jaxpr(Jaxpr([x3], [a], [b], [E(lax.reduce_sum_p, [x3], [c], axes=(0,),
                                          out_sharding=None), E(lax.add_p, [a, c], [b])]))
    check_jaxpr(ClosedJaxpr(Jaxpr([], [a], [b, Literal(2.0, f32)],
                                  [E(lax.mul_p, [a, Literal(2.0, f32)], [b])]), []))


def test_check_jaxpr_reraises_the_primitives_own_shape_error():
    x3, x4 = Var(f3), Var(ShapedArray((4,), np.float32))
    # expected values from JAX 0.10.2: a TypeError from the rule, not a JaxprTypeError
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                        r"\(3,\), \(4,\)\.") as info:
        check_jaxpr(Jaxpr([], [x3, x4], [b], [E(lax.add_p, [x3, x4], [b])]))
    assert not isinstance(info.value, JaxprTypeError)


def test_check_jaxpr_checks_arity():
    with pytest.raises(JaxprTypeError, match="produces 1 outputs but the equation has 2"):
        check_jaxpr(Jaxpr([], [a], [b], [E(lax.sin_p, [a], [b, c])]))
