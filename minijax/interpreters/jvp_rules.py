"""Chapter 02 — the JVP rule of every primitive, in one place.

A JVP rule says how a primitive moves a tangent: for ``y = sin(x)`` it is
``dy = cos(x) * dx``. Most rules are one line thanks to the helpers of
:mod:`minijax.interpreters.ad`:

- ``defjvp(prim, d0, d1, ...)``: one *partial derivative* per argument,
  ``d_i(t_i, *primals) -> contribution``; the contributions are added
  (``defjvp2``'s also receive the output, for ``exp``'s ``t * ans``);
- ``deflinear(prim)``: the primitive is linear, so its JVP is the primitive
  applied to the tangents (``reshape``, ``reduce_sum``, ``dynamic_slice``...).
  Nobody lists them here: every primitive *created* linear (chapter 00's
  ``Primitive(..., linear_in=(0,))``) gets this rule at the end of this file,
  unless a rule above says otherwise (``add`` sums its tangents with
  ``add_any``, ``gather`` reads 0 out of bounds, ``div`` is linear only in
  its numerator...);
- ``defbilinear(prim)``: ``d(x y) = dx y + x dy`` (``mul``, ``dot_general``);
- ``defjvp_zero(prim)``: piecewise constant or integer-valued (``floor``,
  ``eq``, ``argmax``): the tangent is a symbolic zero.

The rest (``select_n``, ``sort``, the scatters, the cumulative reductions)
have a function each. Every rule runs under the *parent* trace, with lax
operations on the primals and tangents; conventions at the points where a
function is not differentiable are JAX's (``|x|`` has slope 1 at 0, ties of
``max`` split the tangent in halves, ``x ** y`` has zero slope in ``y`` at
``x = 0``).

Primitives deliberately without a rule (they raise JAX's NotImplementedError):
``nextafter`` (JAX defines none). ``digamma``'s rule needs ``polygamma``,
which minijax does not have yet: it raises a NotImplementedError that says so.
"""
from __future__ import annotations

import functools

import numpy as np

from minijax import lax
from minijax.abstract_arrays import get_aval
from minijax.lax.base import const as _const  # JAX's lax._const
from minijax.lax.dot import dot_general_p  # (lax/__init__ shadows the module ``dot``)
from minijax.interpreters.ad import (Zero, defbilinear, defjvp, defjvp2, defjvp_zero,
                                     deflinear, float0, instantiate_zeros, jvp, jvp_rules,
                                     maybe_broadcast, primal_dtype_to_tangent_dtype)
from minijax.primitives import all_primitives

# --- small helpers ---------------------------------------------------------------------------
_SQRT_PI = float(np.sqrt(np.pi))


def _dtype(x) -> np.dtype:
    return get_aval(x).dtype


def _shape(x) -> tuple:
    return get_aval(x).shape


def _zeros(x):
    return lax.full_like(x, 0)


def _ones(x):
    return lax.full_like(x, 1)


def _one(x):
    """A scalar 1 of ``x``'s dtype and weak type."""
    return lax.full_like(x, 1, shape=())


def _replace_zero(x):
    """``x`` with its zeros replaced by ones (to avoid ``0/0`` in a derivative)."""
    return lax.select(lax.eq(x, _const(x, 0)), _ones(x), x)


def _is_complex(x) -> bool:
    return np.issubdtype(_dtype(x), np.complexfloating)



# --- elementwise: piecewise constant, integer-valued, comparisons -----------------
for _prim in (lax.sign_p, lax.floor_p, lax.ceil_p, lax.round_p, lax.is_finite_p,
              lax.not_p, lax.and_p, lax.or_p, lax.xor_p, lax.population_count_p,
              lax.clz_p, lax.shift_left_p, lax.shift_right_logical_p,
              lax.shift_right_arithmetic_p, lax.eq_p, lax.ne_p, lax.lt_p, lax.le_p,
              lax.gt_p, lax.ge_p, lax.bitcast_convert_type_p, lax.iota_p, lax.empty2_p,
              lax.argmax_p, lax.argmin_p, lax.reduce_and_p, lax.reduce_or_p,
              lax.reduce_xor_p, lax.stop_gradient_p):
    defjvp_zero(_prim)

# --- arithmetic ------------------------------------------------------------------------------
defjvp(lax.add_p, lambda t, x, y: t, lambda t, x, y: t)
defjvp(lax.sub_p, lambda t, x, y: t, lambda t, x, y: lax.neg(t))
defbilinear(lax.mul_p)
defjvp(lax.div_p,
       lambda t, x, y: lax.div(t, y),
       lambda t, x, y: lax.mul(lax.mul(lax.neg(t), x), lax.integer_pow(y, -2)))
defjvp(lax.rem_p,
       lambda t, x, y: t,  # rem(x, y) = x - y * trunc(x / y)
       lambda t, x, y: lax.mul(lax.neg(t), lax.mul(lax.sign(lax.div(x, y)),
                                                   lax.floor(lax.abs(lax.div(x, y))))))
