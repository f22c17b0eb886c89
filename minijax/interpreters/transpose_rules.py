"""Chapter 07 — the transpose rule of every linear primitive, in one place.

A linear map ``y = A x`` has the transpose ``ct_x = A^T ct_y``. For each
primitive that can appear in a linear jaxpr, its rule computes that product
*with other primitives* (so the backward pass is itself a program that can be
traced, jitted, differentiated again or batched). The pairs are the classic
ones:

==================  ==========================================
forward             transpose
==================  ==========================================
broadcast           sum over the broadcast axes
reduce_sum          broadcast back
slice, pad          pad with zeros, slice (they undo each other)
gather              scatter-add into zeros
concatenate         split (and stack <-> unstack)
reshape, transpose  the inverse reshape, the inverse permutation
mul by ``c``        mul by ``c``; ``dot_general`` by ``B``: by ``B^T``
cumsum              cumsum in the other direction
==================  ==========================================

Rules are called as ``rule(ct, *args, **params)``; an argument that is linear
is an :class:`~minijax.interpreters.transpose.UndefinedPrimal` (only its aval
is known), the others are the known coefficients (residuals, indices). A rule
returns one cotangent per argument, ``None`` for the known ones. The
operations chosen are JAX's, so ``make_jaxpr(grad(f))`` prints the same.

Primitives deliberately without a rule: every *nonlinear* primitive
(``sin``, ``exp``, ``max``, ``sort``...): a linear jaxpr produced by
``linearize`` never applies them to a linear value, since their JVP rules use
linear primitives on the tangents; and the integer, boolean and
piecewise-constant primitives, whose tangents are symbolic zeros.
"""
from __future__ import annotations

import weakref

import numpy as np

from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.interpreters.ad import (Zero, float0, instantiate_zeros,
                                     primal_dtype_to_tangent_dtype, tangent_aval)
from minijax.interpreters.linearize import jit_params_like
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.interpreters.transpose import (UndefinedPrimal, add_any_p, backward_pass,
                                            defbilinear, deflinear2, is_undefined_primal,
                                            transpose_rules, unbroadcast)
from minijax.jaxpr import ClosedJaxpr
from minijax.jit import bind_jit, jit_p
from minijax.lax.dot import dot_general_p

_undefined = is_undefined_primal


def _aval(x):
    return x.aval if _undefined(x) else get_aval(x)


def _zeros(aval):
    """A zero array of ``aval``'s shape and dtype (``lax.full``: one broadcast of a literal)."""
    return lax.full(aval.shape, 0, aval.dtype)


# --- elementwise arithmetic --------------------------------------------------------------
deflinear2(lax.neg_p, lambda ct, x: [lax.neg(ct)])
deflinear2(add_any_p, lambda ct, x, y: [ct if _undefined(x) else None,
                                        ct if _undefined(y) else None])


def _add_transpose(ct, x, y):
    return [unbroadcast(x.aval, ct) if _undefined(x) else None,
            unbroadcast(y.aval, ct) if _undefined(y) else None]


def _sub_transpose(ct, x, y):
    return [unbroadcast(x.aval, ct) if _undefined(x) else None,
            unbroadcast(y.aval, lax.neg(ct)) if _undefined(y) else None]


deflinear2(lax.add_p, _add_transpose)
deflinear2(lax.sub_p, _sub_transpose)


def _mul_kwargs(out_dtype, like):
    return {} if out_dtype is None else {"out_dtype": like.aval.dtype}


defbilinear(lax.mul_p,
            lambda ct, x, y, out_dtype=None: unbroadcast(
                x.aval, lax.mul(ct, y, **_mul_kwargs(out_dtype, x))),
            lambda ct, x, y, out_dtype=None: unbroadcast(
                y.aval, lax.mul(x, ct, **_mul_kwargs(out_dtype, y))))


def _div_transpose(ct, x, y):
    """``x / y`` is linear in the numerator only."""
    if _undefined(y):
        raise RuntimeError("nonlinear div can't be transposed")
    return [unbroadcast(x.aval, lax.div(ct, y)), None]


deflinear2(lax.div_p, _div_transpose)


