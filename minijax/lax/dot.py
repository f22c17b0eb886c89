"""Chapter 00 — ``dot_general``: every matrix product in one primitive.

``dot_general`` contracts ``lhs`` with ``rhs``. Its ``dimension_numbers``
``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`` name the dimensions
summed over and the batch dimensions the two sides share; every other
dimension is "free". The result's dimensions are the batch dimensions, then
the free dimensions of ``lhs``, then those of ``rhs``. ``jnp.dot``,
``jnp.matmul``, ``jnp.einsum`` and ``jnp.tensordot`` all become this one
primitive.

The impl moves each operand's dimensions into (batch, free, contract) order,
flattens each group and calls ``np.matmul`` on the stack of matrices: float32
stays float32 (NumPy's BLAS does the work), and integers wrap around as in XLA.
"""
from __future__ import annotations

import enum
import operator

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.lax.base import standard_primitive
from minijax.lax.shapes import check_user_dtype

__all__ = ["Precision", "dot_general", "dot", "batch_matmul"]


class Precision(enum.Enum):
    """Matrix-multiply precision (a hint for accelerators; no effect on CPU results).

    Members: ``DEFAULT`` (aliases ``'default'``, ``'fastest'``, ``'bfloat16'``),
    ``HIGH`` (``'high'``, ``'bfloat16_3x'``, ``'tensorfloat32'``) and
    ``HIGHEST`` (``'highest'``, ``'float32'``).
    """
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name


_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}


def canonicalize_precision(precision):
    """``None``, or a pair of :class:`Precision` (one per operand), from what the user gave."""
    if precision is None:
        return None
    if isinstance(precision, Precision):
        return precision, precision
    if isinstance(precision, str) and precision in _PRECISION_STRINGS:
        return Precision(precision), Precision(precision)
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) and p in _PRECISION_STRINGS for p in precision):
            return Precision(precision[0]), Precision(precision[1])
    raise ValueError(
        "Precision argument must be one of:\n"
        "- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n"
        "- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        "- a lax.DotAlgorithm value;\n"
        f"but got {precision}.")


# --- shape rule ----------------------------------------------------------------------
def _check_dims_in_range(side: str, aval, contracting, batch):
    if not all(0 <= d < aval.ndim for d in contracting + batch):
        raise TypeError(
            f"dot_general requires {side} dimension numbers to be nonnegative and less "
            f"than the number of axes of the {side} value, got {side}_batch of {batch} and "
            f"{side}_contracting of {contracting} for {side} of rank {aval.ndim}")


def _check_distinct(what: str, dims):
    if len(set(dims)) != len(dims):
        raise TypeError(f"dot_general requires {what} dimensions to be distinct, got "
                        f"{what.replace(' ', '_')} {dims}.")


def _dot_general_shape_rule(lhs, rhs, *, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    _check_dims_in_range("lhs", lhs, lc, lb)
    _check_dims_in_range("rhs", rhs, rc, rb)
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    _check_distinct("lhs batch", lb)
    _check_distinct("rhs batch", rb)
    _check_distinct("lhs contracting", lc)
    _check_distinct("rhs contracting", rc)
    for side, batch, contracting in (("lhs", lb, lc), ("rhs", rb, rc)):
        if set(batch) & set(contracting):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from "
                f"contracting dimensions, got {side}_batch {batch} and {side}_contracting "
                f"{contracting}.")
    lb_shape, rb_shape = _dims(lhs.shape, lb), _dims(rhs.shape, rb)
    if lb_shape != rb_shape:
        raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions "
                        f"to have the same shape, got {lb_shape} and {rb_shape}.")
    lc_shape, rc_shape = _dims(lhs.shape, lc), _dims(rhs.shape, rc)
    if lc_shape != rc_shape:
        raise TypeError("dot_general requires contracting dimensions to have the same "
                        f"shape, got {lc_shape} and {rc_shape}.")
    return (lb_shape + _dims(lhs.shape, _free_dims(lhs.ndim, lc, lb))
            + _dims(rhs.shape, _free_dims(rhs.ndim, rc, rb)))


def _dims(shape, dims) -> tuple[int, ...]:
    return tuple(shape[d] for d in dims)


def _free_dims(ndim: int, contracting, batch) -> tuple[int, ...]:
    used = set(contracting) | set(batch)
    return tuple(d for d in range(ndim) if d not in used)


