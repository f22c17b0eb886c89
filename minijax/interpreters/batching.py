"""Chapter 04 — vectorization: ``vmap`` as an interpreter that adds a batch dimension.

``vmap(f)(xs)`` computes ``stack([f(x) for x in xs])`` without the loop. It
runs ``f`` *once*, on :class:`BatchTracer` s: each tracer holds the whole
batch of values ``val`` and remembers which of ``val``'s axes is the batch
axis (``batch_dim``). To ``f`` the tracer looks like one example: its aval is
``val``'s aval with the batch axis removed.

Every primitive that ``f`` binds on such tracers reaches
:meth:`BatchTrace.process_primitive`, which looks up the primitive's
**batching rule** in :data:`batching_rules`::

    rule(batched_args, batch_dims, **params) -> (out, out_batch_dim)

A rule receives the underlying batched values and where each one's batch
axis is (:data:`not_mapped` for an argument shared by all examples) and
computes the batched result *with the same primitives*, one level up: for
``sin`` that is ``sin`` itself (the batch axis goes along for the ride); for
``reduce_sum`` it is ``reduce_sum`` over shifted axes; for ``dot_general``
it is a ``dot_general`` with one more batch dimension. A good rule moves the
batch axis only when it must: a transpose is work, and often the rule can
instead say *where* the batch axis ended up.

The rules live in :mod:`minijax.interpreters.batching_rules`, built with the
helpers of this module (:func:`defvectorized`, :func:`defbroadcasting`,
:func:`defreducer`) as in JAX; :func:`defelementwise` picks between the first
two, so that every primitive created ``kind="elementwise"`` gets its rule
without being listed.

The rest of the file is ``vmap``'s API: ``in_axes``/``out_axes`` are pytree
*prefixes* of the arguments and outputs, the batch size is read from the
mapped arguments (or ``axis_size``), and mistakes get JAX's messages.
"""
from __future__ import annotations

import collections
import functools
import inspect
import os
import sys
from typing import Callable

import numpy as np

from minijax import lax
from minijax.abstract_arrays import ShapedArray
from minijax.core import Trace, Tracer, find_cur_trace, get_aval, set_current_trace
from minijax.lax.base import canonicalize_axis
from minijax.primitives import RuleTable, register_rule_table
from minijax.tree_util import (keystr, prefix_errors, tree_flatten, tree_flatten_with_path,
                               tree_structure, tree_unflatten)

__all__ = ["vmap", "push_basis", "BatchTrace", "BatchTracer", "not_mapped", "batching_rules",
           "defvectorized", "defbroadcasting", "defelementwise", "defreducer", "moveaxis",
           "bdim_at_front", "broadcast", "matchaxis"]

#: The batch dimension of a value that is the same for every example. JAX
#: spells it ``None`` too, which is why ``in_axes=None`` means "not mapped".
not_mapped = None

#: primitive -> rule(batched_args, batch_dims, **params) -> (out, out_bdim);
#: for a ``multiple_results`` primitive both are lists.
batching_rules: dict = register_rule_table("batching", RuleTable())