def _convert_element_type_transpose(ct, operand, *, new_dtype, weak_type, sharding):
    """Convert back to the operand's dtype (an integer operand gets a Zero float0 cotangent)."""
    old = operand.aval
    if primal_dtype_to_tangent_dtype(old.dtype) == float0:
        return [Zero(old.update(dtype=float0, weak_type=False))]
    return [lax._convert_element_type(ct, old.dtype, old.weak_type)]


deflinear2(lax.convert_element_type_p, _convert_element_type_transpose)
deflinear2(lax.copy_p, lambda ct, x: [lax.copy_p.bind(ct)])
deflinear2(lax.reduce_precision_p,
           lambda ct, x, **params: [lax.reduce_precision_p.bind(ct, **params)])


def _select_n_transpose(ct, which, *cases):
    """Each undefined case gets the cotangent where it was selected, zero elsewhere."""
    if _undefined(which):
        raise TypeError("select_n is not linear in its predicate")
    zeros = lax.full_like(ct, 0)
    if get_aval(which).dtype == np.bool_:
        return [None, lax.select(which, zeros, ct) if _undefined(cases[0]) else None,
                lax.select(which, ct, zeros) if _undefined(cases[1]) else None]
    index = lambda i: np.array(i, get_aval(which).dtype)
    return [None] + [lax.select(lax.eq(which, index(i)), ct, zeros) if _undefined(c) else None
                     for i, c in enumerate(cases)]


deflinear2(lax.select_n_p, _select_n_transpose)

# --- complex numbers -----------------------------------------------------------------------


def _real_zero(ct):
    return np.zeros((), get_aval(ct).dtype)


deflinear2(lax.real_p, lambda ct, x: [lax.complex(ct, _real_zero(ct))])
deflinear2(lax.imag_p, lambda ct, x: [lax.complex(_real_zero(ct), lax.neg(ct))])
deflinear2(lax.complex_p, lambda ct, x, y: [
    unbroadcast(x.aval, lax.real(ct)) if _undefined(x) else None,
    unbroadcast(y.aval, lax.imag(lax.neg(ct))) if _undefined(y) else None])
deflinear2(lax.conj_p, lambda ct, x, *, input_dtype: [
    lax.conj(ct) if np.issubdtype(input_dtype, np.complexfloating) else lax.real(ct)])

# --- shapes ----------------------------------------------------------------------------------


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions, sharding):
    """Sum over the new axes and over the size-1 axes that were stretched."""
    if not _undefined(operand):
        return [None]
    unit_dims = [i for i, d in enumerate(operand.aval.shape) if d == 1]
    kept = tuple(d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims)
    axes = tuple(d for d in range(len(shape)) if d not in kept)
    return [lax.expand_dims(lax.reduce_sum(ct, axes), unit_dims)]


def _reduce_sum_transpose(ct, operand, *, axes, out_sharding):
    shape = operand.aval.shape
    kept = tuple(d for d in range(len(shape)) if d not in axes)
    return [lax.broadcast_in_dim(ct, shape, kept)]


def _reshape_transpose(ct, operand, *, new_sizes, dimensions, sharding):
    shape = operand.aval.shape
    if dimensions is None:
        return [lax.reshape(ct, shape)]
    out = lax.reshape(ct, tuple(shape[d] for d in dimensions))
    return [lax.transpose(out, tuple(np.argsort(dimensions)))]


def _tile_transpose(ct, operand, *, reps):
    """Each copy of the operand receives its part of the cotangent: split the axes, sum."""
    shape = operand.aval.shape
    split_shape = tuple(k for pair in zip(reps, shape) for k in pair)
    return [lax.reduce_sum(lax.reshape(ct, split_shape), tuple(range(0, 2 * len(shape), 2)))]


deflinear2(lax.broadcast_in_dim_p, _broadcast_in_dim_transpose)
deflinear2(lax.reduce_sum_p, _reduce_sum_transpose)
deflinear2(lax.reshape_p, _reshape_transpose)
deflinear2(lax.squeeze_p, lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)])
deflinear2(lax.transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, tuple(np.argsort(permutation)))])
deflinear2(lax.rev_p, lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)])
deflinear2(lax.tile_p, _tile_transpose)
deflinear2(lax.cumsum_p, lambda ct, x, *, axis, reverse: [
    lax.cumsum(ct, axis, reverse=not reverse)])


def _concatenate_transpose(ct, *operands, dimension):
    sizes = tuple(_aval(x).shape[dimension] for x in operands)
    pieces = lax.split(ct, sizes, axis=dimension)
    return [p if _undefined(x) else None for p, x in zip(pieces, operands)]


