"""Chapter 10 — the CUDA target's rule table: how each primitive becomes CUDA code.

:data:`LOWERINGS` is the CUDA twin of the CPU table
(:data:`minijax.backends.cpu.rules.LOWERINGS`), keyed by primitive and
registered as ``lowering[cuda]`` (``minijax.primitives.rules_of("sin")``
lists both). The forms:

- ``"scalar"``: ``fn(c, *xs) -> expression``, one element of an elementwise
  equation inside a fused kernel. Where the CPU rule's expression is valid
  CUDA (arithmetic, comparisons, casts, and helpers that have a CUDA version,
  :mod:`.helpers`), the CPU rule *is* the CUDA rule: the table points at the
  same function (:func:`same_as_cpu`). Math functions differ: NumPy's
  functions on scalars (``np.exp(x)``) do not compile for CUDA, so the CUDA
  rules call ``math.exp(x)``, which numba.cuda maps to CUDA's libdevice
  (``expf`` for a float32: float32 stays float32).
- ``"reduction"``: ``fn(c, acc, x) -> statement`` folding ``x`` into ``acc``;
  the same folds as the CPU, used by each thread and then by the
  shared-memory tree (:mod:`.writer`).
- ``"index"``: ``fn(c, idx) -> expression``: data movement (``transpose``,
  ``slice``, ``pad``, ``concatenate``...) as one element of the output at
  output index ``idx``, read from the operand at the index it maps to. The
  writer makes each one a grid-stride kernel over the output.
- ``"driver"``: ``fn(eqn, x) -> expression`` run by the host driver, with no
  kernel: ``reshape`` of a contiguous device array is a new view of it.
- ``"dot"`` (``dot_general``): the writer's tiled matrix-multiply kernel.
- ``"inline"``: nested calls the planner inlines (``jit``, ``checkpoint``...).

A primitive with no rule here makes ``jit(f, backend="cuda")`` raise at
lowering time, naming the primitive (as XLA names a primitive with no
lowering for a platform); nothing falls back silently.
"""
from __future__ import annotations

import numpy as np

from minijax import lax
from minijax.backends.cpu.rules import LOWERINGS as CPU_LOWERINGS
from minijax.backends.cpu.rules import Rule, ScalarContext
from minijax.backends.cpu.syntax import cast, data_shape, int_views, kind, literal
from minijax.backends.cuda import helpers
from minijax.checkpoint import name_p, remat_p
from minijax.control_flow.conditionals import cond_p
from minijax.control_flow.loops import scan_p, while_p
from minijax.jaxpr import DropVar, Var
from minijax.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from minijax.interpreters.ad import add_any_p
from minijax.jit import jit_p
from minijax.primitives import Primitive, RuleTable, register_rule_table

__all__ = ["LOWERINGS", "register", "same_as_cpu", "CudaScalarContext", "IndexContext",
           "register_key_lowerings", "register_host_call_lowerings",
           "flat_index", "unravel"]

#: Primitive -> Rule: the CUDA target's lowering of each primitive.
LOWERINGS: dict[Primitive, Rule] = register_rule_table("lowering[cuda]", RuleTable())


def register(prim: Primitive, fn, form: str, *, complex: bool = False, bits: bool = False):
    """Add ``prim``'s CUDA rule; a primitive has one, never replaced."""
    if prim in LOWERINGS:
        raise ValueError(f"{prim} already has a CUDA lowering")
    LOWERINGS[prim] = Rule(fn, form, complex, bits)


def same_as_cpu(*prims: Primitive) -> None:
    """These primitives' CPU scalar/reduction rules write valid CUDA: share them."""
    for prim in prims:
        rule = CPU_LOWERINGS[prim]
        register(prim, rule.fn, rule.form, complex=rule.complex)


class CudaScalarContext(ScalarContext):
    """The CPU's scalar context, with helpers taken from the CUDA helper set
    (a rule asking for a helper CUDA lacks raises, naming the equation)."""

    def helper(self, name: str) -> str:
        return helpers.request(self.helpers, name, self.eqn.primitive.name)


# =============================================================================
# Elementwise primitives
# =============================================================================
same_as_cpu(lax.add_p, add_any_p, lax.sub_p, lax.mul_p, lax.div_p, lax.neg_p,
            lax.square_p, lax.max_p, lax.min_p, lax.clamp_p, lax.integer_pow_p,
            lax.convert_element_type_p, lax.copy_p, lax.stop_gradient_p,
            lax.iota_p, lax.empty2_p, lax.broadcast_in_dim_p, lax.not_p, lax.and_p, lax.or_p, lax.xor_p,
            lax.eq_p, lax.ne_p, lax.lt_p, lax.le_p, lax.gt_p, lax.ge_p,
            lax.shift_left_p, lax.shift_right_logical_p, lax.shift_right_arithmetic_p,
            lax.real_p, lax.imag_p, lax.complex_p, lax.digamma_p)


def _select_n(c, which, *cases):
    """``select_n`` as conditional expressions, the last case ``>= k`` winning. (The
    CPU's rule writes a bool predicate as a branch-free select, a Numba CPU
    intrinsic: for the CPU's branch predictor; a GPU runs a warp's both sides anyway.)"""
    expr = cases[0]
    for k, case in enumerate(cases[1:], start=1):
        expr = f"({case} if {which} >= {k} else {expr})"
    return expr


register(lax.select_n_p, _select_n, "scalar", complex=True)


def _math(fn: str):
    """``math.<fn>(x)`` in the output's float type (libdevice on the GPU); a complex
    operand takes ``cmath.<fn>`` (registered ``complex=True`` where ``cmath`` has it)."""
    def rule(c, x):
        module = "cmath" if c.is_complex else "math"
        return cast(c.out_dtype, f"{module}.{fn}({x})")
    return rule


def _sign(c, x):
    """The CPU's, but an integer sign subtracts integers, not bools (the
    simulator runs the kernel on NumPy scalars, which refuse ``bool - bool``)."""
    if kind(c.out_dtype) == "f":
        return CPU_LOWERINGS[lax.sign_p].fn(c, x)
    dt = c.out_dtype
    return cast(dt, f"{cast(dt, f'{x} > 0')} - {cast(dt, f'{x} < 0')}")


def _abs(c, x):
    """``abs``; cast back for integers and for a complex number's (float) modulus."""
    if kind(c.out_dtype) == "f" and not c.is_complex:
        return f"abs({x})"
    return cast(c.out_dtype, f"abs({x})")


def _conj(c, x):
    """A real operand becomes complex; NumPy's ``np.conj`` does not compile for CUDA."""
    return cast(c.out_dtype, f"{x}.conjugate()" if c.is_complex else x)


def _rem(c, x, y):
    if kind(c.out_dtype) == "f":
        return cast(c.out_dtype, f"math.fmod({x}, {y})")
    return CPU_LOWERINGS[lax.rem_p].fn(c, x, y)


def _exp2(c, x):
    return cast(c.out_dtype, f"math.pow({literal(2, c.out_dtype)}, {x})")


def _cbrt(c, x):
    third = literal(1 / 3, c.out_dtype)
    return cast(c.out_dtype, f"math.copysign(math.pow(abs({x}), {third}), {x})")


def _logistic(c, x):
    one = literal(1, c.out_dtype)
    return cast(c.out_dtype, f"{one} / ({one} + math.exp(-{x}))")


def _rsqrt(c, x):
    return cast(c.out_dtype, f"{literal(1, c.out_dtype)} / math.sqrt({x})")


def _pow(c, x, y):
    if kind(c.out_dtype) == "f":
        return cast(c.out_dtype, f"math.pow({x}, {cast(c.out_dtype, y)})")
    return CPU_LOWERINGS[lax.pow_p].fn(c, x, y)


