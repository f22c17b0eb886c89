"""Chapter 02: every JVP rule, checked against central finite differences.

Each case names a primitive, a minijax function that applies it, a NumPy
version of the same function, and float32 inputs away from the points where
the function is not differentiable. The JVP (computed in float32 by minijax)
must match the directional derivative computed by central differences of the
NumPy function in float64. Each case also checks that its primitive's rule
really ran, so that the table covers every rule.

Conventions at non-differentiable points (ties of max, ``|x|`` at 0, ``x**y``
at 0...) are not derivatives: they are compared with values from JAX.
"""
import contextlib

import numpy as np
import pytest
from scipy import special

import minijax  # noqa: F401  (registers everything)
import minijax.numpy as jnp
from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.interpreters import ad
from minijax.interpreters.ad import Zero, float0, jvp, jvp_rules
from minijax.primitives import all_primitives

# minijax's eager float -> complex -> float conversion warns as NumPy does; JAX does not
pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

RTOL, ATOL = 2e-3, 2e-4
F32, C64 = np.float32, np.complex64


def _rand(shape, lo=-2.0, hi=2.0, seed=0, dtype=F32):
    rng = np.random.RandomState(seed)
    x = rng.uniform(lo, hi, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(lo, hi, shape)
    return x.astype(dtype)


def _random_tangent(x, seed):
    return _rand(np.shape(x), -1.0, 1.0, seed, np.asarray(x).dtype)


def _tree_map(f, *trees):
    if isinstance(trees[0], (tuple, list)):
        return [_tree_map(f, *xs) for xs in zip(*trees)]
    return f(*trees)


def _central_difference(f_np, args, tangents, h=1e-6):
    up = f_np(*[np.asarray(a).astype(_wide(a)) + h * np.asarray(t).astype(_wide(a))
                for a, t in zip(args, tangents)])
    down = f_np(*[np.asarray(a).astype(_wide(a)) - h * np.asarray(t).astype(_wide(a))
                  for a, t in zip(args, tangents)])
    return _tree_map(lambda u, d: (np.asarray(u) - np.asarray(d)) / (2 * h), up, down)


def _wide(a):
    return np.complex128 if np.iscomplexobj(a) else np.float64


@contextlib.contextmanager
def rule_calls():
    """Record the names of the primitives whose JVP rule runs inside the block."""
    seen, saved = set(), dict(jvp_rules)

    def spy(prim, rule):
        def wrapped(*args, **kwargs):
            seen.add(prim.name)
            return rule(*args, **kwargs)
        return wrapped
    for prim, rule in saved.items():
        jvp_rules[prim] = spy(prim, rule)
    try:
        yield seen
    finally:
        jvp_rules.update(saved)


def check_jvp(name, f, f_np, args, rtol=RTOL, atol=ATOL):
    """The JVP along random tangents (all arguments, then one at a time) vs finite differences."""
    args = [np.asarray(a) for a in args]
    for which in [None] + list(range(len(args))):
        tangents = [_random_tangent(a, seed=10 + i) if which in (None, i) else np.zeros_like(a)
                    for i, a in enumerate(args)]
        if which is None:
            with rule_calls() as seen:
                out, t_out = jvp(f, tuple(args), tuple(tangents))
            assert name in seen, f"the rule of {name} did not run"
        else:  # the other arguments are constants: their tangents are symbolic zeros
            def g(x, i=which):
                return f(*args[:i], x, *args[i + 1:])
            out, t_out = jvp(g, (args[which],), (tangents[which],))
        expected = _central_difference(f_np, args, tangents)
        _tree_map(lambda t, e: np.testing.assert_allclose(
            np.asarray(t), e, rtol=rtol, atol=atol, err_msg=f"{name} (argument {which})"),
            t_out, expected)


# --- the table -------------------------------------------------------------------------
X = _rand((3, 4))
POS = _rand((3, 4), 0.5, 3.0, seed=1)
UNIT = _rand((3, 4), -0.8, 0.8, seed=2)
Y = _rand((3, 4), seed=3)
Z = _rand((3, 4), 0.5, 2.0, seed=4)
CX = _rand((3,), seed=5, dtype=C64)
AWAY = np.array([[-1.5, -0.7, 0.4, 1.9], [0.6, -1.1, 2.2, -0.3], [1.3, 0.8, -1.8, 0.5]], F32)

UNARY = [
    ("neg", lax.neg, np.negative, X),
    ("abs", lax.abs, np.abs, AWAY),
    ("square", lax.square, np.square, X),
    ("exp", lax.exp, np.exp, X),
    ("exp2", lax.exp2, np.exp2, X),
    ("log", lax.log, np.log, POS),
    ("log1p", lax.log1p, np.log1p, POS),
    ("expm1", lax.expm1, np.expm1, X),
    ("logistic", lax.logistic, special.expit, X),
    ("sqrt", lax.sqrt, np.sqrt, POS),
    ("rsqrt", lax.rsqrt, lambda x: 1 / np.sqrt(x), POS),
    ("cbrt", lax.cbrt, np.cbrt, AWAY),
    ("sin", lax.sin, np.sin, X),
    ("cos", lax.cos, np.cos, X),
    ("tan", lax.tan, np.tan, UNIT),
    ("asin", lax.asin, np.arcsin, UNIT),
    ("acos", lax.acos, np.arccos, UNIT),
    ("atan", lax.atan, np.arctan, X),
    ("sinh", lax.sinh, np.sinh, X),
    ("cosh", lax.cosh, np.cosh, X),
    ("tanh", lax.tanh, np.tanh, X),
    ("asinh", lax.asinh, np.arcsinh, X),
    ("acosh", lax.acosh, np.arccosh, POS + 1),
    ("atanh", lax.atanh, np.arctanh, UNIT),
    ("erf", lax.erf, special.erf, X),
    ("erfc", lax.erfc, special.erfc, X),
    ("erf_inv", lax.erf_inv, special.erfinv, UNIT),
    ("lgamma", lax.lgamma, special.gammaln, POS),
    ("copy", lambda x: lax.copy_p.bind(x), lambda x: x, X),
    ("integer_pow", lambda x: lax.integer_pow(x, 3), lambda x: x ** 3, X),
    ("integer_pow", lambda x: lax.integer_pow(x, -2), lambda x: x ** -2.0, AWAY),
    ("integer_pow", lambda x: lax.integer_pow(x, 1), lambda x: x, X),
    ("integer_pow", lambda x: lax.integer_pow(x, 2), lambda x: x ** 2, X),
    ("abs", lax.abs, np.abs, CX),
    ("real", lax.real, np.real, CX),
    ("imag", lax.imag, np.imag, CX),
    ("conj", lax.conj, np.conj, CX),
    ("conj", lax.conj, lambda x: x.astype(complex), X),
    ("exp", lax.exp, np.exp, CX),
    ("convert_element_type", lambda x: lax.convert_element_type(x, np.complex64),
     lambda x: x.astype(complex), X),
    ("convert_element_type", lambda x: lax.convert_element_type(x, np.float32).real,
     np.real, CX),
]


def _xy(fn):
    return lambda x, y: fn(x, y)


BINARY = [
    ("add", lax.add, np.add, [X, Y]),
    ("sub", lax.sub, np.subtract, [X, Y]),
    ("mul", lax.mul, np.multiply, [X, Y]),
    ("div", lax.div, np.divide, [X, Z]),
    ("max", lax.max, np.maximum, [X, Y]),
    ("min", lax.min, np.minimum, [X, Y]),
    ("atan2", lax.atan2, np.arctan2, [X, Y]),
    ("pow", lax.pow, np.power, [POS, Y]),
    ("pow", lambda x: lax.pow(x, np.arange(12, dtype=np.int32).reshape(3, 4) - 4),
     lambda x: x ** (np.arange(12).reshape(3, 4) - 4.0), [POS]),
    ("rem", lax.rem, np.fmod, [np.array([2.3, -3.7, 5.1], F32), np.array([1.5, 1.3, -2.2], F32)]),
    ("complex", lax.complex, lambda x, y: x + 1j * y, [X, Y]),
    ("mul", lambda x, y: lax.mul(x, y[0, 0]), lambda x, y: x * y[0, 0], [X, Y]),  # rank-0
    ("add", lambda x, y: lax.add(x[:1], y), lambda x, y: x[:1] + y, [X, Y]),  # size-1 dim
    ("clamp", lax.clamp, lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
     [np.full(5, 1.0, F32), np.array([0.3, 1.2, 1.5, 1.8, 2.7], F32), np.full(5, 2.0, F32)]),
    ("clamp", lambda lo, x, hi: lax.clamp(lo[0], x, hi[0]),
     lambda lo, x, hi: np.minimum(np.maximum(x, lo[0]), hi[0]),
     [np.full(1, 1.0, F32), np.array([0.3, 1.2, 1.5, 1.8, 2.7], F32), np.full(1, 2.0, F32)]),
    ("select_n", lambda a, b: lax.select_n(X > 0, a, b), lambda a, b: np.where(X > 0, b, a),
     [Y, Z]),
    ("select_n", lambda a, b, c: lax.select_n(np.array([0, 1, 2, 1], np.int32), a, b, c),
     lambda a, b, c: np.choose([0, 1, 2, 1], [a, b, c]), [X[0], Y[0], Z[0]]),
]

MATRIX = _rand((2, 3, 4), seed=6)
VECTORS = _rand((2, 4), seed=7)
IDX = np.array([[2], [0], [2]], np.int32)
UNIQUE = np.array([[2], [0], [3]], np.int32)
SCATTER_1D = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))
GATHER_1D = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                       start_index_map=(0,))
OPERAND = np.array([0.5, -1.0, 2.0, 3.0, -0.25], F32)
UPDATES = np.array([1.5, -2.5, 4.0], F32)


