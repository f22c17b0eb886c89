"""Chapter 08 — ``lax.reduce_window`` with any computation: a primitive holding a jaxpr.

Chapter 00's windowed reductions cover a sum, a max and a min. Any other
``computation`` (``lax.mul``, a ``logaddexp``, a function of several operands
reduced together) is traced once, on scalars, to a jaxpr, as a loop body is:
``reduce_window[jaxpr={ lambda ; a b. let c = mul a b in (c,) } consts=()]``.
The primitive folds each window with it, from ``init_value``, element by
element in row-major order; padding and the holes of a dilation are skipped
(XLA's loops test each position and reduce only the elements that exist). Several operands (a tree) are reduced together:
the computation takes two trees of scalars and returns one.

Its jvp reduces (primal, tangent) pairs together with the jvp of the
computation, as JAX's does; ``vmap`` adds a window axis of size one. The
CPU target writes the computation inline in the window loops; the CUDA target
runs the impl on the host between kernels.
"""
from __future__ import annotations

import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.core import eval_trace, get_aval, set_current_trace
from minijax.interpreters.ad import Zero, instantiate_zeros, jvp_rules
from minijax.interpreters.batching import batch_size, batching_rules, bdim_at_front, not_mapped
from minijax.jaxpr import ClosedJaxpr, eval_jaxpr
from minijax.lax.windowed import (_window_shape_rule, reduce_window_shape_tuple,
                                  register_generic_reduce_window, windows)
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import tree_flatten, tree_unflatten

from minijax.control_flow.common import batch_jaxpr, jvp_jaxpr, split_list, trace_to_subjaxpr

__all__ = ["reduce_window_p"]

reduce_window_p = Primitive("reduce_window", multiple_results=True)


def _generic_reduce_window(operand, init_value, computation, **params):
    """``lax.reduce_window`` for a computation that is not a sum, max or min."""
    flat_operands, operand_tree = tree_flatten(operand)
    flat_inits, init_tree = tree_flatten(init_value)
    if operand_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{operand_tree} vs. {init_tree}")
    if len(flat_operands) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values:  "
                         f"{len(flat_operands)} vs. {len(flat_inits)}")
    if not flat_operands:
        raise ValueError("reduce_window must have at least one operand.")
    avals = [ShapedArray((), get_aval(v).dtype) for v in flat_inits]
    closed, consts, out_tree = trace_to_subjaxpr(computation, (init_value, init_value),
                                                 avals + avals)
    if out_tree != operand_tree:
        raise ValueError("reduce_window output must have the same tree structure as the "
                         f"operands {operand_tree} vs. {out_tree}")
    outs = reduce_window_p.bind(*flat_operands, *flat_inits, jaxpr=closed.jaxpr,
                                consts=tuple(consts), **params)
    return tree_unflatten(out_tree, outs)


register_generic_reduce_window(_generic_reduce_window)


def _abstract_eval(*avals, jaxpr, consts, window_dimensions, window_strides, padding,
                   base_dilation, window_dilation):
    operands, inits = split_list(avals, [len(avals) // 2])
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in operands]} and init_value "
                        f"dtypes {[i.dtype for i in inits]}.")
    if any(i.shape for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    shape = _window_shape_rule(operands[0], window_dimensions=window_dimensions,
                               window_strides=window_strides, padding=padding,
                               base_dilation=base_dilation, window_dilation=window_dilation)
    return [ShapedArray(shape, o.dtype) for o in operands]


def _impl(*args, jaxpr, consts, window_dimensions, window_strides, padding, base_dilation,
          window_dilation):
    """Fold the windows element by element (row-major), every output at once: the
    computation (written for scalars) is batched over all output positions."""
    operands, inits = split_list([np.asarray(a) for a in args], [len(args) // 2])
    views = [windows(o, i, window_dimensions, window_strides, padding, base_dilation,
                     window_dilation) for o, i in zip(operands, inits)]
    shape = reduce_window_shape_tuple(operands[0].shape, window_dimensions, window_strides,
                                      padding, base_dilation, window_dilation)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return [np.full(shape, i) for i in inits]
    n, nconsts = len(inits), len(consts)
    batched, _ = batch_jaxpr(ClosedJaxpr(jaxpr, []), size,
                             [not_mapped] * nconsts + [0] * (2 * n), [0] * n, [True] * n)
    real = windows(np.ones(operands[0].shape, bool), False, window_dimensions, window_strides,
                   padding, base_dilation, window_dilation)
    accs = [np.full(size, i) for i in inits]
    with set_current_trace(eval_trace):
        for k in np.ndindex(*window_dimensions):
            xs = [v[(Ellipsis,) + k].reshape(size) for v in views]
            outs = eval_jaxpr(batched.jaxpr, batched.consts, *consts, *accs, *xs)
            keep = real[(Ellipsis,) + k].reshape(size)  # padding and holes are skipped, as XLA does
            accs = [np.where(keep, np.asarray(a, dtype=i.dtype), acc)
                    for a, i, acc in zip(outs, inits, accs)]
    return [a.reshape(shape) for a in accs]


def _jvp(primals, tangents, *, jaxpr, consts, **params):
    """Reduce (primal, tangent) pairs together, folding them with the computation's jvp."""
    n = len(primals) // 2
    operands, inits = split_list(primals, [n])
    op_tangents, init_tangents = split_list(tangents, [n])
    if not all(type(t) is Zero for t in init_tangents):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    closed = ClosedJaxpr(jaxpr, [])
    nconsts = len(consts)
    jvp_closed, _ = jvp_jaxpr(closed, [False] * nconsts + [True] * (2 * n), [True] * n)
    op_tangents = [instantiate_zeros(t) for t in op_tangents]
    zero_inits = [np.zeros((), get_aval(i).dtype) for i in inits]

    def pairs(left, right):  # (primals and tangents, twice) -> the jvp's order
        pl, tl = split_list(left, [n])
        pr, tr = split_list(right, [n])
        return eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *consts, *pl, *pr, *tl, *tr)

    outs = _generic_reduce_window([*operands, *op_tangents], [*inits, *zero_inits],
                                  lambda a, b: list(pairs(a, b)), **params)
    return outs[:n], outs[n:]


def _batching(args, dims, *, jaxpr, consts, window_dimensions, window_strides, padding,
              base_dilation, window_dilation):
    n = len(args) // 2
    if any(d is not not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    size = batch_size(args, dims)
    operands = [bdim_at_front(x, d, size) for x, d in zip(args[:n], dims[:n])]
    outs = reduce_window_p.bind(*operands, *args[n:], jaxpr=jaxpr, consts=consts,
                                window_dimensions=(1,) + tuple(window_dimensions),
                                window_strides=(1,) + tuple(window_strides),
                                padding=((0, 0),) + tuple(padding),
                                base_dilation=(1,) + tuple(base_dilation),
                                window_dilation=(1,) + tuple(window_dilation))
    return outs, [0] * n


impl_rules[reduce_window_p] = _impl
abstract_eval_rules[reduce_window_p] = _abstract_eval
jvp_rules[reduce_window_p] = _jvp
batching_rules[reduce_window_p] = _batching
