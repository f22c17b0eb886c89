"""Chapter 00 — ``conv_general_dilated``: every convolution in one primitive.

A convolution slides a *kernel* (``rhs``) over the spatial dimensions of an
input (``lhs``) and, at each position, contracts the window of the input
with the kernel over the input features::

    out[n, o, y] = sum_{i, k} lhs_padded[n, i, y * stride + k * rhs_dilation] * rhs[o, i, k]

(``y`` and ``k`` are tuples of spatial indices). Its parameters, all of
them XLA's:

- ``window_strides``: how far the window moves per output position;
- ``padding``: ``(low, high)`` zeros added to each spatial dimension (negative
  values crop); the wrappers also take ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'``;
- ``lhs_dilation``: ``d - 1`` zeros inserted between input elements (a
  *transposed* convolution, the gradient of a strided one);
- ``rhs_dilation``: the same for the kernel (an *atrous* convolution);
- ``dimension_numbers``: which dimension of each array is the batch (``N``),
  the feature (``C``; ``O``/``I`` for the kernel) and each spatial dimension,
  as a :class:`ConvDimensionNumbers` of permutations;
- ``feature_group_count``: the features split in groups convolved separately
  (``= C`` is a depthwise convolution);
- ``batch_group_count``: the batch split in groups, each convolved with its own
  slice of the kernel's output features (it appears in gradients of grouped
  convolutions).

Its derivative is bilinear, as ``dot_general``'s: the transposes are
convolutions again (chapter 07), and ``vmap`` folds the mapped axis into the
batch or feature dimension (chapter 04). The impl below is the textbook
*im2col*: gather every window into the row of a matrix and make the
contraction one matrix product.
"""
from __future__ import annotations

import operator
from typing import NamedTuple, Sequence

import numpy as np

from minijax.abstract_arrays import get_aval
from minijax.lax.base import standard_primitive
from minijax.lax.dot import canonicalize_precision
from minijax.lax.shapes import check_user_dtype

__all__ = ["ConvDimensionNumbers", "conv_general_dilated", "conv", "conv_with_general_padding",
           "conv_transpose", "conv_dimension_numbers", "conv_general_permutations",
           "conv_general_shape_tuple", "conv_shape_tuple", "conv_transpose_shape_tuple",
           "padtype_to_pads", "PaddingType"]


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions of a convolution are.

    ``lhs_spec``: ``(batch, feature, spatial...)`` dimensions of the input;
    ``rhs_spec``: ``(out feature, in feature, spatial...)`` of the kernel;
    ``out_spec``: ``(batch, feature, spatial...)`` of the output.
    """
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


# =============================================================================
# Dimension numbers and padding
# =============================================================================
def conv_general_permutations(dimension_numbers):
    """The permutations of three spec strings (``('NHWC', 'HWIO', 'NHWC')``):
    batch/feature dimensions first, then the spatial ones in the kernel's order."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"}
            == set(out_spec) - {"N", "C"}):
        raise TypeError("convolution dimension_numbers elements must each have the same "
                        f"set of spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:  # spatial dimensions in the kernel's order
            spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (``None``, three spec strings, or a
    :class:`ConvDimensionNumbers`) as a :class:`ConvDimensionNumbers`."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


class PaddingType:
    """The padding strings: ``'VALID'`` (none), ``'SAME'`` (output size
    ``ceil(n / stride)``, the odd element of padding at the end) and
    ``'SAME_LOWER'`` (the odd element at the start)."""
    VALID, SAME, SAME_LOWER = "VALID", "SAME", "SAME_LOWER"


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """``(low, high)`` padding of each spatial dimension for a padding string."""
    if not isinstance(padding, str):  # only a string names a padding type, as in JAX
        raise TypeError(f"Unknown padding type: {padding}.")
    kind = padding.upper()
    if kind not in (PaddingType.VALID, PaddingType.SAME, PaddingType.SAME_LOWER):
        raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    if kind == PaddingType.VALID:
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-int(n) // int(s))
        total = max((out - 1) * int(s) + int(k) - int(n), 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if kind == PaddingType.SAME else (big, small))
    return pads


def dilate_shape(shape, dilation) -> tuple[int, ...]:
    """Each size ``n`` dilated by ``d`` (``d - 1`` holes between elements): ``1 + d (n - 1)``."""
    if not all(d > 0 for d in dilation):
        raise TypeError(f"All dilations must be positive, got {tuple(dilation)}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    return tuple(0 if n == 0 else 1 + d * (n - 1) for n, d in zip(shape, dilation))


def strided_size(n: int, window: int, stride: int) -> int:
    """How many windows of ``window`` fit in ``n`` at ``stride``: ``(n - window) // stride + 1``."""
    return max((n - window) // stride + 1, 0)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution, all three in ``(N, C, spatial...)`` order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={tuple(map(tuple, pads))} for "
                         f"lhs_shape[2:]={tuple(lhs_shape[2:])}")
    space = tuple(strided_size(p, k, s) for p, k, s in zip(padded, rhs_shape[2:], strides))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + space


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of a convolution with spec-string ``dimension_numbers``."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of :func:`conv_transpose`."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(i - 1) * s - k + 2 + sum(p)
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (lhs_t[0], rhs_t[0], *space)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                    lhs_dilation, rhs_dilation) -> list[tuple[int, int]]:
    """The padding of the convolution that computes the gradient with respect to
    the input (chapter 07's transpose rule, and ``reduce_window_sum``'s): the
    cotangent, dilated by the strides, is padded so that every input position
    sees each kernel element that touched it."""
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_dimensions, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding)]
    after = [a + k - 1 - o - b for a, k, o, b in zip(lhs_d, rhs_d, out_d, before)]
    return list(zip(before, after))