def _np_scatter(op, unique=UNIQUE):
    def f(x, u):
        out = x.copy()
        op(out, unique[:, 0], u)
        return out
    return f


def _set(out, i, u):
    out[i] = u


def _np_cumulative(ufunc, axis, reverse):
    def f(x):
        x = np.flip(x, axis) if reverse else x
        out = ufunc.accumulate(x, axis=axis)
        return np.flip(out, axis) if reverse else out
    return f


STRUCTURAL = [
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)),
     lambda x: np.broadcast_to(x, (2, 3, 4)), [X]),
    ("reshape", lambda x: lax.reshape(x, (4, 3), (1, 0)), lambda x: x.T.reshape(4, 3), [X]),
    ("squeeze", lambda x: lax.squeeze(x[None], (0,)), lambda x: x, [X]),
    ("transpose", lambda x: lax.transpose(x, (1, 0)), np.transpose, [X]),
    ("rev", lambda x: lax.rev(x, (0, 1)), lambda x: x[::-1, ::-1], [X]),
    ("concatenate", lambda x, y: lax.concatenate([x, y, x], 1),
     lambda x, y: np.concatenate([x, y, x], 1), [X, Y]),
    ("stack", lambda x, y: lax.stack_p.bind(x, y, axis=1), lambda x, y: np.stack([x, y], 1),
     [X, Y]),
    ("split", lambda x: lax.split(x, (1, 3), axis=1), lambda x: np.split(x, [1], axis=1), [X]),
    ("unstack", lambda x: lax.unstack_p.bind(x, axis=0), lambda x: list(x), [X]),
    ("tile", lambda x: lax.tile_p.bind(x, reps=(2, 1)), lambda x: np.tile(x, (2, 1)), [X]),
    ("pad", lambda x, v: lax.pad(x, v, [(1, 2, 1), (-1, 0, 0)]),
     lambda x, v: _np_pad(x, v), [X, np.array(0.5, F32)]),
    ("slice", lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), lambda x: x[0:3:2, 1:4:2], [X]),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (np.int32(1), np.int32(3)), (2, 2)),
     lambda x: x[1:3, 2:4], [X]),  # the start index 3 is clamped to 2, as in XLA
    ("dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (np.int32(1), 1)),
     lambda x, u: _np_update(x, u), [X, _rand((2, 2), seed=8)]),
    ("gather", lambda x: lax.gather(x, IDX, GATHER_1D, (1,)), lambda x: x[[2, 0, 2]],
     [OPERAND]),
    ("gather", lambda x: x[np.array([1, 0, 1])], lambda x: x[[1, 0, 1]], [X]),
    ("gather", lambda x: x.at[np.array([1, 7])].get(mode="fill", fill_value=0.),
     lambda x: np.stack([x[1], np.zeros(4)]), [X]),
    ("scatter-add", lambda x, u: lax.scatter_add(x, IDX, u, SCATTER_1D),
     _np_scatter(np.add.at, IDX), [OPERAND, UPDATES]),
    ("scatter-sub", lambda x, u: lax.scatter_sub(x, IDX, u, SCATTER_1D),
     _np_scatter(np.subtract.at, IDX), [OPERAND, UPDATES]),
    ("scatter-mul", lambda x, u: lax.scatter_mul(x, UNIQUE, u, SCATTER_1D, unique_indices=True),
     _np_scatter(np.multiply.at), [OPERAND, UPDATES]),
    ("scatter-min", lambda x, u: lax.scatter_min(x, UNIQUE, u, SCATTER_1D),
     _np_scatter(np.minimum.at), [OPERAND, UPDATES]),
    ("scatter-max", lambda x, u: lax.scatter_max(x, UNIQUE, u, SCATTER_1D),
     _np_scatter(np.maximum.at), [OPERAND, UPDATES]),
    ("scatter", lambda x, u: lax.scatter(x, UNIQUE, u, SCATTER_1D), _np_scatter(_set),
     [OPERAND, UPDATES]),
    ("scatter", lambda x, u: lax.scatter(x, UNIQUE, u, SCATTER_1D, unique_indices=True),
     _np_scatter(_set), [OPERAND, UPDATES]),
    ("dot_general", lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     lambda a, b: np.einsum("bij,bj->bi", a, b), [MATRIX, VECTORS]),
    ("dot_general", lambda a, b: a @ b, lambda a, b: a @ b, [X, Y.T]),
]


