"""Chapter 09 — the last stage made our own: LLVM IR to machine code, and a Python entry.

:mod:`.llvm_translate` turns a kernel's Python source into an LLVM module with
one function, ``void @kernel(ptr %in0, ..., ptr %out0, ...)``, that reads
its inputs and writes its outputs through raw data pointers. This module
does what Numba does with the LLVM IR it generates, in four steps:

1. **Link.** The shared helpers the kernel calls (``_exp32``, ``_tanh32``...)
   come as LLVM IR too (:mod:`.llvm_helpers`, compiled by Numba once per
   machine); they are linked into the kernel's module, so LLVM can inline
   them into the loops and vectorize through them. A small *entry* function
   is linked in as well (:func:`entry_ir`, below).
2. **Optimize.** LLVM's -O3 pipeline with loop vectorization, for this
   machine's CPU (its name and features, as Numba's JIT asks for them), once,
   over the whole module. No fast-math flags: LLVM may then not reassociate,
   contract or otherwise change floating-point arithmetic, which is why the
   result has the same bits as Numba's kernel for the same source.
3. **Emit and cache.** The target machine writes an object file, which is
   kept in the compile cache under the hash of the IR; a later process loads
   the object file and skips steps 1 and 2 (and the translation is cheap).
4. **Load and wrap.** The object file is added to one MCJIT engine per
   process, which links it against this process (libm, Numba's BLAS helper,
   Python's C API) and gives the address of the entry.

The entry is a CPython function of the *fast-call* convention,
``PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t n)``,
turned into a Python builtin with ``PyCFunction_NewEx``: Python calls it as
it calls ``len``, with no ctypes conversion per argument. It finds each
array's data pointer in the ``PyArrayObject`` (at byte 16, after the object
header), or a NumPy scalar's value itself (also at byte 16), releases the GIL
(``PyEval_SaveThread``: the executor runs kernels beside Python threads),
calls the kernel, takes the GIL back and returns ``None``. Outputs are
allocated by :meth:`LlvmKernel.__call__` with ``np.empty`` and passed in.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import tempfile
import threading

import llvmlite
import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from minijax.backends.cpu import llvm_parallel

__all__ = ["LlvmKernel", "load_kernel", "entry_ir", "compile_object", "optimize",
           "host_machine", "object_cache_dir"]

#: Where, in a PyArrayObject, the data pointer is; and, in a NumPy scalar, its value:
#: right after the object header (reference count and type: two 8-byte words).
_DATA_OFFSET = 16
#: ``ml_flags`` of a fast-call builtin (CPython's ``METH_FASTCALL``).
_METH_FASTCALL = 0x0080

_lock = threading.RLock()
_state: dict = {}


# =============================================================================
# The machine: a target machine for this CPU, one MCJIT engine per process
# =============================================================================
def host_machine():
    """LLVM's target machine for this CPU, with the options Numba's JIT uses
    (the CPU name and features it compiles the helpers for, static
    relocations, the JIT code model)."""
    with _lock:
        if "machine" not in _state:
            from minijax.backends.cpu.llvm_helpers import host_cpu
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            target = llvm.Target.from_triple(llvm.get_process_triple())
            _state["cpu"] = host_cpu()
            cpu, features = _state["cpu"]
            _state["machine"] = target.create_target_machine(
                cpu=cpu, features=features, opt=3, reloc="static", codemodel="jitdefault",
                jit=True)
        return _state["machine"]


def _engine():
    """One MCJIT engine for the process, to which each kernel's object file is added."""
    with _lock:
        if "engine" not in _state:
            machine = host_machine()
            _register_python_symbols()
            empty = llvm.parse_assembly(f'target triple = "{llvm.get_process_triple()}"')
            _state["engine"] = llvm.create_mcjit_compiler(empty, machine)
        return _state["engine"]


def _register_python_symbols() -> None:
    """Tell LLVM where the C API functions the entry calls are in this process."""
    api = ctypes.pythonapi
    for name in ("PyEval_SaveThread", "PyEval_RestoreThread"):
        llvm.add_symbol(name, ctypes.cast(getattr(api, name), ctypes.c_void_p).value)
    llvm.add_symbol("_Py_NoneStruct", id(None))


