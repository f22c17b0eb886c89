"""Chapter 04 — the batching rule of every primitive, in one place.

A rule receives batched values and their batch axes (``not_mapped`` for an
argument shared by all examples; at least one argument is batched) and
returns the batched result and *its* batch axis. Every rule is checked by the
same property (``tests/ch04_vmap``): ``vmap(f)(xs) == stack([f(x) for x in xs])``.

The families, from cheapest to most involved:

- **elementwise** ops (``kind="elementwise"``) keep the batch axis where it
  is (:func:`defelementwise`); ``select_n`` and ``clamp`` only broadcast a
  per-example scalar operand;
- **axis-parameter** ops (reductions, ``argmax``, ``cumsum``, ``rev``,
  ``slice``, ``sort``, ``top_k``, ``split``...) shift the axes they name past
  the batch axis and say where the batch axis ended up: no data moves;
- **shape** ops (``reshape``, ``broadcast_in_dim``, ``squeeze``,
  ``concatenate``, ``pad``) put the batch axis first, where the new shape
  can name it; an unbatched operand of ``concatenate`` is broadcast;
- ``dot_general`` makes the batch axis one more *batch dimension* of the
  contraction when both sides have one, and a free dimension otherwise;
- ``gather``/``scatter`` pair the operand's and the indices' batch axes with
  ``operand_batching_dims``; ``dynamic_slice`` and ``dynamic_update_slice``
  with batched positions become a gather and a scatter, as in JAX.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.core import get_aval
from minijax.interpreters import ad
from minijax.interpreters.batching import (batch_size, batching_rules, bdim_at_front,
                                           defelementwise, defreducer, matchaxis, moveaxis,
                                           not_mapped)
from minijax.lax.dot import dot_general_p  # (`lax.dot` is the function; see report)
from minijax.lax.slicing import GatherScatterMode
from minijax.primitives import all_primitives


def _shape(x) -> tuple:
    return get_aval(x).shape


def _ndim(x) -> int:
    return get_aval(x).ndim


def _bump(dims, bdim) -> tuple:
    """Operand axes ``dims`` renumbered after inserting the batch axis at ``bdim``."""
    return tuple(int(d) + 1 if d >= bdim else int(d) for d in dims)


def _single(rule):
    """Adapt ``rule(x, bdim, **params)`` for one-operand primitives."""
    def batched(args, dims, **params):
        (x,), (bdim,) = args, dims
        return rule(x, bdim, **params)
    return batched


# =============================================================================
# Elementwise
# =============================================================================
# Every primitive created ``kind="elementwise"`` (chapter 00): one operand keeps its
# batch axis, several line theirs up. Not listed by name: a new elementwise
# primitive gets its rule where it is made. Three have their own rule:
# ``select_n`` and ``clamp`` (below) broadcast a per-example scalar operand,
# ``add_any`` (at the end) adds two values of one shape without broadcasting.
_OWN_RULE = {lax.select_n_p, lax.clamp_p, ad.add_any_p}
for _p in all_primitives():
    if _p.kind == "elementwise" and _p not in _OWN_RULE:
        defelementwise(_p)


def _select_n_rule(args, dims):
    """``select_n(which, *cases)``: ``which`` is per-example scalar or case-shaped."""
    which, *cases = args
    which_bdim, *case_bdims = dims
    if all(d == which_bdim for d in case_bdims):  # everything batched alike
        if _shape(which) != _shape(cases[0]):  # a scalar `which` per example
            which = lax.broadcast_in_dim(which, _shape(cases[0]), (which_bdim,))
        return lax.select_n(which, *cases), which_bdim
    if _ndim(which) == 0 and not_mapped not in case_bdims:  # one `which` for all
        bdim = case_bdims[0]
        cases = [moveaxis(c, d, bdim) for c, d in zip(cases, case_bdims)]
        return lax.select_n(which, *cases), bdim
    size = batch_size(args, dims)
    which = bdim_at_front(which, which_bdim, size) if _ndim(which) else which
    if any(_ndim(c) for c in cases):
        cases = [bdim_at_front(c, d, size) for c, d in zip(cases, case_bdims)]
    if 0 < _ndim(which) < _ndim(cases[0]):  # per-example scalar `which`, batched
        which = lax.broadcast_in_dim(which, _shape(cases[0]), (0,))
    if _ndim(which) > _ndim(cases[0]):  # scalar cases shared by all examples
        cases = [lax.broadcast_in_dim(c, _shape(which), ()) for c in cases]
    return lax.select_n(which, *cases), 0


def _clamp_rule(args, dims):
    """``clamp(lo, x, hi)``: each bound is a scalar or has ``x``'s shape, per example."""
    lo, x, hi = args
    lo_bdim, x_bdim, hi_bdim = dims
    if lo_bdim == x_bdim == hi_bdim:  # all batched along one axis
        lo, hi = (b if _shape(b) == _shape(x) else  # a per-example scalar bound
                  lax.broadcast_in_dim(b, _shape(x), (x_bdim,)) for b in (lo, hi))
        return lax.clamp(lo, x, hi), x_bdim
    if _ndim(lo) == _ndim(hi) == 0 and x_bdim is not not_mapped:  # shared scalar bounds
        return lax.clamp(lo, x, hi), x_bdim
    size = batch_size(args, dims)
    lo, x, hi = (bdim_at_front(v, d, size) if _ndim(v) else v for v, d in zip(args, dims))
    shape = max(_shape(lo), _shape(x), _shape(hi), key=len)

    def fit(v):  # to the common shape: a batched per-example scalar is (B,)
        if _shape(v) == shape:
            return v
        return lax.broadcast_in_dim(v, shape, (0,) if _ndim(v) else ())
    return lax.clamp(fit(lo), fit(x), fit(hi)), 0