# =============================================================================
# The tracer and the trace
# =============================================================================
class BatchTracer(Tracer):
    """One example's view of a batch: ``val`` holds all of them along ``batch_dim``."""
    __slots__ = ("val", "batch_dim", "source_info")

    def __init__(self, trace: "BatchTrace", val, batch_dim):
        super().__init__(trace)
        self.val = val
        self.batch_dim = batch_dim
        self.source_info = _user_source()

    @property
    def aval(self):
        aval = get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return aval.update(shape=tuple(shape))

    def to_concrete_value(self):
        """Only an unbatched value is one concrete array; a batch is many."""
        if self.batch_dim is not not_mapped:
            return None
        val = self.val
        return val.to_concrete_value() if isinstance(val, Tracer) else val

    def _short_repr(self) -> str:
        return f"VmapTracer(aval={self.aval.str_short()}, batched={get_aval(self.val).str_short()})"

    __repr__ = _short_repr

    def _origin_msg(self) -> str:
        """For error messages: the line of user code that made this tracer."""
        if self.source_info is None:
            return ""
        return (f"\nThis BatchTracer with object id {id(self)} was created on line:\n"
                f"  {_summarize(self.source_info)}")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_source():
    """(code, instruction, line) of the innermost frame outside minijax, or None."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return None if frame is None else (frame.f_code, frame.f_lasti, frame.f_lineno)


def _summarize(source_info) -> str:
    """``file:line:column (function)``, as JAX prints a source location."""
    code, lasti, line = source_info
    column = 0
    if hasattr(code, "co_positions"):  # Python >= 3.11: columns of each instruction
        start_line, _, start_col, _ = list(code.co_positions())[lasti // 2]
        line, column = start_line or line, start_col or 0
    return f"{code.co_filename}:{line}:{column} ({getattr(code, 'co_qualname', code.co_name)})"


class BatchTrace(Trace):
    """The interpreter of ``vmap``: run each primitive's batching rule on batched values.

    ``axis_size`` is the number of examples; ``axis_name`` names the mapped
    axis for collectives (minijax has none yet, but the name is kept, and it
    changes one error message, as in JAX).
    """

    def __init__(self, parent: Trace, axis_size: int, axis_name=None, spmd_axis_name=None,
                 tag=None):
        self.parent = parent
        self.axis_size = axis_size
        self.axis_name = axis_name
        self.spmd_axis_name = spmd_axis_name
        #: Which ``vmap`` this trace belongs to. A trace made later to batch a
        #: function *for* the same ``vmap`` (chapter 07 batches a custom rule when
        #: it is finally run) shares its tag, so it also treats that vmap's
        #: tracers, closed over by the function, as batched.
        self.tag = self if tag is None else tag

    def to_batch_info(self, x):
        """``(value, batch_dim)`` of an argument: another vmap's value is unbatched here."""
        if isinstance(x, BatchTracer) and x._trace.tag is self.tag:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, args, params):
        vals, dims = zip(*map(self.to_batch_info, args)) if args else ((), ())
        with set_current_trace(self.parent):
            if all(d is not_mapped for d in dims):  # nothing batched: no rule needed
                return primitive.bind(*vals, **params)
            rule = batching_rules.get(primitive)
            if rule is None:
                raise NotImplementedError(f"Batching rule for '{primitive}' not implemented")
            out, out_dim = rule(list(vals), list(dims), **params)
        if primitive.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim)]
        return self.wrap(out, out_dim)

    def wrap(self, val, batch_dim):
        """A tracer for a rule's result; an unbatched result needs none."""
        return val if batch_dim is not_mapped else BatchTracer(self, val, batch_dim)


# =============================================================================
# Moving batch axes around (the vocabulary of batching rules)
# =============================================================================
def _ndim(x) -> int:
    return get_aval(x).ndim


