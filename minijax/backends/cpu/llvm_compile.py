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
   A *big* kernel (many calls of big helpers: :func:`called_helpers`) is
   compiled first without them: each helper is only declared, naming its
   vector variants in LLVM's vector-function ABI, and the loop vectorizer
   calls the 16-lane variant from the compiled helper library
   (:func:`.llvm_helpers.compiled_helper`, machine code built once per
   machine). -O3 then has a few hundred instructions to work on instead of
   thousands; the inlined form follows in a thread (:class:`LlvmKernel`).
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
import logging
import os
import re
import tempfile
import threading

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

logger = logging.getLogger(__name__)

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
            _state["machine"] = new_host_machine()
        return _state["machine"]


def new_host_machine():
    """A target machine of its own (one for each thread that compiles: LLVM's
    objects are not made to be used by two threads at once)."""
    from minijax.backends.cpu.llvm_helpers import host_cpu
    with _lock:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _state["cpu"] = host_cpu()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    cpu, features = _state["cpu"]
    return target.create_target_machine(cpu=cpu, features=features, opt=3, reloc="static",
                                        codemodel="jitdefault", jit=True)


def _engine():
    """One MCJIT engine for the process, to which each kernel's object file is added."""
    with _lock:
        if "engine" not in _state:
            machine = host_machine()
            _register_python_symbols()
            empty = llvm.parse_assembly(f'target triple = "{llvm.get_process_triple()}"')
            engine = llvm.create_mcjit_compiler(empty, machine)
            from minijax.backends.cpu import small_gemm
            small_gemm.install(engine)  # the matrix product kernels call, before any kernel
            _state["engine"] = engine
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
def optimize(module, machine=None) -> None:
    """LLVM's -O3 module pipeline with loop vectorization (as Numba's full pass)."""
    options = llvm.create_pipeline_tuning_options()
    options.speed_level = 3
    options.loop_vectorization = True
    options.slp_vectorization = False  # Numba's default (NUMBA_SLP_VECTORIZE=0)
    builder = llvm.create_pass_builder(machine or host_machine(), options)
    builder.getModulePassManager().run(module, builder)


def _names(kernel, called=()) -> tuple[str, str]:
    """The kernel's and its entry's symbols: unique per IR and form (one engine
    holds every kernel, and both forms of one)."""
    digest = hashlib.sha256(kernel.ir.encode()).hexdigest()[:16]
    if called:
        digest += "_called"
    return f"{kernel.function}_{digest}", f"{kernel.function}_{digest}_entry"


#: A kernel whose inlined helpers would add at least this many instructions
#: (each call site counts the helper's size) calls its big helpers in the
#: compiled helper library instead (see :func:`called_helpers`). Measured
#: here (100k float32, one kernel): 4 ``sin`` (400 instructions) compile in
#: 120 ms inlined, 25 ms called; 8 in 430 ms and 50 ms; the called form runs
#: 1.05-1.15x slower, until the inlined form replaces it.
CALL_FORM_MIN_INSTRUCTIONS = 400
#: A kernel in the call form starts compiling its inlined form at this call.
UPGRADE_AFTER_CALLS = 2


def _call_sites(kernel_ir: str, symbol: str) -> int:
    """How many times ``kernel_ir`` calls ``symbol`` (its declaration not counted)."""
    return len(re.findall(rf'\bcall [^@\n]*@"?{re.escape(symbol)}"?\(', kernel_ir))


def called_helpers(kernel) -> list:
    """The helpers ``kernel`` calls in the compiled helper library rather than
    inlining (:class:`.llvm_helpers.CompiledHelper` list; empty: all inlined).

    Inlining a helper into a loop lets LLVM vectorize through it, but LLVM then
    optimizes the helper's body again at every call site: the ten-step loop's
    gradient calls ``sin``, ``cos`` and ``tanh`` about 40 times, and -O3 over
    those 4000 instructions took 1.5 s. A big kernel therefore only DECLARES
    its big helpers, naming their vector variants (machine code compiled once
    per machine); the loop vectorizer replaces each call by a call of the
    16-lane variant. Small kernels keep inlining: a call costs a little on
    every element, and their compile is short anyway."""
    from minijax.backends.cpu import llvm_helpers
    sizes = {}
    for f in kernel.helpers:
        sizes[f.symbol] = (llvm_helpers.helper_size(f), _call_sites(kernel.ir, f.symbol))
    if sum(size * calls for size, calls in sizes.values()) < CALL_FORM_MIN_INSTRUCTIONS:
        return []
    called = []
    for f in kernel.helpers:
        if llvm_helpers.vectorizable(f) and sizes[f.symbol][0] >= llvm_helpers.LIBRARY_MIN_SIZE:
            entry = llvm_helpers.compiled_helper(f)
            if entry.pure and entry.widths:
                called.append(entry)
    return called