batching_rules[lax.select_n_p] = _select_n_rule
batching_rules[lax.clamp_p] = _clamp_rule


@_single
def _bitcast_rule(x, bdim, *, new_dtype):
    """A wider ``new_dtype`` consumes the trailing axis: it must not be the batch axis."""
    if np.dtype(new_dtype).itemsize > get_aval(x).dtype.itemsize and bdim == _ndim(x) - 1:
        x, bdim = moveaxis(x, bdim, 0), 0
    return lax.bitcast_convert_type_p.bind(x, new_dtype=new_dtype), bdim


batching_rules[lax.bitcast_convert_type_p] = _bitcast_rule


# =============================================================================
# Shapes
# =============================================================================
@_single
def _broadcast_in_dim_rule(x, bdim, *, shape, broadcast_dimensions, sharding):
    x = moveaxis(x, bdim, 0)
    dims = (0,) + tuple(d + 1 for d in broadcast_dimensions)
    return lax.broadcast_in_dim(x, (_shape(x)[0],) + tuple(shape), dims,
                                out_sharding=sharding), 0


@_single
def _reshape_rule(x, bdim, *, new_sizes, dimensions, sharding):
    """Row-major order mixes axes: only a leading batch axis survives a reshape intact."""
    x = moveaxis(x, bdim, 0)
    if dimensions is not None:
        dimensions = (0,) + tuple(d + 1 for d in dimensions)
    return lax.reshape(x, (_shape(x)[0],) + tuple(new_sizes), dimensions,
                       out_sharding=sharding), 0


@_single
def _squeeze_rule(x, bdim, *, dimensions):
    x = moveaxis(x, bdim, 0)
    return lax.squeeze(x, tuple(d + 1 for d in dimensions)), 0


@_single
def _transpose_rule(x, bdim, *, permutation):
    """Fold "batch axis first" into the transpose that happens anyway."""
    perm = (bdim,) + _bump(permutation, bdim)
    return lax.transpose(x, perm), 0


@_single
def _rev_rule(x, bdim, *, dimensions):
    return lax.rev(x, _bump(dimensions, bdim)), bdim