defjvp2(lax.square_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, 2), x)))


def _eq_meet(a, b):
    """``a == b`` after converting the lower of two dtypes to the higher."""
    return lax.eq(a, lax._convert_element_type(b, _dtype(a))) if _dtype(a) != _dtype(b) \
        else lax.eq(a, b)


def _balanced_eq(x, ans, y):
    """How much of the tangent of ``x`` reaches ``max(x, y)``: 1, 0, or 1/2 at a tie."""
    x_won = lax.select(_eq_meet(x, ans), _ones(ans), _zeros(ans))
    share = lax.select(_eq_meet(y, ans), lax.full_like(ans, 2), _ones(ans))
    return lax.div(x_won, share)


for _prim in (lax.max_p, lax.min_p):
    defjvp2(_prim,
            lambda t, ans, x, y: lax.mul(t, _balanced_eq(x, ans, y)),
            lambda t, ans, x, y: lax.mul(t, _balanced_eq(y, ans, x)))


def _abs_jvp(t, ans, x):
    """Slope ``sign(x)`` with ``+1`` at 0 (JAX's choice); ``Re(conj(x) t / |x|)`` for complex."""
    if _is_complex(x):
        denom = _replace_zero(lax._convert_element_type(ans, _dtype(x)))
        return lax.real(lax.mul(t, lax.div(lax.conj(x), denom)))
    return lax.select(lax.ge(x, lax.full_like(x, 0, shape=())), t, lax.neg(t))


defjvp2(lax.abs_p, _abs_jvp)


def _integer_pow_jvp(t, x, *, y):
    if y == 0:
        return _zeros(t)
    if y == 1:
        return t
    power = x if y == 2 else lax.integer_pow(x, y - 1)
    return lax.mul(t, lax.mul(_const(x, y), power))


defjvp(lax.integer_pow_p, _integer_pow_jvp)


def _pow_jvp_lhs(t, ans, x, y):
    """``y x^(y-1)``, exactly 0 where an integer exponent is 0 (so ``0 ** 0`` has slope 0)."""
    y_is_int = np.issubdtype(_dtype(y), np.integer)
    x, y = (lax.convert_element_type(v, _dtype(x)) for v in (x, y))
    if y_is_int:
        shape = lax.broadcast_shapes(_shape(x), _shape(y))
        x, y = maybe_broadcast(x, shape), maybe_broadcast(y, shape)
        jac = lax.select(lax.eq(y, _const(y, 0)), _zeros(y),
                         lax.mul(_replace_zero(y), lax.pow(x, lax.sub(y, _ones(y)))))
    else:
        jac = lax.mul(y, lax.pow(x, lax.sub(y, _ones(y))))
    return lax.mul(t, jac)


def _pow_jvp_rhs(t, ans, x, y):
    """``log(x) x^y``, with ``log`` of 0 taken as 0 (so ``0 ** y`` has slope 0 in ``y``)."""
    return lax.convert_element_type(lax.mul(t, lax.mul(lax.log(_replace_zero(x)), ans)),
                                    _dtype(y))


defjvp2(lax.pow_p, _pow_jvp_lhs, _pow_jvp_rhs)

# --- exponentials, logarithms, roots -----------------------------------------------------
defjvp2(lax.exp_p, lambda t, ans, x, **p: lax.mul(t, ans))
defjvp2(lax.exp2_p, lambda t, ans, x, **p: lax.mul(lax.log(_const(x, 2)), lax.mul(t, ans)))
defjvp(lax.log_p, lambda t, x, **p: lax.div(t, x))
defjvp(lax.log1p_p, lambda t, x, **p: lax.div(t, lax.add(x, _one(x))))
defjvp2(lax.expm1_p, lambda t, ans, x, **p: lax.mul(t, lax.add(ans, _one(ans))))
defjvp2(lax.logistic_p,
        lambda t, ans, x, **p: lax.mul(t, lax.mul(ans, lax.sub(_one(ans), ans))))
defjvp2(lax.sqrt_p, lambda t, ans, x, **p: lax.mul(t, lax.div(_const(x, 0.5), ans)))
defjvp2(lax.rsqrt_p,
        lambda t, ans, x, **p: lax.mul(t, lax.mul(_const(x, -0.5), lax.div(ans, x))))
defjvp2(lax.cbrt_p, lambda t, ans, x, **p: lax.mul(
    t, lax.mul(_const(x, 1 / 3), lax.integer_pow(ans, -2))))

# --- trigonometric and hyperbolic ------------------------------------------------------------


def _one_minus_square(x):
    return lax.sub(_const(x, 1), lax.square(x))