def _atan2(c, x, y):
    return cast(c.out_dtype, f"math.atan2({x}, {y})")


def _round(c, x):
    name = "_rint" if c.eqn.params["rounding_method"] == 1 else "_round_away"
    return cast(c.out_dtype, f"{c.helper(name)}({x})")


def _population_count(c, x):
    """``cuda.popc`` of the value's bits as an unsigned integer (32 or 64 bits)."""
    bits, u, _ = int_views(c.out_dtype)
    wide = cast(np.uint64 if bits == 64 else np.uint32, cast(u, x))
    return cast(c.out_dtype, f"cuda.popc({wide})")


def _clz(c, x):
    """``cuda.clz`` counts in 32 (or 64) bits: minus the zeros a narrower type lacks."""
    bits, u, _ = int_views(c.out_dtype)
    wide = cast(np.uint64 if bits == 64 else np.uint32, cast(u, x))
    extra = 0 if bits == 64 else 32 - bits
    return cast(c.out_dtype, f"cuda.clz({wide})" + (f" - {extra}" if extra else ""))


def _nextafter(c, x, y):
    """float32/float64 (the type's mantissa bits and exponent range: 23, -126, 128
    or 52, -1022, 1024); float16 would need the float16 neighbour, not float32's."""
    if c.is_half:
        raise NotImplementedError("nextafter on float16")
    info = np.finfo(c.out_dtype)
    fn = c.helper("_nextafter")
    return cast(c.out_dtype, f"{fn}({x}, {y}, {info.nmant}, {info.minexp}, {info.maxexp})")


def _is_finite(c, x):
    return f"math.isfinite({x})"


register(lax.sign_p, _sign, "scalar")
register(lax.rem_p, _rem, "scalar")
register(lax.abs_p, _abs, "scalar", complex=True)
register(lax.conj_p, _conj, "scalar", complex=True)
register(lax.pow_p, _pow, "scalar")
register(lax.floor_p, _math("floor"), "scalar")
register(lax.ceil_p, _math("ceil"), "scalar")
register(lax.round_p, _round, "scalar")
register(lax.is_finite_p, _is_finite, "scalar")
register(lax.population_count_p, _population_count, "scalar")
register(lax.nextafter_p, _nextafter, "scalar")
register(lax.clz_p, _clz, "scalar")
register(lax.exp_p, _math("exp"), "scalar", complex=True)
register(lax.exp2_p, _exp2, "scalar")
register(lax.expm1_p, _math("expm1"), "scalar")
register(lax.log_p, _math("log"), "scalar", complex=True)
register(lax.log1p_p, _math("log1p"), "scalar")
register(lax.logistic_p, _logistic, "scalar")
register(lax.sqrt_p, _math("sqrt"), "scalar", complex=True)
register(lax.rsqrt_p, _rsqrt, "scalar")
register(lax.cbrt_p, _cbrt, "scalar")
register(lax.sin_p, _math("sin"), "scalar", complex=True)
register(lax.cos_p, _math("cos"), "scalar", complex=True)
register(lax.tan_p, _math("tan"), "scalar", complex=True)
register(lax.asin_p, _math("asin"), "scalar")
register(lax.acos_p, _math("acos"), "scalar")
register(lax.atan_p, _math("atan"), "scalar")
register(lax.atan2_p, _atan2, "scalar")
register(lax.sinh_p, _math("sinh"), "scalar", complex=True)
register(lax.cosh_p, _math("cosh"), "scalar", complex=True)
register(lax.tanh_p, _math("tanh"), "scalar", complex=True)
register(lax.asinh_p, _math("asinh"), "scalar")
register(lax.acosh_p, _math("acosh"), "scalar")
register(lax.atanh_p, _math("atanh"), "scalar")
register(lax.erf_p, _math("erf"), "scalar")
register(lax.erfc_p, _math("erfc"), "scalar")
register(lax.lgamma_p, _math("lgamma"), "scalar")
same_as_cpu(lax.erf_inv_p)  # XLA's float32 algorithm: its helpers have CUDA versions


# =============================================================================
# Reductions: the CPU's folds (each thread's, then the shared-memory tree's)
# =============================================================================
same_as_cpu(lax.reduce_sum_p, lax.reduce_prod_p, lax.reduce_max_p, lax.reduce_min_p,
            lax.reduce_and_p, lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p)


# =============================================================================
# Matrix products: the tiled kernel of the writer
# =============================================================================
register(lax.dot_general_p, None, "dot", complex=True)


# =============================================================================
# Data movement: one output element at output index ``idx``
# =============================================================================
class IndexContext:
    """What an ``"index"`` rule may ask: the equation, and how to read an operand."""

    def __init__(self, eqn, read):
        self.eqn = eqn
        self.read = read  # read(atom, [index expressions]) -> element expression

    @property
    def params(self):
        return self.eqn.params

    def operand(self, k: int = 0):
        return self.eqn.invars[k]


def _transpose(c, idx):
    perm = c.params["permutation"]
    src = [None] * len(perm)
    for out_axis, in_axis in enumerate(perm):
        src[in_axis] = idx[out_axis]
    return c.read(c.operand(), src)


def _slice(c, idx):
    starts = c.params["start_indices"]
    strides = c.params["strides"] or (1,) * len(starts)
    return c.read(c.operand(), [f"{s} + {i} * {st}" if st != 1 else f"{s} + {i}"
                                for s, i, st in zip(starts, idx, strides)])


def _rev(c, idx):
    shape = c.operand().aval.shape
    dims = set(c.params["dimensions"])
    return c.read(c.operand(), [f"{shape[d] - 1} - {i}" if d in dims else i
                                for d, i in enumerate(idx)])


def _concatenate(c, idx):
    axis = c.params["dimension"]
    pieces, offset = [], 0
    for k, x in enumerate(c.eqn.invars):
        size = x.aval.shape[axis]
        at = list(idx)
        at[axis] = f"({idx[axis]} - {offset})"
        pieces.append((offset + size, c.read(x, at)))
        offset += size
    expr = pieces[-1][1]
    for end, piece in reversed(pieces[:-1]):
        expr = f"({piece} if {idx[axis]} < {end} else {expr})"
    return expr


def _pad(c, idx):
    """XLA's pad: low/high padding (negative: cropping) and interior padding."""
    x, value = c.eqn.invars
    config = c.params["padding_config"]
    fill = c.read(value, [])
    conds, src = [], []
    for d, ((lo, _, interior), i) in enumerate(zip(config, idx)):
        n = x.aval.shape[d]
        pos = f"({i} - {lo})" if lo else i
        if interior:
            conds += [f"{pos} >= 0", f"{pos} % {interior + 1} == 0",
                      f"{pos} // {interior + 1} < {n}"]
            src.append(f"{pos} // {interior + 1}")
        else:
            conds += [f"{pos} >= 0", f"{pos} < {n}"]
            src.append(pos)
    if not conds:
        return c.read(x, src)
    return f"({c.read(x, src)} if {' and '.join(conds)} else {fill})"


def _squeeze_or_expand(c, idx):
    """``squeeze`` / ``expand_dims``: the same elements in the same order."""
    x = c.operand()
    out_shape = c.eqn.outvars[0].aval.shape
    flat = flat_index(idx, out_shape)
    return c.read(x, unravel(flat, x.aval.shape))


def flat_index(idx, shape) -> str:
    """The row-major flat index of multi-index ``idx`` in ``shape`` (an expression)."""
    terms, stride = [], 1
    for i, n in reversed(list(zip(idx, shape))):
        if n != 1:
            terms.append(i if stride == 1 else f"{i} * {stride}")
        stride *= n
    return " + ".join(reversed(terms)) or "0"


