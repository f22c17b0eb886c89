"""Chapter 01: bind dispatches to the current trace; tracers behave like arrays.

Results are checked against NumPy; the printed equations against what the
function really does (primitives only, loops unrolled, no Python side effects).
"""
import threading

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import core, errors, lax
from minijax.abstract_arrays import ShapedArray
from minijax.interpreters.printing import PrintTrace, PrintTracer, print_primitives, var_name
from minijax.primitives import abstract_eval_rules


class ShapeTracer(core.Tracer):
    """A tracer with only an aval: the value is unknown (as under jit)."""
    __slots__ = ("_aval",)

    def __init__(self, trace, aval):
        super().__init__(trace)
        self._aval = aval

    @property
    def aval(self):
        return self._aval


class ShapeTrace(core.Trace):
    """Abstract evaluation: run only the abstract-eval rules."""

    def process_primitive(self, prim, args, params):
        avals = [core.get_aval(x) for x in args]
        out = abstract_eval_rules[prim](*avals, **params)
        if prim.multiple_results:
            return [ShapeTracer(self, a) for a in out]
        return ShapeTracer(self, out)


def shape_of(f, *avals):
    trace = ShapeTrace()
    with core.set_current_trace(trace):
        out = f(*[ShapeTracer(trace, a) for a in avals])
    return out.aval


def test_eval_trace_is_current_by_default():
    assert isinstance(core.find_cur_trace(), core.EvalTrace)


def test_bind_goes_to_the_current_trace():
    seen = []

    class Recording(core.Trace):
        def process_primitive(self, prim, args, params):
            seen.append((prim.name, params))
            with core.set_current_trace(core.eval_trace):
                return prim.bind(*args, **params)

    with core.set_current_trace(Recording()):
        out = lax.mul(lax.sin(2.0), 3.0)
    assert [s[0] for s in seen] == ["sin", "mul"]
    np.testing.assert_allclose(float(out), np.sin(np.float32(2.0)) * 3, rtol=1e-6)


def test_printing_trace_sees_primitives_not_python_side_effects(capsys):
    log = []

    def f(x):
        print("a Python side effect")
        y = jnp.sin(x) * 2.0
        for _ in range(3):  # a Python loop is unrolled
            y = y + x
        return y

    x = np.array([0.5, 1.0, 2.0], np.float32)
    out = print_primitives(f, echo=False, log=log)(jnp.array(x))
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * 2 + 3 * x, rtol=1e-6)
    assert log == [
        "b:f32[3] = sin a",
        "c:f32[3] = mul b 2.0:f32[]",
        "d:f32[3] = add c a",
        "e:f32[3] = add d a",
        "f:f32[3] = add e a",
    ]
    # the Python print ran once, while tracing; it is not an equation
    assert capsys.readouterr().out == "a Python side effect\n"


def test_printing_trace_shows_dtype_promotion():
    log = []
    print_primitives(lambda x: x + 2.5, echo=False, log=log)(jnp.array([1, 2], jnp.int32))
    assert log == [
        "b:f32[2] = convert_element_type[new_dtype=float32 sharding=None weak_type=True] a",
        "c:f32[2] = add b 2.5:f32[]",
    ]


def test_nested_traces_each_see_every_primitive():
    outer, inner = [], []
    f = print_primitives(print_primitives(lambda x: jnp.cos(x) * x, echo=False, log=inner),
                         echo=False, log=outer)
    out = f(jnp.array(1.0))
    np.testing.assert_allclose(float(out), np.cos(1.0) * 1.0, rtol=1e-6)
    assert [l.split(" = ")[1].split()[0] for l in inner] == ["cos", "mul"]
    assert [l.split(" = ")[1].split()[0] for l in outer] == ["cos", "mul"]


def test_a_trace_treats_an_outer_tracer_as_a_constant():
    # the inner function closes over the outer trace's tracer: the inner trace
    # must not mistake it for one of its own (perturbation confusion)
    outer_log, inner_log = [], []

    def outer_fn(x):
        def inner_fn(y):
            return y * x
        return print_primitives(inner_fn, echo=False, log=inner_log)(jnp.array(3.0))

    out = print_primitives(outer_fn, echo=False, log=outer_log)(jnp.array(2.0))
    assert float(out) == 6.0
    assert inner_log == ["b:f32[] = mul a <const f32[]>"]
    # seen from the outer trace, the inner value 3.0 is a constant
    assert outer_log == ["b:f32[] = mul 3.0:f32[] a"]


