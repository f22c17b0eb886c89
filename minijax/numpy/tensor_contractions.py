"""Chapter 00 — ``jnp`` products of arrays: ``dot``, ``matmul``, ``einsum`` and friends.

Every one of them ends in the single lax primitive ``dot_general``, whose
``dimension_numbers`` say which axes of each operand are *contracted*
(summed over in pairs) and which are *batch* axes (matched in pairs and
kept). The output holds the batch axes, then the left operand's free axes,
then the right's. What the functions here add is the bookkeeping NumPy users
expect: ``matmul`` broadcasts batch axes and treats 1-d operands as vectors;
``einsum`` turns subscripts into reductions, diagonals, ``dot_general`` and a
final ``transpose``.

As in JAX the operands keep their dtypes: the promoted type is passed to
``dot_general`` as ``preferred_element_type``, and a product of two Python
scalars is weakly typed.
"""
from __future__ import annotations

import string
from collections import Counter


import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.numpy import reductions, ufuncs
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, promote_dtypes
from minijax.numpy.util import jnp_jit

__all__ = ["dot", "matmul", "vdot", "inner", "outer", "tensordot", "einsum", "kron", "trace"]


def _shape(x) -> tuple[int, ...]:
    return get_aval(x).shape


def _result_type(*args, preferred_element_type=None):
    """The output dtype and weak type of a product (JAX's rule)."""
    if preferred_element_type is None:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    return dtypes.canonicalize_dtype(dtypes.dtype(preferred_element_type)), False


def _dot_general(lhs, rhs, contracting, batch, precision, preferred):
    return lax.dot_general(lhs, rhs, (tuple(map(tuple, contracting)), tuple(map(tuple, batch))),
                           precision=precision, preferred_element_type=preferred)


def _finish(x, dtype, weak):
    return lax._convert_element_type(x, dtype, weak)