def unravel(flat: str, shape) -> list[str]:
    """The multi-index (expressions) of row-major flat index ``flat`` in ``shape``;
    a size-1 axis is index ``0``, and the first axis needs no ``%``."""
    if not flat.isidentifier():
        flat = f"({flat})"
    out, strides, stride = [], [], 1
    for n in reversed(shape):
        strides.append(stride)
        stride *= n
    strides.reverse()
    for n, s in zip(shape, strides):
        q = flat if s == 1 else f"{flat} // {s}"
        if n == 1:
            out.append("0")
        elif all(o == "0" for o in out):  # the first real axis: flat // s < n already
            out.append(q)
        else:
            out.append(f"({q}) % {n}" if s != 1 else f"{q} % {n}")
    return out


def _dynamic_slice(c, idx):
    x, *starts = c.eqn.invars
    sizes = c.params["slice_sizes"]
    shape = x.aval.shape
    src = []
    for d, (i, start) in enumerate(zip(idx, starts)):
        s = c.read(start, [])
        clamped = f"min(max({s}, 0), {shape[d] - sizes[d]})"  # XLA clamps the start
        src.append(f"{clamped} + {i}")
    return c.read(x, src)


def _dynamic_update_slice(c, idx):
    x, update, *starts = c.eqn.invars
    shape, ushape = x.aval.shape, update.aval.shape
    conds, src = [], []
    for d, (i, start) in enumerate(zip(idx, starts)):
        s = f"min(max({c.read(start, [])}, 0), {shape[d] - ushape[d]})"
        conds.append(f"{s} <= {i} < {s} + {ushape[d]}")
        src.append(f"{i} - {s}")
    return f"({c.read(update, src)} if {' and '.join(conds)} else {c.read(x, idx)})"


def _gather(c, idx):
    """One output element of XLA's gather: its batch position picks a row of
    start indices (clamped into the operand; out of bounds in ``FILL_OR_DROP``
    mode: the fill value), its offset dims the place in the window."""
    x, indices = c.eqn.invars
    dn, sizes = c.params["dimension_numbers"], tuple(c.params["slice_sizes"])
    mode = getattr(c.params["mode"], "name", str(c.params["mode"]))
    operand, out = x.aval, c.eqn.outvars[0].aval
    if mode == "ONE_HOT" or operand.ndim == 0:
        raise NotImplementedError(f"gather with mode {mode} of a rank {operand.ndim} operand")
    window_dims = [d for d in range(operand.ndim) if d not in dn.collapsed_slice_dims
                   and d not in dn.operand_batching_dims]
    window_iter = iter(window_dims)
    offsets, batch = {}, []
    for d in range(out.ndim):
        if d in dn.offset_dims:
            offsets[next(window_iter)] = idx[d]
        else:
            batch.append(idx[d])
    starts, inside = ["0"] * operand.ndim, []
    for k, d in enumerate(dn.start_index_map):
        raw = f"np.int64({c.read(indices, [*batch, str(k)])})"
        upper = operand.shape[d] - sizes[d]
        inside.append(f"0 <= {raw} <= {upper}")
        starts[d] = f"min(max({raw}, 0), {max(upper, 0)})"
    for od, ib in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        starts[od] = batch[ib]
    src = [_plus(starts[d], offsets.get(d, "0")) for d in range(operand.ndim)]
    value = c.read(x, src)
    if mode == "FILL_OR_DROP" and inside:
        fill = literal(c.params["fill_value"], operand.dtype)
        value = f"({value} if {' and '.join(inside)} else {fill})"
    return value


def _plus(start: str, offset: str) -> str:
    return offset if start == "0" else start if offset == "0" else f"{start} + {offset}"


register(lax.gather_p, _gather, "index", bits=True, complex=True)


def scatter_target(c, idx, updates_name: str):
    """For update element ``idx`` of a scatter: ``(operand index, condition)``, the
    element it combines into and whether its window is inside the operand (``None``:
    always, or clipped into it in ``CLIP`` mode). Used by the writer's scatter kernel."""
    x, indices, upd = c.eqn.invars
    dn = c.params["dimension_numbers"]
    operand, uaval = x.aval, upd.aval
    if c.params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter with a Python update function (scatter_apply)")
    if operand.ndim == 0:
        raise NotImplementedError("scatter into a rank 0 operand")
    window_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                   and d not in dn.operand_batching_dims]
    sizes = [1] * operand.ndim
    for d, ud in zip(window_dims, dn.update_window_dims):
        sizes[d] = uaval.shape[ud]
    window_iter = iter(window_dims)
    offsets, batch = {}, []
    for d in range(uaval.ndim):
        if d in dn.update_window_dims:
            offsets[next(window_iter)] = idx[d]
        else:
            batch.append(idx[d])
    clip = getattr(c.params["mode"], "name", str(c.params["mode"])) == "CLIP"
    starts, inside = ["0"] * operand.ndim, []
    for k, d in enumerate(dn.scatter_dims_to_operand_dims):
        raw = f"np.int64({c.read(indices, [*batch, str(k)])})"
        upper = operand.shape[d] - sizes[d]
        inside.append(f"0 <= {raw} <= {upper}")
        starts[d] = f"min(max({raw}, 0), {max(upper, 0)})" if clip else raw
    for od, ib in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
        starts[od] = batch[ib]
    target = [_plus(starts[d], offsets.get(d, "0")) for d in range(operand.ndim)]
    return target, (None if clip or not inside else " and ".join(inside))


for _prim in (lax.scatter_p, lax.scatter_add_p, lax.scatter_sub_p, lax.scatter_mul_p,
              lax.scatter_min_p, lax.scatter_max_p):
    register(_prim, scatter_target, "scatter")
register(lax.transpose_p, _transpose, "index", bits=True, complex=True)
register(lax.slice_p, _slice, "index", bits=True, complex=True)
register(lax.rev_p, _rev, "index", bits=True, complex=True)
register(lax.concatenate_p, _concatenate, "index", bits=True, complex=True)
register(lax.pad_p, _pad, "index", complex=True)
register(lax.squeeze_p, _squeeze_or_expand, "index", bits=True, complex=True)
register(lax.dynamic_slice_p, _dynamic_slice, "index", bits=True, complex=True)
register(lax.dynamic_update_slice_p, _dynamic_update_slice, "index", bits=True, complex=True)


def _reshape(eqn, x: str) -> str:
    """A C-contiguous device array reshaped: a view, no kernel (a scalar is ``(1,)``;
    keys keep their trailing word axis)."""
    shape = data_shape(eqn.outvars[0].aval)[0] or (1,)
    return f"{x}.reshape({shape})"


register(lax.reshape_p, _reshape, "driver", bits=True, complex=True)


def _bitcast(eqn, x: str) -> str:
    """The same device memory, viewed as the new dtype (float16 itself: CUDA has it);
    between widths the last axis splits or joins, so the view is reshaped too."""
    old, new = eqn.invars[0].aval.dtype, eqn.outvars[0].aval.dtype
    view = f"{x}.view(np.{np.dtype(new).name})"
    if np.dtype(old).itemsize != np.dtype(new).itemsize:
        view += f".reshape({tuple(data_shape(eqn.outvars[0].aval)[0]) or (1,)})"
    return view


register(lax.bitcast_convert_type_p, _bitcast, "driver")


# =============================================================================
# Control flow: driven from the host (form "host": ``fn(w, eqn)`` writes driver lines)
# =============================================================================
def _cond(w, eqn) -> None:
    """``cond``: the driver reads the branch index back (it waits for it), then
    launches the chosen branch's kernels."""
    index, *operands = eqn.invars
    branches = eqn.params["branches"]
    w.drive(f"# {kernel_plan_header(w, eqn)}")
    w.drive(f"branch_index = int({w.host_scalar(index)})  # waits for the index")
    for k, branch in enumerate(branches):
        test = ("if" if k == 0 else "elif" if k < len(branches) - 1 else "else")
        cond = f" branch_index <= {k}:" if test != "else" else ":"
        w.drive(f"{test}{cond}")
        w.driver_depth += 1
        outs = w.inline(branch, operands)
        w.bind(eqn.outvars, outs)
        w.driver_depth -= 1