def _load_library(entries) -> None:
    """Add each compiled helper's object file to the engine, once per process;
    a kernel's object file added later finds their symbols there."""
    with _lock:
        loaded = _state.setdefault("library", set())
        engine = _engine()
        for entry in entries:
            if entry.function.symbol not in loaded:
                engine.add_object_file(llvm.ObjectFileRef.from_data(entry.body))
                loaded.add(entry.function.symbol)


def compile_object(kernel, scalar_inputs: list[bool], called=(),
                   own_thread: bool = False) -> tuple[bytes, str]:
    """Link, optimize and emit ``kernel``: its object file and the optimized IR.
    The helpers of ``called`` (:func:`called_helpers`) are declared with their
    vector variants, the others linked in. ``own_thread``: compile in an LLVM
    context and with a target machine of its own, so that this may run in a
    thread beside another compile (or beside Python freeing LLVM objects of
    the global context, which any thread's garbage collection may do)."""
    context = llvm.create_context() if own_thread else None
    machine = new_host_machine() if own_thread else host_machine()
    kernel_name, entry_name = _names(kernel, called)
    module = llvm.parse_assembly(kernel.ir, context)
    module.get_function(kernel.function).name = kernel_name
    from minijax.backends.cpu import llvm_helpers
    called_symbols = {entry.function.symbol for entry in called}
    inlined = [f for f in kernel.helpers if f.symbol not in called_symbols]
    if inlined:
        module.link_in(llvm_helpers.helper_module_ref(inlined, context))
    if called:  # the declarations first: linking keeps the first one's attributes
        declarations = llvm.parse_assembly(llvm_helpers.declarations_ir(called), context)
        declarations.link_in(module)
        module = declarations
    module.link_in(llvm.parse_assembly(
        entry_ir(kernel_name, entry_name, scalar_inputs, len(kernel.outputs)), context))
    module.triple = llvm.get_process_triple()
    module.data_layout = str(machine.target_data)
    for fn in module.functions:  # only the entry is seen from outside the object
        if not fn.is_declaration and fn.name != entry_name:
            fn.linkage = "internal"
    for gv in module.global_variables:  # (``llvm.compiler.used`` keeps its own linkage)
        if not gv.is_declaration and not gv.name.startswith("llvm."):
            gv.linkage = "internal"
    module.verify()
    optimize(module, machine)
    return machine.emit_object(module), str(module)


def object_cache_dir() -> str:
    """The folder of cached object files, inside chapter 09's compile cache."""
    from minijax.backends.cpu.compile import _writable_cache_dir
    return os.path.join(_writable_cache_dir(), "llvm_objects")