def _concatenate_rule(args, dims, *, dimension):
    size = batch_size(args, dims)
    args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    return lax.concatenate(args, dimension + 1), 0


def _stack_rule(args, dims, *, axis):
    bdim = dims[0]
    if bdim is not not_mapped and all(d == bdim for d in dims):
        if axis <= bdim:  # the new axis goes before the batch axis
            return lax.stack_p.bind(*args, axis=axis), bdim + 1
        return lax.stack_p.bind(*args, axis=axis + 1), bdim
    size = batch_size(args, dims)
    args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    return lax.stack_p.bind(*args, axis=axis + 1), 0


@_single
def _unstack_rule(x, bdim, *, axis):
    out_axis, out_bdim = (axis, bdim - 1) if axis < bdim else (axis + 1, bdim)
    outs = lax.unstack_p.bind(x, axis=out_axis)
    return outs, [out_bdim] * len(outs)


@_single
def _split_rule(x, bdim, *, sizes, axis):
    outs = lax.split_p.bind(x, sizes=sizes, axis=axis + 1 if axis >= bdim else axis)
    return outs, [bdim] * len(sizes)


@_single
def _tile_rule(x, bdim, *, reps):
    reps = list(reps)
    reps.insert(bdim, 1)
    return lax.tile_p.bind(x, reps=tuple(reps)), bdim


def _pad_rule(args, dims, *, padding_config):
    """A batched padding *value* differs per example: pad with 0, then select it in."""
    x, value = args
    x_bdim, value_bdim = dims
    if x_bdim is not_mapped:
        x, x_bdim = bdim_at_front(x, x_bdim, _shape(value)[value_bdim]), 0
    config = list(padding_config)
    config.insert(x_bdim, (0, 0, 0))
    if value_bdim is not_mapped:
        return lax.pad(x, value, config), x_bdim
    padded = lax.pad(x, lax.full_like(x, 0, shape=()), config)
    is_data = lax.pad(lax.full_like(x, True, np.bool_), False, config)
    fill = lax.broadcast_in_dim(value, _shape(padded), (x_bdim,))
    return lax.select(is_data, padded, fill), x_bdim


def _no_operands_rule(prim):
    """``iota`` and ``empty2`` have no operands, so they are never batched (the trace
    binds them directly)."""
    return lambda args, dims, **params: (prim.bind(**params), not_mapped)


batching_rules.update({
    lax.broadcast_in_dim_p: _broadcast_in_dim_rule,
    lax.reshape_p: _reshape_rule,
    lax.squeeze_p: _squeeze_rule,
    lax.transpose_p: _transpose_rule,
    lax.rev_p: _rev_rule,
    lax.concatenate_p: _concatenate_rule,
    lax.stack_p: _stack_rule,
    lax.unstack_p: _unstack_rule,
    lax.split_p: _split_rule,
    lax.tile_p: _tile_rule,
    lax.pad_p: _pad_rule,
    lax.iota_p: _no_operands_rule(lax.iota_p),
    lax.empty2_p: _no_operands_rule(lax.empty2_p),
})


# =============================================================================
# Reductions
# =============================================================================
for _p in [lax.reduce_sum_p, lax.reduce_prod_p, lax.reduce_max_p, lax.reduce_min_p,
           lax.reduce_and_p, lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p]:
    defreducer(_p)


def _cumulative_rule(prim):
    @_single
    def rule(x, bdim, *, axis, reverse):
        return prim.bind(x, axis=axis + 1 if axis >= bdim else axis, reverse=reverse), bdim
    return rule


for _p in [lax.cumsum_p, lax.cumprod_p, lax.cummax_p, lax.cummin_p, lax.cumlogsumexp_p]:
    batching_rules[_p] = _cumulative_rule(_p)