def _while(w, eqn) -> None:
    """``while_loop``: the driver runs the loop; each test reads the predicate
    back (it waits for it), each turn launches the body's kernels. A predicate
    with a shape (``vmap`` of a loop) runs while *any* example's holds, and the
    finished examples keep their carry (a kernel selects it)."""
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond_consts, body_consts, init = (eqn.invars[:nc], eqn.invars[nc:nc + nb],
                                      eqn.invars[nc + nb:])
    carry = w.carry_names(eqn.outvars)
    batched = bool(p["cond_jaxpr"].jaxpr.out_avals[0].shape)
    w.drive(f"# {kernel_plan_header(w, eqn)}")
    w.bind(carry, init)
    w.drive("while True:")
    w.driver_depth += 1
    pred = w.inline(p["cond_jaxpr"], [*cond_consts, *carry])[0]
    test = (f"{w.driver_atom(pred)}.copy_to_host(stream=stream).any()" if batched
            else w.host_scalar(pred))
    w.drive(f"if not {test}:  # waits for the predicate")
    w.drive("    break")
    outs = w.inline(p["body_jaxpr"], [*body_consts, *carry])
    if batched:
        olds = p["body_jaxpr"].jaxpr.invars[nb:]  # the carry at the top of this turn
        outs = [w.keep_finished(pred, old, new, f"{name}_kept")
                for old, new, name in zip(olds, outs, carry)]
    w.bind(carry, outs)
    w.driver_depth -= 1


def _scan(w, eqn) -> None:
    """``scan``: the driver runs the loop; turn ``k`` passes views of ``xs[k]``
    (no copy) to the body's kernels and copies its ``ys`` into row ``k``."""
    p = eqn.params
    nc, ncarry, length = p["num_consts"], p["num_carry"], p["length"]
    consts, init, xs = eqn.invars[:nc], eqn.invars[nc:nc + ncarry], eqn.invars[nc + ncarry:]
    carry, ys = w.carry_names(eqn.outvars[:ncarry]), eqn.outvars[ncarry:]
    body = p["jaxpr"]
    w.drive(f"# {kernel_plan_header(w, eqn)}")
    w.bind(carry, init)
    for y in ys:
        if not isinstance(y, DropVar):
            w.allocate(y)
    order = f"range({length} - 1, -1, -1)" if p["reverse"] else f"range({length})"
    turn = f"turn_{w.driver_depth}"  # a loop variable per nesting level
    w.drive(f"for {turn} in {order}:")
    w.driver_depth += 1
    x_views = []
    for x in xs:
        row = tuple(data_shape(x.aval)[0][1:]) or (1,)  # (a key's row keeps its words)
        x_views.append(f"{w.var(x)}[{turn}:{turn} + 1].reshape({row})")
    body_in = body.jaxpr.invars
    w.bind(body_in[:nc + ncarry], [*consts, *carry])
    for v, view in zip(body_in[nc + ncarry:], x_views):
        w.drive(f"{w.var(v)} = {view}")
    outs = w.inline(body, None)
    w.bind(carry, outs[:ncarry])
    for y, out in zip(ys, outs[ncarry:]):
        if not isinstance(y, DropVar):
            size = max(1, int(np.prod(data_shape(y.aval)[0][1:], dtype=np.int64)))
            w.drive(f"{w.var(y)}[{turn}:{turn} + 1].reshape(({size},)).copy_to_device("
                    f"{w.driver_atom(out)}.reshape(({size},)), stream=stream)")
    w.driver_depth -= 1


def kernel_plan_header(w, eqn) -> str:
    from minijax.backends.plan import eqn_header
    return eqn_header(eqn, w.plan.names)


register(cond_p, _cond, "host", complex=True)
register(while_p, _while, "host", complex=True)
register(scan_p, _scan, "host", complex=True)


# =============================================================================
# Kernels written by their rules (form "kernel": ``fn(w, eqn)``)
# =============================================================================
def _grid_kernel(w, what, size, params, body) -> None:
    """A grid-stride kernel over ``size`` elements whose body ``body()`` writes
    element ``t_flat``."""
    w.grid_stride((size,))
    body()
    w.end_grid_stride()
    w.kernel(what, params, (w.blocks_for(size),), (w.launch.threads,), w.lines)


def _at(flat: str, shape) -> list[str]:
    return unravel(flat, shape) if shape else []


# =============================================================================
# split, unstack, stack, tile: a data-movement kernel per output
# =============================================================================
def _each_output(w, eqn, element) -> None:
    """A grid-stride kernel per output ``k``: ``out_k[idx] = element(k, idx)``."""
    for k, out in enumerate(eqn.outvars):
        if isinstance(out, DropVar):
            continue
        shape = data_shape(out.aval)[0]
        w.allocate(out)
        size = int(np.prod(shape, dtype=np.int64))
        if size == 0:
            continue

        def body(k=k, out=out, shape=shape):
            idx = ["0" if i == "0" else i for i in _at("t_flat", shape)]
            w.emit(f"{w.read(out, idx)} = {element(k, idx)}", w.text(eqn))
        params = list(dict.fromkeys(a for a in eqn.invars if isinstance(a, Var))) + [out]
        _grid_kernel(w, f"{eqn.primitive.name}, output {k}: one element per thread", size,
                     params, body)


def _split(w, eqn) -> None:
    axis, sizes = eqn.params["axis"], eqn.params["sizes"]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    x = eqn.invars[0]
    _each_output(w, eqn, lambda k, idx: w.read(
        x, [f"{i} + {starts[k]}" if d == axis and starts[k] else i for d, i in enumerate(idx)]))


def _unstack(w, eqn) -> None:
    axis, x = eqn.params["axis"], eqn.invars[0]
    _each_output(w, eqn, lambda k, idx: w.read(x, [*idx[:axis], str(k), *idx[axis:]]))


def _stack(w, eqn) -> None:
    axis, xs = eqn.params["axis"], eqn.invars

    def element(_, idx):
        rest = [*idx[:axis], *idx[axis + 1:]]
        expr = w.read(xs[-1], rest)
        for k in reversed(range(len(xs) - 1)):
            expr = f"({w.read(xs[k], rest)} if {idx[axis]} == {k} else {expr})"
        return expr
    _each_output(w, eqn, element)


def _tile(w, eqn) -> None:
    x = eqn.invars[0]
    shape = tuple(x.aval.shape)
    _each_output(w, eqn, lambda k, idx: w.read(
        x, [i if n == 1 or i == "0" else f"{i} % {n}" for i, n in zip(idx, shape)]
        + list(idx[len(shape):])))


register(lax.split_p, _split, "kernel", bits=True, complex=True)
register(lax.unstack_p, _unstack, "kernel", bits=True, complex=True)
register(lax.stack_p, _stack, "kernel", bits=True, complex=True)
register(lax.tile_p, _tile, "kernel", bits=True, complex=True)