# =============================================================================
# The entry: from Python objects to data pointers
# =============================================================================
def entry_ir(kernel_name: str, entry_name: str, scalar_inputs: list[bool],
             n_outputs: int) -> str:
    """An LLVM module with the fast-call entry of ``kernel_name``.

    ``scalar_inputs[i]`` says whether input ``i`` arrives as a NumPy scalar (a
    0-d parameter: the value sits in the object) or as an array (the object
    holds a pointer to its data). The outputs are arrays.
    """
    ptr = ir.PointerType(ir.IntType(8))
    i64 = ir.IntType(64)
    module = ir.Module(name=entry_name)
    n_args = len(scalar_inputs) + n_outputs
    kernel = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr] * n_args), kernel_name)
    save = ir.Function(module, ir.FunctionType(ptr, []), "PyEval_SaveThread")
    restore = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr]), "PyEval_RestoreThread")
    none = ir.GlobalVariable(module, i64, "_Py_NoneStruct")  # its first word: the count
    entry = ir.Function(module, ir.FunctionType(ptr, [ptr, ptr, i64]), entry_name)
    _, args, _ = entry.args
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    pointers = []
    for i, scalar in enumerate([*scalar_inputs, *[False] * n_outputs]):
        slot = b.gep(b.bitcast(args, ptr.as_pointer()), [ir.Constant(i64, i)])
        obj = b.load(slot)
        field = b.gep(obj, [ir.Constant(i64, _DATA_OFFSET)])
        pointers.append(field if scalar else b.load(b.bitcast(field, ptr.as_pointer())))
    state = b.call(save, [])
    b.call(kernel, pointers)
    b.call(restore, [state])
    count = b.load(none)
    b.store(b.add(count, ir.Constant(i64, 1)), none)  # Py_INCREF(Py_None)
    b.ret(b.bitcast(none, ptr))
    return str(module)


class _MethodDef(ctypes.Structure):
    """CPython's ``PyMethodDef``: what ``PyCFunction_NewEx`` makes a builtin of."""
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.POINTER(_MethodDef), ctypes.py_object, ctypes.py_object]


# =============================================================================
# Compiling: link, optimize, emit; the object-file cache
# =============================================================================
def optimize(module) -> None:
    """LLVM's -O3 module pipeline with loop vectorization (as Numba's full pass)."""
    options = llvm.create_pipeline_tuning_options()
    options.speed_level = 3
    options.loop_vectorization = True
    options.slp_vectorization = False  # Numba's default (NUMBA_SLP_VECTORIZE=0)
    builder = llvm.create_pass_builder(host_machine(), options)
    builder.getModulePassManager().run(module, builder)


def _names(kernel) -> tuple[str, str]:
    """The kernel's and its entry's symbols: unique per IR (one engine holds every kernel)."""
    digest = hashlib.sha256(kernel.ir.encode()).hexdigest()[:16]
    return f"{kernel.function}_{digest}", f"{kernel.function}_{digest}_entry"


def compile_object(kernel, scalar_inputs: list[bool]) -> tuple[bytes, str]:
    """Link, optimize and emit ``kernel``: its object file and the optimized IR."""
    kernel_name, entry_name = _names(kernel)
    module = llvm.parse_assembly(kernel.ir)
    module.get_function(kernel.function).name = kernel_name
    if kernel.helpers:
        from minijax.backends.cpu import llvm_helpers
        module.link_in(llvm_helpers.helper_module_ref(kernel.helpers))
    module.link_in(llvm.parse_assembly(
        entry_ir(kernel_name, entry_name, scalar_inputs, len(kernel.outputs))))
    module.triple = llvm.get_process_triple()
    module.data_layout = str(host_machine().target_data)
    for fn in module.functions:  # only the entry is seen from outside the object
        if not fn.is_declaration and fn.name != entry_name:
            fn.linkage = "internal"
    for gv in module.global_variables:
        if not gv.is_declaration:
            gv.linkage = "internal"
    module.verify()
    optimize(module)
    return host_machine().emit_object(module), str(module)


