"""Chapter 04: batching rules of shape, reduction, contraction and sorting primitives.

The same property as for elementwise ops — ``vmap`` equals stacking per-example
results — for every placement of each operand's batch axis, plus random
``axes``/``dimension`` parameters with hypothesis, and checks that the rules
that need not move the batch axis do not (no ``transpose`` is bound).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from minijax import lax
from minijax.interpreters.batching import batching_rules, not_mapped, vmap
from minijax.interpreters.printing import print_primitives

from vmap_check import Case, boolean, case_id, check_vmap, f32, i32, in_axes_combos

S = (2, 3)

SHAPES = [
    Case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1,)), (f32(3),)),
    Case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
         (f32(*S),), id="broadcast_in_dim-2d"),
    Case("reshape", lambda x: lax.reshape(x, (3, 2)), (f32(*S),)),
    Case("reshape", lambda x: lax.reshape(x, (6,), dimensions=(1, 0)), (f32(*S),),
         id="reshape-dimensions"),
    Case("squeeze", lambda x: lax.squeeze(x, (0, 2)), (f32(1, 3, 1),)),
    Case("transpose", lambda x: lax.transpose(x, (2, 0, 1)), (f32(2, 3, 4),)),
    Case("rev", lambda x: lax.rev(x, (0,)), (f32(*S),)),
    Case("rev", lambda x: lax.rev(x, (0, 1)), (f32(*S),), id="rev-both"),
    Case("concatenate", lambda x, y: lax.concatenate([x, y], 0), (f32(2, 3), f32(1, 3))),
    Case("concatenate", lambda x, y, z: lax.concatenate([x, y, z], 1),
         (i32(2, 1), i32(2, 2), i32(2, 3)), id="concatenate-3"),
    Case("stack", lambda x, y: lax.stack([x, y], axis=1), (f32(*S), f32(*S))),
    Case("split", lambda x: lax.split(x, (2, 1, 0), axis=0), (f32(3, 2),)),
    Case("unstack", lambda x: lax.unstack(x, axis=1), (f32(*S),)),
    Case("tile", lambda x: lax.tile(x, (2, 1)), (f32(*S),)),
    Case("pad", lambda x, v: lax.pad(x, v, [(1, 0, 1), (0, 2, 0)]), (f32(*S), f32())),
    Case("pad", lambda x, v: lax.pad(x, v, [(-1, 1, 0), (1, -2, 1)]), (i32(*S), i32()),
         id="pad-negative"),
    Case("iota", lambda x: x + lax.broadcasted_iota(np.int32, (2, 3), 1), (i32(*S),)),
    Case("empty2", lambda x: x + lax.empty2(np.float32), (f32(*S),)),
]

REDUCTIONS = [
    Case("reduce_sum", lambda x: lax.reduce_sum(x, (0,)), (f32(*S),)),
    Case("reduce_sum", lambda x: lax.reduce_sum(x, (0, 1)), (f32(*S),), id="reduce_sum-all"),
    Case("reduce_prod", lambda x: lax.reduce_prod(x, (1,)), (f32(*S),)),
    Case("reduce_max", lambda x: lax.reduce_max(x, (1,)), (f32(*S),)),
    Case("reduce_min", lambda x: lax.reduce_min(x, (0,)), (i32(*S),)),
    Case("reduce_and", lambda x: lax.reduce_and(x, (1,)), (boolean(*S),)),
    Case("reduce_or", lambda x: lax.reduce_or(x, (0,)), (i32(*S),)),
    Case("reduce_xor", lambda x: lax.reduce_xor(x, (0, 1)), (i32(*S),)),
    Case("argmax", lambda x: lax.argmax(x, 1, np.int32), (i32(*S, lo=0, hi=3),)),
    Case("argmin", lambda x: lax.argmin(x, 0, np.int32), (f32(*S),)),
    Case("cumsum", lambda x: lax.cumsum(x, 1), (f32(*S),)),
    Case("cumprod", lambda x: lax.cumprod(x, 0, reverse=True), (f32(*S),)),
    Case("cummax", lambda x: lax.cummax(x, 1, reverse=True), (i32(*S),)),
    Case("cummin", lambda x: lax.cummin(x, 0), (f32(*S),)),
    Case("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 1), (f32(*S),)),
]

dot = lambda dims: (lambda x, y: lax.dot_general(x, y, dims))  # noqa: E731
DOTS = [
    Case("dot_general", dot((((1,), (0,)), ((), ()))), (f32(2, 3), f32(3, 4)), id="matmul"),
    Case("dot_general", dot((((0,), (0,)), ((), ()))), (f32(3), f32(3)), id="vdot"),
    Case("dot_general", dot((((2,), (1,)), ((0,), (0,)))), (f32(2, 3, 4), f32(2, 4, 1)),
         id="batched-matmul"),
    Case("dot_general", dot((((0,), (1,)), ((2,), (0,)))), (f32(3, 2, 4), f32(4, 3)),
         id="mixed-dims"),
    Case("dot_general", lambda x, y: lax.dot(x, y, preferred_element_type=np.int32),
         (i32(2, 3), i32(3)), id="int-preferred"),
]

SORTS = [
    Case("sort", lambda x: lax.sort(x, dimension=0), (f32(*S),)),
    Case("sort", lambda x, y: lax.sort((x, y), dimension=1, num_keys=1),
         (i32(*S, lo=0, hi=2), f32(*S)), id="sort-key-val"),
    Case("sort", lambda x, y, z: lax.sort((x, y, z), dimension=1, num_keys=2),
         (i32(*S, lo=0, hi=2), i32(*S, lo=0, hi=2), f32(*S)), id="sort-2-keys"),
    Case("top_k", lambda x: lax.top_k(x, 2), (f32(2, 4),)),
    Case("top_k", lambda x: lax.top_k(x, 1, axis=0), (i32(2, 4),), id="top_k-axis0"),
]

CASES = SHAPES + REDUCTIONS + DOTS + SORTS


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_placement_of_batch_axes(case):
    for in_axes in in_axes_combos(case):
        check_vmap(case.fn, case.gens, in_axes)
    check_vmap(case.fn, case.gens, [-1] * len(case.gens), out_axes=-1)


@settings(max_examples=25)
@given(st.data())
def test_reductions_random_axes(data):
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank)))
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, rank - 1)))))
    reducer = data.draw(st.sampled_from([lax.reduce_sum, lax.reduce_max, lax.reduce_min]))
    in_axis = data.draw(st.integers(-rank - 1, rank))
    out_rank = rank - len(axes)
    out_axis = data.draw(st.integers(-out_rank - 1, out_rank))
    check_vmap(lambda x: reducer(x, axes), (f32(*shape),), (in_axis,), out_axis)


@settings(max_examples=25)
@given(st.data())
def test_axis_parameter_ops_random_axes(data):
    """cumsum, argmax, sort, rev, top_k: the op's axis must skip over the batch axis."""
    shape = (2, 3, 2)
    axis = data.draw(st.integers(0, 2))
    fn = data.draw(st.sampled_from([
        lambda x: lax.cumsum(x, axis), lambda x: lax.argmax(x, axis, np.int32),
        lambda x: lax.sort(x, dimension=axis), lambda x: lax.rev(x, (axis,)),
        lambda x: lax.top_k(x, 1, axis=axis)[0]]))
    in_axis = data.draw(st.integers(-4, 3))
    check_vmap(fn, (f32(*shape),), (in_axis,), data.draw(st.integers(-1, 0)))