# =============================================================================
# Linear algebra: cholesky and triangular_solve, a matrix (or a column) per thread
# =============================================================================
def _cholesky(w, eqn) -> None:
    """The lower Cholesky factor of each matrix, one thread each (the CPU's
    LAPACK reads the lower triangle too); NaNs if a matrix is not positive
    definite, as XLA."""
    x, out = eqn.invars[0], eqn.outvars[0]
    shape = tuple(x.aval.shape)
    n, batch = shape[-1], shape[:-2]
    w.allocate(out)
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0 or n == 0:
        return

    def body():
        b = _at("t_flat", batch)
        a_at = lambda i, j: w.read(x, [*b, i, j])  # noqa: E731
        l_at = lambda i, j: w.read(out, [*b, i, j])  # noqa: E731
        zero = literal(0, out.aval.dtype)
        w.emit("ok_v = True", w.text(eqn))
        w.emit(f"for j_c in range({n}):")
        w.emit(f"    s_v = {a_at('j_c', 'j_c')}")
        w.emit("    for k_c in range(j_c):")
        w.emit(f"        s_v -= {l_at('j_c', 'k_c')} * {l_at('j_c', 'k_c')}")
        w.emit(f"    if not s_v > {zero}:  # not positive definite (or NaN)")
        w.emit("        ok_v = False")
        w.emit("        break")
        w.emit(f"    {l_at('j_c', 'j_c')} = math.sqrt(s_v)")
        w.emit(f"    for i_c in range(j_c + 1, {n}):")
        w.emit(f"        s_v = {a_at('i_c', 'j_c')}")
        w.emit("        for k_c in range(j_c):")
        w.emit(f"            s_v -= {l_at('i_c', 'k_c')} * {l_at('j_c', 'k_c')}")
        w.emit(f"        {l_at('i_c', 'j_c')} = s_v / {l_at('j_c', 'j_c')}")
        w.emit(f"        {l_at('j_c', 'i_c')} = {zero}")
        w.emit(f"for i_c in range({n}):")
        w.emit(f"    for j_c in range({n}):")
        w.emit("        if not ok_v:")
        w.emit(f"            {l_at('i_c', 'j_c')} = {literal(np.nan, out.aval.dtype)}")
    _grid_kernel(w, "cholesky: one matrix per thread", count, [x, out], body)


def _triangular_solve(w, eqn) -> None:
    """``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b``, by substitution: one
    thread per batch element and column of ``b`` (row, on the right side)."""
    a, rhs = eqn.invars
    out = eqn.outvars[0]
    p = eqn.params
    transpose, left = bool(p["transpose_a"]), bool(p["left_side"])
    lower = bool(p["lower"]) != transpose  # the triangle op(a) has
    if not left:  # x @ op(a) = b  <=>  op(a)^T @ x^T = b^T
        lower = not lower
    swap = transpose if left else not transpose  # M[i, j] = a[j, i]?
    shape = tuple(rhs.aval.shape)
    batch, (m, k) = shape[:-2], shape[-2:]
    n, cols = (m, k) if left else (k, m)
    w.allocate(out)
    count = int(np.prod(batch, dtype=np.int64)) * cols
    if count == 0 or n == 0:
        return

    def body():
        w.emit(f"batch_i, col_j = t_flat // {cols}, t_flat % {cols}", w.text(eqn))
        b = _at("batch_i", batch)
        m_at = lambda i, j: w.read(a, [*b, j, i] if swap else [*b, i, j])  # noqa: E731
        b_at = lambda i: w.read(rhs, [*b, i, "col_j"] if left else [*b, "col_j", i])  # noqa
        x_at = lambda i: w.read(out, [*b, i, "col_j"] if left else [*b, "col_j", i])  # noqa
        order, inner = ((f"range({n})", "range(i_s)") if lower else
                        (f"range({n} - 1, -1, -1)", f"range(i_s + 1, {n})"))
        w.emit(f"for i_s in {order}:")
        w.emit(f"    s_v = {b_at('i_s')}")
        w.emit(f"    for j_s in {inner}:")
        w.emit(f"        s_v -= {m_at('i_s', 'j_s')} * {x_at('j_s')}")
        value = "s_v" if p["unit_diagonal"] else f"s_v / {m_at('i_s', 'i_s')}"
        w.emit(f"    {x_at('i_s')} = {value}")
    _grid_kernel(w, "triangular_solve: one column of the right-hand side per thread", count,
                 list(dict.fromkeys(v for v in (a, rhs) if isinstance(v, Var))) + [out], body)


def _lu(w, eqn) -> None:
    """Gaussian elimination with partial pivoting (the impl's steps: the first
    largest ``|entry|`` pivots, a zero pivot divides nothing), a matrix per thread."""
    x = eqn.invars[0]
    lu, pivots, perm = eqn.outvars
    shape = tuple(x.aval.shape)
    batch, (m, n) = shape[:-2], shape[-2:]
    k = min(m, n)
    for v in (lu, pivots, perm):
        w.allocate(v)
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0:
        return

    def body():
        b = _at("t_flat", batch)
        at = lambda i, j: w.read(lu, [*b, i, j])  # noqa: E731
        w.emit(f"for r_l in range({m}):", w.text(eqn))
        w.emit(f"    {w.read(perm, [*b, 'r_l'])} = r_l")
        w.emit(f"    for c_l in range({n}):")
        w.emit(f"        {at('r_l', 'c_l')} = {w.read(x, [*b, 'r_l', 'c_l'])}")
        w.emit(f"for j_l in range({k}):")
        w.emit("    p_l = j_l")
        w.emit(f"    best_v = abs({at('j_l', 'j_l')})")
        w.emit(f"    for r_l in range(j_l + 1, {m}):")
        w.emit(f"        v_l = abs({at('r_l', 'j_l')})")
        w.emit("        if v_l > best_v or (v_l != v_l and best_v == best_v):  # NaN first")
        w.emit("            p_l, best_v = r_l, v_l")
        w.emit(f"    {w.read(pivots, [*b, 'j_l'])} = p_l")
        w.emit("    if p_l != j_l:")
        w.emit(f"        for c_l in range({n}):")
        w.emit(f"            {at('j_l', 'c_l')}, {at('p_l', 'c_l')} = "
               f"{at('p_l', 'c_l')}, {at('j_l', 'c_l')}")
        w.emit(f"        {w.read(perm, [*b, 'j_l'])}, {w.read(perm, [*b, 'p_l'])} = "
               f"{w.read(perm, [*b, 'p_l'])}, {w.read(perm, [*b, 'j_l'])}")
        w.emit(f"    pivot_v = {at('j_l', 'j_l')}")
        w.emit(f"    for r_l in range(j_l + 1, {m}):")
        w.emit("        if pivot_v != 0:")
        w.emit(f"            {at('r_l', 'j_l')} = {at('r_l', 'j_l')} / pivot_v")
        w.emit(f"        for c_l in range(j_l + 1, {n}):")
        w.emit(f"            {at('r_l', 'c_l')} -= {at('r_l', 'j_l')} * {at('j_l', 'c_l')}")
    _grid_kernel(w, "lu: a matrix per thread, partial pivoting", count, [x, lu, pivots, perm],
                 body)


def _lu_pivots_to_permutation(w, eqn) -> None:
    """The row order that the swaps ``pivots`` make, applied in order: a thread each."""
    pivots, perm = eqn.invars[0], eqn.outvars[0]
    batch, k = tuple(pivots.aval.shape[:-1]), pivots.aval.shape[-1]
    size = eqn.params["permutation_size"]
    w.allocate(perm)
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0:
        return

    def body():
        b = _at("t_flat", batch)
        at = lambda i: w.read(perm, [*b, i])  # noqa: E731
        w.emit(f"for r_l in range({size}):", w.text(eqn))
        w.emit(f"    {at('r_l')} = r_l")
        w.emit(f"for j_l in range({k}):")
        w.emit(f"    p_l = {w.read(pivots, [*b, 'j_l'])}")
        w.emit(f"    {at('j_l')}, {at('p_l')} = {at('p_l')}, {at('j_l')}")
    _grid_kernel(w, "lu_pivots_to_permutation: a thread per batch element", count,
                 [pivots, perm], body)


