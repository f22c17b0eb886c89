"""Effects in jaxprs: printed equations, ``jaxpr.effects``, and dead-code elimination.

Every expected text and effect set here was recorded from JAX 0.10.2 (the
printed jaxprs in ``jax_effect_jaxprs.py``, the rest inline). Nothing in this
file runs a jitted program: it only traces.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.callback import IOEffect, OrderedIOEffect
from minijax.debugging import (DebugEffect, OrderedDebugEffect, debug_effect,
                               ordered_debug_effect)
from minijax.effects import Effect, is_ordered
from minijax.experimental import io_callback
from minijax.interpreters.linearize import dce_jaxpr
from minijax.jaxpr import eqn_effects, no_effects

from effect_helpers import normalize_addresses
from jax_effect_jaxprs import JAXPRS, NP_PRINTOPTIONS

S = jax.ShapeDtypeStruct
lax = jax.lax


def host_add(x, y):  # (its name and repr are in the recorded jaxprs)
    return x + y


def ignore(*args):
    return None


def cases():
    """The programs of ``jax_effect_jaxprs.JAXPRS``: name -> (function, example arguments)."""
    return {
        "debug_print": (lambda x: (jax.debug.print("x = {}", x), x * 2)[1], (1.0,)),
        "debug_print_static_kwargs": (
            lambda x, y: jax.debug.print("{x} {s} {}", y, x=x, s="str", ordered=True),
            (1.0, jnp.arange(3))),
        "debug_callback": (lambda x: (jax.debug.callback(ignore, x), x)[1], (1.0,)),
        "debug_callback_ordered": (
            lambda x: (jax.debug.callback(ignore, x, ordered=True), x)[1], (1.0,)),
        "pure_callback": (lambda x: jax.pure_callback(np.sin, S((3,), jnp.float32), x),
                          (jnp.ones(3),)),
        "pure_callback_tree": (
            lambda x, y: jax.pure_callback(host_add, (S((3,), jnp.float32),), x, y=y,
                                           vmap_method="expand_dims"),
            (jnp.ones(3), 2.0)),
        "io_callback_ordered": (
            lambda x: io_callback(np.sin, S((3,), jnp.float32), x, ordered=True),
            (jnp.ones(3),)),
        "io_callback_no_result": (lambda x: io_callback(ignore, None, x), (jnp.ones(3),)),
        "jit_debug_print": (jax.jit(lambda x: (jax.debug.print("x = {}", x), x * 2)[1]),
                            (1.0,)),
        "vmap_pure_sequential": (
            jax.vmap(lambda x, y: jax.pure_callback(host_add, S((), jnp.float32), x, y,
                                                    vmap_method="sequential"),
                     in_axes=(0, None)), (jnp.ones(3), 2.0)),
        "vmap_pure_broadcast_all": (
            jax.vmap(lambda x, y: jax.pure_callback(host_add, S((), jnp.float32), x, y,
                                                    vmap_method="broadcast_all"),
                     in_axes=(0, None)), (jnp.ones(3), 2.0)),
        "vmap_debug_print": (jax.vmap(lambda x: jax.debug.print("{}", x)), (jnp.ones(2),)),
        "vmap_io_callback": (jax.vmap(lambda x: io_callback(np.sin, S((), jnp.float32), x)),
                             (jnp.ones(2),)),
        "grad_debug_print": (jax.grad(lambda x: (jax.debug.print("{}", x), jnp.sin(x))[1]),
                             (1.0,)),
        "cond_debug_print": (
            lambda p, x: lax.cond(p, lambda x: (jax.debug.print("t {}", x), x)[1],
                                  lambda x: x * 2, x), (True, 1.0)),
        "scan_ordered_print": (
            lambda xs: lax.scan(lambda c, x: (jax.debug.print("c {}", c, ordered=True),
                                              (c + x, c))[1], 0.0, xs), (jnp.ones(3),)),
        "while_debug_callback": (
            lambda x: lax.while_loop(lambda c: c < 3,
                                     lambda c: (jax.debug.callback(ignore, c), c + 1)[1], x),
            (0,)),
        "scan_only_effect": (
            lambda xs: lax.scan(lambda c, x: (c, jax.debug.print("x {}", x)), 0.0, xs),
            (jnp.ones(3),)),
        "jit_unused_io_and_pure": (
            jax.jit(lambda x: (io_callback(host_add, S((), jnp.float32), x, x),
                               jax.pure_callback(host_add, S((), jnp.float32), x, x),
                               x + 1)[2]), (1.0,)),
    }


def test_every_recorded_program_is_tested():
    assert set(cases()) == set(JAXPRS)


@pytest.mark.parametrize("name", list(JAXPRS))
def test_printed_jaxpr_is_jaxs(name):
    fn, args = cases()[name]
    text = normalize_addresses(str(jax.make_jaxpr(fn)(*args)))
    assert text == JAXPRS[name].replace("<NP>", NP_PRINTOPTIONS)


def test_the_recorded_print_options_are_numpys_defaults():
    assert NP_PRINTOPTIONS == str(tuple(np.get_printoptions().items()))


# --- effect objects ------------------------------------------------------------------------
def test_effect_names_and_order():
    # str() as JAX 0.10.2 names them
    assert [str(e) for e in (debug_effect, ordered_debug_effect, IOEffect(), OrderedIOEffect())
            ] == ["Debug", "OrderedDebug", "IO", "OrderedIO"]
    assert all(isinstance(e, Effect) for e in (debug_effect, IOEffect()))
    assert isinstance(ordered_debug_effect, OrderedDebugEffect)
    assert isinstance(debug_effect, DebugEffect)
    assert is_ordered(ordered_debug_effect) and is_ordered(OrderedIOEffect())
    assert not is_ordered(debug_effect) and not is_ordered(IOEffect())


def _effect_names(effects) -> list[str]:
    return sorted(str(e) for e in effects)


def test_jaxpr_effects_are_the_union_of_its_equations():
    def f(x):
        jax.debug.print("{}", x)
        io_callback(ignore, None, x, ordered=True)
        jax.debug.callback(ignore, x, ordered=True)
        jax.pure_callback(np.sin, S((), jnp.float32), x)
        return jnp.sin(x)
    closed = jax.make_jaxpr(f)(1.0)
    # recorded from JAX 0.10.2: sorted(map(str, make_jaxpr(f)(1.0).effects))
    assert _effect_names(closed.effects) == ["Debug", "OrderedDebug", "OrderedIO"]
    assert closed.effects == closed.jaxpr.effects
    # recorded from JAX 0.10.2: [sorted(map(str, e.effects)) for e in eqns]
    assert [_effect_names(e.effects) for e in closed.eqns] == [
        ["Debug"], ["OrderedIO"], ["OrderedDebug"], [], []]
    assert jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).effects == set()
    # a pure callback has no effect (recorded from JAX 0.10.2: set())
    assert jax.make_jaxpr(lambda x: jax.pure_callback(np.sin, S((), jnp.float32), x))(
        1.0).effects == set()


def test_higher_order_equations_carry_their_bodies_effects():
    fn, args = cases()["cond_debug_print"]
    closed = jax.make_jaxpr(fn)(*args)
    # recorded from JAX 0.10.2: [[], ['Debug']] for (convert_element_type, cond)
    assert [_effect_names(e.effects) for e in closed.eqns] == [[], ["Debug"]]
    for name in ("scan_ordered_print", "jit_debug_print", "while_debug_callback"):
        fn, args = cases()[name]
        closed = jax.make_jaxpr(fn)(*args)
        outer = closed.eqns[-1]
        assert outer.effects == closed.effects != set(), name
        assert eqn_effects(outer.primitive, outer.params) == outer.effects
    # recorded from JAX 0.10.2: remat2 and custom_jvp_call carry their body's Debug
    remat = jax.make_jaxpr(jax.checkpoint(lambda x: (jax.debug.print("{}", x), x * 2)[1]))(1.0)
    assert _effect_names(remat.eqns[0].effects) == ["Debug"]
    cj = jax.custom_jvp(lambda x: (jax.debug.print("{}", x), x * 2)[1])
    cj.defjvp(lambda p, t: (cj(p[0]), 2 * t[0]))
    assert _effect_names(jax.make_jaxpr(cj)(1.0).effects) == ["Debug"]


def test_effects_survive_linearize_split_into_the_known_part():
    """grad's known/unknown split puts the print (on primal values) in the known part."""
    def f(x):
        jax.debug.print("x {}", x, ordered=True)
        return jnp.sin(x) * x
    closed = jax.make_jaxpr(jax.grad(jax.jit(f)))(1.0)
    # recorded from JAX 0.10.2: the known jit prints, the linear (backward) jit does not
    assert [(e.primitive.name, _effect_names(e.effects)) for e in closed.eqns] == [
        ("jit", ["OrderedDebug"]), ("jit", [])]
    assert _effect_names(closed.effects) == ["OrderedDebug"]