def test_tracers_have_array_metadata_and_operators():
    aval = shape_of(lambda x: (x * 2).sum(axis=0) if hasattr(x, "sum") else x * 2,
                    ShapedArray((3, 4), np.float32))
    assert aval.dtype == np.float32
    aval = shape_of(lambda x: x + 1, ShapedArray((3,), np.int8))
    assert aval == ShapedArray((3,), np.int8)
    aval = shape_of(lambda x: jnp.sin(x), ShapedArray((), np.int32))
    assert aval == ShapedArray((), np.float32)


def test_shape_errors_are_raised_at_trace_time():
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)\."):
        shape_of(lambda x, y: x + y, ShapedArray((3,), np.float32), ShapedArray((4,), np.float32))


@pytest.mark.parametrize("convert, error", [
    (bool, errors.TracerBoolConversionError),
    (lambda x: 1 if x > 0 else 0, errors.TracerBoolConversionError),
    (int, errors.ConcretizationTypeError),
    (float, errors.ConcretizationTypeError),
    (lambda x: [0, 1][x], errors.TracerIntegerConversionError),
    (np.asarray, errors.TracerArrayConversionError),
])
def test_abstract_tracers_cannot_become_python_values(convert, error):
    with pytest.raises(error):
        shape_of(convert, ShapedArray((), np.int32))


def test_tracer_errors_are_type_errors_like_jax():
    assert issubclass(errors.TracerBoolConversionError, errors.ConcretizationTypeError)
    for cls in (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                errors.TracerArrayConversionError):
        assert issubclass(cls, TypeError)


def test_concrete_tracers_can_be_used_in_python_control_flow():
    # a PrintTracer knows its value, so Python `if` works on it (as on JAX's jvp tracers)
    def f(x):
        return x * 2 if x > 0 else -x
    assert float(print_primitives(f, echo=False, log=[])(jnp.array(3.0))) == 6.0
    assert float(print_primitives(f, echo=False, log=[])(jnp.array(-3.0))) == 3.0


def test_leaked_tracer_is_an_error():
    leaked = []
    print_primitives(lambda x: leaked.append(x) or x, echo=False, log=[])(jnp.array(1.0))
    with pytest.raises(errors.UnexpectedTracerError, match="escape the scope of the transformation"):
        jnp.sin(leaked[0])
    # as in JAX 0.10.2, it is a TypeError (UnexpectedTracerError -> JAXTypeError -> TypeError)
    assert issubclass(errors.UnexpectedTracerError, errors.JAXTypeError)
    assert issubclass(errors.UnexpectedTracerError, TypeError)


def test_trace_context_is_per_thread():
    seen = []
    trace = PrintTrace(core.eval_trace, log=[], echo=False)
    with core.set_current_trace(trace):
        t = threading.Thread(target=lambda: seen.append(core.find_cur_trace()))
        t.start()
        t.join()
        assert core.find_cur_trace() is trace
    assert seen == [core.eval_trace]
    assert core.find_cur_trace() is core.eval_trace


def test_set_current_trace_restores_on_error():
    trace = PrintTrace(core.eval_trace, log=[], echo=False)
    with pytest.raises(ZeroDivisionError):
        with core.set_current_trace(trace):
            1 / 0
    assert core.find_cur_trace() is core.eval_trace


def test_tracer_repr_and_aval():
    trace = PrintTrace(core.eval_trace, log=[], echo=False)
    t = trace.new_tracer(jnp.array([1.0, 2.0]))
    assert isinstance(t, PrintTracer)
    assert t.shape == (2,) and t.dtype == np.float32 and t.ndim == 1
    # as JAX 0.10.2's: str(aval) is float32[2] (~float32[] when weakly typed)
    assert str(t.aval) == "float32[2]" and t.aval.str_short(short_dtypes=True) == "f32[2]"
    assert repr(t.aval) == "ShapedArray(float32[2])"
    assert str(core.get_aval(1.0)) == "~float32[]"


def test_variable_names_follow_jax():
    assert [var_name(i) for i in (0, 1, 25, 26, 27, 52)] == ["a", "b", "z", "ba", "bb", "ca"]
