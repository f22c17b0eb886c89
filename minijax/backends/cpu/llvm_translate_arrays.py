"""Chapter 09 — arrays in the translated kernel: static shapes, pointers, loops over them.

Every array of a kernel has a shape known when the kernel is written, so
an array value here is just a pointer to its first element with a static
shape and static strides (counted in elements, C order unless it is a view
of a slice). What Numba keeps in a run-time struct (``meminfo``, ``shape``,
``strides``: its array model) we know at translation time:

- ``x[i, j]`` is one ``getelementptr`` at ``i * stride0 + j * stride1``
  (a negative index counts from the end, as in Numba: ``i + dim``);
- ``x[i]`` of a 2-d array, ``x[a:b]`` with constant bounds, ``.reshape``
  and ``.ravel`` of a contiguous array and ``.view`` to a dtype of the same
  size are *views*: the same memory, another shape;
- a new array (``np.empty``, ``np.full``, ``.astype``, ``.copy``,
  ``np.concatenate``) is ``aligned_alloc(64, n)``, freed when the kernel
  returns (Numba counts references with its runtime, NRT; the translated
  kernel knows every temporary's lifetime), or the caller's output buffer
  when the kernel returns it;
- filling and copying are plain loops in C order, storing each element
  converted as Numba's ``setitem`` converts it (``context.cast``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from minijax.backends.cpu.llvm_translate_types import (
    INT64, Scalar, cast, from_memory, memory_type, to_memory)

__all__ = ["Array", "c_strides", "element_pointer", "load", "store", "loop_nest",
           "allocate", "free", "view", "copy_into", "fill"]

_I64 = ir.IntType(64)


def c_strides(shape) -> tuple[int, ...]:
    """The strides, in elements, of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Array:
    """An array: ``ptr`` to its first element (typed as the element in memory),
    its dtype, static shape and strides (in elements)."""
    ptr: ir.Value
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def static(self) -> bool:
        """Is the shape known now? (A view of a slice with run-time bounds has an
        ``ir.Value`` for a length: only element accesses and BLAS calls take it.)"""
        return all(isinstance(d, int) for d in self.shape)

    @property
    def size(self) -> int:
        _require_static(self)
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def contiguous(self) -> bool:
        """C-contiguous (its strides are C's, ignoring axes of length 1)."""
        _require_static(self)
        return all(s == c or d == 1 for s, c, d in zip(self.strides, c_strides(self.shape),
                                                         self.shape))


def _require_static(array: Array) -> None:
    if not array.static:
        from minijax.backends.cpu.llvm_translate import NotTranslatable
        raise NotTranslatable("array of a shape known only at run time")


def _int64(builder, index: Scalar) -> ir.Value:
    return cast(builder, index.value, index.dtype, INT64)


def _wrapped(builder, index: Scalar, dim: int) -> ir.Value:
    """An index as int64, a negative one counted from the end (Numba's wraparound)."""
    if isinstance(index.value, ir.Constant) and index.dtype.kind in "iu" and isinstance(dim, int):
        v = int(index.value.constant)
        if index.dtype.kind == "u":
            v %= 2 ** (8 * index.dtype.itemsize)
        return ir.Constant(_I64, v + dim if v < 0 else v)
    value = _int64(builder, index)
    if index.dtype.kind != "i":
        return value
    negative = builder.icmp_signed("<", value, ir.Constant(_I64, 0))
    size = ir.Constant(_I64, dim) if isinstance(dim, int) else dim
    return builder.select(negative, builder.add(value, size), value)


def element_pointer(builder, array: Array, indices: list[Scalar]) -> ir.Value:
    """The address of ``array[indices]`` (one index per axis)."""
    offset = None
    for index, dim, stride in zip(indices, array.shape, array.strides):
        term = builder.mul(_wrapped(builder, index, dim), ir.Constant(_I64, stride))
        offset = term if offset is None else builder.add(offset, term)
    if offset is None:
        return array.ptr
    return builder.gep(array.ptr, [offset], inbounds=True)


def load(builder, array: Array, indices: list[Scalar]) -> Scalar:
    value = builder.load(element_pointer(builder, array, indices))
    return Scalar(from_memory(builder, value, array.dtype), array.dtype)


def store(builder, array: Array, indices: list[Scalar], value: Scalar) -> None:
    """``array[indices] = value``, converted to the array's dtype first."""
    converted = cast(builder, value.value, value.dtype, array.dtype)
    builder.store(to_memory(builder, converted, array.dtype),
                  element_pointer(builder, array, indices))