# --- dead-code elimination -----------------------------------------------------------------
def test_dce_keeps_every_effectful_equation():
    def f(x):
        jax.debug.print("{}", x)
        jax.pure_callback(np.sin, S((), jnp.float32), x)
        io_callback(np.sin, S((), jnp.float32), x)
        jax.debug.callback(print, x, ordered=True)
        jnp.sin(x)
        return x * 2
    jaxpr, used = dce_jaxpr(jax.make_jaxpr(f)(1.0).jaxpr, [False])
    # recorded from JAX 0.10.2 (pe.dce_jaxpr(jaxpr, [False])): the pure ones are gone
    assert [e.primitive.name for e in jaxpr.eqns] == ["debug_print", "io_callback",
                                                      "debug_callback"]
    assert used == [True]
    assert _effect_names(jaxpr.effects) == ["Debug", "IO", "OrderedDebug"]


def test_dce_keeps_control_flow_whose_only_output_is_an_effect():
    fn, args = cases()["scan_only_effect"]
    jaxpr, used = dce_jaxpr(jax.make_jaxpr(fn)(*args).jaxpr, [False])
    # recorded from JAX 0.10.2: the scan stays, its carry goes
    assert [e.primitive.name for e in jaxpr.eqns] == ["scan"] and used == [True]
    assert jaxpr.eqns[0].params["num_carry"] == 0
    assert [e.primitive.name for e in jaxpr.eqns[0].params["jaxpr"].eqns] == ["debug_print"]
    cond = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: jax.debug.print("t {}", x),
                                                lambda x: None, x))(True, 1.0)
    jaxpr, used = dce_jaxpr(cond.jaxpr, [])
    assert [e.primitive.name for e in jaxpr.eqns] == ["convert_element_type", "cond"]
    assert used == [True, True]
    remat = jax.make_jaxpr(jax.checkpoint(lambda x: (jax.debug.print("{}", x), x * 2)[1]))(1.0)
    jaxpr, _ = dce_jaxpr(remat.jaxpr, [False])
    assert [e.primitive.name for e in jaxpr.eqns] == ["remat2"]
    assert [e.primitive.name for e in jaxpr.eqns[0].params["jaxpr"].eqns] == ["debug_print"]