defjvp(lax.sin_p, lambda t, x, **p: lax.mul(t, lax.cos(x, **p)))
defjvp(lax.cos_p, lambda t, x, **p: lax.neg(lax.mul(t, lax.sin(x, **p))))
defjvp2(lax.tan_p, lambda t, ans, x, **p: lax.mul(t, lax.add(_const(x, 1), lax.square(ans))))
defjvp(lax.asin_p, lambda t, x: lax.mul(t, lax.rsqrt(_one_minus_square(x))))
defjvp(lax.acos_p, lambda t, x: lax.mul(t, lax.neg(lax.rsqrt(_one_minus_square(x)))))
defjvp(lax.atan_p, lambda t, x: lax.div(t, lax.add(_const(x, 1), lax.square(x))))
defjvp(lax.atan2_p,
       lambda t, x, y: lax.mul(t, lax.div(y, lax.add(lax.square(x), lax.square(y)))),
       lambda t, x, y: lax.mul(t, lax.div(lax.neg(x), lax.add(lax.square(x), lax.square(y)))))
defjvp(lax.sinh_p, lambda t, x: lax.mul(t, lax.cosh(x)))
defjvp(lax.cosh_p, lambda t, x: lax.mul(t, lax.sinh(x)))
defjvp2(lax.tanh_p, lambda t, ans, x, **p: lax.mul(lax.add(t, lax.mul(t, ans)),
                                                   lax.sub(_one(x), ans)))
defjvp(lax.asinh_p, lambda t, x: lax.mul(t, lax.rsqrt(lax.add(lax.square(x), _one(x)))))
defjvp(lax.acosh_p, lambda t, x: lax.mul(t, lax.rsqrt(lax.sub(lax.square(x), _one(x)))))
defjvp(lax.atanh_p, lambda t, x: lax.mul(lax.reciprocal(lax.add(_one(x), x)),
                                         lax.div(t, lax.sub(_one(x), x))))

# --- special functions -----------------------------------------------------------------------


def _gaussian(x):
    return lax.exp(lax.neg(lax.square(x)))


defjvp(lax.erf_p, lambda t, x: lax.mul(_const(x, 2 / _SQRT_PI), lax.mul(t, _gaussian(x))))
defjvp(lax.erfc_p, lambda t, x: lax.mul(_const(x, -2 / _SQRT_PI), lax.mul(t, _gaussian(x))))
defjvp2(lax.erf_inv_p, lambda t, ans, x: lax.mul(_const(x, _SQRT_PI / 2),
                                                 lax.mul(t, lax.exp(lax.square(ans)))))
defjvp(lax.lgamma_p, lambda t, x: lax.mul(t, lax.digamma(x)))


def _digamma_jvp(t, x):
    raise NotImplementedError(
        "The derivative of digamma is polygamma(1, x), and minijax has no polygamma "
        "primitive yet, so digamma (and the second derivative of lgamma) cannot be "
        "differentiated.")


defjvp(lax.digamma_p, _digamma_jvp)

# --- selection and conversion ----------------------------------------------------------------


def _select_n_jvp(primals, tangents):
    """Select among the tangents with the same ``which`` (Zero cases become real zeros)."""
    which, *cases = primals
    case_tangents = tangents[1:]
    out = lax.select_n_p.bind(which, *cases)
    if all(type(t) is Zero for t in case_tangents):
        return out, Zero.from_primal_value(out)
    return out, lax.select_n_p.bind(which, *map(instantiate_zeros, case_tangents))


jvp_rules[lax.select_n_p] = _select_n_jvp


def _clamp_rule(keep):
    """The tangent of one argument of ``clamp``, kept where ``keep(lo, x, hi)`` holds."""
    def rule(t, lo, x, hi):
        return lax.select(keep(lo, x, hi), maybe_broadcast(t, _shape(x)), _zeros(x))
    return rule


defjvp(lax.clamp_p,
       _clamp_rule(lambda lo, x, hi: lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi))),
       _clamp_rule(lambda lo, x, hi: lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi))),
       _clamp_rule(lambda lo, x, hi: lax.lt(hi, x)))


def _convert_element_type_jvp(t, ans, x, *, new_dtype, weak_type, sharding):
    """Convert the tangent too; a conversion to an integer type has a Zero (float0) tangent."""
    tangent_dtype = primal_dtype_to_tangent_dtype(new_dtype)
    if tangent_dtype == float0:
        return Zero.from_primal_value(ans)
    return lax.convert_element_type_p.bind(t, new_dtype=tangent_dtype, weak_type=weak_type,
                                           sharding=sharding)


defjvp2(lax.convert_element_type_p, _convert_element_type_jvp)

# --- dot_general (the linear reshape, slice, reduce_sum...: at the end of the file) ----------
defbilinear(dot_general_p)
defbilinear(lax.conv_general_dilated_p)


# --- max and min pooling: the tangent of each window's winner --------------------------------
def _pooling_jvp(select_prim):
    def rule(t, x, **params):
        return lax.select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)
    return rule