def offset_view(builder, array: Array, offset: int, shape, strides) -> Array:
    """The view starting ``offset`` elements into ``array`` with ``shape`` and ``strides``."""
    ptr = array.ptr if offset == 0 else builder.gep(array.ptr, [ir.Constant(_I64, offset)],
                                                    inbounds=True)
    return Array(ptr, array.dtype, tuple(shape), tuple(strides))


def view(array: Array, shape, dtype=None) -> Array:
    """``array`` (contiguous) seen with another shape (and dtype of the same size)."""
    dtype = array.dtype if dtype is None else dtype
    return Array(array.ptr, dtype, tuple(shape), c_strides(shape))


# =============================================================================
# Loops, allocation, copies
# =============================================================================
def loop_nest(builder: ir.IRBuilder, shape, body) -> None:
    """Emit loops over ``shape`` (C order) calling ``body(indices)`` innermost, where
    ``indices`` are int64 :class:`Scalar` values."""
    if not all(isinstance(d, int) for d in shape):
        from minijax.backends.cpu.llvm_translate import NotTranslatable
        raise NotTranslatable("array of a shape known only at run time")
    def level(d, indices):
        if d == len(shape):
            body(indices)
            return
        counter = _for_range(builder, shape[d])
        level(d + 1, indices + [Scalar(counter.index, INT64)])
        counter.close()
    if any(dim == 0 for dim in shape):
        return
    level(0, [])


class _for_range:
    """A counted loop ``for i in range(n)`` (n a constant) opened at the builder's
    position; the body is emitted between construction and :meth:`close`."""

    def __init__(self, builder, n: int):
        self.builder = builder
        head = builder.append_basic_block("copy.head")
        self.body = builder.append_basic_block("copy.body")
        self.exit = builder.append_basic_block("copy.exit")
        start = builder.block
        builder.branch(head)
        builder.position_at_end(head)
        self.phi = builder.phi(_I64)
        self.phi.add_incoming(ir.Constant(_I64, 0), start)
        builder.cbranch(builder.icmp_signed("<", self.phi, ir.Constant(_I64, n)),
                        self.body, self.exit)
        builder.position_at_end(self.body)
        self.index, self.head = self.phi, head

    def close(self):
        builder = self.builder
        nxt = builder.add(self.phi, ir.Constant(_I64, 1))
        self.phi.add_incoming(nxt, builder.block)
        builder.branch(self.head)
        builder.position_at_end(self.exit)


def allocate(builder: ir.IRBuilder, dtype: np.dtype, shape) -> Array:
    """A new C-contiguous array: ``aligned_alloc(64, nbytes)`` (rounded up to 64 bytes)."""
    if not all(isinstance(d, int) for d in shape):
        from minijax.backends.cpu.llvm_translate import NotTranslatable
        raise NotTranslatable("array of a shape known only at run time")
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    nbytes = max(64, -(-nbytes // 64) * 64)
    module = builder.module
    try:
        fn = module.get_global("aligned_alloc")
    except KeyError:
        fn = ir.Function(module, ir.FunctionType(ir.IntType(8).as_pointer(), [_I64, _I64]),
                         "aligned_alloc")
    raw = builder.call(fn, [ir.Constant(_I64, 64), ir.Constant(_I64, nbytes)])
    ptr = builder.bitcast(raw, memory_type(dtype).as_pointer())
    return Array(ptr, np.dtype(dtype), tuple(shape), c_strides(shape))


def free(builder: ir.IRBuilder, array: Array) -> None:
    module = builder.module
    try:
        fn = module.get_global("free")
    except KeyError:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()]),
                         "free")
    builder.call(fn, [builder.bitcast(array.ptr, ir.IntType(8).as_pointer())])


def copy_into(builder, dst: Array, src: Array, dst_offset=None) -> None:
    """``dst[...] = src`` element by element in C order, converting each element
    (``.astype``, ``.copy``, the parts of ``np.concatenate``)."""
    def body(indices):
        store(builder, dst, indices, load(builder, src, indices))
    loop_nest(builder, src.shape, body)


def fill(builder, dst: Array, value: Scalar) -> None:
    """Every element of ``dst`` set to ``value`` (``np.full``, ``np.zeros``...)."""
    loop_nest(builder, dst.shape, lambda indices: store(builder, dst, indices, value))