def _np_pad(x, v):
    out = np.full((1 + 5 + 2, 3), v, x.dtype)
    out[1:6:2] = x[:, 1:]
    return out


def _np_update(x, u):
    out = x.copy()
    out[1:3, 1:3] = u
    return out


DISTINCT = np.array([[0.3, -1.2, 2.5, 0.9], [1.7, -0.4, 0.1, -2.2], [-0.8, 1.1, 2.9, 0.6]], F32)

REDUCTIONS = [
    ("reduce_sum", lambda x: lax.reduce_sum(x, (0,)), lambda x: x.sum(0), [X]),
    ("reduce_prod", lambda x: lax.reduce_prod(x, (0, 1)), np.prod, [X]),
    ("reduce_prod", lambda x: lax.reduce_prod(x, (1,)), lambda x: x.prod(1), [X]),
    ("reduce_max", lambda x: lax.reduce_max(x, (1,)), lambda x: x.max(1), [DISTINCT]),
    ("reduce_min", lambda x: lax.reduce_min(x, (0, 1)), np.min, [DISTINCT]),
    ("cumsum", lambda x: lax.cumsum(x, 1), lambda x: np.cumsum(x, 1), [X]),
    ("cumprod", lambda x: lax.cumprod(x, 1), lambda x: np.cumprod(x, 1), [X]),
    ("cumprod", lambda x: lax.cumprod(x, 0, reverse=True),
     _np_cumulative(np.multiply, 0, True), [X]),
    ("cummax", lambda x: lax.cummax(x, 1), _np_cumulative(np.maximum, 1, False), [DISTINCT]),
    ("cummin", lambda x: lax.cummin(x, 1, reverse=True), _np_cumulative(np.minimum, 1, True),
     [DISTINCT]),
    ("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 1),
     _np_cumulative(np.logaddexp, 1, False), [X]),
    ("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 0, reverse=True),
     _np_cumulative(np.logaddexp, 0, True), [X]),
    ("sort", lambda x: lax.sort(x, 1), lambda x: np.sort(x, 1), [DISTINCT]),
    ("sort", lambda x, y: lax.sort((x, y), 0, num_keys=1),
     lambda x, y: [np.take_along_axis(v, np.argsort(DISTINCT, 0), 0) for v in (x, y)],
     [DISTINCT, X]),
    ("top_k", lambda x: lax.top_k(x, 2)[0],
     lambda x: np.take_along_axis(x, np.argsort(-DISTINCT, 1)[:, :2], 1), [DISTINCT]),
]