def moveaxis(x, src: int, dst: int):
    """``x`` with its axis ``src`` moved to position ``dst`` (one ``transpose``)."""
    if src == dst:
        return x
    ndim = _ndim(x)
    src, dst = canonicalize_axis(src, ndim), canonicalize_axis(dst, ndim)
    perm = [d for d in range(ndim) if d != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def broadcast(x, size: int, axis: int):
    """``x`` with a new axis of ``size`` at ``axis`` (each example gets the same value)."""
    shape = list(get_aval(x).shape)
    shape.insert(axis, size)
    dims = tuple(np.delete(np.arange(len(shape)), axis))  # np.int64s, printed as JAX prints them
    return lax.broadcast_in_dim(x, shape, dims)


def bdim_at_front(x, bdim, size: int):
    """``x`` with its batch axis first: moved there, or created by broadcasting."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def batch_size(args, dims) -> int:
    """The batch size, read off the first batched argument."""
    return next(get_aval(x).shape[d] for x, d in zip(args, dims) if d is not not_mapped)


class SpecMatchError(Exception):
    """An output batched along ``src`` was asked for with ``out_axes`` = ``dst`` (None)."""

    def __init__(self, src, dst):
        super().__init__(src, dst)
        self.src, self.dst = src, dst


def matchaxis(size: int, src, dst, x):
    """Move (or create, by broadcasting) ``x``'s batch axis from ``src`` to ``dst``."""
    if src == dst:
        return x
    if src is not_mapped:
        return broadcast(x, size, canonicalize_axis(dst, _ndim(x) + 1))
    if dst is not_mapped:
        raise SpecMatchError(src, dst)
    return moveaxis(x, src, dst)


# =============================================================================
# Rule builders for whole families of primitives
# =============================================================================
def defvectorized(prim) -> None:
    """A one-operand elementwise primitive: each element is its own example."""
    batching_rules[prim] = functools.partial(_vectorized_rule, prim)


def _vectorized_rule(prim, args, dims, **params):
    (x,), (bdim,) = args, dims
    return prim.bind(x, **params), bdim


def defbroadcasting(prim) -> None:
    """An n-ary elementwise primitive (``add``, ``lt``...): line the batch axes up."""
    batching_rules[prim] = functools.partial(_broadcasting_rule, prim)


def _broadcasting_rule(prim, args, dims, **params):
    """Batch an elementwise op, whose operands may also be rank-0 (lax broadcasts those).

    When every non-scalar operand has the same shape and the same batch axis
    the primitive already does the right thing: no data moves. Otherwise the
    batch axes go to the front (an unbatched operand gets a size-1 front axis,
    which the op broadcasts), and a batched *scalar* becomes ``(B, 1, ..., 1)``.
    """
    shape, bdim = next((get_aval(x).shape, d) for x, d in zip(args, dims)
                       if d is not not_mapped)
    if all(get_aval(x).shape == shape and d == bdim for x, d in zip(args, dims) if _ndim(x)):
        return prim.bind(*args, **params), bdim
    args = [bdim_at_front(x, d, 1) if _ndim(x) else x for x, d in zip(args, dims)]
    rank = max(_ndim(x) for x in args)
    args = [x if d is not_mapped or _ndim(x) == rank
            else lax.expand_dims(x, tuple(range(_ndim(x), rank)))
            for x, d in zip(args, dims)]
    return prim.bind(*args, **params), 0


def defelementwise(prim) -> None:
    """Any elementwise primitive: :func:`defvectorized`'s rule when applied to one
    operand (``sin``), :func:`defbroadcasting`'s when applied to several (``add``)."""
    batching_rules[prim] = functools.partial(_elementwise_rule, prim)


def _elementwise_rule(prim, args, dims, **params):
    if len(args) == 1:
        return _vectorized_rule(prim, args, dims, **params)
    return _broadcasting_rule(prim, args, dims, **params)


def defreducer(prim) -> None:
    """A reduction over ``axes`` (``reduce_sum``, ``argmax``...): skip over the batch axis."""
    batching_rules[prim] = functools.partial(_reducer_rule, prim)


def _reducer_rule(prim, args, dims, *, axes, **params):
    (x,), (bdim,) = args, dims
    # (NumPy arithmetic, as JAX's rule: its jaxprs print the axes as np.int64)
    axes = tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)))
    out_bdim = bdim - sum(int(a) < bdim for a in axes)  # reduced axes before it disappear
    return prim.bind(x, axes=axes, **params), out_bdim