defjvp(lax.reduce_window_max_p, _pooling_jvp(lax.ge_p))
defjvp(lax.reduce_window_min_p, _pooling_jvp(lax.le_p))


def _gather_jvp(t, operand, indices, *, fill_value, **params):
    """Gather the tangent from the same places; out-of-bounds windows read 0, not NaN."""
    return lax.gather(t, indices, **params, fill_value=0)


defjvp(lax.gather_p, _gather_jvp, None)

# --- reductions ------------------------------------------------------------------------------


def _reduce_chooser_jvp(t, ans, operand, *, axes):
    """``reduce_max``/``min``: the tangents at the extremal positions, averaged over ties."""
    kept_shape = [1 if i in axes else d for i, d in enumerate(_shape(operand))]
    at_extremum = lax.convert_element_type(
        _eq_meet(operand, lax.reshape(ans, kept_shape)), _dtype(t))
    counts = lax.reduce_sum(at_extremum, axes)
    return lax.div(lax.reduce_sum(lax.mul(t, at_extremum), axes), counts)


defjvp2(lax.reduce_max_p, _reduce_chooser_jvp)
defjvp2(lax.reduce_min_p, _reduce_chooser_jvp)


def _product_tree(x):
    """The product over axis 0 by halving: pairs are multiplied until one row is left.

    The JVP of this function (by ``mul``'s rule, in a balanced tree) is the
    JVP of the product, correct even where factors are zero.
    """
    while x.shape[0] > 1:
        n1 = (x.shape[0] + 1) // 2
        first, second = lax.slice_in_dim(x, 0, n1), lax.slice_in_dim(x, n1, None)
        if second.shape[0] != n1:  # an odd count: pad with the identity, 1
            config = [(0, 1, 0)] + [(0, 0, 0)] * (x.ndim - 1)
            second = lax.pad(second, _const(x, 1), config)
        x = lax.mul(first, second)
    if x.shape[0] == 0:
        return lax.full(x.shape[1:], _const(x, 1))
    return lax.squeeze(x, (0,))


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    shape = _shape(x)
    rest = tuple(d for d in range(len(shape)) if d not in axes)
    n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    new_shape = (n,) + tuple(shape[d] for d in rest)
    moved = [lax.reshape(v, new_shape, tuple(axes) + rest) for v in (x, t)]
    return jvp(_product_tree, (moved[0],), (moved[1],))


jvp_rules[lax.reduce_prod_p] = _reduce_prod_jvp

# --- cumulative reductions: the JVP of a parallel prefix scan ------------------------------------


def _interleave(a, b, axis):
    """``[a0, b0, a1, b1, ...]`` along ``axis`` (``a`` has as many or one more element)."""
    extra = 1 if a.shape[axis] == b.shape[axis] else 0
    a_pad, b_pad = [(0, 0, 0)] * a.ndim, [(0, 0, 0)] * b.ndim
    a_pad[axis], b_pad[axis] = (0, extra, 1), (1, 1 - extra, 1)
    combine = lax.bitwise_or if _dtype(a) == np.bool_ else lax.add
    return combine(lax.pad(a, _const(a, 0), a_pad), lax.pad(b, _const(b, 0), b_pad))


def associative_scan(fn, elems: list, axis: int, reverse: bool = False) -> list:
    """Prefix scan of the arrays ``elems`` with the associative ``fn(a_list, b_list)``.

    The parallel algorithm JAX uses: combine neighbouring pairs, scan the
    half-size result recursively (the odd positions), then fill in the even
    positions. Built from ``slice``, ``pad``, ``concatenate`` and ``fn``, it can
    be differentiated by differentiating those.
    """
    if reverse:
        elems = [lax.rev(e, (axis,)) for e in elems]

    def every_other(e, start, stop=None):
        return lax.slice_in_dim(e, start, stop, stride=2, axis=axis)

    def scan(elems):
        n = elems[0].shape[axis]
        if n < 2:
            return elems
        odd = scan(fn([every_other(e, 0, -1) for e in elems],
                      [every_other(e, 1) for e in elems]))
        if n % 2 == 0:
            even = fn([lax.slice_in_dim(o, 0, -1, axis=axis) for o in odd],
                      [every_other(e, 2) for e in elems])
        else:
            even = fn(odd, [every_other(e, 2) for e in elems])
        even = [lax.concatenate([lax.slice_in_dim(e, 0, 1, axis=axis), r], axis)
                for e, r in zip(elems, even)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd)]

    out = scan(list(elems))
    return [lax.rev(o, (axis,)) for o in out] if reverse else out


def _scan_of(binary):
    """A cumulative ``binary`` on one array: the function whose JVP we take."""
    def cumulative(x, *, axis, reverse):
        return associative_scan(lambda a, b: [binary(a[0], b[0])], [x], axis, reverse)[0]
    return cumulative


def _cumulative_jvp(binary):
    scan = _scan_of(binary)

    def rule(primals, tangents, *, axis, reverse):
        return jvp(functools.partial(scan, axis=axis, reverse=reverse), primals, tangents)
    return rule