def test_a_function_whose_only_work_is_an_effect_keeps_it():
    closed = jax.make_jaxpr(jax.jit(lambda x: jax.debug.print("{}", x)))(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["jit"]
    assert closed.jaxpr.outvars == [] and _effect_names(closed.effects) == ["Debug"]
    jaxpr, _ = dce_jaxpr(closed.jaxpr, [])
    assert len(jaxpr.eqns) == 1 and jaxpr.eqns[0].params["jaxpr"].eqns


def test_rebuilt_jaxprs_keep_their_effects():
    closed = jax.make_jaxpr(cases()["debug_print"][0])(1.0)
    rebuilt = jax.extend.core.Jaxpr(closed.jaxpr.constvars, closed.jaxpr.invars,
                                    closed.jaxpr.outvars, closed.jaxpr.eqns)
    assert rebuilt.effects == closed.effects == {debug_effect}
    assert closed.jaxpr.replace(eqns=closed.jaxpr.eqns[1:]).effects == no_effects


# --- ShapeDtypeStruct -----------------------------------------------------------------------
def test_shape_dtype_struct_as_jaxs():
    # reprs recorded from JAX 0.10.2
    assert repr(S.like(np.ones(3))) == "ShapeDtypeStruct(shape=(3,), dtype=float32)"
    assert repr(S.like(jnp.ones(3))) == "ShapeDtypeStruct(shape=(3,), dtype=float32)"
    assert repr(S.like(1.0)) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert repr(S.like(np.int64(3))) == "ShapeDtypeStruct(shape=(), dtype=int32)"
    assert repr(S.like(S((2,), jnp.int8))) == "ShapeDtypeStruct(shape=(2,), dtype=int8)"
    s = S((2, 3), jnp.float32)
    assert (s.size, len(s), s.ndim, str(s)) == (6, 2, 2,
                                                "ShapeDtypeStruct(shape=(2, 3), dtype=float32)")
    assert s == S((2, 3), "float32") and hash(s) == hash(S((2, 3), "float32"))
    assert repr(s.update(shape=(4,))) == "ShapeDtypeStruct(shape=(4,), dtype=float32)"
    with pytest.raises(ValueError, match="ShapeDtypeStruct: dtype must be specified."):
        S((2,), None)
    with pytest.raises(RuntimeError, match=r"Cannot reassign attributes \(shape\) of "
                                           "immutable ShapeDtypeStruct objects"):
        s.shape = (3,)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(S((), jnp.float32))
    # .like inside a trace: the tracer's type
    seen = []
    jax.make_jaxpr(lambda x: seen.append(S.like(x)))(jnp.ones((2,), jnp.int32))
    assert seen == [S((2,), jnp.int32)]