# =============================================================================
# vmap
# =============================================================================
def vmap(fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None) -> Callable:
    """Vectorize ``fun`` over a new leading (or ``in_axes``) axis of its arguments.

    ``vmap(f)(xs)`` equals ``stack([f(x) for x in xs])`` but runs ``f`` once,
    on batched values. ``in_axes`` says which axis of each argument is mapped:
    an int for all of them, or a tuple with one entry per positional argument,
    each entry an int, ``None`` (not mapped: every example sees the same
    value) or a pytree of those matching that argument. Keyword arguments are
    always mapped over axis 0. ``out_axes`` says where the batch axis goes in
    each output (``None`` only for outputs that do not depend on the batch).
    ``axis_size`` gives the batch size when no argument is mapped.

    >>> import minijax.numpy as jnp
    >>> vmap(jnp.dot, in_axes=(0, None))(jnp.ones((3, 2)), jnp.ones(2))
    Array([2., 2., 2.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # JAX treats a list in_axes as a tuple
    _check_axis_specs(in_axes, out_axes)

    @functools.wraps(fun)
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                "the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        args_flat, in_tree = tree_flatten((args, kwargs))
        in_axes_flat = flatten_axes("vmap in_axes", in_tree, (in_axes, 0), kws=True)
        for x, d in zip(args_flat, in_axes_flat):
            if d is not None:
                _check_jax_type(x)
        size = _mapped_axis_size(fun, in_tree, args_flat, in_axes_flat, axis_size)
        trace = BatchTrace(find_cur_trace(), size, axis_name, spmd_axis_name)
        in_vals = [_to_batched(trace, x, d) for x, d in zip(args_flat, in_axes_flat)]
        py_args, py_kwargs = tree_unflatten(in_tree, in_vals)
        with set_current_trace(trace):
            out = fun(*py_args, **py_kwargs)
        out_flat, out_tree = tree_flatten(out)
        out_axes_flat = flatten_axes("vmap out_axes", out_tree, out_axes)
        with set_current_trace(trace.parent):
            outs = [_from_batched(trace, out_tree, out_axes_flat, i, x, d)
                    for i, (x, d) in enumerate(zip(out_flat, out_axes_flat))]
        trace.invalidate()
        return tree_unflatten(out_tree, outs)

    name = getattr(fun, "__name__", getattr(getattr(fun, "func", None), "__name__",
                                            "<unnamed function>"))
    vmap_f.__doc__ = (f"Vectorized version of {name}. Takes similar arguments as {name} but "
                      f"with additional array axes over which {name} is mapped.")
    if fun.__doc__:
        vmap_f.__doc__ += f"\n\nOriginal documentation:\n\n{fun.__doc__}"
    return vmap_f


def batched_aval(aval: ShapedArray, size: int, dim) -> ShapedArray:
    """``aval`` with a batch axis of ``size`` inserted at ``dim`` (unchanged if not mapped)."""
    if dim is not_mapped:
        return aval
    shape = list(aval.shape)
    shape.insert(dim, size)
    return aval.update(shape=tuple(shape))


def push_basis(pushfwd: Callable, basis):
    """All of ``jacfwd``'s columns at once: one ``jvp``, vmapped over the basis vectors.

    ``pushfwd(tangent_leaves) -> (y_leaves, tangent_out_leaves, aux)`` is one
    forward-mode pass; each leaf of ``basis`` stacks the tangents to push along
    axis 0. The primal outputs and ``aux`` do not depend on the tangent, so
    they come out unbatched (``out_axes=None``); the Jacobian columns go last.
    Chapter 02's ``jacfwd`` runs a Python loop until this is installed with
    ``minijax.interpreters.ad.set_push_basis(push_basis)``.
    """
    return vmap(pushfwd, out_axes=(None, -1, None))(basis)


def _check_axis_specs(in_axes, out_axes) -> None:
    """JAX's TypeErrors for in_axes/out_axes that are not ints, None or trees of them."""
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                        "to the positional arguments passed to the function, but got "
                        f"{in_axes}.")
    for name, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        leaves, _ = tree_flatten(spec, is_leaf=lambda x: x is None)
        if not all(leaf is None or type(leaf) is int for leaf in leaves):
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")


def _to_batched(trace: BatchTrace, x, spec):
    """The value ``fun`` sees for one argument leaf: a tracer if it is mapped."""
    if spec is None:
        return x
    return BatchTracer(trace, x, canonicalize_axis(spec, get_aval(x).ndim))


def _check_jax_type(x) -> None:
    try:
        get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def _from_batched(trace: BatchTrace, out_tree, out_axes_flat, i, x, dst):
    """Output leaf ``i`` with its batch axis where ``out_axes`` asks."""
    try:
        get_aval(x)
    except TypeError as err:
        raise TypeError(f"Output from batched function {x!r} with type {type(x)} is not a "
                        "valid JAX type") from err
    val, src = trace.to_batch_info(x)
    try:
        return matchaxis(trace.axis_size, src, dst, val)
    except SpecMatchError as err:
        if trace.axis_name is not None:
            raise ValueError(f"vmap has mapped output (axis_name={trace.axis_name}) but "
                             f"out_axes is {dst}") from None
        # JAX names the place by re-flattening out_axes with None as a leaf.
        full = tree_unflatten(out_tree, out_axes_flat)
        path, _ = tree_flatten_with_path(full, is_leaf=lambda a: a is None)[0][i]
        raise ValueError(f"at vmap out_axes{keystr(path)}, got axis spec {err.dst} but "
                         f"output was batched on axis {err.src}") from None