# =============================================================================
# dot_general
# =============================================================================
def _dot_general_rule(args, dims, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
    """Two batch axes pair up as a new contraction batch dim; one alone is a free dim.

    The result's dimensions are (batch dims, lhs free dims, rhs free dims), so
    the batch axis of the result follows from where it sits among those.
    """
    lhs, rhs = args
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    if lbd is not not_mapped and rbd is not not_mapped:
        lb, rb = (lbd,) + _bump(lb, lbd), (rbd,) + _bump(rb, rbd)
        lc, rc = _bump(lc, lbd), _bump(rc, rbd)
        out_bdim = 0
    elif lbd is not not_mapped:
        lhs_free = [d for d in range(_ndim(lhs)) if d not in lb and d not in lc]
        out_bdim = len(lb) + sum(d < lbd for d in lhs_free)
        lb, lc = _bump(lb, lbd), _bump(lc, lbd)
    else:
        rhs_free = [d for d in range(_ndim(rhs)) if d not in rb and d not in rc]
        out_bdim = _ndim(lhs) - len(lc) + sum(d < rbd for d in rhs_free)
        rb, rc = _bump(rb, rbd), _bump(rc, rbd)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)),
                                 precision=precision,
                                 preferred_element_type=preferred_element_type,
                                 out_sharding=out_sharding)
    return out, out_bdim


batching_rules[dot_general_p] = _dot_general_rule


# =============================================================================
# conv_general_dilated
# =============================================================================
def _conv_general_dilated_rule(args, dims, *, window_strides, padding, lhs_dilation,
                               rhs_dilation, dimension_numbers, feature_group_count,
                               batch_group_count, **params):
    """The mapped axis is folded into a dimension the convolution already has:

    - only the input mapped: into its batch dimension (more images);
    - only the kernel mapped: into its output features (more filters);
    - both: into the input's features and the kernel's output features, one
      feature group per example (``feature_group_count`` times the axis size),
      or into the batch groups when the convolution already has some.

    With groups, the group axis must stay the major part of the folded
    dimension, so the mapped axis goes in after it.
    """
    from minijax.lax.convolution import reshape_axis_into as into
    from minijax.lax.convolution import reshape_axis_out_of as out_of
    lhs, rhs = args
    lbd, rbd = dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    conv = lambda x, w, fgc, bgc: lax.conv_general_dilated(  # noqa: E731
        x, w, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
        feature_group_count=fgc, batch_group_count=bgc, **params)
    if lbd is not not_mapped and rbd is not not_mapped:
        size = _shape(lhs)[lbd]
        if batch_group_count > 1:
            new_lhs = into(lbd, lhs_spec[0], lhs)
            fgc, bgc = feature_group_count, batch_group_count * size
        else:
            new_lhs = into(lbd, lhs_spec[1], lhs)
            fgc, bgc = feature_group_count * size, batch_group_count
        out = conv(new_lhs, into(rbd, rhs_spec[0], rhs), fgc, bgc)
        return out_of(out_spec[1], size, out), out_spec[1]
    if lbd is not not_mapped:
        size = _shape(lhs)[lbd]
        if batch_group_count == 1:
            out = conv(into(lbd, lhs_spec[0], lhs), rhs, feature_group_count, 1)
        else:
            new_lhs = out_of(lhs_spec[0] + int(lbd <= lhs_spec[0]), batch_group_count, lhs)
            new_lhs = into(lbd + int(lhs_spec[0] < lbd), lhs_spec[0] + 1, new_lhs)
            new_lhs = into(lhs_spec[0], lhs_spec[0], new_lhs)
            out = conv(new_lhs, rhs, feature_group_count, batch_group_count)
        return out_of(out_spec[0], size, out), out_spec[0]
    size = _shape(rhs)[rbd]
    if feature_group_count == 1 and batch_group_count == 1:
        out = conv(lhs, into(rbd, rhs_spec[0], rhs), 1, 1)
        return out_of(out_spec[1], size, out), out_spec[1]
    groups = max(feature_group_count, batch_group_count)
    new_rhs = out_of(rhs_spec[0] + int(rbd <= rhs_spec[0]), groups, rhs)
    new_rhs = into(rbd + int(rhs_spec[0] < rbd), rhs_spec[0] + 1, new_rhs)
    new_rhs = into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = conv(lhs, new_rhs, feature_group_count, batch_group_count)
    out = out_of(out_spec[1], groups, out)
    out = out_of(out_spec[1] + 1, size, out)
    return into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