def _stack_transpose(ct, *operands, axis):
    pieces = lax.unstack_p.bind(ct, axis=axis)
    return [p if _undefined(x) else None for p, x in zip(pieces, operands)]


def _unstack_transpose(cts, operand, *, axis):
    if all(type(ct) is Zero for ct in cts):
        return [Zero(operand.aval)]
    return [lax.stack_p.bind(*map(instantiate_zeros, cts), axis=axis)]


def _split_transpose(cts, operand, *, sizes, axis):
    if all(type(ct) is Zero for ct in cts):
        return [Zero(operand.aval)]
    return [lax.concatenate(list(map(instantiate_zeros, cts)), axis)]


deflinear2(lax.concatenate_p, _concatenate_transpose)
deflinear2(lax.stack_p, _stack_transpose)
transpose_rules[lax.unstack_p] = _unstack_transpose
transpose_rules[lax.split_p] = _split_transpose

# --- slicing ---------------------------------------------------------------------------------


def _pad_transpose(ct, operand, padding_value, *, padding_config):
    """The operand's cotangent is the un-padded part; the padding value's, the rest's sum."""
    lo, hi, interior = zip(*padding_config)
    total = lambda x: lax.reduce_sum(x, tuple(range(get_aval(x).ndim)))

    def operand_ct():
        unpadded = lax.pad(ct, np.array(0, get_aval(ct).dtype),
                           [(-l, -h, 0) for l, h in zip(lo, hi)])
        shape = get_aval(unpadded).shape
        return lax.slice(unpadded, (0,) * len(shape), shape, tuple(i + 1 for i in interior))

    t_operand = operand_ct() if _undefined(operand) else None
    t_padv = (lax.sub(total(ct), total(t_operand)) if _undefined(padding_value) else None)
    return [t_operand, t_padv]


def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
    """Put the cotangent back where the slice came from: pad it with zeros.

    (The high paddings and interiors are NumPy integers, as in JAX, whose
    jaxprs print them as ``np.int64(0)``.)
    """
    shape = operand.aval.shape
    if strides is None or all(s == 1 for s in strides):
        config = zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape))
    else:
        ct_shape = np.array(get_aval(ct).shape)
        real_limits = np.add(start_indices, np.where(
            ct_shape == 0, 0, np.add(1, np.multiply(np.subtract(ct_shape, 1), strides))))
        config = zip(start_indices, np.subtract(shape, real_limits), np.subtract(strides, 1))
    config = tuple(tuple(triple) for triple in config)
    return [lax.pad_p.bind(ct, np.array(0, get_aval(ct).dtype), padding_config=config)]


def _dynamic_slice_transpose(ct, operand, *start_indices, slice_sizes):
    zeros = _zeros(operand.aval)
    return [lax.dynamic_update_slice_p.bind(zeros, ct, *start_indices)] + \
        [None] * len(start_indices)


def _dynamic_update_slice_transpose(ct, operand, update, *start_indices):
    update_aval = _aval(update)
    operand_ct = update_ct = None
    if _undefined(operand):
        zeros = lax.full(update_aval.shape, 0, get_aval(ct).dtype)
        operand_ct = lax.dynamic_update_slice_p.bind(ct, zeros, *start_indices)
    if _undefined(update):
        update_ct = lax.dynamic_slice_p.bind(ct, *start_indices, slice_sizes=update_aval.shape)
    return [operand_ct, update_ct] + [None] * len(start_indices)


deflinear2(lax.pad_p, _pad_transpose)
deflinear2(lax.slice_p, _slice_transpose)
deflinear2(lax.dynamic_slice_p, _dynamic_slice_transpose)
deflinear2(lax.dynamic_update_slice_p, _dynamic_update_slice_transpose)

# --- gather and scatter: each other's transposes --------------------------------------------


def _scatter_dnums_of(dnums):
    """The scatter that writes back where ``gather`` with ``dnums`` read."""
    return lax.ScatterDimensionNumbers(
        update_window_dims=dnums.offset_dims,
        inserted_window_dims=dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dnums.start_index_map,
        operand_batching_dims=dnums.operand_batching_dims,
        scatter_indices_batching_dims=dnums.start_indices_batching_dims)