# --- the batch size ---------------------------------------------------------------
def _mapped_axis_size(fun, in_tree, vals, dims, axis_size):
    """The one size of all mapped axes (and ``axis_size``), or JAX's ValueError."""
    if not vals:
        if axis_size is not None:
            return axis_size
        args, kwargs = tree_unflatten(in_tree, vals)
        raise ValueError("vmap wrapped function must be passed at least one argument "
                         "containing an array or axis_size must be specified, got empty "
                         f"*args={args} and **kwargs={kwargs}")
    mapped_sizes = [None if d is None else _axis_size(x, d) for x, d in zip(vals, dims)]
    sizes = {s for s in mapped_sizes if s is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if len(sizes) == 1:
        return sizes.pop()
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes or "
                         "axis_size must be specified")
    raise ValueError(_inconsistent_sizes_message(fun, in_tree, vals, dims, mapped_sizes,
                                                 axis_size))


def _axis_size(x, axis: int):
    shape = get_aval(x).shape
    if -len(shape) <= axis < len(shape):
        return shape[axis]
    min_rank = axis + 1 if axis >= 0 else -axis
    raise ValueError(f"vmap was requested to map its argument along axis {axis}, which "
                     f"implies that its rank should be at least {min_rank}, but is only "
                     f"{len(shape)} (its shape is {shape})")


def _inconsistent_sizes_message(fun, in_tree, vals, dims, mapped_sizes, axis_size) -> str:
    """List each size with one argument that has it, most common size first."""
    args, kwargs = tree_unflatten(in_tree, vals)
    names = _leaf_descriptions(fun, args, kwargs)
    counts = collections.Counter(s for s in mapped_sizes if s is not None).most_common()
    lines = ["vmap got inconsistent sizes for array axes to be mapped:"]
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size};")
    for k, (size, count) in enumerate(counts):
        i = mapped_sizes.index(size)
        example = f"axis {dims[i]} of {names[i]}"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {example};")
        else:
            which = "most" if k == 0 else "some"
            lines.append(f"  * {which} axes ({count} of them) had size {size}, e.g. {example};")
    return "\n".join(lines)[:-1]  # no semicolon after the last one


def _leaf_descriptions(fun, args, kwargs) -> list[str]:
    """``argument x['a'] of type float32[3]`` for each leaf, named as JAX names them."""
    try:
        params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        params = None

    def arg_name(path):
        i = path[0].idx
        if params is None or i >= len(params):
            return f"args{keystr(path)}"
        return f"argument {params[i]}{keystr(path[1:])}"

    def type_of(x):
        try:
            return get_aval(x).str_short()
        except TypeError:
            return "unknown"

    arg_leaves, _ = tree_flatten_with_path(args)
    kwarg_leaves, _ = tree_flatten_with_path(kwargs)
    return ([f"{arg_name(p)} of type {type_of(x)}" for p, x in arg_leaves]
            + [f"kwargs{keystr(p)} of type {type_of(x)}" for p, x in kwarg_leaves])


# --- in_axes / out_axes as pytree prefixes -------------------------------------------
class PytreeLeaf:
    """Stands for a leaf of the arguments when comparing tree structures."""

    def __repr__(self):
        return "pytree leaf"


def flatten_axes(name: str, treedef, axis_tree, *, kws: bool = False) -> list:
    """One axis per leaf of ``treedef``, from ``axis_tree``, a *prefix* of that tree.

    A leaf of ``axis_tree`` (an int or None) applies to every leaf of the
    subtree at its place: ``in_axes=(0, None)`` maps all of the first
    argument's leaves along 0 and none of the second's.
    """
    proxy = tree_unflatten(treedef, [PytreeLeaf() for _ in range(treedef.num_leaves)])
    axes, axes_treedef = tree_flatten(axis_tree, is_leaf=lambda x: x is None)
    try:
        subtrees = axes_treedef.flatten_up_to(proxy)
    except (ValueError, TypeError):
        if kws:  # the kwargs part (axis 0) always fits; report on the positional args
            axis_tree, proxy = axis_tree[0], proxy[0]
        errors = prefix_errors(axis_tree, proxy)
        details = "\n  ".join(err(name).args[0] for err in errors)
        raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                         f"value; \n  Mismatch details ({len(errors)} found):\n  "
                         f"{details}") from None
    return [ax for ax, sub in zip(axes, subtrees) for _ in range(tree_structure(sub).num_leaves)]


# The rules use this module's helpers, so they live in their own module, and
# importing vmap brings them in.
from minijax.interpreters import batching_rules as _rules_module  # noqa: E402,F401

# Chapter 04 registers into chapter 02: jacfwd pushes all basis vectors at once.
from minijax.interpreters import ad as _ad  # noqa: E402

_ad.set_push_basis(push_basis)