jvp_rules[lax.cumprod_p] = _cumulative_jvp(lax.mul)
jvp_rules[lax.cummax_p] = _cumulative_jvp(lax.max)
jvp_rules[lax.cummin_p] = _cumulative_jvp(lax.min)


def _drop_inf(x):
    return lax.select(lax.eq(x, _const(x, np.inf)), _zeros(x), x)


def _logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow (NaN and same-sign infinities kept)."""
    delta = lax.sub(x1, x2)
    amax = lax.max(x1, x2)
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2),
                      lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


def _logaddexp_dual(a, b):
    """``logaddexp`` on (value, tangent) pairs, with JAX's derivative of ``logaddexp``.

    JAX defines that derivative by hand (a ``custom_jvp``:
    ``t1 exp(x1 - out) + t2 exp(x2 - out)``, infinities replaced by 0); the
    pair is itself an associative operation, so the scan computes both at once.
    """
    (x1, t1), (x2, t2) = a, b
    out = _logaddexp(x1, x2)
    weight = lambda x: lax.exp(lax.sub(_drop_inf(x), _drop_inf(out)))
    return [out, lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))]


def _cumlogsumexp_jvp(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    return associative_scan(_logaddexp_dual, [x, t], axis, reverse)


jvp_rules[lax.cumlogsumexp_p] = _cumlogsumexp_jvp

# --- sorting ---------------------------------------------------------------------------------


def _gather_along(t, idx, axis):
    """``t`` reordered along ``axis`` by the integer array ``idx`` (one gather, as in JAX)."""
    rank = t.ndim
    batch = tuple(d for d in range(rank) if d != axis)
    dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                       start_index_map=(axis,), operand_batching_dims=batch,
                                       start_indices_batching_dims=batch)
    return lax.gather(t, lax.expand_dims(idx, (rank,)), dnums, (1,) * rank,
                      mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """Sort an ``iota`` along with the operands: it records the permutation for the tangents."""
    iota = lax.broadcasted_iota(np.int32, _shape(primals[0]), dimension)
    *outs, perm = lax.sort_p.bind(*primals, iota, dimension=dimension,
                                  is_stable=is_stable, num_keys=num_keys)
    tangents_out = [t if type(t) is Zero else _gather_along(t, perm, dimension)
                    for t in tangents]
    return outs, tangents_out


jvp_rules[lax.sort_p] = _sort_jvp


def _top_k_jvp(primals, tangents, *, k, axis):
    (operand,), (t,) = primals, tangents
    values, indices = lax.top_k_p.bind(operand, k=k, axis=axis)
    return [values, indices], [_gather_along(t, indices, axis),
                               Zero.from_primal_value(indices)]


jvp_rules[lax.top_k_p] = _top_k_jvp

# --- scatters --------------------------------------------------------------------------------


def _inverse_gather(dnums, operand_shape, updates_shape):
    """The gather (dimension numbers, slice sizes) reading back what a scatter wrote."""
    gather_dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(dnums.update_window_dims),
        collapsed_slice_dims=tuple(dnums.inserted_window_dims),
        start_index_map=tuple(dnums.scatter_dims_to_operand_dims),
        operand_batching_dims=tuple(dnums.operand_batching_dims),
        start_indices_batching_dims=tuple(dnums.scatter_indices_batching_dims))
    windows = iter(dnums.update_window_dims)
    slice_sizes = [1 if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims
                   else updates_shape[next(windows)] for i in range(len(operand_shape))]
    return gather_dnums, tuple(slice_sizes)


def _scatter_params(params):
    """The keyword arguments of ``lax.scatter_add`` & co. from a scatter's params."""
    return dict(dimension_numbers=params["dimension_numbers"],
                indices_are_sorted=params["indices_are_sorted"],
                unique_indices=params["unique_indices"], mode=params["mode"])


