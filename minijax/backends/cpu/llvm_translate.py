"""Chapter 09 — the kernel source, translated to LLVM IR by us instead of by Numba.

Chapter 09's writer produces a small language: Python functions made of
``for i in range(...)`` loops, element loads and stores, scalar arithmetic
on NumPy scalar types, calls to shared helpers and to BLAS. Numba compiles
it through its whole pipeline (Python bytecode -> Numba IR -> type
inference over every variable -> lowering -> LLVM), and that pipeline, run
in Python, is what a first ``jit`` call waits for. Because the language is
so small and every shape in it is static, we can walk the *source* instead:

    Python source --ast.parse--> syntax tree --walk, typing each value-->
    typed values (an LLVM value + a NumPy dtype; an array: a pointer + a
    static shape) --llvmlite.ir--> one LLVM function

:func:`translate_kernel` emits the entry function as
``void @jit_f(i8* noalias %arg0, ..., i8* noalias %out0, ...)``: every
parameter (constants then inputs, 0-d ones too) is a pointer to its data,
and each value the entry returns is written into a buffer the caller
passes after the inputs (:class:`TranslatedKernel`).

**The rule is identical bits with Numba.** Numba stays the reference (and
the compiler of whatever this module does not cover: it raises
:class:`NotTranslatable`, naming the construct). So each construct is
translated to the operations Numba emits for it:

- scalar typing: Numba's, not NumPy's (:mod:`.llvm_translate_types`: an
  int literal is an int64, integer arithmetic is done in 64 bits, the
  float32/float64 rule for mixed operands, comparisons' common types);
- scalar operations: :mod:`.llvm_translate_ops` (Python's ``//`` and ``%``,
  ``error_model="numpy"``'s division by zero, which compares are
  unordered, which math functions are intrinsics and which call libm);
- arrays: :mod:`.llvm_translate_arrays` (static strides, views, new arrays
  from ``aligned_alloc``);
- statements: here. A scalar variable is a stack slot (``alloca`` in the
  entry block: LLVM's ``mem2reg`` turns it into SSA registers, as it does
  Numba's); a loop ``for i in range(a, b, step)`` counts an int64 as Numba's
  range iterator does; ``a if c else b`` and ``and``/``or`` branch, so the
  arm not taken is not evaluated (it may read out of bounds);
- ``prange`` loops: the body outlined into a function of ``[start, stop)``
  run on Numba's thread pool (:mod:`.llvm_parallel`), as Numba's parfors;
- shared helpers (``from minijax_helpers_... import _exp32``) are called
  through the C-ABI functions :mod:`.llvm_helpers` compiles (Numba compiled
  them once per machine); a helper that is not a scalar function (it
  returns a tuple: ``_threefry2x32``) is translated from its source into
  the kernel, as Numba inlines it; the products (``_sgemm_nt`` ...) call
  :data:`.small_gemm.SYMBOL` (our own product, with ``numba_xxgemm``'s
  signature) with the arguments the helper passes, so the bits are those of
  the kernel Numba compiles;
- the module carries this machine's triple and data layout, as Numba's do:
  LLVM reads from them what the C library's math functions may do (on
  Linux ``sqrtf`` sets ``errno``, so a negative argument stays a call).

Where the translation decides something Numba decides at run time:

- **arrays made in a loop** (a block of rows, a scan's step) are allocated
  once, at the kernel's start, and reused by every iteration, unless
  another name keeps the array from one iteration to the next;
- **array variables**, names bound to arrays in a loop and elsewhere too (a
  scan's carry, ``g, h = np.int32(i), s``), own a buffer and every binding
  copies into it (Numba rebinds a reference-counted pointer; the values are
  the same as long as no other name writes the array later, which the
  writer never does);
- **slices with bounds known at run time** (``x[r0:r0 + nr]``, a product's
  block of rows) are views whose length is a run-time value; only element
  accesses and the BLAS calls take them.

What Numba's typing does that we skip: it infers a type for every
variable by propagating types over the whole function to a fixed point;
here a variable takes the type of its first assignment, and a later
assignment of another type restarts the translation with the variable
pinned to the unified type (:func:`.llvm_translate_types.unify`), which
gives Numba's answer for the straight-line, loop and branch code the
writer produces. Numba also resolves every call through its registry of
overloads; here the few functions the writer uses are looked up by name.
Not covered (they raise :class:`NotTranslatable`, with the line): functions
the kernel module defines for itself, helpers that take arrays (the sort's
``_sort_perm_1``), host callbacks, nested ``prange`` loops, array
expressions (``a + b`` on whole arrays), complex numbers, integer powers.

NaN signs and payloads are not part of the promise: LLVM keeps neither (it
may swap a commutative operation's operands, and x86 returns the first
operand's NaN), and Numba's own kernels give +NaN or -NaN for the same input
depending on whether the element fell in a vectorized iteration or not.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from minijax.backends.cpu import llvm_translate_ops as ops
from minijax.backends.cpu.llvm_translate_arrays import (
    Array, _wrapped, allocate, c_strides, copy_into, fill, free, load, loop_nest, offset_view,
    store, view)
from minijax.backends.cpu.llvm_translate_types import (
    BOOL, FLOAT64, INT64, Scalar, cast, is_float, is_int, literal_dtype, llvm_type,
    memory_type, truth, unify)

__all__ = ["NotTranslatable", "ArgSpec", "TranslatedKernel", "translate_kernel", "arg_specs"]


class NotTranslatable(Exception):
    """A construct the translator does not cover; the message names it."""


@dataclass(frozen=True)
class ArgSpec:
    """A parameter or result of the entry function, as the kernel sees it (float16 and
    bfloat16 as their uint16 bits, threefry keys as uint32 with a trailing axis of 2)."""
    dtype: np.dtype
    shape: tuple[int, ...]


@dataclass
class TranslatedKernel:
    """One LLVM module's text defining ``function`` (and declaring the helpers it calls),
    the entry's results in order (the caller allocates each and passes its data pointer
    after the inputs), and the shared helpers the IR calls."""
    ir: str
    function: str
    outputs: list[ArgSpec]
    helpers: list = field(default_factory=list)


def arg_specs(plan) -> list[ArgSpec]:
    """The entry's parameters (constants, then inputs) as :func:`.compile._numba_type`
    types them: keys as their uint32 data, 16-bit floats as their bits."""
    from minijax.backends.cpu.syntax import is_half, is_threefry_key
    jaxpr = plan.closed_jaxpr.jaxpr
    specs = []
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        aval = v.aval
        if is_threefry_key(aval.dtype):
            specs.append(ArgSpec(np.dtype(np.uint32), tuple(aval.shape) + (2,)))
        elif is_half(aval.dtype):
            specs.append(ArgSpec(np.dtype(np.uint16), tuple(aval.shape)))
        else:
            specs.append(ArgSpec(np.dtype(aval.dtype), tuple(aval.shape)))
    return specs


def translate_kernel(source: str, fn_name: str, args: list[ArgSpec]) -> TranslatedKernel:
    """Translate the entry ``fn_name`` of the kernel module ``source`` for ``args``."""
    tree = ast.parse(source)
    entry, shared, own = _module_parts(tree, fn_name)
    pinned: dict[str, np.dtype] = {}
    for _ in range(32):
        try:
            return _Translator(entry, shared, args, pinned, own).translate()
        except _Retype as retype:
            pinned[retype.name] = retype.dtype
        except (NotTranslatable, RecursionError):
            raise
        except Exception as e:   # a bug here must not break jit: Numba compiles the kernel
            raise NotTranslatable(f"translator error ({type(e).__name__}: {e})") from e
    raise NotTranslatable("variable types that do not settle")


def _module_parts(tree: ast.Module, fn_name: str):
    """The entry function, the names imported from the shared helper module, and the
    functions the module defines for itself (a sort helper made for this kernel)."""
    entry, shared, own = None, set(), {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            if node.name == fn_name:
                entry = node
            else:
                own[node.name] = node
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minijax_helpers"):
            shared.update(alias.asname or alias.name for alias in node.names)
    if entry is None:
        raise NotTranslatable(f"no function {fn_name}")
    return entry, shared, own


class _Retype(Exception):
    """A variable assigned two types: translate again with ``name`` of ``dtype``."""

    def __init__(self, name, dtype):
        super().__init__(name)
        self.name, self.dtype = name, dtype


@dataclass
class _Slot:
    """A scalar variable: its stack slot and type."""
    ptr: ir.Value
    dtype: np.dtype


@dataclass
class _Binding:
    """An array (or tuple) bound to a name, and the block scopes it was bound in
    (it may be used only inside them: its pointer is an SSA value of that code).
    ``owned``: an *array variable*, a name bound to arrays more than once (a loop's
    carry): it has a buffer of its own, and each binding copies into it."""
    value: object
    scopes: tuple
    owned: bool = False


_I8P = ir.IntType(8).as_pointer()
_I64 = ir.IntType(64)

#: Calls that make a new array (the kernel's result may be built in place).
_ALLOCATING = {"np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like", "np.zeros_like",
               "np.concatenate", ".astype", ".copy"}
_GEMM = re.compile(r"^_sgemm_(nn|nt|tn|tt)(_acc)?(_1t)?$")
_CONSTANTS = {"np.nan": np.nan, "np.inf": np.inf, "np.pi": np.pi, "np.e": np.e,
              "math.pi": np.pi, "math.e": np.e, "math.inf": np.inf, "math.nan": np.nan}
_DTYPE_NAMES = {"np.bool_": np.bool_, "bool": np.bool_, "int": np.int64, "float": np.float64,
                **{f"np.{t}": t for t in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                                           "uint32", "uint64", "float32", "float64")}}


def _dotted(node) -> str | None:
    """``np.float32`` -> "np.float32"; a method call's function -> ".name"."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("np", "math", "numba"):
            return f"{base.id}.{node.attr}"
        inner = _dotted(base) if isinstance(base, ast.Attribute) else None
        if inner is not None and not inner.startswith("."):
            return f"{inner}.{node.attr}"   # np.linalg.svd
        return "." + node.attr
    return None