def _cache_key(kernel, called=()) -> str:
    """What decides the machine code: the IR, the helpers' IR (its library key
    covers their source, Numba's and LLVM's versions and this CPU), and which
    helpers are called in the library rather than inlined."""
    from minijax.backends.cpu.llvm_helpers import library_key
    helpers = "\n".join(f.symbol for f in kernel.helpers)
    form = "called: " + " ".join(sorted(e.function.symbol for e in called))
    text = "\n".join([kernel.ir, helpers, form, library_key()])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _cache_path(kernel, called) -> str:
    return os.path.join(object_cache_dir(), _cache_key(kernel, called) + ".o")


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

    **Two tiers.** A big kernel (:func:`called_helpers`) whose inlined form is
    not cached yet is first compiled in the *call* form (its big helpers
    called in the compiled helper library, through their vector variants:
    a fraction of the compile time). Its code is a little slower: the inlined
    form lets LLVM share the work of ``sin(y)`` and ``cos(y)`` (one range
    reduction, one polynomial pair), calls cannot. So from the
    :data:`UPGRADE_AFTER_CALLS`-th call on, a thread compiles the inlined form
    (and caches it), and the kernel switches to it when it is ready. Both forms
    compute the same bits (each lane of a vector variant runs the scalar
    helper's instructions), so the switch shows in the timings only. ``form``
    says which one runs: ``"inlined"`` or ``"called"``.
    """

    def __init__(self, kernel, inputs):
        self.translated = kernel
        self._scalar_inputs = [not spec.shape for spec in inputs]
        self._outputs = [(tuple(s.shape), np.dtype(s.dtype)) for s in kernel.outputs]
        self._optimized_ir = None
        self._calls = 0
        self._upgrade = None
        # a kernel with parallel loops calls Numba's thread pool: its symbols must
        # exist before the object file is linked into this process
        llvm_parallel.ensure_threads_for(kernel.ir)
        body = _read_cached(_cache_path(kernel, ()))
        self.called = [] if body is not None else called_helpers(kernel)
        if self.called:
            body = _read_cached(_cache_path(kernel, self.called))
        self.cache_hit = body is not None
        if body is None:
            body, self._optimized_ir = compile_object(kernel, self._scalar_inputs, self.called)
            _write_cached(_cache_path(kernel, self.called), body)
        self._entry = self._load(body, self.called)

    @property
    def form(self) -> str:
        return "called" if self.called else "inlined"

    def _load(self, body: bytes, called):
        """Link ``body`` into this process (after the library objects it calls)
        and make a Python builtin of its entry."""
        _load_library(called)
        _, entry_name = _names(self.translated, called)
        with _lock:
            engine = _engine()
            engine.add_object_file(llvm.ObjectFileRef.from_data(body))
            engine.finalize_object()
            address = engine.get_function_address(entry_name)
        if not address:
            raise RuntimeError(f"minijax: the compiled kernel has no {entry_name}")
        name = entry_name.encode()
        method = _MethodDef(name, address, _METH_FASTCALL, None)
        self._keep = getattr(self, "_keep", []) + [(name, method)]  # the builtin points into them
        return _new_builtin(ctypes.byref(method), None, None)

    def __call__(self, *args) -> tuple:
        outs = [np.empty(shape, dtype) for shape, dtype in self._outputs]
        self._entry(*args, *outs)
        if self.called and self._upgrade is None:
            self._calls += 1
            if self._calls >= UPGRADE_AFTER_CALLS:
                self._start_upgrade()
        return tuple(outs)

    def _start_upgrade(self) -> None:
        """Compile the inlined form in a thread (LLVM releases the GIL), then switch.
        Not a daemon: a process that exits waits for it rather than stopping LLVM midway."""
        def upgrade():
            try:
                body, text = compile_object(self.translated, self._scalar_inputs, (),
                                            own_thread=True)
                _write_cached(_cache_path(self.translated, ()), body)
                entry = self._load(body, ())
            except Exception:  # the call form keeps running; nothing is lost
                logger.exception("minijax: compiling the inlined form of a kernel failed")
                return
            with _lock:
                self._entry = entry
                self._optimized_ir, self.called = text, []
        with _lock:  # (two threads calling at once start one upgrade)
            if self._upgrade is None:
                self._upgrade = threading.Thread(target=upgrade, name="minijax-llvm-inline",
                                                 daemon=False)  # (else inherited: the
                # executor thread that calls kernels is a daemon)
                self._upgrade.start()

    def wait_upgraded(self, timeout: float | None = None) -> bool:
        """Start the inlined form's compile if it has not started, wait for it;
        whether the kernel now runs the inlined form."""
        if self.called and self._upgrade is None:
            self._start_upgrade()
        if self._upgrade is not None:
            self._upgrade.join(timeout)
        return not self.called

    @property
    def optimized_ir(self) -> str:
        """The optimized LLVM IR of the kernel's current form (compiled again if
        it came from the cache)."""
        with _lock:
            if self._optimized_ir is None:
                _, self._optimized_ir = compile_object(self.translated, self._scalar_inputs,
                                                       self.called)
            return self._optimized_ir

    def assembly(self) -> str:
        """The kernel's machine code, as assembly text."""
        return host_machine().emit_assembly(llvm.parse_assembly(self.optimized_ir))


def load_kernel(kernel, inputs) -> LlvmKernel:
    """The callable kernel for a :class:`.llvm_translate.TranslatedKernel` whose
    entry takes ``inputs`` (its :class:`.llvm_translate.ArgSpec` list)."""
    return LlvmKernel(kernel, inputs)