CASES = UNARY + BINARY + STRUCTURAL + REDUCTIONS


def _as_case(case):
    name, f, f_np, args = case
    return name, f, f_np, (args if isinstance(args, list) else [args])


@pytest.mark.parametrize("case", [_as_case(c) for c in CASES],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(case):
    name, f, f_np, args = case
    check_jvp(name, f, f_np, args)


def test_reduce_precision_rounds_the_tangent():
    # linear in JAX: the tangent is reduced to the same precision
    t = np.array([1 / 3, 1e-9, 70000.0], F32)
    _, t_out = jvp(lambda x: lax.reduce_precision(x, 5, 10), (np.ones(3, F32),), (t,))
    with np.errstate(over="ignore"):  # 70000 overflows float16, as it does reduce_precision
        np.testing.assert_array_equal(t_out, t.astype(np.float16).astype(F32))


def test_convert_element_type_to_lower_precision():
    _, t = jvp(lambda x: lax.convert_element_type(x, np.float16), (X,), (Y,))
    assert t.dtype == np.float16
    np.testing.assert_array_equal(t, Y.astype(np.float16))


# --- rules that are zero ------------------------------------------------------------------
ZERO_ON_FLOATS = [  # (primitive name, function of a float array)
    ("sign", lax.sign), ("floor", lax.floor), ("ceil", lax.ceil), ("round", lax.round),
    ("is_finite", lax.is_finite), ("eq", lambda x: lax.eq(x, 0.5)),
    ("ne", lambda x: lax.ne(x, 0.5)), ("lt", lambda x: lax.lt(x, 0.5)),
    ("le", lambda x: lax.le(x, 0.5)), ("gt", lambda x: lax.gt(x, 0.5)),
    ("ge", lambda x: lax.ge(x, 0.5)),
    ("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.int32)),
    ("argmax", lambda x: lax.argmax(x, 0, np.int32)),
    ("argmin", lambda x: lax.argmin(x, 1, np.int32)),
    ("convert_element_type", lambda x: lax.convert_element_type(x, np.int32)),
    ("stop_gradient", lax.stop_gradient),
]


@pytest.mark.parametrize("name,f", ZERO_ON_FLOATS, ids=[n for n, _ in ZERO_ON_FLOATS])
def test_piecewise_constant_rules_give_zero(name, f):
    with rule_calls() as seen:
        out, t = jvp(f, (X,), (Y,))
    assert name in seen
    if np.issubdtype(np.asarray(out).dtype, np.inexact):
        np.testing.assert_array_equal(t, np.zeros_like(np.asarray(out)))
        assert t.dtype == np.asarray(out).dtype
    else:  # integer and boolean outputs have float0 tangents
        assert t.dtype == float0 and t.shape == np.shape(out)


INTEGER_ONLY = {  # primitives whose operands are integers or booleans: called directly
    "not": ([np.array([1, 2], np.int32)], {}),
    "and": ([np.array([1, 2], np.int32)] * 2, {}),
    "or": ([np.array([1, 2], np.int32)] * 2, {}),
    "xor": ([np.array([1, 2], np.int32)] * 2, {}),
    "population_count": ([np.array([1, 7], np.int32)], {}),
    "clz": ([np.array([1, 7], np.int32)], {}),
    "shift_left": ([np.array([1, 7], np.int32)] * 2, {}),
    "shift_right_logical": ([np.array([1, 7], np.int32)] * 2, {}),
    "shift_right_arithmetic": ([np.array([1, 7], np.int32)] * 2, {}),
    "reduce_and": ([np.array([True, False])], {"axes": (0,)}),
    "reduce_or": ([np.array([True, False])], {"axes": (0,)}),
    "reduce_xor": ([np.array([True, False])], {"axes": (0,)}),
    "iota": ([], {"dtype": np.dtype(np.float32), "shape": (3,), "dimension": 0,
                  "sharding": None}),
    "empty2": ([], {"dtype": np.dtype(np.float32), "memory_space": lax.MemorySpace.Device}),
}


@pytest.mark.parametrize("name", sorted(INTEGER_ONLY))
def test_rules_of_integer_primitives_are_zero(name):
    prim = next(p for p in all_primitives() if p.name == name)
    args, params = INTEGER_ONLY[name]
    fake_tangents = [np.zeros(np.shape(a), float0) for a in args]
    out, t = jvp_rules[prim](args, fake_tangents, **params)
    assert type(t) is Zero and t.aval.shape == np.shape(out)


# --- conventions at non-differentiable points: JAX's values --------------------------------
# expected values from JAX 0.10.2
CONVENTIONS = [
    ("max tie", lambda x, y: lax.max(x, y),
     [[1., 2., 3.], [1., 1., 4.]], [[1., 1., 1.], [10., 10., 10.]], [5.5, 1., 10.]),
    ("min tie", lambda x, y: lax.min(x, y),
     [[1., 2., 3.], [1., 1., 4.]], [[1., 1., 1.], [10., 10., 10.]], [5.5, 10., 1.]),
    ("abs at 0", lax.abs, [[-1., 0., -0., 1.]], [[1., 1., 1., 1.]], [-1., 1., 1., 1.]),
    ("relu at 0", lambda x: jnp.maximum(x, 0.), [[-1., 0., 1.]], [[1., 1., 1.]], [0., 0.5, 1.]),
    ("pow x at 0, float y=0", lambda x: lax.pow(x, np.float32(0)), [[0.]], [[1.]], [np.nan]),
    ("pow x at 0, int y", lambda x: lax.pow(x, np.array([0, 1, 2, 3], np.int32)),
     [[0., 0., 0., 0.]], [[1., 1., 1., 1.]], [0., 1., 0., 0.]),
    ("pow x at 0, float y", lambda x: lax.pow(x, np.array([1., 2.], F32)), [[0., 0.]],
     [[1., 1.]], [1., 0.]),
    ("pow y at x=0", lambda y: lax.pow(np.zeros(2, F32), y), [[2., 0.]], [[1., 1.]], [0., 0.]),
    ("integer_pow y=0", lambda x: lax.integer_pow(x, 0), [[0.]], [[1.]], [0.]),
    ("sqrt at 0", jnp.sqrt, [[0., 1.]], [[1., 1.]], [np.inf, 0.5]),
    ("clamp at bounds", lambda x: lax.clamp(np.float32(1), x, np.float32(2)),
     [[0., 1., 1.5, 2., 3.]], [[1.] * 5], [0., 0., 1., 0., 0.]),
    ("clamp bounds at bounds",
     lambda lo, hi: lax.clamp(lo, np.array([0., 1., 1.5, 2., 3.], F32), hi),
     [[1.] * 5, [2.] * 5], [[1.] * 5, [10.] * 5], [1., 0., 0., 0., 10.]),
    ("reduce_max ties", jnp.max, [[1., 3., 3., 2.]], [[1., 2., 4., 8.]], 3.0),
    ("reduce_min ties", lambda x: x.min(0), [[[1., 3.], [1., 2.]]], [[[1., 2.], [4., 8.]]],
     [2.5, 8.]),
    ("cummax ties", lax.cummax, [[1., 3., 3., 2., 3., 5.]], [[1., 2., 4., 8., 16., 32.]],
     [1., 2., 3., 3., 9.5, 32.]),
    ("cummin ties reversed", lambda x: lax.cummin(x, reverse=True),
     [[1., 3., 1., 2., 1., 5.]], [[1., 2., 4., 8., 16., 32.]], [5.5, 10., 10., 16., 16., 32.]),
    ("cumprod with a zero", lax.cumprod, [[1., 3., 0., 2., 1., 5.]],
     [[1., 2., 4., 8., 16., 32.]], [1., 5., 12., 24., 24., 120.]),
    ("prod with two zeros", jnp.prod, [[1., 3., 0., 2., 0., 5.]], [[1., 2., 4., 8., 16., 32.]],
     0.0),
    ("prod with one zero", jnp.prod, [[1., 3., 0., 2., 1., 5.]], [[1., 2., 4., 8., 16., 32.]],
     120.0),
    ("cumlogsumexp with -inf", lax.cumlogsumexp, [[-np.inf, 3., -np.inf]], [[1., 2., 4.]],
     [1., 2., 2.]),
    ("rem in y", lambda y: lax.rem(np.float32(-7.5), y), [[3.]], [[1.]], 2.0),
    ("scatter max ties", lambda x, u: x.at[np.array([0, 2, 0])].max(u),
     [[0., 1., 2., 3., 4.], [7., 2., 7.]], [[0., 10., 20., 30., 40.], [1., 2., 3.]],
     [2., 10., 11., 30., 40.]),
    ("scatter min", lambda x, u: x.at[np.array([0, 2, 4])].min(u),
     [[0., 1., 2., 3., 4.], [-1., 2., 7.]], [[0., 10., 20., 30., 40.], [1., 2., 3.]],
     [1., 10., 11., 30., 40.]),
    ("scatter set, repeated index", lambda x, u: x.at[np.array([0, 2, 0])].set(u),
     [[0., 1., 2., 3., 4.], [7., 8., 9.]], [[0., 10., 20., 30., 40.], [1., 2., 3.]],
     [3., 10., 2., 30., 40.]),
    ("sort ties", jnp.sort, [[3., 1., 2., 1.]], [[1., 2., 4., 8.]], [2., 8., 4., 1.]),
    ("top_k ties", lambda x: lax.top_k(x, 2)[0], [[3., 5., 2., 5.]], [[1., 2., 4., 8.]],
     [2., 8.]),
]


@pytest.mark.parametrize("case", CONVENTIONS, ids=[c[0] for c in CONVENTIONS])
def test_conventions_at_kinks_are_jaxs(case):
    _, f, primals, tangents, expected = case
    primals = tuple(np.asarray(p, F32) for p in primals)
    tangents = tuple(np.asarray(t, F32) for t in tangents)
    _, t = jvp(f, primals, tangents)
    np.testing.assert_allclose(np.asarray(t), np.asarray(expected, F32), rtol=1e-6)


def test_digamma_needs_polygamma():
    with pytest.raises(NotImplementedError, match="polygamma"):
        jvp(lax.digamma, (np.float32(2.0),), (np.float32(1.0),))


def test_nextafter_has_no_rule_as_in_jax():
    with pytest.raises(NotImplementedError,
                       match="^Differentiation rule for 'nextafter' not implemented$"):
        jvp(lambda x: lax.nextafter(x, np.float32(2.0)), (np.float32(1.0),),
            (np.float32(1.0),))


def test_scatter_mul_needs_unique_indices_as_in_jax():
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        jvp(lambda u: jnp.asarray(OPERAND).at[np.array([0, 2, 0])].multiply(u), (UPDATES,),
            (UPDATES,))


# --- symbolic zeros --------------------------------------------------------------------------
def test_a_rule_with_only_zero_tangents_is_not_called():
    c = np.float32(0.3)
    with rule_calls() as seen:
        out, t = jvp(lambda x: x * lax.sin(c), (np.float32(2.0),), (np.float32(1.0),))
    assert "sin" not in seen and "mul" in seen
    np.testing.assert_allclose(t, np.sin(0.3), rtol=1e-6)


def test_linear_and_standard_rules_map_zero_to_zero():
    x = np.ones((2, 3), F32)
    zero = Zero(ShapedArray((2, 3), np.float32))
    _, t = jvp_rules[lax.reduce_sum_p]([x], [zero], axes=(0,), out_sharding=None)
    assert type(t) is Zero and t.aval.shape == (3,)
    _, t = jvp_rules[lax.mul_p]([x, x], [zero, zero])
    assert type(t) is Zero
    _, ts = jvp_rules[lax.split_p]([x], [zero], sizes=(1, 2), axis=1)
    assert all(type(t) is Zero for t in ts)


def test_zero_of_one_argument_skips_its_term():
    y = np.float32(3.0)
    with rule_calls() as seen:
        _, t = jvp(lambda x: lax.div(x, y), (np.float32(2.0),), (np.float32(1.0),))
    assert seen == {"div"}
    assert t == np.float32(1 / 3)


# --- coverage ---------------------------------------------------------------------------------
WITHOUT_RULE = {"nextafter": "JAX 0.10.2 defines no JVP for it (NotImplementedError)"}


def _chapter00_primitives():
    """The primitives defined by minijax.lax's modules (chapter 00); later chapters
    (and their registrations into ``lax``) test their own."""
    import importlib
    from minijax.primitives import Primitive
    modules = [importlib.import_module(f"minijax.lax.{m}") for m in
               ("elementwise", "shapes", "reductions", "dot", "sorting", "slicing")]
    return list({v: None for m in modules for v in vars(m).values()
                 if isinstance(v, Primitive)})


def test_every_primitive_has_a_rule_or_a_reason():
    missing = [p.name for p in _chapter00_primitives() if p not in jvp_rules]
    assert sorted(missing) == sorted(WITHOUT_RULE)


def test_every_rule_is_tested():
    tested = ({c[0] for c in CASES} | {n for n, _ in ZERO_ON_FLOATS} | set(INTEGER_ONLY)
              | {"digamma", "reduce_precision"})
    untested = sorted(p.name for p in _chapter00_primitives()
                      if p in jvp_rules and p.name not in tested)
    assert not untested, f"rules without a test: {untested}"


def test_helpers_are_exported():
    for name in ("defjvp", "defjvp2", "deflinear", "defbilinear", "defjvp_zero",
                 "instantiate_zeros", "Zero", "JVPTrace", "JVPTracer", "float0"):
        assert hasattr(ad, name)