class _Translator:
    """One translation of the entry function (see the module docstring)."""

    def __init__(self, entry: ast.FunctionDef, shared: set, args, pinned, own=None):
        self.entry, self.shared, self.args, self.pinned = entry, shared, list(args), pinned
        self.own = own or {}   # the module's own functions: inlined where called
        self.module = ir.Module(name=entry.name)
        self.module.triple, self.module.data_layout = _host_target()
        self.returns = self._returned_names()
        self.outputs: list[ArgSpec] = []
        self.helpers: dict = {}
        nparams = len(self.args) + len(self.returns)
        fnty = ir.FunctionType(ir.VoidType(), [_I8P] * nparams)
        self.function = self.entry_function = ir.Function(self.module, fnty, entry.name)
        for a in self.function.args:
            a.add_attribute("noalias")
        self.alloca_block = self.function.append_basic_block("entry")
        self.builder = ir.IRBuilder(self.function.append_basic_block("body"))
        self.vars: dict[str, object] = {}
        self._target = None
        self._store_counts, self._rebound, self._kept = _name_facts(entry)
        self.namespace = ""      # of the variables of an inlined helper ("_f(float32).")
        self.inlined = None      # while inlining a helper: (its exit block, result names)
        self.temps: list[Array] = []
        self.in_place: dict[int, str] = {}   # result position -> the name built in its buffer
        self.scopes: tuple = ()
        self.loops: list = []   # (continue block, break block)
        self._scope_id = 0

    # ---------------------------------------------------------------- entry
    def translate(self) -> TranslatedKernel:
        params = [p.arg for p in self.entry.args.args]
        if len(params) != len(self.args) or self.entry.args.vararg or self.entry.args.kwonlyargs:
            raise NotTranslatable(f"{len(params)} parameters for {len(self.args)} arguments")
        for name, spec, raw in zip(params, self.args, self.function.args):
            dtype = np.dtype(spec.dtype)
            ptr = self.builder.bitcast(raw, memory_type(dtype).as_pointer())
            if spec.shape == ():   # a 0-d argument is a scalar in the kernel
                value = Scalar(self.builder.load(ptr), dtype)
                if dtype == BOOL:
                    value = Scalar(self.builder.icmp_unsigned("!=", value.value,
                                                             ir.Constant(ir.IntType(8), 0)), BOOL)
                self._assign_scalar(name, value)
            else:
                shape = tuple(spec.shape)
                self.vars[name] = _Binding(Array(ptr, dtype, shape, c_strides(shape)), ())
        body = self.entry.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]   # the docstring
        self._block(body)
        if self.builder.block.terminator is None:
            raise NotTranslatable("a kernel that does not end with its return")
        ir.IRBuilder(self.alloca_block).branch(self.function.blocks[1])
        return TranslatedKernel(str(self.module), self.entry.name, self.outputs,
                                list(self.helpers.values()))

    def _returned_names(self) -> list:
        """The returned tuple's elements (their expressions), from the first ``return`` of
        the function's top level (what follows it never runs)."""
        last = next((s for s in self.entry.body if isinstance(s, ast.Return)), None)
        if last is None or last.value is None:
            raise NotTranslatable("a kernel that does not end with its return")
        value = last.value
        return list(value.elts) if isinstance(value, ast.Tuple) else [value]

    def _output_slot(self, name: str) -> int | None:
        """The result position whose buffer ``name`` may be built in directly: a name
        returned once, bound once, at the top level, by a call that makes an array."""
        positions = [k for k, e in enumerate(self.returns) if isinstance(e, ast.Name) and e.id == name]
        if len(positions) == 0 or self.scopes:
            return None
        return positions[0] if self._store_counts.get(name) == 1 else None

    # ---------------------------------------------------------------- statements
    def _block(self, statements) -> None:
        for stmt in statements:
            if self.builder.block.terminator is not None:
                return   # after break / continue / return: unreachable
            self._statement(stmt)

    def _statement(self, stmt) -> None:
        kind = type(stmt).__name__
        method = getattr(self, "_stmt_" + kind, None)
        try:
            if method is None:
                raise NotTranslatable(f"ast.{kind}")
            method(stmt)
        except NotTranslatable as e:
            if not getattr(e, "located", False) and self.namespace == "":
                e.args = (f"{e.args[0]} (line {stmt.lineno}: {ast.unparse(stmt).splitlines()[0][:80]})",)
                e.located = True
            raise

    def _stmt_Expr(self, stmt):
        if isinstance(stmt.value, ast.Constant):
            return   # a string: a comment
        self._expr(stmt.value)

    def _stmt_Pass(self, stmt):
        pass

    def _stmt_Assign(self, stmt):
        if len(stmt.targets) != 1:
            raise NotTranslatable("chained assignment")
        target = stmt.targets[0]
        self._target = target.id if isinstance(target, ast.Name) else None
        if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Call):
            slot = self._output_slot(target.id)
            if slot is not None and self._call_name(stmt.value) in _ALLOCATING:
                self._bind(target.id, self._call(stmt.value, out=slot))
                return
        self._assign(target, self._expr(stmt.value))

    def _assign(self, target, value):
        if isinstance(target, ast.Name):
            self._bind(target.id, value)
        elif isinstance(target, ast.Tuple):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise NotTranslatable("unpacking of a non-tuple")
            owned = {id(b.value.ptr) for b in self.vars.values()
                     if isinstance(b, _Binding) and b.owned}
            if sum(isinstance(v, Array) and id(v.ptr) in owned for v in value) and len(value) > 1:
                value = tuple(self._snapshot(v) if isinstance(v, Array) and id(v.ptr) in owned
                              else v for v in value)   # p, q = q, p: copy before overwriting
            for t, v in zip(target.elts, value):
                self._assign(t, v)
        elif isinstance(target, ast.Subscript):
            if isinstance(value, Array):   # x[i] = row: the elements copied into the view
                window = self._expr(target)
                if not isinstance(window, Array) or window.shape != value.shape:
                    raise NotTranslatable("assignment of an array to a slice of another shape")
                copy_into(self.builder, window, value)
                return
            array, indices = self._element(target)
            if not isinstance(value, Scalar):
                raise NotTranslatable("assignment of an array to a slice")
            store(self.builder, array, indices, value)
        else:
            raise NotTranslatable(f"assignment to ast.{type(target).__name__}")

    def _bind(self, name: str, value) -> None:
        if isinstance(value, Scalar):
            self._assign_scalar(name, value)
        elif isinstance(value, (Array, tuple)):
            if isinstance(self.vars.get(name), _Slot):
                raise NotTranslatable(f"{name} both a scalar and an array")
            if isinstance(value, Array) and name in self._rebound:
                self._bind_array_variable(name, value)
                return
            self.vars[name] = _Binding(value, self.scopes)
        else:
            raise NotTranslatable(f"assignment of {type(value).__name__}")

    def _bind_array_variable(self, name: str, value: Array) -> None:
        """``h = s`` where ``h`` is bound more than once (``g, h = np.int32(i), s`` at the
        end of a scan's loop): ``h`` keeps one buffer, allocated at its first binding,
        and every binding copies the array's elements into it. (Numba rebinds the
        pointer and counts references; a copy gives the same values as long as no other
        name writes the array afterwards, and the writer never does.)"""
        found = self.vars.get(name)
        if found is None:
            buffer = allocate(ir.IRBuilder(self.alloca_block), value.dtype, value.shape)
            self.temps.append(buffer)
            found = self.vars[name] = _Binding(buffer, (), owned=True)
        buffer = found.value
        if not found.owned or buffer.shape != value.shape or buffer.dtype != value.dtype:
            raise NotTranslatable(f"array variable {name} bound to arrays of other shapes")
        if value.ptr is not buffer.ptr:
            copy_into(self.builder, buffer, value)

    def _snapshot(self, array: Array) -> Array:
        copy = allocate(ir.IRBuilder(self.alloca_block), array.dtype, array.shape)
        self.temps.append(copy)
        copy_into(self.builder, copy, array)
        return copy

    def _assign_scalar(self, name: str, value: Scalar) -> None:
        slot = self.vars.get(name)
        if (slot is None and isinstance(value.value, ir.Constant) and not self.loops
                and self._store_counts.get(name) == 1 and not name.startswith("return.")):
            self.vars[name] = _Binding(value, ())   # n = 5: a constant, known to slices and shapes
            return
        if slot is None:
            dtype = self.pinned.get(self.namespace + name, value.dtype)
            ptr = ir.IRBuilder(self.alloca_block).alloca(llvm_type(dtype), name=name)
            slot = self.vars[name] = _Slot(ptr, dtype)
        if not isinstance(slot, _Slot):
            raise NotTranslatable(f"{name} both an array and a scalar")
        if value.dtype != slot.dtype:
            unified = unify(value.dtype, slot.dtype)
            if unified != slot.dtype:
                raise _Retype(self.namespace + name, unified)
        self.builder.store(cast(self.builder, value.value, value.dtype, slot.dtype), slot.ptr)

    def _stmt_AugAssign(self, stmt):
        op = _BINOPS.get(type(stmt.op))
        target = stmt.target
        if isinstance(target, ast.Name):
            current = self._name(target.id)
            self._bind(target.id, self._binop(op, current, self._expr(stmt.value)))
        elif isinstance(target, ast.Subscript):
            array, indices = self._element(target)
            current = load(self.builder, array, indices)
            store(self.builder, array, indices, self._binop(op, current, self._expr(stmt.value)))
        else:
            raise NotTranslatable(f"augmented assignment to ast.{type(target).__name__}")

    def _stmt_Return(self, stmt):
        if self.inlined is not None:
            self._inlined_return(stmt)
            return
        if self.scopes:
            raise NotTranslatable("return inside a loop or branch")
        b = self.builder
        nargs = len(self.args)
        for k, expr in enumerate(self.returns):
            value = self._expr(expr)
            out = self.function.args[nargs + k]
            if isinstance(value, Scalar):
                dtype = value.dtype
                b.store(_stored(b, value), b.bitcast(out, memory_type(dtype).as_pointer()))
                self.outputs.append(ArgSpec(dtype, ()))
            elif isinstance(value, Array):
                if not value.static:
                    raise NotTranslatable("returning an array of a shape known only at run time")
                self.outputs.append(ArgSpec(value.dtype, value.shape))
                if not (isinstance(expr, ast.Name) and self.in_place.get(k) == expr.id):
                    dst = Array(b.bitcast(out, memory_type(value.dtype).as_pointer()),
                                value.dtype, value.shape, c_strides(value.shape))
                    copy_into(b, dst, value)
            else:
                raise NotTranslatable("returning a tuple inside the result")
        for temp in self.temps:
            free(b, temp)
        b.ret_void()

    def _stmt_If(self, stmt):
        b = self.builder
        condition = self._truth(self._expr(stmt.test))
        then_block = b.append_basic_block("if.then")
        else_block = b.append_basic_block("if.else") if stmt.orelse else None
        merge = b.append_basic_block("if.end")
        b.cbranch(condition, then_block, else_block or merge)
        for block, body in ((then_block, stmt.body), (else_block, stmt.orelse)):
            if block is None:
                continue
            b.position_at_end(block)
            with self._scope():
                self._block(body)
            if b.block.terminator is None:
                b.branch(merge)
        b.position_at_end(merge)

    def _stmt_While(self, stmt):
        if stmt.orelse:
            raise NotTranslatable("while ... else")
        b = self.builder
        head, body, end = (b.append_basic_block(n) for n in ("while.head", "while.body", "while.end"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(self._truth(self._expr(stmt.test)), body, end)
        b.position_at_end(body)
        self._loop_body(stmt.body, head, end)
        b.position_at_end(end)

    def _loop_body(self, statements, next_block, end) -> None:
        """A loop's body, in its own scope; it goes on to ``next_block`` (the loop's
        test, or its counter's step) unless it ended in a ``break`` (to ``end``)."""
        self.loops.append((next_block, end))
        with self._scope():
            self._block(statements)
        self.loops.pop()
        if self.builder.block.terminator is None:
            self.builder.branch(next_block)

    def _stmt_Break(self, stmt):
        if not self.loops:
            raise NotTranslatable("break outside a loop")
        self.builder.branch(self.loops[-1][1])

    def _stmt_Continue(self, stmt):
        if not self.loops:
            raise NotTranslatable("continue outside a loop")
        self.builder.branch(self.loops[-1][0])

    def _stmt_For(self, stmt):
        """``for i in range(start, stop, step)`` (and ``prange``: :meth:`_prange`)."""
        call = stmt.iter
        name = self._call_name(call) if isinstance(call, ast.Call) else None
        if (name not in ("range", "prange", "numba.prange") or call.keywords or stmt.orelse
                or not isinstance(stmt.target, ast.Name)):
            raise NotTranslatable("for loop over something other than range")
        bounds = [self._int64(self._expr(a)) for a in call.args]
        if name != "range":
            if len(bounds) != 1:
                raise NotTranslatable("prange with a start or a step")
            self._prange(stmt, bounds[0])
            return
        if len(bounds) == 1:
            start, stop, step = ir.Constant(_I64, 0), bounds[0], ir.Constant(_I64, 1)
        elif len(bounds) == 2:
            (start, stop), step = bounds, ir.Constant(_I64, 1)
        else:
            start, stop, step = bounds
        if isinstance(step, ir.Constant) and int(step.constant) == 0:
            raise NotTranslatable("range with a step of 0")
        self._counted_loop(stmt, start, stop, int(step.constant) if isinstance(step, ir.Constant)
                           else step)

    def _counted_loop(self, stmt, start, stop, step: int) -> None:
        """A hidden int64 counter from ``start`` while below ``stop`` (above, for a negative
        step); ``i`` is assigned the counter at the top of each iteration, so after the
        loop it holds the last value, as in Python."""
        b = self.builder
        counter = ir.IRBuilder(self.alloca_block).alloca(_I64, name=f"{stmt.target.id}.counter")
        b.store(start, counter)
        head, body, step_block, end = (b.append_basic_block(n) for n in
                                       ("for.head", "for.body", "for.step", "for.end"))
        b.branch(head)
        b.position_at_end(head)
        current = b.load(counter)
        if isinstance(step, int):
            b.cbranch(b.icmp_signed("<" if step > 0 else ">", current, stop), body, end)
        else:   # a step known at run time: its sign picks the test
            up = b.icmp_signed(">", step, ir.Constant(_I64, 0))
            b.cbranch(b.select(up, b.icmp_signed("<", current, stop),
                               b.icmp_signed(">", current, stop)), body, end)
        b.position_at_end(body)
        self._assign_scalar(stmt.target.id, Scalar(current, INT64))
        self._loop_body(stmt.body, step_block, end)
        b.position_at_end(step_block)
        b.store(b.add(b.load(counter), _dim_value(step)), counter)
        b.branch(head)
        b.position_at_end(end)

    def _prange(self, stmt, n: ir.Value) -> None:
        """``for i in prange(n)``: Numba's parfor, made by hand (:mod:`.llvm_parallel`).

        The loop's body becomes a function ``body(start, stop, data)`` running the
        iterations ``[start, stop)``; what it reads of the kernel's variables is
        *captured*: the current value of each scalar and the pointer of each array
        go into a struct (``data``), and the body starts with copies of them (a
        scalar the body assigns is its own, as a parfor's private variables are).
        Arrays the body makes are allocated by each call of the body (one per
        thread), not shared. The pool splits ``[0, n)`` between its threads; the
        writer's ``prange`` iterations are independent, so the bits do not depend
        on the split.
        """
        from minijax.backends.cpu import llvm_parallel
        if self.function is not self.entry_function:
            raise NotTranslatable("prange loop inside a prange loop")
        read = {node.id for node in ast.walk(stmt) if isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)}
        captured, values = [], []
        for name in sorted(read):
            found = self.vars.get(name)
            if found is None:
                continue   # assigned in the body (or a module name: np, a helper)
            value = self._name(name)
            if isinstance(value, Scalar):
                captured.append((name, value.dtype))
                values.append(value.value)
            elif isinstance(value, Array):
                captured.append((name, value))
                values.append(value.ptr)
            else:
                raise NotTranslatable("a tuple read by a prange loop")
        values = values or [ir.Constant(_I64, 0)]
        data, struct_type = llvm_parallel.pack_captures(self.builder, values)
        self._prange_count = getattr(self, "_prange_count", 0) + 1
        body = llvm_parallel.declare_body(self.module, f"{self.entry.name}.prange{self._prange_count}")
        saved = (self.function, self.alloca_block, self.builder, self.temps, self.vars,
                 self.loops, self.scopes)
        self.function, self.temps, self.vars, self.loops = body, [], {}, []
        self.alloca_block = body.append_basic_block("entry")
        self.builder = ir.IRBuilder(body.append_basic_block("body"))
        try:
            start, stop, raw = body.args
            # a part starts at a run-time index, so LLVM cannot prove the loop's index
            # never negative, keeps Python's negative-index wrap, and vectorizes the
            # loads as gathers (selu on 1e6 floats: 2.5-3.3 ms against 0.5): tell it
            assume = self.module.declare_intrinsic(
                "llvm.assume", fnty=ir.FunctionType(ir.VoidType(), [ir.IntType(1)]))
            self.builder.call(assume, [self.builder.icmp_signed(">=", start,
                                                                ir.Constant(start.type, 0))])
            unpacked = llvm_parallel.unpack_captures(self.builder, raw, struct_type)
            for (name, what), value in zip(captured, unpacked):
                if isinstance(what, Array):
                    self.vars[name] = _Binding(Array(value, what.dtype, what.shape, what.strides), ())
                else:
                    self._assign_scalar(name, Scalar(value, what))
            self._counted_loop(stmt, start, stop, 1)
            for temp in self.temps:
                free(self.builder, temp)
            self.builder.ret_void()
            ir.IRBuilder(self.alloca_block).branch(body.blocks[1])
        finally:
            (self.function, self.alloca_block, self.builder, self.temps, self.vars,
             self.loops, self.scopes) = saved
        llvm_parallel.parallel_for(self.module, self.builder, body, n, data)

    def _scope(self):
        translator = self

        class _Scope:
            def __enter__(self):
                translator._scope_id += 1
                translator.scopes = translator.scopes + (translator._scope_id,)

            def __exit__(self, *exc):
                translator.scopes = translator.scopes[:-1]
        return _Scope()

    # ---------------------------------------------------------------- expressions
    def _expr(self, node):
        kind = type(node).__name__
        method = getattr(self, "_expr_" + kind, None)
        if method is None:
            raise NotTranslatable(f"ast.{kind}")
        return method(node)

    def _expr_Constant(self, node):
        value = node.value
        if isinstance(value, (bool, int, float)) and not isinstance(value, complex):
            dtype = literal_dtype(value)
            return Scalar(ir.Constant(llvm_type(dtype), _constant(value, dtype)), dtype)
        raise NotTranslatable(f"constant {value!r}")

    def _expr_Name(self, node):
        return self._name(node.id)

    def _name(self, name: str):
        found = self.vars.get(name)
        if found is None:
            raise NotTranslatable(f"name {name}")
        if isinstance(found, _Slot):
            return Scalar(self.builder.load(found.ptr), found.dtype)
        if isinstance(found.value, Scalar):
            return found.value
        if found.scopes != self.scopes[:len(found.scopes)]:
            raise NotTranslatable(f"array {name} used outside the block that binds it")
        return found.value

    def _expr_Attribute(self, node):
        name = _dotted(node)
        if node.attr == "ctypes":
            raise NotTranslatable("host callback (an array's .ctypes)")
        if name in _CONSTANTS:
            return Scalar(ir.Constant(llvm_type(FLOAT64), _CONSTANTS[name]), FLOAT64)
        base = self._expr(node.value)
        if isinstance(base, Array) and node.attr == "shape":
            return tuple(Scalar(_dim_value(d), INT64) for d in base.shape)
        if isinstance(base, Array) and node.attr == "size" and base.static:
            return Scalar(ir.Constant(_I64, base.size), INT64)
        raise NotTranslatable(f"attribute {name}")

    def _expr_Tuple(self, node):
        return tuple(self._expr(e) for e in node.elts)

    def _expr_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        return self._binop(op, self._expr(node.left), self._expr(node.right))

    def _binop(self, op, x, y):
        if op is None:
            raise NotTranslatable("operator")
        if not (isinstance(x, Scalar) and isinstance(y, Scalar)):
            raise NotTranslatable(f"array expression ({op})")
        return ops.binary(self.builder, op, x, y)

    def _expr_UnaryOp(self, node):
        if (isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
                and type(node.operand.value) in (int, float)):   # -1, -2.5: literals (as Numba)
            return self._expr_Constant(ast.Constant(-node.operand.value))
        operand = self._expr(node.operand)
        if not isinstance(operand, Scalar):
            raise NotTranslatable("unary operator on an array")
        op = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}[type(node.op)]
        return ops.unary(self.builder, op, operand)

    def _expr_Compare(self, node):
        """``a < b <= c``: each comparison, and-ed (no operand has side effects)."""
        left = self._scalar(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self._scalar(right_node)
            symbol = _COMPARES.get(type(op))
            if symbol is None:
                raise NotTranslatable(f"comparison {type(op).__name__}")
            cmp = ops.compare(self.builder, symbol, left, right).value
            result = cmp if result is None else self.builder.and_(result, cmp)
            left = right
        return Scalar(result, BOOL)

    def _expr_BoolOp(self, node):
        """``a and b`` / ``a or b``, short-circuit as in Python (the value of the operand
        that decides, in the operands' unified type)."""
        is_and = isinstance(node.op, ast.And)
        b = self.builder
        end = b.append_basic_block("boolop.end")
        incoming = []
        for k, operand in enumerate(node.values):
            value = self._scalar(operand)
            if k == len(node.values) - 1:
                incoming.append((value, b.block))
                b.branch(end)
                break
            decided = self._truth(value)
            if is_and:
                decided = b.not_(decided)
            incoming.append((value, b.block))
            nxt = b.append_basic_block("boolop.next")
            b.cbranch(decided, end, nxt)
            b.position_at_end(nxt)
        dtype = incoming[0][0].dtype
        for value, _ in incoming[1:]:
            dtype = unify(dtype, value.dtype)
        # conversions are emitted in each incoming block, before its branch
        converted = []
        for value, block in incoming:
            with b.goto_block(block):
                b.position_before(block.terminator)
                converted.append((cast(b, value.value, value.dtype, dtype), block))
        return self._join(end, converted, dtype)

    def _join(self, end, incoming, dtype) -> Scalar:
        """The value of ``dtype`` that arrives at block ``end`` from each
        ``(value, block)`` of ``incoming`` (an LLVM ``phi``)."""
        self.builder.position_at_end(end)
        phi = self.builder.phi(llvm_type(dtype))
        for value, block in incoming:
            phi.add_incoming(value, block)
        return Scalar(phi, dtype)

    def _expr_IfExp(self, node):
        """``a if c else b``: only the chosen arm is evaluated; the unified type."""
        b = self.builder
        condition = self._truth(self._expr(node.test))
        then_block, else_block, end = (b.append_basic_block(n) for n in
                                       ("ifexp.then", "ifexp.else", "ifexp.end"))
        b.cbranch(condition, then_block, else_block)
        arms = []
        for block, expr in ((then_block, node.body), (else_block, node.orelse)):
            b.position_at_end(block)
            arms.append((self._scalar(expr), b.block))
        dtype = unify(arms[0][0].dtype, arms[1][0].dtype)
        incoming = []
        for value, block in arms:
            b.position_at_end(block)
            incoming.append((cast(b, value.value, value.dtype, dtype), b.block))
            b.branch(end)
        return self._join(end, incoming, dtype)

    def _expr_Subscript(self, node):
        base = self._expr(node.value)
        if isinstance(base, tuple):
            index = self._expr(node.slice)
            if not (isinstance(index, Scalar) and isinstance(index.value, ir.Constant)):
                raise NotTranslatable("tuple indexed at run time")
            return base[int(index.value.constant)]
        if not isinstance(base, Array):
            raise NotTranslatable("subscript of a scalar")
        return self._index(base, node.slice)

    def _element(self, target):
        """The array and the indices of an element store ``x[i, j] = ...``."""
        array = self._expr(target.value)
        if not isinstance(array, Array):
            raise NotTranslatable("store into a non-array")
        parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if len(parts) != len(array.shape) or any(isinstance(p, ast.Slice) for p in parts):
            raise NotTranslatable("store into a slice")
        return array, [self._index_scalar(p) for p in parts]

    def _index(self, array: Array, index_node):
        """``x[i, j]`` (an element) or a view: fewer indices than axes, or constant slices."""
        parts = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
        if len(parts) > len(array.shape):
            raise NotTranslatable("too many indices")
        if len(parts) == len(array.shape) and not any(isinstance(p, ast.Slice) for p in parts):
            return load(self.builder, array, [self._index_scalar(p) for p in parts])
        return self._view(array, parts)

    def _view(self, array: Array, parts) -> Array:
        offset, shape, strides, dynamic = 0, [], [], []
        b = self.builder
        for d, (dim, stride) in enumerate(zip(array.shape, array.strides)):
            part = parts[d] if d < len(parts) else ast.Slice(None, None, None)
            if isinstance(part, ast.Slice) and _start_plus_constant(part):
                # x[s:s + c]: dynamic_slice's window, whose start the writer clamped to
                # [0, dim - c]: c long, from s (wrapped and clamped as Numba does)
                length = part.upper.right.value
                start = self._slice_start(self._index_scalar(part.lower), dim)
                dynamic.append((Scalar(start, INT64), dim, stride))
                shape.append(length)
                strides.append(stride)
            elif isinstance(part, ast.Slice) and not self._constant_slice(part, dim):
                # bounds known at run time (a product's block of rows): a shape known
                # only at run time too, which only the BLAS calls and element accesses take
                if part.step is not None:
                    raise NotTranslatable("slice with a step and bounds known only at run time")
                start = self._slice_start(self._index_scalar(part.lower), dim) \
                    if part.lower is not None else ir.Constant(_I64, 0)
                stop = self._slice_start(self._index_scalar(part.upper), dim) \
                    if part.upper is not None else _dim_value(dim)
                length = b.sub(stop, start)
                length = b.select(b.icmp_signed("<", length, ir.Constant(_I64, 0)),
                                  ir.Constant(_I64, 0), length)
                dynamic.append((Scalar(start, INT64), dim, stride))
                shape.append(length)
                strides.append(stride)
            elif isinstance(part, ast.Slice):
                bounds = [self._constant_int(e) if e is not None else None
                          for e in (part.lower, part.upper, part.step)]
                r = range(dim)[slice(*bounds)]
                if len(r):
                    offset += r.start * stride
                shape.append(len(r))
                strides.append(stride * r.step)
            else:
                index = self._index_scalar(part)
                if isinstance(index.value, ir.Constant):
                    v = int(index.value.constant)
                    offset += (v + dim if v < 0 else v) * stride
                else:
                    dynamic.append((index, dim, stride))
        view_ = offset_view(b, array, offset, shape, strides)
        for index, dim, stride in dynamic:
            step = b.mul(_wrapped(b, index, dim), ir.Constant(_I64, stride))
            view_ = Array(b.gep(view_.ptr, [step], inbounds=True), view_.dtype, view_.shape,
                          view_.strides)
        return view_

    def _constant_slice(self, part: ast.Slice, dim) -> bool:
        """Are the slice's bounds (and the axis's length) known now?"""
        if not isinstance(dim, int):
            return False
        for e in (part.lower, part.upper, part.step):
            if e is not None:
                value = self._expr(e)
                if not (isinstance(value, Scalar) and isinstance(value.value, ir.Constant)):
                    return False
        return True

    def _slice_start(self, start: Scalar, dim) -> ir.Value:
        """A slice bound as Numba fixes it: ``+ dim`` if negative, then within [0, dim]."""
        b = self.builder
        value = cast(b, start.value, start.dtype, INT64)
        zero, size = ir.Constant(_I64, 0), _dim_value(dim)
        value = b.select(b.icmp_signed("<", value, zero), b.add(value, size), value)
        value = b.select(b.icmp_signed("<", value, zero), zero, value)
        return b.select(b.icmp_signed(">", value, size), size, value)

    def _constant_int(self, node) -> int:
        value = self._expr(node)
        if not (isinstance(value, Scalar) and is_int(value.dtype)
                and isinstance(value.value, ir.Constant)):
            raise NotTranslatable("slice bounds known only at run time")
        return int(value.value.constant)

    def _index_scalar(self, node) -> Scalar:
        value = self._expr(node)
        if not isinstance(value, Scalar) or not is_int(value.dtype) or value.dtype == BOOL:
            raise NotTranslatable("index that is not an integer")
        return value

    # ---------------------------------------------------------------- calls
    def _call_name(self, node: ast.Call) -> str | None:
        return _dotted(node.func)

    def _expr_Call(self, node):
        return self._call(node)

    def _call(self, node: ast.Call, out: int | None = None):
        """A call, found by name (``out``: the result position whose buffer a new array
        may be built in)."""
        name = self._call_name(node)
        if name is None:
            raise NotTranslatable("call of an expression")
        if name.startswith("."):
            return self._method(node, name[1:], out)
        if name in _DTYPE_NAMES and not node.keywords and len(node.args) == 1:
            value = self._scalar(node.args[0])
            return ops.convert(self.builder, value, np.dtype(_DTYPE_NAMES[name]))
        if name in ("min", "max"):
            return ops.minmax(self.builder, name, [self._scalar(a) for a in node.args])
        if name == "divmod":
            return ops.divmod_(self.builder, *[self._scalar(a) for a in node.args])
        if name in ("np.empty", "np.zeros", "np.ones", "np.full", "np.empty_like",
                    "np.zeros_like"):
            return self._new_array(node, name, out)
        if name == "np.arange" and len(node.args) == 1 and not node.keywords:
            n = self._constant_int(node.args[0])
            array = self._new_buffer(np.dtype(np.int64), (n,), out)
            loop_nest(self.builder, (n,), lambda i: store(self.builder, array, i, i[0]))
            return array
        if name == "np.ascontiguousarray":
            array = self._array(node.args[0])
            return array if array.contiguous else self._copy(array, array.dtype, out)
        if name == "np.concatenate":
            return self._concatenate(node, out)
        if name == "fma32":
            return ops.fma32(self.builder, [self._scalar(a) for a in node.args])
        if _GEMM.match(name) and name in self.shared:
            return self._gemm(name, [self._array(a) for a in node.args])
        if name in self.own:
            args = [self._expr(a) for a in node.args]
            if not all(isinstance(a, (Scalar, Array)) for a in args):
                raise NotTranslatable(f"call to {name} with a tuple")
            return self._inline(name, args)
        if name in self.shared:
            nested = self._nested_helper(name, node)
            if nested is not None:
                return self._helper(nested, [self._scalar(node.args[0])])
            args = [self._expr(a) for a in node.args]
            if not all(isinstance(a, (Scalar, Array)) for a in args):
                raise NotTranslatable(f"call to {name} with a tuple")
            if not all(isinstance(a, Scalar) for a in args):
                return self._inline(name, args)   # (the helper library takes scalars)
            return self._helper(name, args)
        if name in ops.MATH or name.startswith(("np.", "math.")) or name == "abs":
            args = [self._expr(a) for a in node.args]
            if not all(isinstance(a, Scalar) for a in args):
                raise NotTranslatable(f"{name} of an array")
            return ops.math_call(self.builder, name, args)
        raise NotTranslatable(f"call to {name}")

    def _method(self, node, method: str, out):
        base = self._expr(node.func.value)
        if isinstance(base, Scalar):
            if method == "view" and len(node.args) == 1:
                dtype = self._dtype(node.args[0])
                if dtype.itemsize != base.dtype.itemsize or BOOL in (dtype, base.dtype):
                    raise NotTranslatable("view as a dtype of another size")
                return Scalar(self.builder.bitcast(base.value, llvm_type(dtype)), dtype)
            raise NotTranslatable(f"method .{method} of a scalar")
        if not isinstance(base, Array):
            raise NotTranslatable(f"method .{method}")
        if method == "reshape":
            shape = self._shape(node.args[0] if len(node.args) == 1 else ast.Tuple(node.args))
            if -1 in shape:
                known = int(np.prod([d for d in shape if d != -1]))
                shape = tuple(base.size // known if d == -1 else d for d in shape)
            if not base.contiguous or int(np.prod(shape)) != base.size:
                raise NotTranslatable("reshape of a non-contiguous array")
            return view(base, shape)
        if method == "ravel":
            return view(base, (base.size,)) if base.contiguous else self._copy(
                base, base.dtype, out, shape=(base.size,))
        if method in ("any", "all") and not node.args:
            return self._any_all(base, method)
        if method == "astype":
            return self._copy(base, self._dtype(node.args[0]), out)
        if method == "copy":
            return self._copy(base, base.dtype, out)
        if method == "view" and len(node.args) == 1:
            dtype = self._dtype(node.args[0])
            if dtype.itemsize != base.dtype.itemsize or not base.contiguous:
                raise NotTranslatable("view of an array as a dtype of another size")
            ptr = self.builder.bitcast(base.ptr, memory_type(dtype).as_pointer())
            return Array(ptr, dtype, base.shape, base.strides)
        raise NotTranslatable(f"method .{method}")

    def _any_all(self, array: Array, method: str) -> Scalar:
        """``x.any()`` / ``x.all()``: a loop or-ing (and-ing) each element's truth."""
        b = self.builder
        result = ir.IRBuilder(self.alloca_block).alloca(ir.IntType(1), name=method)
        b.store(ir.Constant(ir.IntType(1), int(method == "all")), result)

        def body(indices):
            element = load(b, array, indices)
            combine = b.or_ if method == "any" else b.and_
            b.store(combine(b.load(result), truth(b, element.value, element.dtype)), result)
        loop_nest(b, array.shape, body)
        return Scalar(b.load(result), BOOL)

    def _dtype(self, node) -> np.dtype:
        name = _dotted(node)
        if name in _DTYPE_NAMES:
            return np.dtype(_DTYPE_NAMES[name])
        raise NotTranslatable(f"dtype {ast.unparse(node)}")

    def _shape(self, node) -> tuple[int, ...]:
        if isinstance(node, ast.Tuple):
            return tuple(self._constant_int(e) for e in node.elts)
        value = self._expr(node)
        if isinstance(value, tuple):
            return tuple(int(v.value.constant) for v in value)
        return (self._constant_int(node),)

    def _new_buffer(self, dtype, shape, out) -> Array:
        """A new array: the caller's result buffer ``out``, or a temporary freed at the end."""
        if out is not None:
            raw = self.function.args[len(self.args) + out]
            ptr = self.builder.bitcast(raw, memory_type(dtype).as_pointer())
            self.in_place[out] = self.returns[out].id
            return Array(ptr, np.dtype(dtype), tuple(shape), c_strides(shape))
        # Allocated in the entry block, once, even when the statement is in a loop: each
        # iteration's array is dead when the next one is made, unless another name keeps
        # it (a scan's carry, ``q = be``): then it is not translated.
        if self.scopes and self._target in self._kept:
            raise NotTranslatable("array carried across loop iterations")
        array = allocate(ir.IRBuilder(self.alloca_block), dtype, shape)
        self.temps.append(array)
        return array

    def _new_array(self, node, name, out) -> Array:
        kw = {k.arg: k.value for k in node.keywords}
        if name in ("np.empty_like", "np.zeros_like"):
            like = self._array(node.args[0])
            dtype = self._dtype(kw["dtype"]) if "dtype" in kw else like.dtype
            shape, fill_value = like.shape, (None if name == "np.empty_like" else 0)
        else:
            shape = self._shape(node.args[0])
            fill_node = node.args[1] if name == "np.full" else None
            if name == "np.full" and "fill_value" in kw:
                fill_node = kw["fill_value"]
            dtype_node = kw.get("dtype", node.args[2] if name == "np.full" and len(node.args) > 2
                                else node.args[1] if name != "np.full" and len(node.args) > 1
                                else None)
            fill_value = {"np.zeros": 0, "np.ones": 1, "np.empty": None}.get(name)
            if fill_node is not None:
                fill_value = self._scalar(fill_node)
            if dtype_node is not None:
                dtype = self._dtype(dtype_node)
            elif isinstance(fill_value, Scalar):
                dtype = fill_value.dtype
            else:
                dtype = FLOAT64
        array = self._new_buffer(np.dtype(dtype), shape, out)
        if fill_value is not None:
            if not isinstance(fill_value, Scalar):
                fill_value = Scalar(ir.Constant(llvm_type(INT64), fill_value), INT64)
            fill(self.builder, array, fill_value)
        return array

    def _copy(self, array: Array, dtype, out, shape=None) -> Array:
        new = self._new_buffer(np.dtype(dtype), array.shape, out)
        copy_into(self.builder, new, array)
        return new if shape is None else view(new, shape)

    def _concatenate(self, node, out) -> Array:
        parts = [self._array(e) for e in node.args[0].elts]
        kw = {k.arg: k.value for k in node.keywords}
        axis = self._constant_int(kw["axis"]) if "axis" in kw else (
            self._constant_int(node.args[1]) if len(node.args) > 1 else 0)
        first = parts[0]
        axis %= len(first.shape)
        shape = list(first.shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        dtype = first.dtype
        for p in parts[1:]:
            dtype = np.promote_types(dtype, p.dtype)
        new = self._new_buffer(dtype, shape, out)
        start = 0
        for p in parts:
            window = offset_view(self.builder, new, start * new.strides[axis], p.shape,
                                 new.strides)
            copy_into(self.builder, window, p)
            start += p.shape[axis]
        return new

    def _array(self, node) -> Array:
        value = self._expr(node)
        if not isinstance(value, Array):
            raise NotTranslatable("an array argument that is not an array")
        return value

    def _scalar(self, node) -> Scalar:
        value = self._expr(node)
        if not isinstance(value, Scalar):
            raise NotTranslatable("array used as a scalar")
        return value

    def _int64(self, value) -> ir.Value:
        if not isinstance(value, Scalar) or not is_int(value.dtype):
            raise NotTranslatable("range bound that is not an integer")
        if value.dtype.kind == "u" and value.dtype.itemsize == 8:
            raise NotTranslatable("range over uint64")
        return cast(self.builder, value.value, value.dtype, INT64)

    def _truth(self, value) -> ir.Value:
        if not isinstance(value, Scalar):
            raise NotTranslatable("truth of an array")
        return truth(self.builder, value.value, value.dtype)

    # ---------------------------------------------------------------- helpers, BLAS
    def _helper(self, name: str, args: list[Scalar]) -> Scalar:
        """A shared helper: a C-ABI function compiled once per machine (:mod:`.llvm_helpers`)."""
        try:
            from minijax.backends.cpu import llvm_helpers
        except ImportError:
            raise NotTranslatable(f"call to {name} (no helper library)") from None
        dtypes = tuple(a.dtype for a in args)
        try:
            helper = llvm_helpers.helper_function(name, dtypes)
        except llvm_helpers.HelperNotAvailable:
            return self._inline(name, args)
        self.helpers[helper.symbol] = helper
        try:
            fn = self.module.get_global(helper.symbol)
        except KeyError:
            fnty = ir.FunctionType(llvm_type(np.dtype(helper.return_dtype)),
                                   [llvm_type(np.dtype(d)) for d in helper.arg_dtypes])
            fn = ir.Function(self.module, fnty, helper.symbol)
        values = [cast(self.builder, a.value, a.dtype, np.dtype(d))
                  for a, d in zip(args, helper.arg_dtypes)]
        return Scalar(self.builder.call(fn, values), np.dtype(helper.return_dtype))

    def _inline(self, name: str, args: list[Scalar]):
        """A shared helper the helper library cannot give as a scalar C function (it
        returns a tuple: ``_threefry2x32``) translated from its Python source into
        the kernel, as Numba inlines it: its parameters and locals in a namespace of
        their own, typed for these argument types, each ``return`` storing into the
        result variables and jumping to the end."""
        from minijax.backends.cpu.helpers import HELPERS
        if self.namespace.count("(") >= 4:
            raise NotTranslatable(f"call to {name} (helpers nested too deep)")
        if name in self.own:
            fn = self.own[name]
        elif name in HELPERS:
            fn = ast.parse(HELPERS[name].source.strip()).body[0]
        else:
            raise NotTranslatable(f"call to {name}")
        params = [p.arg for p in fn.args.args]
        if len(params) != len(args) or fn.args.defaults:
            raise NotTranslatable(f"call to {name} with {len(args)} arguments")
        saved = (self.vars, self.loops, self.scopes, self.namespace, self.inlined, self.shared,
                 self._store_counts, self._rebound, self._kept, self._target)
        exit_block = self.builder.append_basic_block(f"{name}.end")
        self.vars, self.loops = {}, []
        self.namespace = f"{saved[3]}{name}({','.join(_describe(a) for a in args)})."
        self.inlined = {"exit": exit_block, "arity": None, "array": None, "top": self.scopes}
        self.shared = set(HELPERS)
        self._store_counts, self._rebound, self._kept = _name_facts(fn)
        try:
            for param, value in zip(params, args):
                if isinstance(value, Array):
                    self.vars[param] = _Binding(value, self.scopes)
                else:
                    self._assign_scalar(param, value)
            self._block(fn.body)
            if self.builder.block.terminator is None:   # falls off its end: returns None
                if self.inlined["arity"] is not None:
                    raise NotTranslatable(f"{name} returning a value or None")
                self.builder.branch(exit_block)
            self.builder.position_at_end(exit_block)
            arity = self.inlined["arity"]
            if arity is None:
                return None   # (a helper that only writes into its array arguments)
            if self.inlined["array"] is not None:
                return self.inlined["array"]
            results = tuple(self._name(f"return.{k}") for k in range(arity or 1))
        finally:
            (self.vars, self.loops, self.scopes, self.namespace, self.inlined, self.shared,
             self._store_counts, self._rebound, self._kept, self._target) = saved
        return results if arity else results[0]

    def _inlined_return(self, stmt):
        value = self._expr(stmt.value)
        if isinstance(value, Array):   # one return, at the helper's end: its array
            if self.scopes != self.inlined["top"] or self.inlined["arity"] is not None:
                raise NotTranslatable("a helper returning an array from inside a block")
            self.inlined["arity"], self.inlined["array"] = 0, value
            self.builder.branch(self.inlined["exit"])
            return
        values = value if isinstance(value, tuple) else (value,)
        arity = len(value) if isinstance(value, tuple) else 0
        if self.inlined["arity"] not in (None, arity):
            raise NotTranslatable("a helper returning tuples of different lengths")
        self.inlined["arity"] = arity
        for k, v in enumerate(values):
            if not isinstance(v, Scalar):
                raise NotTranslatable("a helper returning an array")
            self._assign_scalar(f"return.{k}", v)
        self.builder.branch(self.inlined["exit"])

    def _nested_helper(self, outer: str, node: ast.Call) -> str | None:
        """``outer(x, middle(inner(x)))`` (the float32 trig rules' pipeline, whose values
        in between are tuples) as the one scalar helper of ``x`` that computes it."""
        if len(node.args) != 2 or not isinstance(node.args[1], ast.Call):
            return None
        middle = node.args[1]
        if len(middle.args) != 1 or not isinstance(middle.args[0], ast.Call):
            return None
        inner = middle.args[0]
        if len(inner.args) != 1 or ast.dump(inner.args[0]) != ast.dump(node.args[0]):
            return None
        try:
            from minijax.backends.cpu.llvm_helpers import nested_helper
        except ImportError:
            return None
        return nested_helper(outer, _dotted(middle.func), _dotted(inner.func))

    def _gemm(self, name: str, arrays: list[Array]):
        """``_sgemm_<ta><tb>[_acc][_1t](a, b, out)``: the helper's one call of the
        product (:mod:`.small_gemm`, which takes BLAS's column-major arguments), with its
        arguments: the C-order matrices read as their transposes, it is asked for
        out.T = op(b).T @ op(a).T."""
        flags, acc, one_thread = _GEMM.match(name).groups()
        trans_a, trans_b = flags[0] == "t", flags[1] == "t"
        a, b_, out = arrays
        if any(x.dtype != np.float32 or len(x.shape) != 2
               or (x.strides[1] != 1 and not (isinstance(x.shape[1], int) and x.shape[1] <= 1))
               for x in arrays):
            raise NotTranslatable(f"{name} on non-float32 or non-row-contiguous matrices")
        builder = self.builder
        m, n = out.shape
        k = a.shape[0 if trans_a else 1]
        ab = ir.IRBuilder(self.alloca_block)
        alpha, beta = ab.alloca(ir.FloatType()), ab.alloca(ir.FloatType())
        builder.store(ir.Constant(ir.FloatType(), 1.0), alpha)
        builder.store(ir.Constant(ir.FloatType(), 1.0 if acc else 0.0), beta)
        if one_thread:
            from minijax.backends.cpu.blas_threads import SYMBOL
            i32 = ir.IntType(32)
            fn = self._declare(SYMBOL, ir.FunctionType(i32, [i32]))
            builder.call(fn, [ir.Constant(i32, 1)])
        i8, i32 = ir.IntType(8), ir.IntType(32)
        fnty = ir.FunctionType(i32, [i8, i8, i8, _I64, _I64, _I64, _I8P, _I8P, _I64, _I8P, _I64,
                                     _I8P, _I8P, _I64])
        from minijax.backends.cpu.small_gemm import SYMBOL as GEMM
        fn = self._declare(GEMM, fnty)

        def ptr(x):
            return builder.bitcast(x, _I8P)

        def leading(x):   # the helper's _leading: the row stride, at least a row, at least 1
            if isinstance(x.shape[1], int):
                return ir.Constant(_I64, max(x.strides[0], x.shape[1], 1))
            most = ir.Constant(_I64, max(x.strides[0], 1))
            return builder.select(builder.icmp_signed(">", x.shape[1], most), x.shape[1], most)
        builder.call(fn, [ir.Constant(i8, ord("s")), ir.Constant(i8, ord("T" if trans_b else "N")),
                          ir.Constant(i8, ord("T" if trans_a else "N")),
                          _dim_value(n), _dim_value(m), _dim_value(k),
                          ptr(alpha), ptr(b_.ptr), leading(b_), ptr(a.ptr), leading(a),
                          ptr(beta), ptr(out.ptr), leading(out)])
        return None

    def _declare(self, symbol: str, fnty) -> ir.Function:
        try:
            return self.module.get_global(symbol)
        except KeyError:
            return ir.Function(self.module, fnty, symbol)


def _dim_value(dim) -> ir.Value:
    """An axis length as an int64 value (a constant, or a length known at run time)."""
    return ir.Constant(_I64, dim) if isinstance(dim, int) else dim


def _start_plus_constant(part: ast.Slice) -> bool:
    """Is the slice ``s:s + c`` (the same expression ``s``, a constant ``c``, no step)?"""
    upper = part.upper
    return (part.lower is not None and part.step is None and isinstance(upper, ast.BinOp)
            and isinstance(upper.op, ast.Add) and isinstance(upper.right, ast.Constant)
            and type(upper.right.value) is int and not isinstance(part.lower, ast.Constant)
            and ast.dump(upper.left) == ast.dump(part.lower))


_HOST: list = []


def _host_target() -> tuple[str, str]:
    """This machine's target triple and data layout, as Numba gives every module.

    They matter for the bits: LLVM knows from the triple whether the C library's
    math functions may set ``errno``; on Linux, ``sqrtf`` of a negative number must
    then stay a call (glibc returns +NaN), where an unknown target lets LLVM use
    the ``sqrtss`` instruction (which gives the default NaN, -NaN)."""
    if not _HOST:
        import llvmlite.binding as llvm
        llvm.initialize_native_target()
        triple = llvm.get_process_triple()
        machine = llvm.Target.from_triple(triple).create_target_machine()
        _HOST.append((triple, str(machine.target_data)))
    return _HOST[0]


def _describe(value) -> str:
    """An argument's type in an inlined helper's namespace: ``float32``, ``int64[5]``."""
    if isinstance(value, Array):
        return f"{value.dtype.name}{list(value.shape)}"
    return value.dtype.name


def _name_facts(fn: ast.FunctionDef):
    """How many times each name is bound, the names bound again in a loop or branch
    (array variables), and the names another name takes the value of."""
    counts: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    rebound = _rebound_names(fn)
    return counts, rebound, _aliased_names(fn) - rebound


def _aliased_names(entry: ast.FunctionDef) -> set:
    """The names whose value another name takes (``x = be``), unless that other name is
    an array variable (which copies: :meth:`_Translator._bind_array_variable`)."""
    rebound = _rebound_names(entry)
    kept = set()
    for node in ast.walk(entry):
        if isinstance(node, ast.Assign):
            pairs = [(node.targets[0], node.value)]
            if isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(node.targets[0].elts, node.value.elts))
            kept.update(v.id for t, v in pairs if isinstance(v, ast.Name)
                        and not isinstance(t, ast.Subscript)   # x[i] = v copies v
                        and not (isinstance(t, ast.Name) and t.id in rebound))
    return kept


def _rebound_names(entry: ast.FunctionDef) -> set:
    """The names bound more than once in the function, one of the bindings inside a loop
    or a branch (which binding a use sees is then known only at run time). A name bound
    again in straight-line code (``o = o.reshape((2, 2))``) is just bound anew."""
    counts: dict = {}
    nested: set = set()

    def visit(statements, inside: bool):
        for stmt in statements:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    counts[node.id] = counts.get(node.id, 0) + 1
                    if inside or isinstance(stmt, (ast.For, ast.While, ast.If)):
                        nested.add(node.id)
    visit(entry.body, False)
    return {name for name, count in counts.items() if count > 1 and name in nested}


def _stored(builder, value: Scalar) -> ir.Value:
    from minijax.backends.cpu.llvm_translate_types import to_memory
    return to_memory(builder, value.value, value.dtype)


def _constant(value, dtype):
    """A Python literal as the operand of ``ir.Constant`` (integers in two's complement)."""
    if dtype == BOOL:
        return int(value)
    if is_float(dtype):
        return float(value)
    bits = 8 * dtype.itemsize
    value = int(value) & ((1 << bits) - 1)
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>"}
_COMPARES = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
             ast.NotEq: "!="}