def _ravel(x):
    shape = _shape(x)
    return x if len(shape) == 1 else lax.reshape(x, (int(np.prod(shape, dtype=np.int64)),))


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: contract the last axis of ``a`` with the second-to-last of ``b``.

    A scalar operand multiplies; a 1-d ``b`` contracts with its only axis.
    """
    check_arraylike("dot", a, b)
    a, b = asarray(a), asarray(b)
    dtype, weak = _result_type(a, b, preferred_element_type=preferred_element_type)
    a_ndim, b_ndim = len(_shape(a)), len(_shape(b))
    if a_ndim == 0 or b_ndim == 0:
        contract = ((), ())
    else:
        contract = ((a_ndim - 1,), (0 if b_ndim == 1 else b_ndim - 2,))
    out = _dot_general(a, b, contract, ((), ()), precision, dtype)
    return _finish(out, dtype, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product ``a @ b`` with NumPy's rules.

    The last two axes are matrices; leading axes are batch axes that
    broadcast against each other; a 1-d operand is a vector (its axis is
    contracted and does not appear in the result).
    """
    check_arraylike("matmul", a, b)
    a, b = asarray(a), asarray(b)
    for i, x in enumerate((a, b)):
        if len(_shape(x)) < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, "
                             f"but it has ndim {len(_shape(x))}")
    dtype, weak = _result_type(a, b, preferred_element_type=preferred_element_type)
    a_shape, b_shape = _shape(a), _shape(b)
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    a_batch = a_shape[:-2] if a_is_mat else ()
    b_batch = b_shape[:-2] if b_is_mat else ()
    nbatch = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (nbatch - len(a_batch)) + tuple(a_batch)
    b_batch = (None,) * (nbatch - len(b_batch)) + tuple(b_batch)

    # For each leading output axis decide where dot_general will produce it:
    # as a shared batch axis, as a free axis of a, or as a free axis of b.
    # Size-1 axes facing a larger one are squeezed (broadcasting).
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_bdims, b_bdims = [], []
    out_batch, out_a, out_b = [], [], []
    for i, (da, db) in enumerate(zip(a_batch, b_batch)):
        if da is None:
            out_b.append(i)
        elif db is None:
            out_a.append(i)
        elif da == 1 and db == 1:
            a_squeeze.append(len(out_batch) + len(out_a) + len(a_squeeze))
            b_squeeze.append(len(out_batch) + len(out_b) + len(b_squeeze))
            both_squeeze.append(i)
        elif da == 1:
            out_b.append(i)
            a_squeeze.append(len(out_batch) + len(out_a) + len(a_squeeze))
        elif db == 1:
            out_a.append(i)
            b_squeeze.append(len(out_batch) + len(out_b) + len(b_squeeze))
        elif da == db:
            a_bdims.append(len(out_batch) + len(out_a))
            b_bdims.append(len(out_batch) + len(out_b))
            out_batch.append(i)
        else:
            raise ValueError("Incompatible types for matmul arguments: "
                             f"{get_aval(a).str_short(short_dtypes=False)} and "
                             f"{get_aval(b).str_short(short_dtypes=False)}")
    if a_is_mat:
        out_a.append(nbatch)
    if b_is_mat:
        out_b.append(nbatch + a_is_mat)

    if a_squeeze:
        a = lax.squeeze(a, tuple(a_squeeze))
    if b_squeeze:
        b = lax.squeeze(b, tuple(b_squeeze))
    a_ndim, b_ndim = len(_shape(a)), len(_shape(b))
    out = _dot_general(a, b, ((a_ndim - 1,), (b_ndim - 1 - b_is_mat,)), (a_bdims, b_bdims),
                       precision, dtype)
    perm = tuple(int(p) for p in np.argsort(out_batch + out_a + out_b))
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, tuple(both_squeeze))
    return _finish(out, dtype, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays (conjugating ``a`` if complex)."""
    check_arraylike("vdot", a, b)
    a, b = asarray(a), asarray(b)
    if dtypes.is_complex(get_aval(a).dtype):
        a = ufuncs.conj(a)
    return dot(_ravel(a), _ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Contract ``axes`` of ``a`` with ``axes`` of ``b``.

    ``axes`` is an int ``n`` (the last ``n`` axes of ``a`` with the first
    ``n`` of ``b``), a pair of ints, or a pair of sequences of ints.
    """
    check_arraylike("tensordot", a, b)
    a, b = asarray(a), asarray(b)
    a_ndim, b_ndim = len(_shape(a)), len(_shape(b))
    dtype, weak = _result_type(a, b, preferred_element_type=preferred_element_type)
    if type(axes) is int:
        if axes > min(a_ndim, b_ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({_shape(a)} and {_shape(b)})")
        contract = (tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((canonicalize_axis(ax1, a_ndim),), (canonicalize_axis(ax2, b_ndim),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError("tensordot requires axes lists to have equal length, "
                                f"got {ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, a_ndim) for i in ax1),
                        tuple(canonicalize_axis(i, b_ndim) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, tuples "
                            f"or lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a "
                        "pair of lists/tuples of ints.")
    out = _dot_general(a, b, contract, ((), ()), precision, dtype)
    return _finish(out, dtype, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contract the last axes of ``a`` and ``b`` (a product if either is a scalar)."""
    check_arraylike("inner", a, b)
    a, b = asarray(a), asarray(b)
    if not _shape(a) or not _shape(b):
        if preferred_element_type is not None:
            a = lax._convert_element_type(a, preferred_element_type, False)
            b = lax._convert_element_type(b, preferred_element_type, False)
        return ufuncs.multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """Outer product of the flattened arrays: ``out[i, j] = a[i] * b[j]``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    check_arraylike("outer", a, b)
    a, b = promote_dtypes(asarray(a), asarray(b))
    return ufuncs.multiply(lax.expand_dims(_ravel(a), (1,)), lax.expand_dims(_ravel(b), (0,)))


@jnp_jit("kron")
def kron(a, b):
    """Kronecker product: every element of ``a`` times the whole of ``b``, tiled."""
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(asarray(a), asarray(b))
    nd = max(len(_shape(a)), len(_shape(b)))
    a = lax.expand_dims(a, tuple(range(nd - len(_shape(a))))) if len(_shape(a)) < nd else a
    b = lax.expand_dims(b, tuple(range(nd - len(_shape(b))))) if len(_shape(b)) < nd else b
    out_shape = tuple(int(i) * int(j) for i, j in zip(_shape(a), _shape(b)))
    a = lax.expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b = lax.expand_dims(b, tuple(range(0, 2 * nd, 2)))
    return lax.reshape(lax.mul(a, b), out_shape)


@jnp_jit("trace", static_argnames=("offset", "axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal over ``axis1`` and ``axis2``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    check_arraylike("trace", a)
    a = asarray(a)
    shape = _shape(a)
    ax1, ax2 = canonicalize_axis(axis1, len(shape)), canonicalize_axis(axis2, len(shape))
    if ax1 == ax2:
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    perm = tuple(d for d in range(len(shape)) if d not in (ax1, ax2)) + (ax1, ax2)
    if perm != tuple(range(len(shape))):
        a = lax.transpose(a, perm)
    eye_shape = (shape[ax1], shape[ax2])
    rows = lax.broadcasted_iota(np.int32, eye_shape, 0)
    cols = lax.broadcasted_iota(np.int32, eye_shape, 1)
    mask = lax.eq(lax.add(rows, np.int32(offset)), cols)
    a = ufuncs._where(mask, a, ufuncs._full_like(a, 0))
    return reductions.sum(a, axis=(-2, -1), dtype=dtype)


# --- einsum ----------------------------------------------------------------------------

def _parse_einsum(subscripts: str, shapes):
    """Input subscripts (one string per operand, ``...`` expanded) and the output's."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(f"Number of einsum subscripts, {len(inputs)}, must be equal to "
                         f"the number of operands, {len(shapes)}.")
    used = set("".join(inputs) + output) - set(".")
    for ch in used:
        if ch not in string.ascii_letters:
            raise ValueError(f"Character {ch} is not a valid symbol.")
    spare = [c for c in string.ascii_letters if c not in used]
    ell_ndim = 0
    for term, shape in zip(inputs, shapes):
        if "..." in term:
            ell_ndim = max(ell_ndim, len(shape) - (len(term) - 3))
    # As opt_einsum (whose letters fix JAX's order of contracted labels): as many spare
    # letters as the largest rank, each ``...`` taking the last ones it needs.
    spare = "".join(spare[:max((len(shape) for shape in shapes), default=0)])
    ell = spare[len(spare) - ell_ndim:] if ell_ndim else ""
    expanded = []
    for i, (term, shape) in enumerate(zip(inputs, shapes)):
        if "..." in term:
            n = len(shape) - (len(term) - 3)
            term = term.replace("...", spare[len(spare) - n:] if n > 0 else "")
        if len(term) != len(shape):
            raise ValueError(f"Einstein sum subscript '{inputs[i]}' does not contain the "
                             f"correct number of indices for operand {i}.")
        expanded.append(term)
    if arrow:
        output = output.replace("...", ell)
        for ch in output:
            if ch not in "".join(expanded):
                raise ValueError(f"Output character '{ch}' did not appear in the input")
    else:
        counts = Counter("".join(expanded))
        output = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    return expanded, output


def _check_sizes(terms, shapes):
    sizes = {}
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        for ch, d in zip(term, shape):
            if sizes.get(ch, 1) == 1:
                sizes[ch] = d
            elif d not in (1, sizes[ch]):
                raise ValueError(f"Size of label '{ch}' for operand {i} ({sizes[ch]}) does "
                                 f"not match previous terms ({d}).")  # sic: opt_einsum's order


def _einsum_sum(x, axes, dtype):
    """Sum over ``axes`` in the result dtype (``reduce_or`` for bools)."""
    if dtypes.result_type(x, dtype) != get_aval(x).dtype:
        x = lax._convert_element_type(x, dtype, False)
    if get_aval(x).dtype == np.bool_:
        return lax.reduce_or(x, tuple(axes))
    return lax.reduce_sum(x, tuple(axes))


def _sum_uniques(x, names: str, uniques, dtype):
    if not uniques:
        return x, names
    x = _einsum_sum(x, [names.index(n) for n in uniques], dtype)
    return x, "".join(n for n in names if n not in uniques)


def _diagonal_mask(shape, axes):
    """Bool array of ``shape``: true where the indices along ``axes`` are all equal."""
    base = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eyes = [lax.eq(i, j) for i, j in zip(iotas[:-1], iotas[1:])]
    mask = eyes[0]
    for eye in eyes[1:]:
        mask = lax.bitwise_and(mask, eye)
    if base == tuple(shape):
        return mask
    return lax.broadcast_in_dim(mask, tuple(shape), tuple(axes))


def _sum_repeats(x, names: str, keep: str, dtype):
    """Take the diagonal of every index repeated within one operand."""
    for name, count in Counter(names).items():
        if count < 2:
            continue
        axes = [i for i, n in enumerate(names) if n == name]
        mask = _diagonal_mask(_shape(x), axes)
        x = lax.select(mask, x, ufuncs._full_like(x, 0))
        drop = axes if name not in keep else axes[:-1]
        x = _einsum_sum(x, drop, dtype)
        names = "".join(n for i, n in enumerate(names) if i not in drop)
    return x, names


def _squeeze_broadcast_dims(x, names: str, other_shape, other_names: str):
    """Drop size-1 axes whose label has a larger size in the other operand."""
    shape = _shape(x)
    drop = [i for i, n in enumerate(names)
            if shape[i] == 1 and n in other_names and other_shape[other_names.index(n)] != 1]
    if not drop:
        return x, names
    return lax.squeeze(x, tuple(drop)), "".join(n for i, n in enumerate(names) if i not in drop)


def _einsum_one(x, names: str, keep: str, dtype):
    counts = Counter(names)
    x, names = _sum_uniques(x, names, [n for n in counts if counts[n] == 1 and n not in keep],
                            dtype)
    return _sum_repeats(x, names, keep, dtype)


def _einsum_pair(lhs, lnames, rhs, rnames, keep: str, final: str | None, precision, dtype):
    """Contract two operands; ``keep`` lists the labels needed later (or in the output)."""
    lhs, lnames = _squeeze_broadcast_dims(lhs, lnames, _shape(rhs), rnames)
    rhs, rnames = _squeeze_broadcast_dims(rhs, rnames, _shape(lhs), lnames)
    lhs, lnames = _sum_uniques(lhs, lnames, [n for n in set(lnames) if lnames.count(n) == 1
                                            and n not in rnames and n not in keep], dtype)
    rhs, rnames = _sum_uniques(rhs, rnames, [n for n in set(rnames) if rnames.count(n) == 1
                                            and n not in lnames and n not in keep], dtype)
    lhs, lnames = _sum_repeats(lhs, lnames, keep + rnames, dtype)
    rhs, rnames = _sum_repeats(rhs, rnames, keep + lnames, dtype)
    shared = [n for n in lnames if n in rnames]
    order = final if final is not None else keep + lnames
    batch = sorted((n for n in shared if n in keep), key=order.index)
    contract = sorted(n for n in shared if n not in keep)  # JAX's order: sorted labels
    lrest = "".join(n for n in lnames if n not in shared)
    rrest = "".join(n for n in rnames if n not in shared)
    bnames = "".join(batch)
    if final is not None and bnames + lrest + rrest != final:
        # As JAX does: when (lhs, rhs) would need a transpose, contract (rhs, lhs).
        lhs, lnames, rhs, rnames, lrest, rrest = rhs, rnames, lhs, lnames, rrest, lrest
    out = _dot_general(
        lhs, rhs, ([lnames.index(n) for n in contract], [rnames.index(n) for n in contract]),
        ([lnames.index(n) for n in batch], [rnames.index(n) for n in batch]), precision, dtype)
    return out, bnames + lrest + rrest


_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublists_to_subscripts(args):
    """NumPy's second einsum form, ``einsum(op0, sublist0, op1, sublist1, ..., [out])``,
    rewritten as a subscripts string and the list of operands.

    A label may be any sortable value (ints, as NumPy says, but JAX also takes
    strings or floats); the distinct labels, sorted, become the letters a, b,
    c..., so an output left implicit lists the dimensions in label order.
    """
    operands, sublists = list(args[0::2]), list(args[1::2])
    output = operands.pop() if len(operands) > len(sublists) else None  # odd count
    labels = {label for sub in [*sublists, *([output] if output is not None else [])]
              for label in sub if label is not Ellipsis}
    try:
        ordered = sorted(labels)
    except TypeError:
        raise TypeError("For this input type lists must contain either Ellipsis or hashable "
                        "and comparable object (e.g. int, str).") from None
    if len(ordered) > len(_EINSUM_LETTERS):
        raise ValueError(f"minijax: einsum supports at most {len(_EINSUM_LETTERS)} distinct "
                         f"labels; got {len(ordered)}")
    letter = {label: _EINSUM_LETTERS[k] for k, label in enumerate(ordered)}
    spell = lambda sub: "".join("..." if x is Ellipsis else letter[x] for x in sub)
    subscripts = ",".join(spell(sub) for sub in sublists)
    if output is not None:
        subscripts += "->" + spell(output)
    return subscripts, operands


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    """Einstein summation, e.g. ``einsum('ij,jk->ik', a, b)`` is ``a @ b``.

    Operands are contracted two at a time, each pair with one
    ``dot_general``, in the cheapest order (``optimize``: see
    :mod:`minijax.numpy.einsum_paths`); labels repeated within an operand
    take a diagonal; labels absent from the output are summed. Without
    ``->`` the output is the labels that appear once, in alphabetical order.
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2])
        subscripts, operands = _sublists_to_subscripts((subscripts, *operands))
    check_arraylike("einsum", *operands)
    operands = [asarray(x) for x in operands]
    shapes = [_shape(x) for x in operands]
    terms, output = _parse_einsum(subscripts, shapes)
    _check_sizes(terms, shapes)
    dtype, weak = _result_type(*operands, preferred_element_type=preferred_element_type)

    from minijax.numpy.einsum_paths import contraction_list  # (a sibling chapter-00 module)
    steps = contraction_list(terms, output, shapes, optimize)[0]
    operands, names_of = list(operands), list(terms)
    for positions, removed, step, _, _ in steps:  # as JAX: pop the highest position first
        result = step.split("->")[1]
        if len(positions) == 1:
            x, names = _einsum_one(operands.pop(positions[0]), names_of.pop(positions[0]),
                                   result, dtype)
        elif len(positions) == 2:
            rhs, rnames = operands.pop(positions[0]), names_of.pop(positions[0])
            lhs, lnames = operands.pop(positions[1]), names_of.pop(positions[1])
            x, names = _einsum_pair(lhs, lnames, rhs, rnames, result, result, precision, dtype)
        else:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more "
                "operands. Typically this means you've passed an unsupported path to the "
                "einsum optimize parameter.")
        if names != result:
            x = lax.transpose(x, tuple(names.index(n) for n in result))
        operands.append(x)
        names_of.append(result)
    x = operands[0]
    return _finish(x, dtype, weak)