def vjp_rhs_padding(in_shape, window_dimensions, window_strides, out_shape, padding,
                    lhs_dilation, rhs_dilation) -> list[tuple[int, int]]:
    """The padding of the convolution that computes the gradient with respect to
    the kernel: the input is the operand, the cotangent the kernel."""
    if not len(in_shape):
        return []
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_dimensions, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    lows = [lo for lo, _ in padding]
    highs = [o - a + k - lo - 1 for o, a, k, lo in zip(out_d, lhs_d, rhs_d, lows)]
    return list(zip(lows, highs))


# =============================================================================
# The primitive: shape, dtype and NumPy impl
# =============================================================================
def _conv_shape_rule(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                     dimension_numbers, feature_group_count, batch_group_count, **_):
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    G, B = feature_group_count, batch_group_count
    if not G > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {G}.")
    features = lhs.shape[lhs_spec[1]]
    quot, rem = divmod(features, G)
    if rem:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {G} does not divide {features}.")
    if quot != rhs.shape[rhs_spec[1]]:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature dimension "
                         f"size, but {features} // {G} != {rhs.shape[rhs_spec[1]]}.")
    if rhs.shape[rhs_spec[0]] % G:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {rhs.shape[rhs_spec[0]]} is "
                         f"not a multiple of {G}.")
    if not B > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {B}.")
    batch = lhs.shape[lhs_spec[0]]
    if B > 1 and batch % B:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {B} does not divide {batch}.")
    if rhs.shape[rhs_spec[0]] % B:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {rhs.shape[rhs_spec[0]]} is "
                         f"not a multiple of {B}.")
    if B > 1 and G > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be "
                         f"> 1, got batch_group_count={B} and feature_group_count={G}")
    if len(rhs_spec) - 2 != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {len(rhs_spec) - 2} and "
                         f"{len(window_strides)}")
    lhs_t = dilate_shape([lhs.shape[d] for d in lhs_spec], lhs_dilation)
    rhs_t = dilate_shape([rhs.shape[d] for d in rhs_spec], rhs_dilation)
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, B)
    return tuple(int(d) for d in np.take(out_t, np.argsort(out_spec)))


def _conv_dtype_rule(lhs, rhs, *, preferred_element_type, **_):
    if lhs.dtype != rhs.dtype:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same "
                        f"dtypes, got {lhs.dtype}, {rhs.dtype}.")
    if preferred_element_type is None:
        return lhs.dtype
    validate_preferred_element_type(lhs.dtype, preferred_element_type)
    return np.dtype(preferred_element_type)