@settings(max_examples=25)
@given(st.data())
def test_dot_general_random_batch_axes(data):
    case = data.draw(st.sampled_from(DOTS))
    ranks = [np.ndim(g(np.random.default_rng(0))) for g in case.gens]
    axes = [data.draw(st.one_of(st.none(), st.integers(-r - 1, r))) for r in ranks]
    if axes == [None, None]:
        axes[1] = 0
    check_vmap(case.fn, case.gens, axes)


def _primitive_names(fn, *args):
    log = []
    print_primitives(fn, echo=False, log=log)(*args)
    return [line.split(" = ")[1].split("[")[0].split(" ")[0] for line in log]


@pytest.mark.parametrize("fn, in_axes, out_axes", [
    (lambda x, y: lax.add(x, y), (1, 1), 1),
    (lambda x: lax.sin(x), 2, 2),
    (lambda x: lax.reduce_sum(x, (0,)), 1, 0),
    (lambda x: lax.reduce_max(x, (0, 1)), 1, 0),
    (lambda x: lax.cumsum(x, 1), 2, 2),
    (lambda x: lax.argmax(x, 0, np.int32), 1, 0),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), (1, 2), 0),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), (2, None), 1),
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), (None, 0), 2),
    (lambda x: lax.rev(x, (0,)), 1, 1),
    (lambda x: lax.sort(x, dimension=0), 1, 1),
])
def test_rules_do_not_move_the_batch_axis_needlessly(fn, in_axes, out_axes):
    """Elementwise ops, reductions, scans, sorts and dot_general only renumber axes:
    asked for the batch axis where the rule leaves it, vmap binds no transpose."""
    n = 2 if isinstance(in_axes, tuple) else 1
    args = [np.ones((3, 3, 3), np.float32) for _ in range(n)]
    names = _primitive_names(vmap(fn, in_axes=in_axes, out_axes=out_axes), *args)
    assert "transpose" not in names and "broadcast_in_dim" not in names, names


def test_dot_general_batch_axes_become_contraction_batch_dims():
    log = []
    f = vmap(lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), in_axes=(2, 1))
    print_primitives(f, echo=False, log=log)(np.ones((2, 3, 5), np.float32),
                                              np.ones((3, 5, 4), np.float32))
    assert log[-1].startswith("c:f32[5,2,4] = dot_general[dimension_numbers=(((1,), (0,)), "
                              "((2,), (1,)))")


def test_iota_rule_is_never_batched():
    out, bdim = batching_rules[lax.iota_p]([], [], dtype=np.dtype(np.int32), shape=(3,),
                                            dimension=0, sharding=None)
    assert bdim is not_mapped
    np.testing.assert_array_equal(np.asarray(out), np.arange(3))
