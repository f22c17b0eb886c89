"""Chapter 06 — ahead-of-time stages, eval_shape and the backend interface.

``jit(f).trace(*args)`` -> ``Traced`` -> ``.lower()`` -> ``Lowered`` ->
``.compile()`` -> ``Compiled``, each with JAX 0.10.2's attributes and
printed forms, and the compiled program's JAX errors when called on other
types or pytrees.
"""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.backends import get_backend, register_backend
from minijax.backends.registry import unregister_backend
from minijax.backends.interpreter import InterpreterBackend, jaxpr_cost_analysis
from minijax.interpreters.batching import vmap
from minijax.interpreters.partial_eval import ShapeDtypeStruct, make_jaxpr
from minijax.jit import eval_shape, jit
from minijax.stages import Compiled, Lowered, Traced


def f(x, y):
    return {'s': jnp.sin(x) @ y, 't': (x.sum(),)}


X, Y = jnp.ones((2, 3)), jnp.ones(3)


@pytest.fixture
def stages(jit_backend):
    """Traced, lowered and compiled on the test's backend: its tests run on both."""
    traced = jit(f).trace(X, ShapeDtypeStruct((3,), jnp.float32))
    lowered = traced.lower()
    return traced, lowered, lowered.compile()


# expected values from JAX 0.10.2
def test_traced(stages):
    traced, _, _ = stages
    assert isinstance(traced, Traced) and traced.fun_name == "f"
    assert str(traced.jaxpr) == (
        "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
        "    c:f32[2,3] = sin a\n"
        "    d:f32[2] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] c b\n"
        "    e:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a\n"
        "  in (d, e) }")
    assert type(traced.jaxpr).__name__ == "ClosedJaxpr"
    assert str(traced.out_info) == ("{'s': ShapeDtypeStruct(shape=(2,), dtype=float32), "
                                    "'t': (ShapeDtypeStruct(shape=(), dtype=float32),)}")
    assert str(traced.args_info) == (
        "((ArgInfo(_aval=ShapedArray(float32[2,3]), donated=False), "
        "ArgInfo(_aval=ShapedArray(float32[3]), donated=False)), {})")
    assert str(traced.in_tree) == "PyTreeDef(((*, *), {}))"


def test_lowered_and_compiled(stages, jit_backend):
    traced, lowered, compiled = stages
    assert isinstance(lowered, Lowered) and isinstance(compiled, Compiled)
    assert str(lowered.in_tree) == "PyTreeDef(((*, *), {}))"
    assert str(lowered.out_info) == str(traced.out_info)
    if jit_backend == "interpreter":
        assert lowered.as_text() == str(traced.jaxpr)  # the interpreter's "program"
        assert compiled.as_text() == str(traced.jaxpr)
    else:  # chapter 09: the generated kernel module, then its LLVM IR
        assert "def jit_f(" in lowered.as_text() and "@njit" in lowered.as_text()
        assert compiled.as_text().startswith("define ")
    out = compiled(X, Y)
    np.testing.assert_allclose(out['s'], np.sin(np.ones((2, 3))) @ np.ones(3), rtol=1e-6)
    np.testing.assert_allclose(out['t'][0], 6.0)


def test_cost_analysis(stages):
    _, lowered, compiled = stages
    # sin: 6 flops (transcendental); dot 2x3 @ 3: 2*2*3 = 12; reduce_sum of 6: 6
    cost = compiled.cost_analysis()
    assert cost == lowered.cost_analysis()
    assert cost["flops"] == 24.0 and cost["transcendentals"] == 6.0
    # bytes: sin 24+24, dot 24+12+8, reduce_sum 24+4
    assert cost["bytes accessed"] == 120.0


def test_cost_analysis_counts_nested_jits():
    inner = jit(lambda x: x * 2.0)
    closed = make_jaxpr(lambda x: inner(x) + 1.0)(jnp.ones(4))
    assert jaxpr_cost_analysis(closed)["flops"] == 8.0