def _gather_dnums_of(dnums, operand_ndim: int, updates_shape):
    """The gather (dimension numbers, slice sizes) that reads what a scatter wrote."""
    gather_dnums = lax.GatherDimensionNumbers(
        offset_dims=dnums.update_window_dims,
        collapsed_slice_dims=dnums.inserted_window_dims,
        start_index_map=dnums.scatter_dims_to_operand_dims,
        operand_batching_dims=dnums.operand_batching_dims,
        start_indices_batching_dims=dnums.scatter_indices_batching_dims)
    windows = iter(dnums.update_window_dims)
    sizes = [1 if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims
             else updates_shape[next(windows)] for i in range(operand_ndim)]
    return gather_dnums, tuple(sizes)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      unique_indices, indices_are_sorted, mode, fill_value):
    zeros = lax.full(operand.aval.shape, 0, get_aval(ct).dtype)
    out = lax.scatter_add(zeros, indices, ct, _scatter_dnums_of(dimension_numbers),
                          unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted, mode=mode)
    return [out, None]


def _gather_back(ct, indices, updates, dnums, mode):
    """The cotangent of a scatter's ``updates``: read back where they were written."""
    gather_dnums, sizes = _gather_dnums_of(dnums, get_aval(ct).ndim, _aval(updates).shape)
    return lax.gather(ct, indices, gather_dnums, sizes, mode=mode, fill_value=0)


def _scatter_add_transpose(negate, ct, operand, indices, updates, *, dimension_numbers,
                           mode, **params):
    updates_ct = None
    if _undefined(updates):
        updates_ct = _gather_back(ct, indices, updates, dimension_numbers, mode)
        updates_ct = lax.neg(updates_ct) if negate else updates_ct
    return [ct if _undefined(operand) else None, None, updates_ct]


def _scatter_mul_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           unique_indices, **params):
    """Linear in the operand (the updates are known factors)."""
    if _undefined(updates):
        raise NotImplementedError("scatter_mul is not linear in its updates")
    return [lax.scatter_mul_p.bind(ct, indices, updates, dimension_numbers=dimension_numbers,
                                   mode=mode, unique_indices=unique_indices, **params),
            None, None]


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                       unique_indices, indices_are_sorted, update_jaxpr, update_consts):
    """Overwriting scatter: the operand keeps the cotangent where it was not overwritten."""
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    operand_ct = updates_ct = None
    if _undefined(operand):
        zeros = lax.full(_aval(updates).shape, 0, get_aval(ct).dtype)
        operand_ct = lax.scatter(ct, indices, zeros, dimension_numbers,
                                 indices_are_sorted=indices_are_sorted, unique_indices=True,
                                 mode=mode)
    if _undefined(updates):
        updates_ct = _gather_back(ct, indices, updates, dimension_numbers, mode)
    return [operand_ct, None, updates_ct]


deflinear2(lax.gather_p, _gather_transpose)
deflinear2(lax.scatter_add_p, lambda *a, **k: _scatter_add_transpose(False, *a, **k))
deflinear2(lax.scatter_sub_p, lambda *a, **k: _scatter_add_transpose(True, *a, **k))
deflinear2(lax.scatter_mul_p, _scatter_mul_transpose)
deflinear2(lax.scatter_p, _scatter_transpose)

# --- dot_general -----------------------------------------------------------------------------


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(original, *removed):
    removed = set(d for r in removed for d in r)
    return [d for d in original if d not in removed]