def _scatter_mul_jvp_updates(t, x, i, y, **params):
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`")
    return lax.mul(x, lax.scatter_add(_zeros(x), i, t, **_scatter_params(params)))


defjvp(lax.scatter_mul_p,
       lambda t, x, i, y, **params: lax.scatter_mul_p.bind(t, i, y, **params),
       None, _scatter_mul_jvp_updates)


def _scatter_extremal_jvp(prim, primals, tangents, **params):
    """scatter-min/max: like ``max``, the winners share the tangent equally.

    An operand value that survives the scatter (no update beat it) counts as
    one more contender at its position.
    """
    operand, indices, updates = primals
    out = prim.bind(operand, indices, updates, **params)
    t_operand, t_updates = map(instantiate_zeros, (tangents[0], tangents[2]))
    kw = _scatter_params(params)
    dnums, sizes = _inverse_gather(kw["dimension_numbers"], _shape(operand), _shape(updates))
    gather = lambda x: lax.gather(x, indices, dnums, sizes)
    count_at = lambda x: gather(lax.scatter_add(_zeros(operand), indices, x,
                                                kw["dimension_numbers"]))
    won = lax.eq(updates, gather(out))
    kept = lax.eq(gather(operand), gather(out))
    n_won = count_at(lax.select(won, _ones(updates), _zeros(updates)))
    n_refs = count_at(_ones(updates))
    one = _const(n_won, 1)
    share = lax.select(kept, lax.div(one, lax.add(n_won, one)), lax.div(one, n_won))
    update_coef = lax.select(won, share, _zeros(updates))
    operand_coef = lax.div(lax.add(_const(n_won, -1),
                                   lax.select(kept, share, _zeros(n_won))), n_refs)
    t_scattered = lax.add(lax.mul(gather(t_operand), operand_coef),
                          lax.mul(t_updates, update_coef))
    return out, lax.scatter_add(t_operand, indices, t_scattered, **kw)


jvp_rules[lax.scatter_min_p] = functools.partial(_scatter_extremal_jvp, lax.scatter_min_p)
jvp_rules[lax.scatter_max_p] = functools.partial(_scatter_extremal_jvp, lax.scatter_max_p)


def _scatter_jvp(primals, tangents, **params):
    """``scatter`` (overwrite): only the update that wins a position passes its tangent.

    With repeated indices the winner is unspecified, so, as JAX does, each
    update gets an id, the ids are scattered, and the ids read back tell which
    update (or the operand) won each position. The primal and tangent outputs
    are then scatter-*adds* of the masked values.
    """
    if params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    t_operand, t_updates = map(instantiate_zeros, (tangents[0], tangents[2]))
    kw = _scatter_params(params)
    if params["unique_indices"]:
        return (lax.scatter_p.bind(operand, indices, updates, **params),
                lax.scatter_p.bind(t_operand, indices, t_updates, **params))
    dnums = kw["dimension_numbers"]
    ids_shape = [1 if d in dnums.update_window_dims else s
                 for d, s in enumerate(_shape(updates))]
    ids = lax.add(lax.reshape(lax.iota(np.uint32, int(np.prod(ids_shape))), ids_shape),
                  np.uint32(1))
    ids = lax.broadcast_in_dim(ids, _shape(updates), tuple(range(len(ids_shape))))
    scattered_ids = lax.scatter(lax.full(_shape(operand), 0, np.uint32), indices, ids, **kw)
    gather_dnums, sizes = _inverse_gather(dnums, _shape(operand), _shape(updates))
    won = lax.eq(ids, lax.gather(scattered_ids, indices, gather_dnums, sizes))
    untouched = lax.eq(scattered_ids, np.uint32(0))
    mask = lambda keep, x: lax.select(keep, x, _zeros(x))
    return (lax.scatter_add(mask(untouched, operand), indices, mask(won, updates), **kw),
            lax.scatter_add(mask(untouched, t_operand), indices, mask(won, t_updates), **kw))


jvp_rules[lax.scatter_p] = _scatter_jvp

# --- linear algebra --------------------------------------------------------------------------
# The formulas are JAX's (and the papers it cites): each differentiates the defining
# equation (``a = L L^H``, ``a = L U``, ``a = Q R``, ``a V = V diag(w)``...) and solves
# for the tangents of the factors with the factors themselves.
from minijax import numpy as jnp  # noqa: E402
from minijax.lax import linalg as lax_linalg  # noqa: E402


def _H(x):
    return jnp.conj(jnp.matrix_transpose(x))


def _cholesky_jvp(primals, tangents):
    """``dL = L phi(L^-1 da L^-H)``, ``phi`` keeping the lower triangle with a halved diagonal."""
    (a,), (da,) = primals, tangents
    L = jnp.tril(lax_linalg.cholesky_p.bind(a))
    da = instantiate_zeros(da)
    tmp = lax_linalg.triangular_solve(L, da, left_side=False, transpose_a=True,
                                      conjugate_a=True, lower=True)
    inner = lax_linalg.triangular_solve(L, tmp, left_side=True, lower=True)
    n = _shape(a)[-1]
    phi = jnp.tril(inner) / (1 + jnp.eye(n, dtype=_dtype(a)))
    return L, jnp.matmul(L, phi)


jvp_rules[lax_linalg.cholesky_p] = _cholesky_jvp


def _triangular_solve_jvp_a(da, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    """``d(op(a)^-1 b) = -op(a)^-1 op(da) x`` (or ``-x op(da) op(a)^-1`` on the right)."""
    k = 1 if unit_diagonal else 0  # a unit diagonal is not read, so it does not move
    da = jnp.tril(da, -k) if lower else jnp.triu(da, k)
    da = jnp.matrix_transpose(da) if transpose_a else da
    da = jnp.conj(da) if conjugate_a else da
    rhs = jnp.matmul(-da, ans) if left_side else jnp.matmul(ans, -da)
    return lax_linalg.triangular_solve_p.bind(
        a, rhs, left_side=left_side, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


def _triangular_solve_jvp_b(db, ans, a, b, **params):
    return lax_linalg.triangular_solve_p.bind(a, db, **params)  # linear in b


defjvp2(lax_linalg.triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)


def _lu_jvp(primals, tangents):
    """With ``P a = L U``: ``L^-1 P da U^-1 = L^-1 dL + dU U^-1`` (strictly lower + upper)."""
    (a,), (da,) = primals, tangents
    lu, pivots, permutation = lax_linalg.lu_p.bind(a)
    m, n = _shape(a)[-2:]
    k = min(m, n)
    dtype = _dtype(a)
    x = jnp.take_along_axis(instantiate_zeros(da), permutation[..., None], axis=-2)
    # Square L (m x m) and U (n x n): pad with the identity where lu has no entries.
    l = jnp.tril(lu[..., :, :k], -1)
    l = jnp.concatenate([l, jnp.zeros(_shape(l)[:-1] + (m - k,), dtype)], axis=-1)
    l = l + jnp.eye(m, dtype=dtype)
    u = jnp.triu(lu[..., :k, :])
    u = jnp.concatenate([u, jnp.zeros(_shape(u)[:-2] + (n - k, n), dtype)], axis=-2)
    u = u + jnp.eye(n, k=0, dtype=dtype) * (jnp.arange(n) >= k).astype(dtype)
    la = lax_linalg.triangular_solve(l, x, left_side=True, lower=True, unit_diagonal=True)
    lau = lax_linalg.triangular_solve(u, la, left_side=False, lower=False)
    dlu = jnp.matmul(l, jnp.tril(lau, -1)) + jnp.matmul(jnp.triu(lau), u)
    return [lu, pivots, permutation], [dlu[..., :m, :n], Zero.from_primal_value(pivots),
                                       Zero.from_primal_value(permutation)]


jvp_rules[lax_linalg.lu_p] = _lu_jvp
defjvp_zero(lax_linalg.lu_pivots_to_permutation_p)


def _qr_jvp(primals, tangents, *, full_matrices, pivoting, use_magma):
    """``dQ``, ``dR`` from ``Q^H da R^-1 = Q^H dQ + dR R^-1`` (skew-Hermitian + upper)."""
    (a,), (da,) = primals, tangents
    q, r = lax_linalg.qr_p.bind(a, full_matrices=False, pivoting=pivoting,
                                use_magma=use_magma)
    m, n = _shape(a)[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    dx_rinv = lax_linalg.triangular_solve(r, instantiate_zeros(da))  # da R^-1
    qt_dx_rinv = jnp.matmul(_H(q), dx_rinv)
    lower = jnp.tril(qt_dx_rinv, -1)
    do = lower - _H(lower)  # skew-Hermitian
    eye = jnp.eye(n, dtype=_dtype(a))
    do = do + eye * (qt_dx_rinv - jnp.real(qt_dx_rinv).astype(_dtype(a)))
    dq = jnp.matmul(q, do - qt_dx_rinv) + dx_rinv
    dr = jnp.matmul(qt_dx_rinv - do, r)
    return [q, r], [dq, dr]


jvp_rules[lax_linalg.qr_p] = _qr_jvp


def _eigh_jvp(primals, tangents, **params):
    """``dw = diag(V^H da V)``, ``dV = V (F * V^H da V)`` with ``F_ij = 1/(w_j - w_i)``."""
    (a,), (da,) = primals, tangents
    v, w_real = lax_linalg.eigh_p.bind(a, **params)
    w = w_real.astype(_dtype(a))
    eye = jnp.eye(_shape(a)[-1], dtype=_dtype(a))
    F = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye  # no division by zero
    vdag_da_v = jnp.matmul(jnp.matmul(_H(v), instantiate_zeros(da)), v)
    dv = jnp.matmul(v, F * vdag_da_v)
    dw = jnp.real(jnp.diagonal(vdag_da_v, axis1=-2, axis2=-1))
    return [v, w_real], [dv, dw]


jvp_rules[lax_linalg.eigh_p] = _eigh_jvp


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    """Differentiate ``a = U diag(s) V^H`` (thin SVD only when ``U``, ``V`` are wanted)."""
    (a,), (da,) = primals, tangents
    s, U, Vt = lax_linalg.svd_p.bind(a, full_matrices=False, compute_uv=True,
                                     subset_by_index=subset_by_index, algorithm=algorithm)
    if compute_uv and full_matrices:
        raise NotImplementedError("Singular value decomposition JVP not implemented for "
                                  "full matrices")
    dtype = _dtype(a)
    Ut, V = _H(U), _H(Vt)
    dS = jnp.matmul(jnp.matmul(Ut, instantiate_zeros(da)), V)
    ds = jnp.real(jnp.diagonal(dS, axis1=-2, axis2=-1))
    if not compute_uv:
        return [s], [ds]
    s_row = s[..., None, :]
    s_col = s[..., :, None]
    eye = jnp.eye(_shape(s)[-1], dtype=_dtype(s))
    F = 1 / ((s_row + s_col) * (s_row - s_col) + eye) - eye
    dSS, SdS = s_row.astype(dtype) * dS, s_col.astype(dtype) * dS
    s_zero = (s == 0).astype(_dtype(s))
    s_inv = 1 / (s + s_zero) - s_zero
    dUdV_diag = 0.5 * (dS - _H(dS)) * (eye * s_inv[..., None, :]).astype(dtype)
    dU = jnp.matmul(U, F.astype(dtype) * (dSS + _H(dSS)) + dUdV_diag)
    dV = jnp.matmul(V, F.astype(dtype) * (SdS + _H(SdS)))
    m, n = _shape(a)[-2:]
    if m > n:
        dAV = jnp.matmul(da, V)
        dU = dU + (dAV - jnp.matmul(U, jnp.matmul(Ut, dAV))) / s_row.astype(dtype)
    if n > m:
        dAHU = jnp.matmul(_H(da), U)
        dV = dV + (dAHU - jnp.matmul(V, jnp.matmul(Vt, dAHU))) / s_row.astype(dtype)
    return [s, U, Vt], [ds, dU, _H(dV)]


jvp_rules[lax_linalg.svd_p] = _svd_jvp


# --- every other linear primitive ------------------------------------------------------------
# A primitive created with ``linear_in`` (chapter 00) states that it is linear in
# those operands, the others being integer indices or held fixed: its JVP is the
# primitive itself applied to the tangents there (and to the primals elsewhere).
# The linear primitives that got a rule of their own above keep it.
for _prim in all_primitives():
    if _prim.linear_in is not None and _prim not in jvp_rules:
        deflinear(_prim)


# --- fft ---------------------------------------------------------------------------------------
# Every FFT is a linear map of its operand: ``fft_p`` is created with ``linear_in=(0,)``
# (chapter 00), so the loop above gave it the linear rule: the JVP of an FFT is the
# same FFT of the tangent (JAX's ``ad.deflinear2`` gives it the same rule). Nothing to
# add here: this note only says where its rule comes from.


# --- eig (not symmetric): eigenvalues by first-order perturbation theory -----------------------
def _eig_vec_tangents(w, v, da):
    """``(dw, dv)`` for ``a v = v diag(w)`` with distinct eigenvalues.

    In the eigenbasis ``P = v^-1 da v``: ``dw = diag(P)`` and ``dv = v (F * P)``
    plus ``c_j v_j``, where ``F_ij = 1/(w_j - w_i)`` off the diagonal. The free
    multiple ``c_j`` is fixed by LAPACK's two normalizations: unit norm
    (``Re(v_j^H dv_j) = 0``) and a real largest component (``Im dv_kj = 0``).
    """
    n = _shape(w)[-1]
    eye = jnp.eye(n, dtype=_dtype(w))
    F = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye  # no division by zero
    P = jnp.matmul(jnp.linalg.solve(v, da), v)
    dw = jnp.diagonal(P, axis1=-2, axis2=-1)
    U = jnp.matmul(v, F * P)
    largest = jnp.argmax(jnp.abs(v), axis=-2)
    mask = (jnp.arange(n)[:, None] == largest[..., None, :]).astype(_dtype(v))
    c = lax.complex(-jnp.sum(jnp.conj(v) * U, axis=-2).real,
                    -jnp.sum(mask * U, axis=-2).imag / jnp.sum(mask * v, axis=-2).real)
    return dw, U + v * c[..., None, :]


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    """``dw = diag(vr^-1 da vr)``; the eigenvectors' tangents only if asked for (as JAX)."""
    (a,), (da,) = primals, tangents
    left, right = compute_left_eigenvectors, compute_right_eigenvectors
    if (left or right) and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions "
            "on the input that JAX cannot check (see the enable_eigvec_derivs argument "
            "to jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to "
            "jax.lax.linalg.eig to opt in. See https://github.com/jax-ml/jax/issues/2748 "
            "for discussion.")
    outs = lax_linalg.eig_p.bind(a, compute_left_eigenvectors=left,
                                 compute_right_eigenvectors=True,
                                 enable_eigvec_derivs=enable_eigvec_derivs,
                                 implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = instantiate_zeros(da).astype(_dtype(vr))
    if not (left or right):
        dw = jnp.sum(jnp.linalg.solve(vr, da) * jnp.matrix_transpose(vr), axis=-1)
        return [w], [dw]
    dw, dvr = _eig_vec_tangents(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if left:
        _, dvl = _eig_vec_tangents(jnp.conj(w), outs[1], _H(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if right:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


jvp_rules[lax_linalg.eig_p] = _eig_jvp