# expected values from JAX 0.10.2
@pytest.mark.parametrize("args,message", [
    ((jnp.ones((2, 4)), Y),
     "Argument types differ from the types for which this computation was compiled. "
     "Perhaps you are calling the compiled executable with a different enable_x64 mode "
     "than when it was AOT compiled? The mismatches are:\n"
     "Argument 'x' compiled with float32[2,3] and called with float32[2,4]"),
    ((jnp.ones((2, 3), jnp.int32), jnp.ones(3, jnp.int32)),
     "Argument types differ from the types for which this computation was compiled. "
     "Perhaps you are calling the compiled executable with a different enable_x64 mode "
     "than when it was AOT compiled? The mismatches are:\n"
     "Argument 'x' compiled with float32[2,3] and called with int32[2,3]\n"
     "Argument 'y' compiled with float32[3] and called with int32[3]"),
    ((X, 2),
     "Argument types differ from the types for which this computation was compiled. "
     "Perhaps you are calling the compiled executable with a different enable_x64 mode "
     "than when it was AOT compiled? The mismatches are:\n"
     "Argument 'y' compiled with float32[3] and called with int32[]"),
    ((X,),
     "Function compiled with input pytree does not match the input pytree it was called "
     "with. There are 1 mismatches, including:\n"
     "    * at args, seen tuple of length 2 but now given tuple of length 1, so the "
     "lengths do not match"),
    ((X, [Y]),
     "Function compiled with input pytree does not match the input pytree it was called "
     "with. There are 1 mismatches, including:\n"
     "    * at args[1], seen pytree leaf but now given <class 'list'>, so their Python "
     "types differ"),
])
def test_compiled_called_with_other_types(stages, args, message):
    _, _, compiled = stages
    with pytest.raises(TypeError) as info:
        compiled(*args)
    assert str(info.value) == message


def test_compiled_with_keyword_arguments_and_static_args(jit_backend):
    compiled = jit(lambda x, n: x * n).lower(1.0, n=3).compile()
    assert str(compiled.in_tree) == "PyTreeDef(((*,), {'n': *}))"
    assert compiled(2.0, n=3) == 6.0
    with pytest.raises(TypeError, match="symmetric difference of key sets: {'n'}"):
        compiled(2.0, 3)
    static = jit(lambda x, n: x * n, static_argnums=1).lower(1.0, 3).compile()
    assert static(2.0) == 6.0  # static arguments are baked in: pass only the others


def test_compiled_cannot_be_transformed(stages):
    _, _, compiled = stages
    with pytest.raises(TypeError, match="Cannot apply JAX transformations to a function "
                                        "lowered and compiled for a particular signature. "
                                        "Detected argument of Tracer type"):
        vmap(compiled)(jnp.ones((5, 2, 3)), jnp.ones((5, 3)))


def test_out_info_weak_types(jit_backend):
    # expected values from JAX 0.10.2: Traced keeps weak types, Lowered/Compiled do not
    double = jit(lambda x: x * 2)
    assert repr(double.trace(1.0).out_info) == \
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert repr(double.lower(1.0).out_info) == "ShapeDtypeStruct(shape=(), dtype=float32)"
    assert repr(double.eval_shape(1.0)) == \
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    args_info = jit(lambda x, n: x * n, static_argnums=1).trace(1.0, 3).args_info
    assert repr(args_info) == \
        "((ArgInfo(_aval=ShapedArray(float32[], weak_type=True), donated=False),), {})"
    assert jit(lambda x: x, donate_argnums=0).lower(1.0).donate_argnums == (0,)


def test_eval_shape():
    # expected values from JAX 0.10.2
    assert str(eval_shape(f, X, Y)) == (
        "{'s': ShapeDtypeStruct(shape=(2,), dtype=float32), "
        "'t': (ShapeDtypeStruct(shape=(), dtype=float32),)}")
    assert repr(eval_shape(lambda x: x * 2, ShapeDtypeStruct((2,), jnp.int32))) == \
        "ShapeDtypeStruct(shape=(2,), dtype=int32)"
    assert repr(eval_shape(lambda x: x * 2, x=1.0)) == \
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert str(jit(f).eval_shape(X, Y)) == str(eval_shape(f, X, Y))


def test_eval_shape_runs_nothing():
    big = ShapeDtypeStruct((10_000, 10_000), jnp.float32)  # 400 MB if it existed
    out = eval_shape(lambda a: a @ a, big)
    assert out.shape == (10_000, 10_000)


def test_backend_registry(jit_backend):
    from minijax.backends.registry import backends
    assert list(backends())[0] == "cpu"  # chapter 09's Numba backend outranks the interpreter
    default = get_backend()
    assert default.name == jit_backend  # ... unless minijax_default_backend names another
    assert get_backend("interpreter").name == "interpreter"
    with pytest.raises(RuntimeError, match="Unknown backend: 'tpu' requested"):
        get_backend("tpu")

    class Counting(InterpreterBackend):
        name = "counting"
        compiled = 0

        def compile(self, lowering, **options):
            Counting.compiled += 1
            return super().compile(lowering, **options)
    register_backend("counting", Counting(), priority=-10)
    try:
        assert get_backend().name == default.name  # lower priority: not the default
        with pytest.warns(DeprecationWarning):
            g = jit(lambda x: x + 1.0, backend="counting")
        assert g(1.0) == 2.0 and g(2.0) == 3.0 and Counting.compiled == 1
    finally:
        unregister_backend("counting")