def object_cache_dir() -> str:
    """The folder of cached object files, inside chapter 09's compile cache."""
    from minijax.backends.cpu.compile import _writable_cache_dir
    return os.path.join(_writable_cache_dir(), "llvm_objects")


def _cache_key(kernel) -> str:
    """What decides the machine code: the IR, the helpers' IR (its library key
    covers their source, Numba's and LLVM's versions and this CPU)."""
    from minijax.backends.cpu.llvm_helpers import library_key
    host_machine()
    helpers = "\n".join(f.symbol for f in kernel.helpers)
    text = "\n".join([kernel.ir, helpers, library_key(), llvmlite.__version__, sys.version,
                      *_state["cpu"]])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _read_cached(path: str) -> bytes | None:
    """A cached object file, if intact: its first 32 bytes are the SHA-256 of the rest
    (an object file cut short would crash the linker rather than raise)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    body = data[32:]
    return body if len(data) > 32 and hashlib.sha256(body).digest() == data[:32] else None


def _write_cached(path: str, body: bytes) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(body).digest() + body)
        os.replace(tmp, path)
    except OSError:  # an unwritable cache costs the next process a compile, nothing else
        pass


# =============================================================================
# The kernel as Python calls it
# =============================================================================
class LlvmKernel:
    """A translated kernel, compiled (or loaded from the cache) and callable.

    ``kernel(*args)`` takes the arguments as Numba's entry takes them (read-only
    C arrays, NumPy scalars for 0-d parameters) and returns the tuple of
    outputs, which it allocates. ``cache_hit`` says whether the machine code
    came from the disk cache.
    """

    def __init__(self, kernel, inputs):
        self.translated = kernel
        self._scalar_inputs = [not spec.shape for spec in inputs]
        self._outputs = [(tuple(s.shape), np.dtype(s.dtype)) for s in kernel.outputs]
        path = os.path.join(object_cache_dir(), _cache_key(kernel) + ".o")
        body = _read_cached(path)
        self.cache_hit = body is not None
        self._optimized_ir = None
        if body is None:
            body, self._optimized_ir = compile_object(kernel, self._scalar_inputs)
            _write_cached(path, body)
        _, entry_name = _names(kernel)
        # a kernel with parallel loops calls Numba's thread pool: its symbols must
        # exist before the object file is linked into this process
        llvm_parallel.ensure_threads_for(kernel.ir)
        self.parallel = llvm_parallel.has_parallel_loops(kernel.ir)
        with _lock:
            engine = _engine()
            engine.add_object_file(llvm.ObjectFileRef.from_data(body))
            engine.finalize_object()
            address = engine.get_function_address(entry_name)
        if not address:
            raise RuntimeError(f"minijax: the compiled kernel has no {entry_name}")
        self._name = entry_name.encode()
        self._method = _MethodDef(self._name, address, _METH_FASTCALL, None)
        self._entry = _new_builtin(ctypes.byref(self._method), None, None)

    def __call__(self, *args) -> tuple:
        outs = [np.empty(shape, dtype) for shape, dtype in self._outputs]
        self._entry(*args, *outs)
        return tuple(outs)

    @property
    def optimized_ir(self) -> str:
        """The optimized LLVM IR of the kernel (compiled again if it came from the cache)."""
        if self._optimized_ir is None:
            _, self._optimized_ir = compile_object(self.translated, self._scalar_inputs)
        return self._optimized_ir


    def assembly(self) -> str:
        """The kernel's machine code, as assembly text."""
        return host_machine().emit_assembly(llvm.parse_assembly(self.optimized_ir))


def load_kernel(kernel, inputs) -> LlvmKernel:
    """The callable kernel for a :class:`.llvm_translate.TranslatedKernel` whose
    entry takes ``inputs`` (its :class:`.llvm_translate.ArgSpec` list)."""
    return LlvmKernel(kernel, inputs)