batching_rules[lax.conv_general_dilated_p] = _conv_general_dilated_rule


# =============================================================================
# Windowed reductions: the mapped axis gets a window of one
# =============================================================================
_WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                  "window_dilation")
_ONE = {"window_dimensions": 1, "window_strides": 1, "padding": (0, 0), "base_dilation": 1,
        "window_dilation": 1}


def _with_unit_window(params, at: int) -> dict:
    """``params`` with a window of size one (no stride, padding or dilation) at axis ``at``."""
    return {k: (tuple(v[:at]) + (_ONE[k],) + tuple(v[at:]) if k in _WINDOW_PARAMS else v)
            for k, v in params.items()}


def _reduce_window_rule(prim):
    def rule(x, bdim, **params):
        return prim.bind(x, **_with_unit_window(params, bdim)), bdim
    return _single(rule)


def _select_window_rule(prim):
    """``select_and_gather_add`` / ``select_and_scatter_add``: both operands'
    axes to the front, a unit window there."""
    def rule(args, dims, **params):
        size = batch_size(args, dims)
        args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
        return prim.bind(*args, **_with_unit_window(params, 0)), 0
    return rule


for _p in (lax.reduce_window_sum_p, lax.reduce_window_max_p, lax.reduce_window_min_p):
    batching_rules[_p] = _reduce_window_rule(_p)
for _p in (lax.select_and_gather_add_p, lax.select_and_scatter_add_p):
    batching_rules[_p] = _select_window_rule(_p)

# optimization_barrier: the identity, each value keeps its batch axis
batching_rules[lax.optimization_barrier_p] = \
    lambda args, dims: (lax.optimization_barrier_p.bind(*args), list(dims))