def validate_preferred_element_type(input_dtype, preferred) -> None:
    """JAX's check of ``preferred_element_type`` against the operands' dtype: same
    kind (integer to float allowed), same signedness, never narrower."""
    sub = np.issubdtype
    if not (sub(input_dtype, np.integer) and sub(preferred, np.floating)):
        if any(sub(input_dtype, t) and not sub(preferred, t)
               for t in (np.integer, np.floating, np.complexfloating)):
            raise TypeError("Input type is incompatible with `preferred_element_type`. The "
                            "compatible combinations of (input_type, preferred_element_type) "
                            "are (integral, integral), (integral, floating), (floating, "
                            "floating), (complex, complex.")
        if sub(input_dtype, np.signedinteger) and not sub(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness as the "
                            "original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def dilate_and_pad(x: np.ndarray, dilation, padding, axes) -> np.ndarray:
    """``x`` with ``d - 1`` zeros between elements along each of ``axes``, then
    padded by ``(low, high)`` (negative values crop), as ``lax.pad`` with interior."""
    for axis, d, (lo, hi) in zip(axes, dilation, padding):
        n = x.shape[axis]
        if d > 1 and n > 1:
            shape = list(x.shape)
            shape[axis] = 1 + d * (n - 1)
            wide = np.zeros(shape, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, d)
            wide[tuple(index)] = x
            x = wide
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(index)]
    return x


