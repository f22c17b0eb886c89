"""Chapter 05 — make_jaxpr: what tracing records, what it runs once, what it refuses.

Messages are JAX 0.10.2's, with the file and line of the traced function in
this file (JAX's make_jaxpr traces through jit, so it says "for jit").
"""
import collections

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import errors, lax
from minijax.interpreters.partial_eval import (DynamicJaxprTracer, ShapeDtypeStruct,
                                               make_jaxpr, trace_to_jaxpr_dynamic)
from minijax.abstract_arrays import ShapedArray
from minijax.jaxpr import Literal

HERE = __file__
P = collections.namedtuple("P", "a b")


def where(fun) -> str:
    return f"{fun.__name__} at {HERE}:{fun.__code__.co_firstlineno}"


# =============================================================================
# What happens once, at trace time
# =============================================================================
def test_python_side_effects_happen_once_and_are_not_recorded():
    log = []

    def f(x):
        log.append("traced")
        print("inside f")  # noqa: T201  (a side effect like any other)
        return jnp.sin(x)

    closed = make_jaxpr(f)(1.0)
    assert log == ["traced"]
    assert [e.primitive.name for e in closed.eqns] == ["sin"]


def test_static_attributes_resolve_branches_at_trace_time():
    f = lambda x: x.sum() if x.ndim == 1 else x.sum(0)  # noqa: E731
    # expected values from JAX 0.10.2
    assert str(make_jaxpr(f)(jnp.ones(3))) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n"
        "  in (b,) }")
    assert str(make_jaxpr(f)(jnp.ones((2, 3)))) == (
        "{ lambda ; a:f32[2,3]. let\n"
        "    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n"
        "  in (b,) }")
    # shapes are static too: len(x) is a Python int, so it becomes a literal
    assert str(make_jaxpr(lambda x: x * len(x))(jnp.ones(3))) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = mul a 3.0:f32[] in (b,) }")


