"""Chapter 04: batching rules of the elementwise primitives.

Each rule must satisfy ``vmap(f)(xs) == stack([f(x) for x in xs])`` for every
placement of the batch axes (``in_axes`` 0, 1, -1 and None for each operand),
with the result's dtype and weak type; hypothesis adds random shapes and
``out_axes``. Operands may be rank-0 per example (lax broadcasts scalars).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.batching import vmap

from vmap_check import (Case, boolean, c64, case_id, check_vmap, f32, i32, in_axes_combos,
                        out_rank)

S = (2, 3)  # one example's shape

UNARY = [
    Case("neg", lax.neg, (f32(*S),)),
    Case("sign", lax.sign, (f32(*S),)),
    Case("abs", lax.abs, (i32(*S),)),
    Case("square", lax.square, (f32(*S),)),
    Case("integer_pow", lambda x: lax.integer_pow(x, 3), (f32(*S),)),
    Case("floor", lax.floor, (f32(*S),)),
    Case("ceil", lax.ceil, (f32(*S),)),
    Case("round", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), (f32(*S),)),
    Case("is_finite", lambda x: lax.is_finite(lax.div(x, x - x)), (f32(*S),)),
    Case("exp", lax.exp, (f32(*S),)),
    Case("exp2", lax.exp2, (f32(*S),)),
    Case("log", lax.log, (f32(*S, lo=0.1),)),
    Case("log1p", lax.log1p, (f32(*S, lo=-0.5),)),
    Case("expm1", lax.expm1, (f32(*S),)),
    Case("logistic", lax.logistic, (f32(*S),)),
    Case("sqrt", lax.sqrt, (f32(*S, lo=0.0),)),
    Case("rsqrt", lax.rsqrt, (f32(*S, lo=0.1),)),
    Case("cbrt", lax.cbrt, (f32(*S),)),
    Case("sin", lax.sin, (f32(*S),)),
    Case("cos", lax.cos, (f32(*S),)),
    Case("tan", lax.tan, (f32(*S, lo=-1, hi=1),)),
    Case("asin", lax.asin, (f32(*S, lo=-1, hi=1),)),
    Case("acos", lax.acos, (f32(*S, lo=-1, hi=1),)),
    Case("atan", lax.atan, (f32(*S),)),
    Case("sinh", lax.sinh, (f32(*S),)),
    Case("cosh", lax.cosh, (f32(*S),)),
    Case("tanh", lax.tanh, (f32(*S),)),
    Case("asinh", lax.asinh, (f32(*S),)),
    Case("acosh", lax.acosh, (f32(*S, lo=1.0, hi=3.0),)),
    Case("atanh", lax.atanh, (f32(*S, lo=-0.9, hi=0.9),)),
    Case("erf", lax.erf, (f32(*S),)),
    Case("erfc", lax.erfc, (f32(*S),)),
    Case("erf_inv", lax.erf_inv, (f32(*S, lo=-0.9, hi=0.9),)),
    Case("lgamma", lax.lgamma, (f32(*S, lo=0.1, hi=4),)),
    Case("digamma", lax.digamma, (f32(*S, lo=0.1, hi=4),)),
    Case("real", lax.real, (c64(*S),)),
    Case("imag", lax.imag, (c64(*S),)),
    Case("conj", lax.conj, (c64(*S),)),
    Case("not", lax.bitwise_not, (i32(*S),)),
    Case("not", lax.bitwise_not, (boolean(*S),), id="not-bool"),
    Case("population_count", lax.population_count, (i32(*S),)),
    Case("clz", lax.clz, (i32(*S),)),
    Case("convert_element_type", lambda x: lax.convert_element_type(x, np.int32), (f32(*S),)),
    Case("reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), (f32(*S, lo=-1e5, hi=1e5),)),
    Case("copy", lax._array_copy, (f32(*S),)),
    Case("stop_gradient", lax.stop_gradient, (f32(*S),)),
    # bitcast: same width; narrower (adds a trailing axis); wider (consumes one)
    Case("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.int32), (f32(*S),)),
    Case("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.int8), (f32(*S),),
         id="bitcast-narrow"),
    Case("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.float32),
         (lambda rng: rng.integers(0, 64, (2, 4)).astype(np.int8),), id="bitcast-wide"),
]

BINARY = [
    Case("add", lax.add, (f32(*S), f32(*S))),
    Case("sub", lax.sub, (f32(*S), f32(*S))),
    Case("mul", lax.mul, (f32(*S), f32(*S))),
    Case("div", lax.div, (f32(*S), f32(*S, lo=0.5))),
    Case("div", lax.div, (i32(*S), i32(*S)), id="div-int"),
    Case("rem", lax.rem, (i32(*S), i32(*S)), id="rem"),
    Case("max", lax.max, (f32(*S), f32(*S))),
    Case("min", lax.min, (f32(*S), f32(*S))),
    Case("pow", lax.pow, (f32(*S, lo=0.1), f32(*S))),
    Case("nextafter", lax.nextafter, (f32(*S), f32(*S))),
    Case("atan2", lax.atan2, (f32(*S), f32(*S))),
    Case("complex", lax.complex, (f32(*S), f32(*S))),
    Case("and", lax.bitwise_and, (i32(*S), i32(*S))),
    Case("or", lax.bitwise_or, (boolean(*S), boolean(*S))),
    Case("xor", lax.bitwise_xor, (i32(*S), i32(*S))),
    Case("shift_left", lax.shift_left, (i32(*S), i32(*S, lo=0, hi=34))),
    Case("shift_right_logical", lax.shift_right_logical, (i32(*S), i32(*S, lo=0, hi=34))),
    Case("shift_right_arithmetic", lax.shift_right_arithmetic,
         (i32(*S), i32(*S, lo=0, hi=34))),
    Case("eq", lax.eq, (i32(*S, lo=0, hi=2), i32(*S, lo=0, hi=2))),
    Case("ne", lax.ne, (i32(*S, lo=0, hi=2), i32(*S, lo=0, hi=2))),
    Case("lt", lax.lt, (f32(*S), f32(*S))),
    Case("le", lax.le, (i32(*S), i32(*S))),
    Case("gt", lax.gt, (f32(*S), f32(*S))),
    Case("ge", lax.ge, (i32(*S), i32(*S))),
    # lax broadcasts rank-0 operands: a per-example scalar on either side
    Case("add", lax.add, (f32(*S), f32()), id="add-scalar-right"),
    Case("mul", lax.mul, (f32(), f32(*S)), id="mul-scalar-left"),
    Case("lt", lax.lt, (f32(), f32()), id="lt-scalars"),
    # size-1 dimensions broadcast too
    Case("sub", lax.sub, (f32(1, 3), f32(2, 3)), id="sub-size-1"),
]

SELECT = [
    Case("select_n", lambda p, a, b: lax.select_n(p, a, b),
         (boolean(*S), f32(*S), f32(*S))),
    Case("select_n", lambda p, a, b: lax.select_n(p, a, b),
         (boolean(), f32(*S), f32(*S)), id="select_n-scalar-which"),
    Case("select_n", lambda p, a, b, c: lax.select_n(p, a, b, c),
         (i32(*S, lo=0, hi=3), i32(*S), i32(*S), i32(*S)), id="select_n-int-which"),
    Case("select_n", lambda p, a, b: lax.select_n(p, a, b),
         (boolean(), f32(), f32()), id="select_n-scalars"),
    Case("clamp", lax.clamp, (f32(*S, lo=-2, hi=-0.5), f32(*S), f32(*S, lo=0.5, hi=2))),
    Case("clamp", lax.clamp, (f32(lo=-2, hi=-0.5), f32(*S), f32(lo=0.5, hi=2)),
         id="clamp-scalar-bounds"),
    Case("clamp", lax.clamp, (f32(lo=-2, hi=-0.5), f32(*S), f32(*S, lo=0.5, hi=2)),
         id="clamp-mixed-bounds"),
    Case("clamp", lax.clamp, (f32(lo=-2, hi=-0.5), f32(), f32(lo=0.5, hi=2)),
         id="clamp-scalars"),
]

CASES = UNARY + BINARY + SELECT


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_placement_of_batch_axes(case):
    for in_axes in in_axes_combos(case):
        check_vmap(case.fn, case.gens, in_axes)


@pytest.mark.parametrize("case", BINARY[:3] + SELECT[:2], ids=case_id)
def test_out_axes(case):
    for out_axes in range(-out_rank(case) - 1, out_rank(case) + 1):
        check_vmap(case.fn, case.gens, (-1,) + (0,) * (len(case.gens) - 1), out_axes)


@st.composite
def shapes_and_axes(draw, n_operands):
    """One example's shape (rank 0-3), an in_axes entry per operand, an out_axes."""
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
    rank = len(shape)
    axis = st.one_of(st.none(), st.integers(-rank - 1, rank))
    in_axes = [draw(axis) for _ in range(n_operands)]
    if all(a is None for a in in_axes):
        in_axes[0] = 0
    # an operand may also be a per-example scalar
    ranks = [draw(st.sampled_from([rank, 0])) for _ in range(n_operands)]
    in_axes = [a if r == rank or a is None else draw(st.sampled_from([0, -1]))
               for a, r in zip(in_axes, ranks)]
    out_axes = draw(st.integers(-rank - 1, rank))
    return shape, ranks, in_axes, out_axes