def _dot_general_transpose_lhs(ct, x, y, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding, swap_ans=False):
    """``x``'s cotangent: contract ``ct`` with ``y`` over ``y``'s free dims, then reorder."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim, y_ndim = _aval(x).ndim, _aval(y).ndim
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y)
    out = lax.dot_general(ct, y, dims, precision=precision,
                          preferred_element_type=preferred_element_type)
    x_bar = lax.transpose(out, tuple(int(a) for a in out_axes))
    if get_aval(x_bar).dtype != _aval(x).dtype:
        x_bar = lax._convert_element_type(x_bar, _aval(x).dtype, _aval(x).weak_type)
    return x_bar


def _dot_general_transpose_rhs(ct, x, y, *, dimension_numbers, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_general_transpose_lhs(ct, y, x, dimension_numbers=swapped, swap_ans=True,
                                      **params)


defbilinear(dot_general_p, _dot_general_transpose_lhs, _dot_general_transpose_rhs)

# --- conv_general_dilated --------------------------------------------------------------------
# Ignoring the spatial dimensions, a convolution is a matrix product
# [batch, in] x [in, out] -> [batch, out], so its transposes are products
# again: the input's cotangent is [batch, out] x [out, in] (the kernel's feature
# axes swapped, its spatial axes reversed, the strides turned into input
# dilation), the kernel's is [in, batch] x [batch, out] (the batch becomes the
# contracted axis: the roles of batch and feature swap in the dimension numbers).
# Feature groups of the forward convolution become batch groups of the kernel's
# cotangent and the other way round.
def _conv_spec_swapped(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type, out_sharding):
    """The input's cotangent: ``ct`` convolved with the reversed, feature-swapped kernel."""
    from minijax.lax.convolution import (ConvDimensionNumbers, reshape_axis_into,
                                         reshape_axis_out_of, vjp_lhs_padding)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape, lhs_shape = _aval(rhs).shape, _aval(lhs).shape
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:
        groups = max(feature_group_count, batch_group_count)
        rhs = reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    dnums = ConvDimensionNumbers(out_spec, _conv_spec_swapped(rhs_spec), lhs_spec)
    pads = vjp_lhs_padding([lhs_shape[d] for d in lhs_spec[2:]],
                           [rhs_shape[d] for d in rhs_spec[2:]], window_strides,
                           [_aval(ct).shape[d] for d in out_spec[2:]], padding,
                           lhs_dilation, rhs_dilation)
    kernel = lax.rev(rhs, tuple(rhs_spec[2:]))
    if _aval(ct).dtype != _aval(kernel).dtype:
        kernel = lax._convert_element_type(kernel, _aval(ct).dtype)
    out = lax.conv_general_dilated(ct, kernel, window_strides=lhs_dilation, padding=pads,
                                   lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
                                   dimension_numbers=dnums, feature_group_count=groups,
                                   batch_group_count=1, precision=precision,
                                   preferred_element_type=preferred_element_type)
    if _aval(out).dtype != _aval(lhs).dtype:
        out = lax._convert_element_type(out, _aval(lhs).dtype)
    if batch_group_count > 1:
        out = reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type, out_sharding):
    """The kernel's cotangent: the input convolved with ``ct``, batch and feature swapped."""
    from minijax.lax.convolution import ConvDimensionNumbers, vjp_rhs_padding
    if int(np.prod(_aval(ct).shape)) == 0:
        return Zero(_aval(rhs))
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape = _aval(lhs).shape, _aval(rhs).shape
    fgc, bgc = feature_group_count, batch_group_count
    if bgc > 1:
        fgc, bgc = bgc, 1
    elif fgc > 1:
        fgc, bgc = 1, fgc
    dnums = ConvDimensionNumbers(_conv_spec_swapped(lhs_spec), _conv_spec_swapped(out_spec),
                                 _conv_spec_swapped(rhs_spec))
    pads = vjp_rhs_padding([lhs_shape[d] for d in lhs_spec[2:]],
                           [rhs_shape[d] for d in rhs_spec[2:]], window_strides,
                           [_aval(ct).shape[d] for d in out_spec[2:]], padding,
                           lhs_dilation, rhs_dilation)
    if _aval(ct).dtype != _aval(lhs).dtype:
        lhs = lax._convert_element_type(lhs, _aval(ct).dtype)
    out = lax.conv_general_dilated(lhs, ct, window_strides=rhs_dilation, padding=pads,
                                   lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
                                   dimension_numbers=dnums, feature_group_count=fgc,
                                   batch_group_count=bgc, precision=precision,
                                   preferred_element_type=preferred_element_type)
    if _aval(out).dtype != _aval(rhs).dtype:
        out = lax._convert_element_type(out, _aval(rhs).dtype)
    return out


defbilinear(lax.conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)