# --- dtype rule --------------------------------------------------------------------------
def _type_rank(dt: np.dtype):
    """XLA's order of "higher precision" types: complex > more exponent > more mantissa > wider."""
    is_complex = np.issubdtype(dt, np.complexfloating)
    real = np.dtype(dt.char.lower()) if is_complex else dt
    is_float = dtypes.issubdtype(real, np.floating)
    finfo = dtypes.finfo(real) if is_float else None
    bits = 1 if real == np.bool_ else real.itemsize * 8
    return (is_complex, finfo.maxexp if is_float else -1, finfo.nmant if is_float else -1,
            bits, not np.issubdtype(real, np.unsignedinteger))


def _bit_width(dt: np.dtype) -> int:
    return 1 if dt == np.bool_ else np.dtype(dt).itemsize * 8


def _dot_general_dtype_rule(lhs, rhs, *, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
    lrank, rrank = _type_rank(lhs.dtype), _type_rank(rhs.dtype)
    if lrank == rrank and lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.dot_general argument type error: {lhs.dtype}, {rhs.dtype}")
    result = lhs.dtype if lrank >= rrank else rhs.dtype
    if preferred_element_type is None or preferred_element_type == result:
        return result
    if (not dtypes.issubdtype(result, np.floating)
            and _bit_width(preferred_element_type) < _bit_width(result)):
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        f"type, got preferred_element_type of {preferred_element_type} for "
                        f"result type of {result}.")
    return np.dtype(preferred_element_type)


# --- impl ----------------------------------------------------------------------------------
def _as_batched_matrix(x: np.ndarray, batch, rows, cols) -> np.ndarray:
    """``x`` transposed to (batch, rows, cols) and each group flattened to one dimension."""
    x = np.transpose(x, tuple(batch) + tuple(rows) + tuple(cols))
    size = lambda dims: int(np.prod([x.shape[i] for i in dims], dtype=np.int64))
    nb, nr = len(batch), len(rows)
    return x.reshape(size(range(nb)), size(range(nb, nb + nr)),
                     size(range(nb + nr, x.ndim)))


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    out_dtype = _dot_general_dtype_rule(get_aval(lhs), get_aval(rhs),
                                        dimension_numbers=dimension_numbers,
                                        precision=precision,
                                        preferred_element_type=preferred_element_type,
                                        out_sharding=out_sharding)
    lfree, rfree = _free_dims(lhs.ndim, lc, lb), _free_dims(rhs.ndim, rc, rb)
    # Multiply in the output dtype, so int8 inputs with preferred int32 accumulate in int32.
    a = _as_batched_matrix(lhs.astype(out_dtype, copy=False), lb, lfree, lc)
    b = _as_batched_matrix(rhs.astype(out_dtype, copy=False), rb, rc, rfree)
    out = np.matmul(a, b)
    shape = _dims(lhs.shape, lb) + _dims(lhs.shape, lfree) + _dims(rhs.shape, rfree)
    return out.reshape(shape)


dot_general_p = standard_primitive("dot_general", _dot_general_shape_rule,
                                   _dot_general_dtype_rule, _dot_general_impl,
                                   kind="dot", bilinear=True)


# --- wrappers -------------------------------------------------------------------------------
def _index_tuple(dims) -> tuple[int, ...]:
    try:
        return (operator.index(dims),)
    except TypeError:
        return tuple(operator.index(d) for d in dims)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """General dot product (``dot_general``); the dimension numbers may be omitted for
    matrix-matrix, matrix-vector and vector-vector products.

    The result's dimensions are the batch dimensions, then ``lhs``'s free
    dimensions, then ``rhs``'s. ``preferred_element_type`` asks for a wider
    output (and accumulation) type, e.g. int32 for int8 inputs.
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    if dimension_numbers is None:
        if (1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2
                and lhs_shape[-1] == rhs_shape[0]):
            dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
        else:
            raise ValueError(
                "jax.lax.dot: dimension_numbers must be specified when not performing "
                "simple un-batched matrix-matrix, matrix-vector, or vector-vector products;"
                f" got lhs_shape={lhs_shape} rhs_shape={rhs_shape}")
    (lc, rc), (lb, rb) = dimension_numbers
    dnums = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = check_user_dtype(preferred_element_type, "dot")
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dnums,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                *, out_sharding=None):
    """Contract ``lhs`` and ``rhs`` as ``dimension_numbers`` =
    ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` says.

    Alias of :func:`dot` with the dimension numbers positional.
    """
    return dot(lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
               preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix product over the last two dimensions, batched over the leading ones."""
    lhs_ndim, rhs_ndim = get_aval(lhs).ndim, get_aval(rhs).ndim
    if min(lhs_ndim, rhs_ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs_ndim}, "
                         f"{rhs_ndim}")
    if lhs_ndim != rhs_ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs_ndim}, "
                         f"{rhs_ndim}")
    batch = tuple(range(lhs_ndim - 2))
    return dot_general(lhs, rhs, (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch)),
                       precision=precision)