def _compute_dtype(dtype) -> np.dtype:
    """float16 products accumulate in float32 (then round), as XLA's CPU convolutions."""
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count, precision,
               preferred_element_type, out_sharding=None):
    out_dtype = _conv_dtype_rule(get_aval(lhs), get_aval(rhs),
                                 preferred_element_type=preferred_element_type)
    work = _compute_dtype(out_dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x = np.transpose(np.asarray(lhs), lhs_spec).astype(work)  # (N, C, spatial...)
    w = np.transpose(np.asarray(rhs), rhs_spec).astype(work)  # (O, I, spatial...)
    space = tuple(range(2, x.ndim))
    x = dilate_and_pad(x, lhs_dilation, padding, space)
    w = dilate_and_pad(w, rhs_dilation, [(0, 0)] * len(space), space)
    G, B = feature_group_count, batch_group_count
    N, C = x.shape[:2]
    O, I, kernel = w.shape[0], w.shape[1], w.shape[2:]
    out_space = tuple(strided_size(n, k, s) for n, k, s in zip(x.shape[2:], kernel, window_strides))
    out = np.zeros((N // B, O) + out_space, work)
    if 0 not in out.shape and 0 not in kernel:
        windows = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=space)
        windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in window_strides)]
        windows = windows[(slice(None), slice(None)) + tuple(slice(0, n) for n in out_space)]
        # windows: (N, C, out spatial..., kernel spatial...); one matrix product per group
        groups = max(G, B)
        og = O // groups
        for g in range(groups):
            ws = w[g * og:(g + 1) * og]
            if G > 1:
                patch = windows[:, g * I:(g + 1) * I]
            elif B > 1:
                patch = windows[g * (N // B):(g + 1) * (N // B)]
            else:
                patch = windows
            n = patch.shape[0]
            rank = len(space)
            perm = (0,) + tuple(range(2, 2 + rank)) + (1,) + tuple(range(2 + rank, 2 + 2 * rank))
            rows = patch.transpose(perm).reshape(n * int(np.prod(out_space, dtype=np.int64)), -1)
            prod = rows @ ws.reshape(og, -1).T  # (n * positions, og)
            out[:, g * og:(g + 1) * og] = np.moveaxis(prod.reshape((n,) + out_space + (og,)), -1, 1)
    return np.transpose(out, np.argsort(out_spec)).astype(out_dtype, copy=False)


conv_general_dilated_p = standard_primitive(
    "conv_general_dilated", _conv_shape_rule, _conv_dtype_rule, _conv_impl,
    kind="other", bilinear=True)


# =============================================================================
# Wrappers
# =============================================================================
def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers=None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision=None,
                         preferred_element_type=None, out_sharding=None):
    """General n-dimensional convolution, with optional input and kernel dilation.

    ``padding`` is ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or one ``(low,
    high)`` pair per spatial dimension. ``dimension_numbers`` is ``None``
    (``('NCHW', 'OIHW', 'NCHW')`` and its n-d analogues), a
    :class:`ConvDimensionNumbers`, or three strings such as
    ``('NHWC', 'HWIO', 'NHWC')``: ``N`` batch, ``C`` feature, ``O``/``I`` the
    kernel's output/input features, any other letters the spatial dimensions,
    matched across the three by letter (``window_strides[0]`` is the first
    spatial letter of the kernel's string).
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    if lhs_dilation is None:
        lhs_dilation = (1,) * (len(lhs_shape) - 2)
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution "
                         "using this op. Please either exactly specify the required padding "
                         "or use conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        lhs_perm, rhs_perm, _ = dnums
        kernel = dilate_shape([rhs_shape[d] for d in rhs_perm[2:]], rhs_dilation)
        padding = padtype_to_pads([lhs_shape[d] for d in lhs_perm[2:]], kernel,
                                  window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a string or "
                             f"a sequence of (low, high) pairs, got {padding}") from e
    if preferred_element_type is not None:
        preferred_element_type = check_user_dtype(preferred_element_type, "conv_general_dilated")
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(int(d) for d in lhs_dilation),
        rhs_dilation=tuple(int(d) for d in rhs_dilation),
        dimension_numbers=ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dnums)),
        feature_group_count=int(feature_group_count), batch_group_count=int(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None,
         preferred_element_type=None):
    """A convolution in ``NCHW``/``OIHW`` layout with ``'SAME'`` or ``'VALID'``
    padding (:func:`conv_general_dilated` with its defaults)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision=None,
                              preferred_element_type=None):
    """:func:`conv_general_dilated` in ``NCHW``/``OIHW`` layout with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """The (before, after) padding of one dimension of a transposed convolution
    whose forward convolution had kernel size ``k``, stride ``s`` and ``padding``."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides: Sequence[int], padding, rhs_dilation=None,
                   dimension_numbers=None, transpose_kernel: bool = False, precision=None,
                   preferred_element_type=None, use_consistent_padding: bool = False):
    """A "transposed" (fractionally strided) convolution: the input dilated by
    ``strides``, then convolved, so the output is ``strides`` times larger.

    ``padding`` ``'SAME'``/``'VALID'`` is the padding of the forward convolution
    this one inverts (as are integer pairs with ``use_consistent_padding``;
    without it they pad the dilated input directly). The default layout is
    TensorFlow's (``NHWC``, ``HWIO``). ``transpose_kernel`` flips the kernel's
    spatial axes and swaps its feature axes, as Keras' ``Conv2DTranspose``.
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    assert len(lhs_shape) == len(rhs_shape) and len(lhs_shape) >= 2
    ndim = len(lhs_shape)
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndim]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndim - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        effective = dilate_shape(kernel, rhs_dilation)
        per_dim = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(effective, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        from minijax.lax.shapes import rev, transpose
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def reshape_axis_into(src: int, dst: int, x):
    """Merge axis ``src`` of ``x`` into axis ``dst`` (numbered after ``src`` is
    removed), ``src`` as the major part: how ``vmap`` and the transposes fold an
    extra axis into a convolution's batch or feature dimension."""
    from minijax.lax.shapes import reshape
    shape = get_aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [shape[i] for i in range(len(shape)) if i != src]
    new_shape[dst] *= shape[src]
    return reshape(x, tuple(new_shape), tuple(perm))


def reshape_axis_out_of(src: int, size1: int, x):
    """Split axis ``src`` of ``x`` into ``(size1, rest)``: the inverse of
    :func:`reshape_axis_into`."""
    from minijax.lax.shapes import reshape
    shape = list(get_aval(x).shape)
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return reshape(x, tuple(shape))