def _qr(w, eqn) -> None:
    """Householder QR, a matrix per thread, with LAPACK's reflectors (``geqr2``:
    ``beta = -sign(alpha) * norm``, ``tau = (beta - alpha) / beta``) so that the
    signs are the CPU's, then ``q`` formed from them as ``org2r`` does. The
    outputs are the workspace: the factorization runs in ``q`` when the matrix
    is tall (``r`` is smaller), else in ``r``; ``tau`` waits on ``q``'s diagonal."""
    x = eqn.invars[0]
    q, r = eqn.outvars
    shape = tuple(x.aval.shape)
    batch, (m, n) = shape[:-2], shape[-2:]
    k, qc = min(m, n), q.aval.shape[-1]
    tall = m > n
    work = q if tall else r
    for v in (q, r):
        w.allocate(v)
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0 or k == 0:
        return
    dtype = x.aval.dtype

    def body():
        b = _at("t_flat", batch)
        W = lambda i, j: w.read(work, [*b, i, j])  # noqa: E731,N806
        Q = lambda i, j: w.read(q, [*b, i, j])  # noqa: E731,N806
        R = lambda i, j: w.read(r, [*b, i, j])  # noqa: E731,N806
        zero, one = literal(0, dtype), literal(1, dtype)
        emit = w.emit
        emit(f"for i_q in range({m}):", w.text(eqn))
        emit(f"    for c_q in range({n}):")
        emit(f"        {W('i_q', 'c_q')} = {w.read(x, [*b, 'i_q', 'c_q'])}")
        emit(f"for j_q in range({k}):  # reflector j_q: zeros below the diagonal of column j_q")
        emit(f"    alpha_v = {W('j_q', 'j_q')}")
        emit(f"    norm2_v = {zero}")
        emit(f"    for i_q in range(j_q + 1, {m}):")
        emit(f"        norm2_v += {W('i_q', 'j_q')} * {W('i_q', 'j_q')}")
        emit(f"    tau_v = {zero}")
        emit(f"    if norm2_v != {zero}:")
        emit("        beta_v = -math.copysign(math.sqrt(alpha_v * alpha_v + norm2_v), alpha_v)")
        emit("        tau_v = (beta_v - alpha_v) / beta_v")
        emit(f"        scale_v = {one} / (alpha_v - beta_v)")
        emit(f"        for i_q in range(j_q + 1, {m}):")
        emit(f"            {W('i_q', 'j_q')} = {W('i_q', 'j_q')} * scale_v")
        emit(f"        {W('j_q', 'j_q')} = beta_v")
        emit(f"        for c_q in range(j_q + 1, {n}):  # H = I - tau v v^T on the columns after")
        emit(f"            dot_v = {W('j_q', 'c_q')}")
        emit(f"            for i_q in range(j_q + 1, {m}):")
        emit(f"                dot_v += {W('i_q', 'j_q')} * {W('i_q', 'c_q')}")
        emit("            dot_v *= tau_v")
        emit(f"            {W('j_q', 'c_q')} -= dot_v")
        emit(f"            for i_q in range(j_q + 1, {m}):")
        emit(f"                {W('i_q', 'c_q')} -= dot_v * {W('i_q', 'j_q')}")
        if tall:  # row j_q of r is final: copy it out; tau takes its place on q's diagonal
            emit(f"    for c_q in range({n}):")
            emit(f"        {R('j_q', 'c_q')} = {W('j_q', 'c_q')} if c_q >= j_q else {zero}")
        else:  # the reflector's vector goes to q, r keeps zeros below its diagonal
            emit(f"    for i_q in range(j_q + 1, {m}):")
            emit(f"        {Q('i_q', 'j_q')} = {W('i_q', 'j_q')}")
            emit(f"        {W('i_q', 'j_q')} = {zero}")
        emit(f"    {Q('j_q', 'j_q')} = tau_v")
        if tall and r.aval.shape[-2] > n:  # full_matrices: r's rows below n are zeros
            emit(f"for i_q in range({n}, {r.aval.shape[-2]}):")
            emit(f"    for c_q in range({n}):")
            emit(f"        {R('i_q', 'c_q')} = {zero}")
        emit(f"for c_q in range({k}, {qc}):  # q's columns past the reflectors: the identity's")
        emit(f"    for i_q in range({m}):")
        emit(f"        {Q('i_q', 'c_q')} = {one} if i_q == c_q else {zero}")
        emit(f"for j_q in range({k} - 1, -1, -1):  # q = H_0 H_1 ... applied backwards (org2r)")
        emit(f"    tau_v = {Q('j_q', 'j_q')}")
        emit(f"    {Q('j_q', 'j_q')} = {one}")
        emit(f"    for c_q in range(j_q + 1, {qc}):")
        emit(f"        dot_v = {zero}")
        emit(f"        for i_q in range(j_q, {m}):")
        emit(f"            dot_v += {Q('i_q', 'j_q')} * {Q('i_q', 'c_q')}")
        emit("        dot_v *= tau_v")
        emit(f"        for i_q in range(j_q, {m}):")
        emit(f"            {Q('i_q', 'c_q')} -= dot_v * {Q('i_q', 'j_q')}")
        emit(f"    for i_q in range(j_q + 1, {m}):")
        emit(f"        {Q('i_q', 'j_q')} = -tau_v * {Q('i_q', 'j_q')}")
        emit(f"    {Q('j_q', 'j_q')} = {one} - tau_v")
        emit("    for i_q in range(j_q):")
        emit(f"        {Q('i_q', 'j_q')} = {zero}")
    _grid_kernel(w, "qr: a matrix per thread, Householder reflectors", count, [x, q, r], body)


register(lax.linalg.qr_p, _qr, "kernel")
register(lax.linalg.lu_p, _lu, "kernel")
register(lax.linalg.lu_pivots_to_permutation_p, _lu_pivots_to_permutation, "kernel")
register(lax.linalg.cholesky_p, _cholesky, "kernel")
register(lax.linalg.triangular_solve_p, _triangular_solve, "kernel")


# =============================================================================
# Cumulative reductions: one thread per row, a running value along the axis
# =============================================================================
def _cumulative(kind_: str):
    """``cumsum``... along ``axis``: each thread takes rows (grid-stride) and walks
    each one sequentially, as the CPU's loop does (same order, same rounding)."""
    def rule(w, eqn) -> None:
        x, out = eqn.invars[0], eqn.outvars[0]
        dtype, shape = out.aval.dtype, tuple(out.aval.shape)
        if kind_ == "logsumexp" and dtype.kind != "f":
            raise NotImplementedError(f"cumlogsumexp of {dtype}")
        axis = eqn.params["axis"]
        n = shape[axis]
        w.allocate(out)
        rows_shape = [1 if d == axis else m for d, m in enumerate(shape)]
        rows = int(np.prod(rows_shape, dtype=np.int64))
        if n == 0 or rows == 0:
            return
        ctx = CudaScalarContext(eqn, w.helpers)
        combine = {"sum": CPU_LOWERINGS[lax.add_p].fn, "prod": CPU_LOWERINGS[lax.mul_p].fn,
                   "max": CPU_LOWERINGS[lax.max_p].fn, "min": CPU_LOWERINGS[lax.min_p].fn,
                   "logsumexp": lambda c, a, b: f"{c.helper('_logaddexp')}({a}, {b}, "
                                                f"{literal(np.log(2), c.out_dtype)})"}[kind_]
        first, pos = (f"{n - 1}", f"{n - 1} - k_i") if eqn.params["reverse"] else ("0", "k_i")

        def body():
            idx = _at("t_flat", rows_shape)
            at = lambda k: [k if d == axis else i for d, i in enumerate(idx)]  # noqa: E731
            w.emit(f"acc_v = {w.read(x, at(first))}", w.text(eqn))
            w.emit(f"{w.read(out, at(first))} = acc_v")
            w.emit(f"for k_i in range(1, {n}):")
            w.emit(f"    acc_v = {combine(ctx, 'acc_v', w.read(x, at(pos)))}")
            w.emit(f"    {w.read(out, at(pos))} = acc_v")
        params = ([x] if isinstance(x, Var) else []) + [out]
        _grid_kernel(w, f"{eqn.primitive.name}: one row per thread, sequentially", rows,
                     params, body)
    return rule