@settings(max_examples=25)
@given(shapes_and_axes(1), st.sampled_from([lax.sin, lax.exp, lax.neg, lax.tanh, lax.floor,
                                            lax.sqrt, lambda x: lax.integer_pow(x, 2)]))
def test_unary_random_shapes(spec, fn):
    shape, _, in_axes, out_axes = spec
    check_vmap(fn, (f32(*shape, lo=0.2, hi=0.9),), in_axes, out_axes)


@settings(max_examples=25)
@given(shapes_and_axes(2), st.sampled_from([lax.add, lax.mul, lax.max, lax.atan2, lax.lt]))
def test_binary_random_shapes(spec, fn):
    shape, ranks, in_axes, out_axes = spec
    gens = tuple(f32(*(shape if r else ())) for r in ranks)
    out_axes = out_axes if max(ranks) else out_axes % 2 - 1  # rank-0 results: 0 or -1
    check_vmap(fn, gens, in_axes, out_axes)


def test_jnp_functions_under_vmap():
    """Higher-level code is primitives too: jnp with Python scalars and promotion."""
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    check_vmap(lambda x: jnp.where(x > 2, x * 2, 1.0), (lambda rng: xs[0],), (0,))
    out = vmap(lambda x, n: x * n + 1, in_axes=(0, None))(xs, 2)
    np.testing.assert_array_equal(np.asarray(out), xs * 2 + 1)
    assert out.dtype == np.float32 and not out.weak_type
    out = vmap(lambda i: i + 1.5)(np.arange(3, dtype=np.int32))
    assert out.dtype == np.float32 and out.weak_type  # expected values from JAX 0.10.2
