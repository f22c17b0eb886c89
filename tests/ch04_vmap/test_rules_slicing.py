"""Chapter 04: batching rules of slice, dynamic_slice, gather and the scatters.

A batched *position* (a ``dynamic_slice`` start, a gather index) differs per
example: those rules pair the operand's and the indices' batch axes with
``operand_batching_dims`` (or turn a dynamic slice into a gather, as JAX does).
Indices are drawn partly out of bounds, so clamping and dropping are
exercised too. The last test checks that every primitive has a case in this
chapter's tests.
"""
import importlib

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.batching import batching_rules, vmap
from minijax.interpreters.printing import print_primitives
from minijax.primitives import Primitive, all_primitives

from vmap_check import Case, case_id, check_vmap, f32, i32, in_axes_combos
import test_rules_elementwise
import test_rules_structural

G = lax.GatherDimensionNumbers
dnums = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
batch_dnums = G(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
                operand_batching_dims=(0,), start_indices_batching_dims=(0,))
sdnums = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))

X, IDX = f32(4, 5), i32(3, lo=-5, hi=5)

CASES = [
    Case("slice", lambda x: lax.slice(x, (1, 0), (3, 5), (1, 2)), (X,)),
    Case("slice", lambda x: lax.slice(x, (0, 2), (4, 3)), (X,), id="slice-no-strides"),
    Case("dynamic_slice", lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)),
         (X, i32(lo=-6, hi=6), i32(lo=-6, hi=6))),
    Case("dynamic_slice", lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False),
         (X, i32(lo=-6, hi=6)), id="dynamic_index"),
    Case("dynamic_update_slice", lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
         (X, f32(2, 3), i32(lo=-1, hi=4), i32(lo=0, hi=4))),
    Case("gather", lambda x, i: x[i], (X, IDX), id="take-rows"),
    Case("gather", lambda x, i: x[:, i], (X, IDX), id="take-columns"),
    Case("gather", lambda x, i, j: x[i, j], (X, i32(3, lo=0, hi=4), i32(3, lo=0, hi=5)),
         id="take-points"),
    Case("gather", lambda x, i: lax.gather(x, i, dnums, (1, 3), mode="fill",
                                           fill_value=-1.0),
         (X, i32(2, 1, lo=-2, hi=6)), id="gather-fill"),
    Case("gather", lambda x, i: lax.gather(x, i, dnums, (1, 2), mode="clip"),
         (X, i32(2, 1, lo=-2, hi=6)), id="gather-clip"),
    Case("gather", lambda x, i: lax.gather(x, i, batch_dnums, (1, 1, 2), mode="clip"),
         (f32(2, 4, 3), i32(2, 1, lo=0, hi=4)), id="gather-batching-dims"),
    Case("scatter", lambda x, i, u: x.at[i].set(u), (X, IDX, f32(3, 5))),
    Case("scatter-add", lambda x, i, u: x.at[i].add(u), (X, IDX, f32(3, 5))),
    Case("scatter-sub", lambda x, i, u: x.at[i].subtract(u), (X, IDX, f32(3, 5))),
    Case("scatter-mul", lambda x, i, u: x.at[i].multiply(u), (X, IDX, f32(3, 5))),
    Case("scatter-min", lambda x, i, u: x.at[:, i].min(u), (X, IDX, f32(4, 3))),
    Case("scatter-max", lambda x, i, u: x.at[i, 1].max(u), (X, IDX, f32(3))),
    Case("scatter-add", lambda x, i, u: lax.scatter_add(x, i, u, sdnums, mode="clip"),
         (X, i32(2, 1, lo=-2, hi=6), f32(2, 5)), id="scatter-add-clip"),
    Case("scatter", lambda x, i: x.at[i].apply(lambda v: v * 2), (X, i32(3, lo=0, hi=4)),
         id="scatter-apply"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_placement_of_batch_axes(case):
    for in_axes in in_axes_combos(case):
        check_vmap(case.fn, case.gens, in_axes)


@pytest.mark.parametrize("case", CASES[:5], ids=case_id)
def test_out_axes_last(case):
    check_vmap(case.fn, case.gens, [-1] * len(case.gens), out_axes=-1)


def _primitives(fn, *args):
    log = []
    print_primitives(fn, echo=False, log=log)(*args)
    return log


def test_dynamic_slice_at_batched_positions_is_a_gather():
    """As in JAX: one window per example, read with operand_batching_dims."""
    xs, idx = np.ones((3, 4, 5), np.float32), np.array([0, 1, 2], np.int32)
    log = _primitives(vmap(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3))), xs, idx)
    gathers = [line for line in log if "= gather[" in line]
    assert len(gathers) == 1 and "operand_batching_dims=(0,)" in gathers[0]


def test_dynamic_update_slice_at_batched_positions_is_a_scatter():
    xs, idx = np.ones((3, 4, 5), np.float32), np.array([0, 1, 2], np.int32)
    log = _primitives(vmap(lambda x, i: lax.dynamic_update_slice(x, x[:2, :2], (i, i))),
                      xs, idx)
    assert any("= scatter[" in line for line in log)
    out = vmap(lambda x, i: lax.dynamic_update_slice(x, jnp.zeros((2, 2)), (i, i)))(xs, idx)
    want = xs.copy()
    for b, i in enumerate(idx):
        want[b, i:i + 2, i:i + 2] = 0
    np.testing.assert_array_equal(np.asarray(out), want)


def test_every_primitive_has_a_rule_and_a_case():
    cases = CASES + test_rules_elementwise.CASES + test_rules_structural.CASES
    covered = {c.prim for c in cases}
    # the primitives defined by minijax.lax's modules (chapter 00); later chapters
    # (and their registrations into lax) test their own
    modules = [importlib.import_module(f"minijax.lax.{m}") for m in
               ("elementwise", "shapes", "reductions", "dot", "sorting", "slicing")]
    prims = {v for m in modules for v in vars(m).values() if isinstance(v, Primitive)}
    assert not [p.name for p in prims if p.name not in covered], "primitives without a vmap test"
    assert not [p.name for p in prims if p not in batching_rules]