# =============================================================================
# Sorting
# =============================================================================
def _sort_rule(args, dims, *, dimension, is_stable, num_keys):
    """All operands sort together: give them one batch axis (an unbatched one is broadcast)."""
    proto, bdim = next((x, d) for x, d in zip(args, dims) if d is not not_mapped)
    others = tuple(d for d in range(_ndim(proto)) if d != bdim)
    args = [lax.broadcast_in_dim(x, _shape(proto), others) if d is not_mapped
            else moveaxis(x, d, bdim) for x, d in zip(args, dims)]
    outs = lax.sort_p.bind(*args, dimension=dimension + (bdim <= dimension),
                           is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


@_single
def _top_k_rule(x, bdim, *, k, axis):
    outs = lax.top_k_p.bind(x, k=k, axis=axis + 1 if bdim <= axis else axis)
    return outs, [bdim, bdim]


batching_rules[lax.sort_p] = _sort_rule
batching_rules[lax.top_k_p] = _top_k_rule


# =============================================================================
# Slicing, gather and scatter
# =============================================================================
@_single
def _slice_rule(x, bdim, *, start_indices, limit_indices, strides):
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(bdim, 0)
    limits.insert(bdim, _shape(x)[bdim])
    if strides is not None:
        strides = list(strides)
        strides.insert(bdim, 1)
    return lax.slice(x, starts, limits, strides), bdim


def _gather(operand, indices, dnums, slice_sizes, params):
    return lax.gather_p.bind(operand, indices, dimension_numbers=dnums,
                             slice_sizes=tuple(slice_sizes), **params)


def _gather_rule(args, dims, *, dimension_numbers, slice_sizes, **params):
    """Three cases: only the operand, only the indices, or both are batched.

    - operand only: the batch axis is one more (whole) window dimension;
    - indices only: one more batch dimension of the index array;
    - both: example ``b`` reads operand ``b`` with indices ``b`` — exactly
      what ``operand_batching_dims``/``start_indices_batching_dims`` pair up.
    """
    operand, indices = args
    operand_bdim, indices_bdim = dims
    dn = dimension_numbers
    plus1 = lambda ds: tuple(d + 1 for d in ds)
    if indices_bdim is not_mapped:
        operand = moveaxis(operand, operand_bdim, 0)
        dn = dn._replace(offset_dims=(0,) + plus1(dn.offset_dims),
                         collapsed_slice_dims=plus1(dn.collapsed_slice_dims),
                         start_index_map=plus1(dn.start_index_map),
                         operand_batching_dims=plus1(dn.operand_batching_dims))
        slice_sizes = (_shape(operand)[0],) + tuple(slice_sizes)
        return _gather(operand, indices, dn, slice_sizes, params), 0
    indices = moveaxis(indices, indices_bdim, 0)
    if operand_bdim is not_mapped:
        dn = dn._replace(offset_dims=plus1(dn.offset_dims),
                         start_indices_batching_dims=plus1(dn.start_indices_batching_dims))
        # batching may repeat indices and break their order
        params = dict(params, unique_indices=False, indices_are_sorted=False)
        return _gather(operand, indices, dn, slice_sizes, params), 0
    operand = moveaxis(operand, operand_bdim, 0)
    dn = dn._replace(offset_dims=plus1(dn.offset_dims),
                     collapsed_slice_dims=plus1(dn.collapsed_slice_dims),
                     start_index_map=plus1(dn.start_index_map),
                     operand_batching_dims=(0,) + plus1(dn.operand_batching_dims),
                     start_indices_batching_dims=(0,) + plus1(dn.start_indices_batching_dims))
    slice_sizes = (min(_shape(operand)[0], 1),) + tuple(slice_sizes)
    return _gather(operand, indices, dn, slice_sizes, params), 0


def _scatter_rule(prim):
    """Scatter mirrors gather; the operand (the result) always gets a front batch axis."""
    def rule(args, dims, *, dimension_numbers, **params):
        operand, indices, updates = args
        operand_bdim, indices_bdim, updates_bdim = dims
        size = batch_size(args, dims)
        operand = bdim_at_front(operand, operand_bdim, size)
        updates = bdim_at_front(updates, updates_bdim, size)
        dn = dimension_numbers
        plus1 = lambda ds: tuple(d + 1 for d in ds)
        if indices_bdim is not_mapped:
            dn = dn._replace(update_window_dims=(0,) + plus1(dn.update_window_dims),
                             inserted_window_dims=plus1(dn.inserted_window_dims),
                             scatter_dims_to_operand_dims=plus1(dn.scatter_dims_to_operand_dims),
                             operand_batching_dims=plus1(dn.operand_batching_dims))
        else:
            indices = moveaxis(indices, indices_bdim, 0)
            dn = dn._replace(
                update_window_dims=plus1(dn.update_window_dims),
                inserted_window_dims=plus1(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=plus1(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + plus1(dn.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + plus1(dn.scatter_indices_batching_dims))
        return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0
    return rule


def _batched_start_indices(indices, dims):
    """Scalar start positions -> one index vector per example, ``(B, n)`` (or ``(n,)``)."""
    if not indices:
        return np.array([], np.int32), not_mapped
    if all(d is not_mapped for d in dims):
        return lax.concatenate([lax.broadcast(i, (1,)) for i in indices], 0), not_mapped
    size = batch_size(indices, dims)
    columns = [lax.broadcast_in_dim(i, (size, 1), (0,) if d is not not_mapped else ())
               for i, d in zip(indices, dims)]
    return lax.concatenate(columns, 1), 0


def _dynamic_slice_rule(args, dims, *, slice_sizes):
    """A window at a per-example position is a gather of one window per example."""
    operand, *starts = args
    operand_bdim, *start_bdims = dims
    window = tuple(range(len(starts)))
    dn = lax.GatherDimensionNumbers(offset_dims=window, collapsed_slice_dims=(),
                                    start_index_map=window)
    index, index_bdim = _batched_start_indices(starts, start_bdims)
    return _gather_rule([operand, index], [operand_bdim, index_bdim], dimension_numbers=dn,
                        slice_sizes=slice_sizes, unique_indices=True,
                        indices_are_sorted=True, mode=GatherScatterMode.CLIP,
                        fill_value=None)


def _dynamic_update_slice_rule(args, dims):
    """An update at a per-example position is a scatter of one window per example."""
    operand, update, *starts = args
    operand_bdim, update_bdim, *start_bdims = dims
    window = tuple(range(len(starts)))
    dn = lax.ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(),
                                     scatter_dims_to_operand_dims=window)
    index, index_bdim = _batched_start_indices(starts, start_bdims)
    return batching_rules[lax.scatter_p](
        [operand, index, update], [operand_bdim, index_bdim, update_bdim],
        update_jaxpr=None, update_consts=(), dimension_numbers=dn,
        indices_are_sorted=True, unique_indices=True, mode=GatherScatterMode.CLIP)


batching_rules[lax.slice_p] = _slice_rule
batching_rules[lax.gather_p] = _gather_rule
for _p in [lax.scatter_p, lax.scatter_add_p, lax.scatter_sub_p, lax.scatter_mul_p,
           lax.scatter_min_p, lax.scatter_max_p]:
    batching_rules[_p] = _scatter_rule(_p)
batching_rules[lax.dynamic_slice_p] = _dynamic_slice_rule
batching_rules[lax.dynamic_update_slice_p] = _dynamic_update_slice_rule


# =============================================================================
# Linear algebra: every operand is a stack of matrices (or vectors) over leading axes
# =============================================================================
def _leading_batch_rule(primitive):
    """Move every batch axis to the front; the primitive already maps over leading axes."""
    def rule(args, dims, **params):
        size = batch_size(args, dims)
        args = [bdim_at_front(x, d, size) for x, d in zip(args, dims)]
        out = primitive.bind(*args, **params)
        if primitive.multiple_results:
            return out, [0] * len(out)
        return out, 0
    return rule


for _p in [lax.linalg.cholesky_p, lax.linalg.triangular_solve_p, lax.linalg.lu_p,
           lax.linalg.lu_pivots_to_permutation_p, lax.linalg.qr_p, lax.linalg.eigh_p,
           lax.linalg.svd_p]:
    batching_rules[_p] = _leading_batch_rule(_p)


# --- add_any (chapter 02's sum of tangents) -------------------------------------------
def _add_any_batching_rule(args, dims):
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return ad.add_any_p.bind(x, y), dx
    size = next(get_aval(v).shape[d] for v, d in zip(args, dims) if d is not not_mapped)
    out_dim = dy if dy is not not_mapped else dx
    x, y = matchaxis(size, dx, out_dim, x), matchaxis(size, dy, out_dim, y)
    return ad.add_any_p.bind(x, y), out_dim


batching_rules[ad.add_any_p] = _add_any_batching_rule


# =============================================================================
# fft: the transform acts on the last axes, so leading batch axes are free
# =============================================================================
def _fft_rule(x, bdim, *, fft_type, fft_lengths):
    """Move the batch axis to the front (never among the transformed last axes) and
    transform again: ``lax.fft`` maps over every leading axis. As in JAX, the rule
    calls the jitted ``lax.fft``, so a traced program shows its inner ``jit``."""
    return lax.fft(moveaxis(x, bdim, 0), fft_type, fft_lengths), 0


batching_rules[lax.fft_p] = _single(_fft_rule)


# --- schur, hessenberg, householder_product (jax.scipy.linalg's extra factorizations) -----
for _p in [lax.linalg.schur_p, lax.linalg.hessenberg_p, lax.linalg.householder_product_p]:
    batching_rules[_p] = _leading_batch_rule(_p)

# --- eig (not symmetric): maps over leading axes, as the other factorizations ---------------
batching_rules[lax.linalg.eig_p] = _leading_batch_rule(lax.linalg.eig_p)