register(lax.cumsum_p, _cumulative("sum"), "kernel")
register(lax.cumprod_p, _cumulative("prod"), "kernel")
register(lax.cummax_p, _cumulative("max"), "kernel")
register(lax.cummin_p, _cumulative("min"), "kernel")
register(lax.cumlogsumexp_p, _cumulative("logsumexp"), "kernel")


# =============================================================================
# sort: one thread per row, an insertion sort in place in the outputs
# =============================================================================
def _sort(w, eqn) -> None:
    """``lax.sort`` along ``dimension``: each thread copies its rows into the
    outputs and sorts them there, all operands moved together, by the first
    ``num_keys`` compared in turn in XLA's order (NaNs last). Insertion sort is
    stable and needs no scratch memory; it is quadratic in the row length, a
    teaching kernel (a GPU library would merge-sort rows in shared memory)."""
    num_keys, axis = eqn.params["num_keys"], eqn.params["dimension"]
    xs, outs = eqn.invars, eqn.outvars
    if any(np.dtype(a.aval.dtype).kind == "c" for a in xs[:num_keys]):
        raise NotImplementedError("sort by complex keys")
    if any(isinstance(v, DropVar) for v in outs):
        raise NotImplementedError("sort with an unused output")
    shape = tuple(outs[0].aval.shape)
    n = shape[axis]
    for v in outs:
        w.allocate(v)
    rows_shape = [1 if d == axis else m for d, m in enumerate(shape)]
    rows = int(np.prod(rows_shape, dtype=np.int64))
    if rows == 0 or n == 0:
        return

    def body():
        idx = _at("t_flat", rows_shape)
        at = lambda k: [k if d == axis else i for d, i in enumerate(idx)]  # noqa: E731
        w.emit(f"for k_i in range({n}):  # the row, copied into the outputs", w.text(eqn))
        for x, v in zip(xs, outs):
            w.emit(f"    {w.read(v, at('k_i'))} = {w.read(x, at('k_i'))}")
        less = None  # key j decides unless tied: lexicographic, last key innermost
        for k in reversed(range(num_keys)):
            a, b = w.read(outs[k], at("j_i")), w.read(outs[k], at("j_i - 1"))
            before = (f"({a} < {b} or ({b} != {b} and {a} == {a}))")
            tied = f"({a} == {b} or ({a} != {a} and {b} != {b}))"
            less = before if less is None else f"({before} or ({tied} and {less}))"
        w.emit(f"for i_i in range(1, {n}):")
        w.emit("    j_i = i_i")
        w.emit(f"    while j_i > 0 and {less}:")
        for v in outs:
            a, b = w.read(v, at("j_i")), w.read(v, at("j_i - 1"))
            w.emit(f"        {a}, {b} = {b}, {a}")
        w.emit("        j_i -= 1")
    params = list(dict.fromkeys(a for a in xs if isinstance(a, Var))) + list(outs)
    _grid_kernel(w, "sort: one row per thread, insertion sort", rows, params, body)


register(lax.sort_p, _sort, "kernel")


def _top_k(w, eqn) -> None:
    """The ``k`` largest of each row along ``axis`` (IEEE totalOrder, ties by index),
    one row per thread: pick ``j`` is the best element after pick ``j - 1``."""
    x = eqn.invars[0]
    values, indices = eqn.outvars
    k, axis = eqn.params["k"], eqn.params.get("axis", len(x.aval.shape) - 1)
    shape = tuple(x.aval.shape)
    axis = axis % len(shape)
    n = shape[axis]
    for v in (values, indices):
        w.allocate(v)
    rows_shape = [1 if d == axis else m for d, m in enumerate(shape)]
    rows = int(np.prod(rows_shape, dtype=np.int64))
    if rows == 0 or k == 0:
        return
    if np.dtype(x.aval.dtype).kind == "f":
        greater = helpers.request(w.helpers, "_total_greater", eqn.primitive.name)
        gt = lambda a, b: f"{greater}({a}, {b})"  # noqa: E731
    else:
        gt = lambda a, b: f"{a} > {b}"  # noqa: E731

    def before(a, ai, b, bi):  # (a, ai) comes first in the result
        return f"({gt(a, b)} or (not {gt(b, a)} and {ai} < {bi}))"

    def body():
        idx = _at("t_flat", rows_shape)
        at = lambda a, j: w.read(a, [j if d == axis else i for d, i in enumerate(idx)])  # noqa
        w.emit("prev_i = -1  # the last pick: the next comes after it", w.text(eqn))
        w.emit(f"prev_v = {at(x, '0')}")
        w.emit(f"for j_k in range({k}):")
        w.emit("    best_i = -1")
        w.emit(f"    best_v = {at(x, '0')}")
        w.emit(f"    for i_k in range({n}):")
        w.emit(f"        v_k = {at(x, 'i_k')}")
        w.emit(f"        if (prev_i == -1 or {before('prev_v', 'prev_i', 'v_k', 'i_k')}) and "
               f"(best_i == -1 or {before('v_k', 'i_k', 'best_v', 'best_i')}):")
        w.emit("            best_i, best_v = i_k, v_k")
        w.emit(f"    {at(values, 'j_k')} = best_v")
        w.emit(f"    {at(indices, 'j_k')} = {cast(indices.aval.dtype, 'best_i')}")
        w.emit("    prev_i, prev_v = best_i, best_v")
    _grid_kernel(w, "top_k: one row per thread", rows, [x, values, indices], body)


register(lax.top_k_p, _top_k, "kernel")


# =============================================================================
# Chapter 12's callbacks: the host driver calls back into Python between kernels
# =============================================================================
def _host_call(w, eqn) -> None:
    """``debug.print``, ``debug.callback``, ``pure_callback``, ``io_callback``: a
    kernel cannot call Python, so the *driver* does, at this point of the
    program: it copies the operands back (waiting for the kernels before), runs
    the primitive's impl rule (the interpreter's own call), and copies the
    results to the device. Driver lines run in program order, so effects keep it."""
    avals = [a.aval for a in [*eqn.invars, *eqn.outvars]]
    if any(getattr(a.dtype, "extended", False) for a in avals):
        raise NotImplementedError(f"{eqn.primitive.name} of key values")
    k = len(w.host_eqns)
    w.host_eqns.append(eqn)
    args = ", ".join(["stream", *(w.driver_atom(a) for a in eqn.invars)])
    outs = [w.var(v) if not isinstance(v, DropVar) else "_" for v in eqn.outvars]
    call = f"host[{k}]({args})"
    w.drive(f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}" if outs else call,
            f"{eqn.primitive.name}: a call back into Python, between kernels")


def register_host_call_lowerings(*prims) -> None:
    """Chapter 12 calls this with its callback primitives (made after this chapter)."""
    for prim in prims:
        register(prim, _host_call, "host", complex=True)


# =============================================================================
# Chapter 13's threefry keys (registered by minijax.prng: register_key_lowerings).
# Each is a kernel (form "kernel": ``fn(w, eqn)``), one hash per thread and
# element, calling the CPU's own unrolled hash (a CUDA device function here),
# so the bits are the CPU's, which are JAX's.
# =============================================================================
_MASK = "0xFFFFFFFF"


def _counter(j: str) -> str:
    """The high and low words of counter ``j`` (an int64), as uint32."""
    return f"np.uint32(np.uint64({j}) >> np.uint64(32)), np.uint32({j} & {_MASK})"