def test_python_loops_unroll():
    closed = make_jaxpr(lambda x: [x := x * 2.0 for _ in range(4)][-1])(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["mul"] * 4


def test_tracers_are_abstract():
    seen = []
    make_jaxpr(lambda x: seen.append(x) or x)(jnp.ones((2, 3), jnp.int32))
    make_jaxpr(lambda x: seen.append(x) or x)(1.0)
    t, w = seen
    assert isinstance(t, DynamicJaxprTracer) and t.shape == (2, 3) and t.dtype == np.int32
    # expected values from JAX 0.10.2
    assert repr(t) == str(t) == "JitTracer(int32[2,3])"
    assert repr(w) == "JitTracer(~float32[])"


# =============================================================================
# Constants: literals or constvars
# =============================================================================
def test_scalars_are_literals_arrays_are_constvars():
    c = np.array([1.0, 2.0])
    closed = make_jaxpr(lambda x: x * c + np.float32(3) + np.array(4.0) + np.int8(1))(1.0)
    # expected values from JAX 0.10.2
    assert str(closed) == (
        "{ lambda a:f32[2]; b:f32[]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    d:f32[2] = mul c a\n"
        "    e:f32[2] = add d 3.0:f32[]\n"
        "    f:f32[2] = add e 4.0:f32[]\n"
        "    g:f32[2] = add f 1.0:f32[]\n"
        "  in (g,) }")
    (const,) = closed.consts
    np.testing.assert_array_equal(np.asarray(const), [1.0, 2.0])
    assert all(isinstance(e.invars[1], Literal) for e in closed.eqns[2:])


def test_the_same_constant_twice_is_one_constvar():
    c = jnp.ones(3)
    closed = make_jaxpr(lambda x: x * c + c)(1.0)
    assert len(closed.jaxpr.constvars) == 1 and closed.consts == [c]
    # expected values from JAX 0.10.2
    assert str(closed) == (
        "{ lambda a:f32[3]; b:f32[]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n"
        "    d:f32[3] = mul c a\n"
        "    e:f32[3] = add d a\n"
        "  in (e,) }")


def test_outer_tracer_is_a_constvar_of_the_inner_jaxpr():
    inner = []

    def outer(x):
        inner.append(make_jaxpr(lambda y: x + y)(1.0))
        return x

    make_jaxpr(outer)(2.0)
    (closed,) = inner
    assert len(closed.consts) == 1 and isinstance(closed.consts[0], DynamicJaxprTracer)
    assert str(closed) == "{ lambda a:f32[]; b:f32[]. let c:f32[] = add a b in (c,) }"


# =============================================================================
# Arguments and results
# =============================================================================
def test_return_shape():
    closed, shapes = make_jaxpr(lambda x, y: (x, {"q": y.sum(0)}), return_shape=True)(
        1.0, jnp.ones((2, 3), jnp.int32))
    # expected values from JAX 0.10.2
    assert repr(shapes) == ("(ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True), "
                            "{'q': ShapeDtypeStruct(shape=(3,), dtype=int32)})")
    assert shapes[1]["q"] == ShapeDtypeStruct((3,), np.int32)
    assert closed.out_avals[1] == ShapedArray((3,), np.int32)


def test_static_argnums_negative_and_kwargs():
    # expected values from JAX 0.10.2
    assert str(make_jaxpr(lambda x, y: y * x, static_argnums=-1)(1.0, 2)) == (
        "{ lambda ; a:f32[]. let b:f32[] = mul 2.0:f32[] a in (b,) }")
    assert str(make_jaxpr(lambda x, y=2.0: x + y)(1.0, y=jnp.int32(3))) == (
        "{ lambda ; a:f32[] b:i32[]. let\n"
        "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=True] b\n"
        "    d:f32[] = add a c\n"
        "  in (d,) }")


def test_namedtuple_arguments_flatten():
    closed = make_jaxpr(lambda p: p.a * p.b)(P(1.0, jnp.ones(2)))
    assert closed.in_avals == [ShapedArray((), np.float32, True), ShapedArray((2,), np.float32)]


def test_make_jaxpr_wraps_the_function_name():
    assert make_jaxpr(jnp.sin).__name__ == "make_jaxpr(sin)"


def test_trace_to_jaxpr_dynamic_is_flat():
    jaxpr, out_avals, consts = trace_to_jaxpr_dynamic(
        lambda x, y: [x * y, jnp.sin(x)], [ShapedArray((3,), np.float32),
                                           ShapedArray((), np.float32)])
    assert out_avals == [ShapedArray((3,), np.float32), ShapedArray((3,), np.float32)]
    assert consts == []
    assert str(jaxpr) == ("{ lambda ; a:f32[3] b:f32[]. let\n"
                          "    c:f32[3] = mul a b\n"
                          "    d:f32[3] = sin a\n"
                          "  in (c, d) }")


# =============================================================================
# Errors, with JAX 0.10.2's messages
# =============================================================================
def f(x, y):
    if x > 0:
        return y
    return -y


def g(params, x):
    return x if params["w"][1] > 0 else -x


def h(*args):
    return args[0] if args[1] else args[2]


ORIGIN = ("The error occurred while tracing the function {fn} for jit. This concrete "
          "value was not available in Python because it depends on the {what}.")
BOOL = "Attempted boolean conversion of traced array with shape {shape}.\n{origin}\n" \
       "See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError"


def test_branching_on_a_traced_value_names_the_function_and_argument():
    with pytest.raises(errors.TracerBoolConversionError) as info:
        make_jaxpr(f)(1.0, 2.0)
    assert isinstance(info.value, errors.ConcretizationTypeError)
    assert isinstance(info.value, TypeError)
    # expected values from JAX 0.10.2
    assert str(info.value) == BOOL.format(
        shape="bool[]", origin=ORIGIN.format(fn=where(f), what="value of the argument x"))


def test_static_argument_does_not_change_the_blamed_argument():
    with pytest.raises(errors.TracerBoolConversionError, match="of the argument x\\."):
        make_jaxpr(f, static_argnums=1)(1.0, 2.0)


@pytest.mark.parametrize("fun, args, what", [
    (g, ({"w": (1.0, 2.0), "b": 3.0}, 1.0), "value of the argument params['w'][1]"),
    (h, (1.0, 2.0, 3.0), "value of the argument args[1]"),
    (lambda p: p.a if p.b > 0 else p.a, (P(1.0, 2.0),), "value of the argument p.b"),
])
def test_argument_names_follow_pytree_paths(fun, args, what):
    with pytest.raises(errors.TracerBoolConversionError) as info:
        make_jaxpr(fun)(*args)
    # expected values from JAX 0.10.2
    assert ORIGIN.format(fn=where(fun), what=what) in str(info.value)


def test_values_depending_on_several_arguments():
    two = lambda x, y: bool(x + y)  # noqa: E731
    three = lambda x, y, z: bool(x * y + z)  # noqa: E731
    # expected values from JAX 0.10.2
    with pytest.raises(errors.TracerBoolConversionError) as info:
        make_jaxpr(two)(1.0, 2.0)
    assert ORIGIN.format(fn=where(two), what="values of the arguments x and y") \
        in str(info.value)
    with pytest.raises(errors.TracerBoolConversionError) as info:
        make_jaxpr(three)(1.0, 2.0, 3.0)
    assert ORIGIN.format(fn=where(three), what="values of the arguments x, y, and z") \
        in str(info.value)


def test_value_from_constants_lists_the_operations():
    fun = lambda x: x if jnp.log(2.0) > 0 else -x  # noqa: E731
    with pytest.raises(errors.TracerBoolConversionError) as info:
        make_jaxpr(fun)(1.0)
    line = fun.__code__.co_firstlineno
    # expected values from JAX 0.10.2 (column 25 is where `jnp.log(2.0) > 0` starts)
    assert str(info.value) == (
        "Attempted boolean conversion of traced array with shape bool[].\n"
        f"The error occurred while tracing the function {where(fun)} for jit. "
        "This value became a tracer due to JAX operations on these lines:\n\n"
        "  operation a:f32[] = log 2.0:f32[]\n"
        f"    from line {HERE}:{line}:25 (test_value_from_constants_lists_the_operations"
        ".<locals>.<lambda>)\n\n"
        "  operation a:bool[] = gt b 0.0:f32[]\n"
        f"    from line {HERE}:{line}:25 (test_value_from_constants_lists_the_operations"
        ".<locals>.<lambda>)\n"
        "See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError")


def test_index_and_numpy_conversions():
    idx = lambda x: [1, 2][x]  # noqa: E731
    arr = lambda x: np.asarray(x)  # noqa: E731
    # expected values from JAX 0.10.2
    with pytest.raises(errors.TracerIntegerConversionError) as info:
        make_jaxpr(idx)(1)
    assert str(info.value) == (
        "The __index__() method was called on traced array with shape int32[]\n"
        + ORIGIN.format(fn=where(idx), what="value of the argument x") + "\n"
        "See https://docs.jax.dev/en/latest/errors.html"
        "#jax.errors.TracerIntegerConversionError")
    with pytest.raises(errors.TracerArrayConversionError) as info:
        make_jaxpr(arr)(1.0)
    assert str(info.value) == (
        "The numpy.ndarray conversion method __array__() was called on traced array with "
        "shape float32[]\n" + ORIGIN.format(fn=where(arr), what="value of the argument x")
        + "\nSee https://docs.jax.dev/en/latest/errors.html"
        "#jax.errors.TracerArrayConversionError")


def test_non_array_argument():
    fun = lambda x: x  # noqa: E731
    with pytest.raises(TypeError) as info:
        make_jaxpr(fun)("s")
    # expected values from JAX 0.10.2
    assert str(info.value) == (
        f"Error interpreting argument to {fun!r} as an abstract array. The problematic "
        "value is of type <class 'str'> and was passed to the function at path x.\n"
        "This typically means that a jit-wrapped function was called with a non-array "
        "argument, and this argument was not marked as static using the static_argnums "
        "or static_argnames parameters of jax.jit.")


def test_non_array_result():
    fun = lambda x: {"k": P(x, "s")}  # noqa: E731
    with pytest.raises(TypeError) as info:
        make_jaxpr(fun)(1.0)
    # expected values from JAX 0.10.2
    assert str(info.value) == (
        f"function {where(fun)} traced for jit returned a value of type <class 'str'> at "
        "output component ['k'].b, which is not a valid JAX type")


def test_leaked_tracer_fails_when_used_outside():
    leak = []
    make_jaxpr(lambda x: leak.append(x) or x)(1.0)
    with pytest.raises(errors.UnexpectedTracerError):
        jnp.sin(leak[0])


def test_lax_level_error_at_trace_time():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting"):
        make_jaxpr(lambda x, y: lax.add(x, y))(jnp.ones(3), jnp.ones(4))