# --- windowed reductions ----------------------------------------------------------------------
def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """Each input element receives the cotangents of every window it was in: the
    cotangent, dilated by the strides and padded, summed over windows again
    (the convolution transpose with a kernel of ones)."""
    from minijax.lax.convolution import vjp_lhs_padding
    shape = _aval(operand).shape
    pads = vjp_lhs_padding(shape, window_dimensions, window_strides, _aval(ct).shape, padding,
                           base_dilation, window_dilation)
    config = tuple((np.int64(lo), np.int64(hi), s - 1)  # JAX's int64 pads (as it prints them)
                   for (lo, hi), s in zip(pads, window_strides))
    padded = lax.pad(ct, lax._convert_element_type(0, _aval(ct).dtype), config)
    ones = (1,) * len(shape)
    out = lax.reduce_window_sum_p.bind(padded, window_dimensions=tuple(window_dimensions),
                                       window_strides=tuple(base_dilation),
                                       padding=((0, 0),) * len(shape), base_dilation=ones,
                                       window_dilation=tuple(window_dilation))
    return [out]


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim, window_dimensions,
                                     window_strides, padding, base_dilation, window_dilation):
    """Each window's cotangent goes back onto its winner: ``select_and_scatter_add``."""
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with "
                                  f"window dilation, got window_dilation={window_dilation}.")
    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        fill = lax._convert_element_type(
            np.array(-np.inf if select_prim is lax.ge_p else np.inf), _aval(operand).dtype) \
            if np.issubdtype(_aval(operand).dtype, np.floating) else None
        operand = lax.pad(operand, fill, tuple((0, 0, d - 1) for d in base_dilation))
    out = lax.select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                            window_dimensions=window_dimensions,
                                            window_strides=window_strides, padding=padding)
    if dilated:
        out = lax.slice(out, (0,) * _aval(out).ndim, _aval(out).shape, base_dilation)
    return [out, None]


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim, window_dimensions,
                                      window_strides, padding):
    """Each window reads back the cotangent of its winner: ``select_and_gather_add``."""
    ones = (1,) * len(window_dimensions)
    out = lax.select_and_gather_add_p.bind(ct, operand, select_prim=select_prim,
                                           window_dimensions=window_dimensions,
                                           window_strides=window_strides, padding=padding,
                                           base_dilation=ones, window_dilation=ones)
    return [out, None]


deflinear2(lax.reduce_window_sum_p, _reduce_window_sum_transpose)
deflinear2(lax.optimization_barrier_p, lambda cts, *xs: list(cts))
deflinear2(lax.select_and_gather_add_p, _select_and_gather_add_transpose)
deflinear2(lax.select_and_scatter_add_p, _select_and_scatter_add_transpose)

# --- jit: transpose the inner jaxpr, call the result as a new jit ------------------------------
_transposed_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def transpose_jaxpr(closed: ClosedJaxpr, undefined: tuple, ct_nonzero: tuple):
    """The transpose of a linear jaxpr, as a jaxpr (cached).

    ``undefined[i]`` says whether input ``i`` is linear; ``ct_nonzero[j]``
    whether output ``j`` receives a cotangent. The new jaxpr takes the known
    inputs, then the nonzero cotangents, and returns the cotangents of the
    linear inputs that are not zero (``out_nonzero`` says which).
    """
    per_jaxpr = _transposed_jaxprs.setdefault(closed, {})
    key = (undefined, ct_nonzero)
    if key not in per_jaxpr:
        avals = closed.in_avals
        n_known = undefined.count(False)
        out_nonzero: list = []

        def transposed(*args):
            known, cts = iter(args[:n_known]), iter(args[n_known:])
            primals = [UndefinedPrimal(a) if u else next(known) for a, u in zip(avals, undefined)]
            cts_out = [next(cts) if nz else Zero(tangent_aval(a))
                       for a, nz in zip(closed.out_avals, ct_nonzero)]
            cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts_out)
            cts_in = [ct for ct, u in zip(cts_in, undefined) if u]
            out_nonzero[:] = [type(ct) is not Zero for ct in cts_in]
            return [ct for ct in cts_in if type(ct) is not Zero]

        in_avals = [a for a, u in zip(avals, undefined) if not u] + [
            tangent_aval(a) for a, nz in zip(closed.out_avals, ct_nonzero) if nz]
        jaxpr, _, consts = trace_to_jaxpr_dynamic(transposed, in_avals)
        per_jaxpr[key] = ClosedJaxpr(jaxpr, consts), out_nonzero
    return per_jaxpr[key]