def _random_bits(w, eqn) -> None:
    """Element ``j`` of key ``k``'s block: the hash of counter ``j``, its two words
    xor-ed (joined, for 64 bits)."""
    keys, out = eqn.invars[0], eqn.outvars[0]
    key_shape, shape = tuple(keys.aval.shape), tuple(eqn.params["shape"])
    n = int(np.prod(shape, dtype=np.int64))
    size = int(np.prod(key_shape, dtype=np.int64)) * n
    dtype, width = out.aval.dtype, eqn.params["bit_width"]
    hash_fn = helpers.request(w.helpers, "_threefry2x32", eqn.primitive.name)
    w.allocate(out)

    def body():
        w.emit(f"key_k, count_j = t_flat // {n}, t_flat % {n}", w.text(eqn))
        k = _at("key_k", key_shape)
        w.emit(f"word_1, word_2 = {hash_fn}({w.read(keys, [*k, '0'])}, "
               f"{w.read(keys, [*k, '1'])}, {_counter('count_j')})")
        bits = ("(np.uint64(word_1) << np.uint64(32)) | np.uint64(word_2)" if width == 64
                else cast(dtype, "word_1 ^ word_2"))
        w.emit(f"{w.read(out, _at('t_flat', key_shape + shape) or ['0'])} = {bits}")
    _grid_kernel(w, "random_bits: one threefry hash per element", size, [keys, out], body)


def _random_split(w, eqn) -> None:
    """Key ``j`` of key ``k``'s block: the hash of counter ``j`` (both words)."""
    keys, out = eqn.invars[0], eqn.outvars[0]
    key_shape, shape = tuple(keys.aval.shape), tuple(eqn.params["shape"])
    n = int(np.prod(shape, dtype=np.int64))
    size = int(np.prod(key_shape, dtype=np.int64)) * n
    hash_fn = helpers.request(w.helpers, "_threefry2x32", eqn.primitive.name)
    w.allocate(out)

    def body():
        w.emit(f"key_k, count_j = t_flat // {n}, t_flat % {n}", w.text(eqn))
        k, o = _at("key_k", key_shape), _at("t_flat", key_shape + shape)
        w.emit(f"{w.read(out, [*o, '0'])}, {w.read(out, [*o, '1'])} = {hash_fn}("
               f"{w.read(keys, [*k, '0'])}, {w.read(keys, [*k, '1'])}, {_counter('count_j')})")
    _grid_kernel(w, "random_split: one threefry hash per new key", size, [keys, out], body)


def _broadcast_at(out_idx, shape) -> list[str]:
    """NumPy broadcasting: trailing dims line up, size-1 dims read index 0."""
    own = out_idx[len(out_idx) - len(shape):] if shape else []
    return ["0" if n == 1 else i for n, i in zip(shape, own)]


def _random_fold_in(w, eqn) -> None:
    """The hash of the counter ``(0, msg)``; keys and messages broadcast."""
    keys, msgs = eqn.invars
    out = eqn.outvars[0]
    shape = tuple(out.aval.shape)
    size = int(np.prod(shape, dtype=np.int64))
    hash_fn = helpers.request(w.helpers, "_threefry2x32", eqn.primitive.name)
    w.allocate(out)

    def body():
        o = _at("t_flat", shape)
        k = _broadcast_at(o, tuple(keys.aval.shape))
        m = w.read(msgs, _broadcast_at(o, tuple(msgs.aval.shape)))
        w.emit(f"{w.read(out, [*o, '0'])}, {w.read(out, [*o, '1'])} = {hash_fn}("
               f"{w.read(keys, [*k, '0'])}, {w.read(keys, [*k, '1'])}, np.uint32(0), "
               f"np.uint32({m}))", w.text(eqn))
    params = [a for a in (keys, msgs) if isinstance(a, Var)] + [out]
    _grid_kernel(w, "random_fold_in: one threefry hash per key", size, params, body)


def _random_seed(w, eqn) -> None:
    """A seed's key data is (0, its low 32 bits): x64 is off, seeds have 32 bits."""
    seeds, out = eqn.invars[0], eqn.outvars[0]
    shape = tuple(seeds.aval.shape)
    w.allocate(out)

    def body():
        o = _at("t_flat", shape)
        w.emit(f"{w.read(out, [*o, '0'])} = np.uint32(0)", w.text(eqn))
        w.emit(f"{w.read(out, [*o, '1'])} = np.uint32(np.int64({w.read(seeds, o)}) & {_MASK})")
    params = ([seeds] if isinstance(seeds, Var) else []) + [out]
    _grid_kernel(w, "random_seed", int(np.prod(shape, dtype=np.int64)), params, body)


def _threefry2x32(w, eqn) -> None:
    """The raw hash, element by element over the broadcast shape."""
    out1, out2 = eqn.outvars
    shape = tuple(out1.aval.shape)
    hash_fn = helpers.request(w.helpers, "_threefry2x32", eqn.primitive.name)
    w.allocate(out1)
    w.allocate(out2)

    def body():
        o = _at("t_flat", shape)
        words = [w.read(a, _broadcast_at(o, tuple(a.aval.shape))) for a in eqn.invars]
        w.emit(f"{w.read(out1, o)}, {w.read(out2, o)} = {hash_fn}({', '.join(words)})",
               w.text(eqn))
    params = list(dict.fromkeys(a for a in eqn.invars if isinstance(a, Var))) + [out1, out2]
    _grid_kernel(w, "threefry2x32: one hash per element", int(np.prod(shape, dtype=np.int64)),
                 params, body)


def _key_data(eqn, x: str) -> str:
    """``random_wrap`` / ``random_unwrap``: keys *are* their key data on the device."""
    return x


def register_key_lowerings(*, random_seed, random_split, random_fold_in, random_bits,
                           random_wrap, random_unwrap, threefry2x32) -> None:
    """Chapter 13 calls this with its primitives (made after this chapter)."""
    register(random_seed, _random_seed, "kernel", bits=True, complex=True)
    register(random_split, _random_split, "kernel", bits=True, complex=True)
    register(random_fold_in, _random_fold_in, "kernel", bits=True, complex=True)
    register(random_bits, _random_bits, "kernel", bits=True, complex=True)
    register(random_wrap, _key_data, "driver", bits=True, complex=True)
    register(random_unwrap, _key_data, "driver", bits=True, complex=True)
    register(threefry2x32, _threefry2x32, "kernel")


# =============================================================================
# Nested calls: inlined by the planner
# =============================================================================
def _inlined(*_):
    raise AssertionError("inlined by the planner before lowering")


for _prim in (jit_p, remat_p, name_p, custom_jvp_call_p, custom_vjp_call_p):
    register(_prim, _inlined, "inline")


# =============================================================================
# fft: on the host, between kernels
# =============================================================================
# No FFT kernel yet (a real GPU would call cuFFT): the driver copies the operand back,
# runs ``fft``'s impl rule (NumPy's pocketfft, as the CPU target does) and copies the
# result to the device, as it does for chapter 12's callbacks (form "host").
register(lax.fft_p, _host_call, "host", complex=True)
# Primitives lowered as the jaxpr of a Python function (registered by later chapters)
# =============================================================================
def register_lower_fun_lowering(prim) -> None:
    """As the CPU's :func:`~minijax.backends.cpu.rules.register_lower_fun_lowering`:
    the planner inlines the jaxpr of the primitive's function (``random_gamma``),
    for CUDA as for the CPU."""
    register(prim, CPU_LOWERINGS[prim].fn, "expand")


register_lower_fun_lowering(lax.optimization_barrier_p)  # the identity (see plan.passes)

# =============================================================================
# eig (not symmetric): on the host, between kernels (as fft): geev through SciPy
# =============================================================================
register(lax.linalg.eig_p, _host_call, "host", complex=True)