def _jit_transpose(cts, *args, jaxpr, **params):
    undefined = tuple(map(_undefined, args))
    ct_nonzero = tuple(type(ct) is not Zero for ct in cts)
    transposed, out_nonzero = transpose_jaxpr(jaxpr, undefined, ct_nonzero)
    outs = bind_jit(*[x for x in args if not _undefined(x)],
                    *[ct for ct in cts if type(ct) is not Zero],
                    **jit_params_like(params, transposed))
    outs, nonzero = iter(outs), iter(out_nonzero)
    return [(next(outs) if next(nonzero) else Zero(x.aval)) if _undefined(x) else None
            for x in args]


transpose_rules[jit_p] = _jit_transpose


# --- linear algebra -------------------------------------------------------------------------
def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    """``b -> op(a)^-1 b`` is linear in ``b``; its transpose solves with ``op(a)^T``."""
    if _undefined(a):
        raise RuntimeError("triangular_solve is nonlinear in a and can't be transposed")
    ct_b = lax.linalg.triangular_solve(a, ct, left_side=left_side, lower=lower,
                                       transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                       unit_diagonal=unit_diagonal)
    return [None, ct_b]


deflinear2(lax.linalg.triangular_solve_p, _triangular_solve_transpose)


# --- fft ---------------------------------------------------------------------------------------
# The DFT matrix ``F[j, k] = exp(-2 pi i jk / n)`` is symmetric, and so is the inverse's
# (``conj(F) / n``): an ``FFT`` or ``IFFT`` is its own transpose (not its inverse: a transpose
# does not conjugate). ``RFFT`` keeps only the first ``n//2 + 1`` rows of ``F``; its transpose
# and ``IRFFT``'s are written with each other, and a *mask* that weighs the coefficients
# whose mirror image ``RFFT`` dropped (all but the first and, for even ``n``, the last) twice.
# The formulas and the operations are JAX's (``jax/_src/lax/fft.py``), so grad's jaxprs match.
from minijax.numpy.util import jnp_jit  # noqa: E402


def _hermitian_mask(like, m: int, n: int, dtype=None):
    """``[1, 2, ..., 2, 1]`` (``[1, 2, ..., 2]`` for odd ``n``): ``m`` weights, ``like``'s kind."""
    mask = lax.full_like(like, 2.0, shape=(m,), dtype=dtype)
    one = lax.full_like(like, 1.0, shape=(1,), dtype=dtype)
    mask = lax.dynamic_update_slice(mask, one, (0,))
    if n % 2 == 0:
        mask = lax.dynamic_update_slice(mask, lax.full_like(like, 1.0, shape=(1,), dtype=dtype),
                                        (m - 1,))
    return mask


def _rfft_transpose(t, fft_lengths):
    """``RFFT^T t = N * IRFFT(conj(t) / mask)``: IRFFT counts each kept coefficient with
    its dropped mirror image (twice) and divides by ``N``; the mask and ``N`` undo that."""
    nd = get_aval(t).ndim
    mask = _hermitian_mask(t, get_aval(t).shape[-1], fft_lengths[-1])
    mask = lax.expand_dims(mask, range(nd - 1))
    return int(np.prod(fft_lengths)) * lax.fft(lax.conj(t) / mask, lax.FftType.IRFFT,
                                               fft_lengths)


def _irfft_transpose(t, fft_lengths):
    """``IRFFT^T t = conj(mask * RFFT(t) / N)`` (JAX's convention for complex cotangents)."""
    x = lax.fft(t, lax.FftType.RFFT, fft_lengths)
    x_aval = get_aval(x)
    mask = _hermitian_mask(t, x_aval.shape[-1], fft_lengths[-1], dtype=x_aval.dtype)
    scale = 1 / int(np.prod(fft_lengths))
    return lax.conj(scale * lax.expand_dims(mask, range(x_aval.ndim - 1)) * x)


# JAX jits the RFFT transpose: grad's jaxprs show ``jit[name=_rfft_transpose ...]``.
_rfft_transpose_jitted = jnp_jit("_rfft_transpose", static_argnames=("fft_lengths",))(
    _rfft_transpose)


def _fft_transpose(ct, operand, *, fft_type, fft_lengths):
    if fft_type == lax.FftType.RFFT:
        return [_rfft_transpose_jitted(ct, fft_lengths)]
    if fft_type == lax.FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [lax.fft(ct, fft_type, fft_lengths)]


deflinear2(lax.fft_p, _fft_transpose)
