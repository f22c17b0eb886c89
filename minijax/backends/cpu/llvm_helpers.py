"""Chapter 09 — the shared helpers as LLVM IR, for the kernels we compile ourselves.

The kernels chapter 09 writes call small helpers (:mod:`.helpers`,
:mod:`.math_helpers`, :mod:`.trig_helpers`): XLA's ``max``, the float32
``exp`` that vectorizes, the float16 rounding... When a kernel is translated
to LLVM IR by our own compiler (``llvm_translate``) instead of Numba, its
calls of those helpers need their code as LLVM IR too. We do not rewrite the
helpers: **Numba compiles each one, once per machine, and we keep the LLVM IR
it produced** (the very IR a Numba-compiled kernel inlines, so the two
compilers compute the same bits).

One helper for one tuple of argument dtypes is a :class:`HelperFunction`.
Its IR is made of three parts:

1. Numba's optimized module for the helper (``library.get_llvm_str()`` of
   its compile result), with every helper it calls already linked in (or
   inlined: ``_erf_inv_w``'s module holds what it needs of ``_log1p32``);
2. every function defined there made ``linkonce_odr`` ("one definition, the
   same everywhere; drop it if unused"), so that the IR of ``_log1p32`` and
   of ``_erf_inv_w`` link into one kernel module without a duplicate-symbol
   error; and ``alwaysinline`` unless it has a loop (see below);
3. a tiny wrapper with a plain C signature. Numba's functions use Numba's
   calling convention: ``i32 @mangled(ptr %retptr, ptr %excinfo, args...)``
   returns a status (0: fine) and writes the result through ``retptr``. Our
   kernels want ``float @minijax_helper_exp32__float32(float)``: the wrapper
   allocates the result's slot, calls, and loads it. It is ``weak_odr`` (one
   definition everywhere, but kept even where nothing calls it yet: a
   ``linkonce`` one would be dropped when linked into an empty module).

**Why inline.** A loop that calls a function cannot be vectorized; a loop in
which the call has been replaced by the function's body can. LLVM's inliner
weighs each call: the ``_exp32`` of a float32 ``exp`` is small enough, the
float16 rounding ``_round_f16`` (125 lines of branches) is not, and its loop
stayed scalar. With ``alwaysinline`` on the wrapper and on Numba's functions,
every loop-free helper melts into the kernel's loop, which then runs 8 or 16
lanes at once (``<16 x float>`` on an AVX-512 machine: the test checks it).
Inlining never changes a result: the helper's instructions keep their own
fast-math flags (none, or ``contract`` for the math helpers that ask for it).
Helpers with loops of their own (``_digamma``, ``_popcount``) stay calls.

Numba's IR is expensive to get (20–200 ms per helper here: Numba types and
lowers the Python source, and LLVM runs -O3 over it; the 20 helpers of the
common float32 and float64 rules took 1.2 s), so it is **cached on disk**,
one file per helper and dtypes, under ``<cache dir>/llvm_helpers/<key>/``.
The key is a hash of everything the IR depends on: the helper library's
source, this module's code, Numba's, llvmlite's and Python's versions,
Numba's optimization level and the host CPU's name and features (LLVM tunes
and vectorizes the helpers for it). A process whose cache is warm reads text
files (0.03 ms a helper): no Numba compile, not even the import of the helper
module. Each file carries the SHA-256 of its IR, so a truncated or corrupted
file is noticed and rebuilt, never fatal.

Only helpers from scalars to one scalar can be called this way (bool, the
integers, float32, float64). A helper that takes arrays (``_leading``, the
GEMM calls) or complex numbers (``_cdiv``), or takes or returns tuples (the
trig pipeline's ``_rem_pio2_32``, ``_sin_cos_f64``, ``_sin_end``), raises
:class:`HelperNotAvailable`: the translator leaves such a kernel to Numba.
The trig pipeline as a whole, ``_sin_end(x, _sin_cos_f64(_rem_pio2_32(x)))``,
is a scalar function of ``x`` though: :data:`NESTED` names it ``_sin32``.
And each item of a tuple a helper returns is a scalar function of its
arguments: :func:`item_helper` (``_threefry2x32__item0``).

**The compiled helper library.** Inlining costs compile time at every call
site: LLVM optimizes the helper's body again each time (a kernel with 40
calls of ``sin``, ``cos`` and ``tanh`` spent 1.5 s in -O3). So each big
float helper is also compiled *by itself*, once per machine, to an object
file (:func:`compiled_helper`, cached beside the IR and SHA-checked like
it) that exports the scalar function and **vector variants**,
``<16 x float> @minijax_helper_sin32__float32__v16(<16 x float>)`` (and 4, 8
lanes; 2, 4, 8 for float64). A variant stores its vector into a stack array,
runs a loop over the lanes calling the scalar helper, and loads the result:
-O3 inlines the helper into that loop and vectorizes it as it would in a
kernel, so every lane has the scalar helper's bits. A kernel then only
DECLARES the helper, with the attribute
``"vector-function-abi-variant"="_ZGV_LLVM_N16v_<scalar>(<variant>)"``
(:func:`declarations_ir`): LLVM's vector-function ABI, by which the loop
vectorizer learns that a call of the scalar in a loop may become a call of
the variant on 16 lanes.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import threading
import types as pytypes
from dataclasses import dataclass, field
from typing import Iterable

import llvmlite
import llvmlite.binding as llvm
import numba
import numpy as np
from numba.core import config as numba_config
from numba.core.codegen import get_host_cpu_features

from minijax.backends.cpu import compile as compiler
from minijax.backends.cpu import helpers

__all__ = ["HelperFunction", "HelperNotAvailable", "helper_function", "helper_ir",
           "helper_module_ref", "prebuild", "scalar_helpers", "NESTED", "nested_helper",
           "item_helper", "library_key", "host_cpu", "cache_folder", "stats", "forget",
           "CompiledHelper", "compiled_helper", "vector_symbol", "vectorizable",
           "declarations_ir", "helper_size", "library_object_path", "VECTOR_WIDTHS"]

#: The layout of a cache entry (the key also covers this module's code).
FORMAT = 1

#: The folder of the compile cache that holds the helpers' IR.
SUBFOLDER = "llvm_helpers"


@dataclass(frozen=True)
class HelperFunction:
    """Helper ``name`` compiled for ``arg_dtypes``: a kernel calls it as
    ``<return type> @symbol(<argument types>)`` (LLVM's ``float``, ``double``,
    ``i1`` for bool, ``i8``..``i64`` for integers of either sign)."""
    name: str
    arg_dtypes: tuple
    return_dtype: np.dtype
    symbol: str


#: Scalar functions made of a nested call of shared helpers whose values in
#: between are tuples: the float32 trig rules write ``_sin_end(x,
#: _sin_cos_f64(_rem_pio2_32(x)))`` (:mod:`.trig_helpers`), and ``(r, q)`` and
#: ``(sin r, cos r, q)`` have no C type. As one function of ``x`` it is a
#: helper like the others: ``_sin32``. :func:`nested_helper` finds the name
#: of such a call.
NESTED = {
    "_sin32": ("_sin_end", "_sin_cos_f64", "_rem_pio2_32"),
    "_cos32": ("_cos_end", "_sin_cos_f64", "_rem_pio2_32"),
    "_tan32": ("_tan_end", "_sin_cos_f64", "_rem_pio2_32"),
}


def nested_helper(outer: str, middle: str, inner: str) -> str | None:
    """The helper computing ``outer(x, middle(inner(x)))`` (``None`` if there is none)."""
    for name, calls in NESTED.items():
        if calls == (outer, middle, inner):
            return name
    return None


def _nested_source(name: str) -> str:
    outer, middle, inner = NESTED[name]
    return f"def {name}(x):\n    return {outer}(x, {middle}({inner}(x)))\n"


_ITEM = "__item"


def item_helper(name: str, index: int) -> str:
    """The helper returning item ``index`` of the tuple helper ``name`` returns:
    ``a, b = _threefry2x32(k1, k2, x1, x2)`` is ``a = _threefry2x32__item0(...)``
    and ``b = _threefry2x32__item1(...)``. Both are inlined into the kernel, and
    LLVM computes their common part once (the helper has no side effects)."""
    return f"{name}{_ITEM}{int(index)}"


def _item_source(name: str, source: str) -> str | None:
    """The source of ``item_helper(base, i)``, or ``None`` if ``name`` is not one."""
    base, _, index = name.rpartition(_ITEM)
    arity = _arity(source, base) if base and index.isdigit() else None
    if arity is None:
        return None
    params = ", ".join(f"a{i}" for i in range(arity))
    return f"def {name}({params}):\n    return {base}({params})[{int(index)}]\n"


class HelperNotAvailable(Exception):
    """The helper is not a scalar -> scalar function, or Numba cannot compile it
    for these argument dtypes (the message says which)."""


#: What this process did, for tests and measurements: "built" (Numba compiled a
#: helper, or tried to), "loaded" (read from the disk cache), "rebuilt" (a bad entry replaced).
stats = {"built": 0, "loaded": 0, "rebuilt": 0}

_lock = threading.RLock()
_memory: dict = {}      # (name, arg dtypes) -> (HelperFunction, ir) or HelperNotAvailable
_linked: dict = {}      # tuple of symbols -> helper_ir text
_build_modules: dict = {}  # library name -> the library executed without Numba's disk cache


# =============================================================================
# Types: NumPy dtypes, Numba's LLVM types, the C signature
# =============================================================================
def _scalar_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize in (4, 8)):
        return dtype
    raise HelperNotAvailable(f"{dtype} is not a scalar type a helper can take "
                             "(bool, integers, float32, float64)")


def _c_type(dtype: np.dtype) -> str:
    """The LLVM type of ``dtype`` in the C signature: i1 for bool."""
    if dtype.kind == "f":
        return "float" if dtype.itemsize == 4 else "double"
    return "i1" if dtype.kind == "b" else f"i{8 * dtype.itemsize}"


def _numba_ir_type(dtype: np.dtype) -> str:
    """The LLVM type Numba passes and returns ``dtype`` as: a bool is a byte (i8)."""
    return "i8" if dtype.kind == "b" else _c_type(dtype)


def _symbol(name: str, arg_dtypes: tuple) -> str:
    """``minijax_helper_exp32__float32``: the helper's name and its argument dtypes."""
    return f"minijax_helper{name}__{'_'.join(d.name for d in arg_dtypes)}"


# =============================================================================
# The cache key: what the IR depends on
# =============================================================================
def host_cpu() -> tuple[str, str]:
    """The host CPU's name and LLVM feature string, as Numba compiles for them
    (a kernel should be compiled for the same, so that its code and the
    helpers' agree)."""
    name = numba_config.CPU_NAME or llvm.get_host_cpu_name()
    features = numba_config.CPU_FEATURES
    return name, features if features is not None else get_host_cpu_features()


def _library() -> tuple[str, str]:
    """The shared helper module's (name, source) (named by ``compile``)."""
    library = compiler._HELPER_LIBRARY
    if not library.get("name"):
        compiler.set_up_helper_library()
    return library["name"], library["source"]


_keys: dict = {}


def _own_source() -> str:
    """This module's code: how the IR is made from Numba's (the wrappers, the
    inlining marks, the nested and item helpers) is part of the key too."""
    try:
        with open(__file__, encoding="utf-8") as f:
            return f.read()
    except OSError:  # (run from a zip: the version stands for it)
        return f"minijax llvm_helpers, format {FORMAT}"


def library_key() -> str:
    """A hash of everything the helpers' IR depends on (the cache folder's name)."""
    _, source = _library()
    key = _keys.get(source)
    if key is None:
        parts = [f"format {FORMAT}", _own_source(), source,
                 numba.__version__, llvmlite.__version__, sys.version,
                 f"opt {numba_config.OPT}", *host_cpu()]
        key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
        _keys[source] = key
    return key


def cache_folder() -> str:
    """The folder of this machine's helper IR: ``<cache dir>/llvm_helpers/<library key>``."""
    return os.path.join(compiler.cache_dir(), SUBFOLDER, library_key())


# =============================================================================
# The public door: one helper, and the IR of several
# =============================================================================
def helper_function(name: str, arg_dtypes) -> HelperFunction:
    """Helper ``name`` compiled for ``arg_dtypes``: from memory, from the disk
    cache, or compiled by Numba now (and cached). Raises
    :class:`HelperNotAvailable` for a helper that is not scalar -> scalar."""
    arg_dtypes = tuple(_scalar_dtype(d) for d in arg_dtypes)
    key = (name, arg_dtypes)
    with _lock:
        found = _memory.get(key)
        if found is None:
            found = _memory[key] = _load_or_build(name, arg_dtypes)
    if isinstance(found, HelperNotAvailable):
        raise HelperNotAvailable(str(found))
    return found[0]


def helper_ir(functions: Iterable[HelperFunction]) -> str:
    """One LLVM module's text defining the C-ABI symbol of each of ``functions``
    (and everything they call), ready to be parsed and linked into a kernel.

    Link it into the kernel's module and optimize: Numba's functions
    (``linkonce_odr``) are inlined and then dropped; the wrappers (``weak_odr``)
    are inlined too but stay as symbols of their own, a few bytes each,
    unless the caller internalizes them. What the helpers still call (the C
    library's ``tan`` for ``_digamma``) is resolved where the code is loaded.
    A kernel's machine-code cache should include :func:`library_key` in its
    key: new helper IR, new kernels."""
    functions = list(functions)
    symbols = tuple(sorted({f.symbol for f in functions}))
    with _lock:
        text = _linked.get(symbols)
        if text is None:
            text = _linked[symbols] = str(helper_module_ref(functions))
    return text


def helper_module_ref(functions: Iterable[HelperFunction], context=None) -> llvm.ModuleRef:
    """:func:`helper_ir` as a parsed llvmlite module (a fresh one each call:
    linking into a kernel consumes it), in LLVM ``context`` (default: the global one)."""
    by_symbol = {f.symbol: f for f in functions}
    module = llvm.parse_assembly("", context)
    module.triple = llvm.get_process_triple()
    for symbol in sorted(by_symbol):
        module.link_in(_parsed(by_symbol[symbol], context))
    return module


def _parsed(f: HelperFunction, context=None) -> llvm.ModuleRef:
    """The parsed IR of ``f``; an entry that does not parse (an intact file of
    bad IR: say, written by a broken build) is built again."""
    key = (f.name, f.arg_dtypes)
    with _lock:
        if not isinstance(_memory.get(key), tuple):
            helper_function(f.name, f.arg_dtypes)
        try:
            return llvm.parse_assembly(_memory[key][1], context)
        except RuntimeError:
            stats["rebuilt"] += 1
            outcome = _memory[key] = _build(f.name, f.arg_dtypes)
            _write_atomically(_entry_path(*key), _entry_text(f.name, f.arg_dtypes, outcome))
            return llvm.parse_assembly(outcome[1], context)


def _common_helpers() -> list:
    """The helpers the CPU rules call most, with the dtypes they call them with."""
    f32, f64, u16, u32 = (np.dtype(t) for t in (np.float32, np.float64, np.uint16, np.uint32))
    unary32 = ["_exp32", "_log32", "_log1p32", "_expm1_half", "_tanh32", "_logistic32",
               "_erf32", "_erf_inv_w", "_erf_inv_poly", "_exp2_32", "_sinh32", "_cosh32",
               "_atanh32", "_asinh32", "_acosh32", *NESTED, "_round_f16", "_round_bf16",
               "_f2h", "_f2bf", "_round_away", "_sign"]
    specs = [(name, (f32,)) for name in unary32]
    specs += [("_h2f", (u16,)), ("_bf2f", (u16,)), ("_expm1_32", (f32,) * 3),
              ("_erf_inv_end", (f32,) * 2), ("_round_away", (f64,)), ("_sign", (f64,))]
    specs += [(name, (t, t)) for name in ("_fmax", "_fmin", "_arg_better_max",
                                          "_arg_better_min") for t in (f32, f64)]
    specs += [(item_helper("_threefry2x32", i), (u32,) * 4) for i in (0, 1)]
    specs += [("_select", (np.dtype(bool), t, t)) for t in (f32, f64)]  # select_n on a mask
    return specs


def prebuild(specs=None, library: bool = True) -> dict:
    """Make sure every ``(name, arg_dtypes)`` of ``specs`` is cached (by default
    the helpers the CPU rules call most: float32 math, float16 and bfloat16
    rounding, max and min, threefry); returns ``{(name, arg_dtypes):
    HelperFunction or the HelperNotAvailable}``. Builds a machine's library in
    one go (2-3 s for the 40 common ones here; then 3 ms to read them), say at
    install time or before a benchmark. With ``library``, the big float ones
    are compiled to machine code too, with their vector variants
    (:func:`compiled_helper`: about 0.1 s each)."""
    results = {}
    specs = _common_helpers() if specs is None else specs
    for name, arg_dtypes in specs:
        arg_dtypes = tuple(np.dtype(d) for d in arg_dtypes)
        try:
            results[(name, arg_dtypes)] = found = helper_function(name, arg_dtypes)
        except HelperNotAvailable as e:
            results[(name, arg_dtypes)] = e
            continue
        if library and vectorizable(found) and helper_size(found) >= LIBRARY_MIN_SIZE:
            compiled_helper(found)
    return results


def _arity(source: str, name: str) -> int | None:
    match = re.search(rf"^def {re.escape(name)}\(([^)]*)\)", source, re.MULTILINE)
    if match is None:
        return None
    return len([p for p in match.group(1).split(",") if p.strip()])


def scalar_helpers(dtypes=(np.float32, np.float64)) -> dict:
    """The shared helpers callable on scalars: ``{name: [HelperFunction, ...]}``,
    one per dtype of ``dtypes`` for which the helper compiles with every
    argument of that dtype (mixed signatures, such as ``_float_to_int``'s
    float32 value and float64 bounds, are asked for by :func:`helper_function`).
    The first call on a machine compiles every helper (seconds); then it reads the cache."""
    _, source = _library()
    _, shared = helpers.shared_helpers(helpers.HELPERS)
    found = {}
    for name in shared:
        arity = _arity(source, name)
        if not arity:
            continue
        for dtype in dtypes:
            try:
                found.setdefault(name, []).append(helper_function(name, (dtype,) * arity))
            except HelperNotAvailable:
                pass
    return {name: fns for name, fns in found.items() if fns}


def forget() -> None:
    """Forget what this process holds in memory (the disk cache stays)."""
    with _lock:
        _memory.clear()
        _linked.clear()


# =============================================================================
# The disk cache: one file per helper and dtypes
# =============================================================================
def _entry_path(name: str, arg_dtypes: tuple) -> str:
    return os.path.join(cache_folder(), _symbol(name, arg_dtypes) + ".ll")


def _entry_text(name: str, arg_dtypes: tuple, outcome) -> str:
    """The file: a header of ``;`` comments (LLVM's comment syntax), then the IR."""
    if isinstance(outcome, HelperNotAvailable):
        result, body = "unavailable: " + " ".join(str(outcome).split()), ""
    else:
        result, body = "return: " + outcome[0].return_dtype.name, outcome[1]
    return (f"; minijax helper IR, format {FORMAT}\n"
            f"; {name}({', '.join(d.name for d in arg_dtypes)})\n"
            f"; {result}\n"
            f"; sha256: {hashlib.sha256(body.encode()).hexdigest()}\n"
            f"{body}")


def _parse_entry(text: str, name: str, arg_dtypes: tuple):
    """The outcome stored in ``text``, or ``None`` if it is not an intact entry for it."""
    lines = text.split("\n", 4)
    if len(lines) != 5 or lines[0] != f"; minijax helper IR, format {FORMAT}":
        return None
    if lines[1] != f"; {name}({', '.join(d.name for d in arg_dtypes)})":
        return None
    if lines[3] != f"; sha256: {hashlib.sha256(lines[4].encode()).hexdigest()}":
        return None
    if lines[2].startswith("; unavailable: "):
        return HelperNotAvailable(lines[2][len("; unavailable: "):])
    if not lines[2].startswith("; return: "):
        return None
    try:
        return_dtype = _scalar_dtype(lines[2][len("; return: "):])
    except (TypeError, HelperNotAvailable):
        return None
    return HelperFunction(name, arg_dtypes, return_dtype, _symbol(name, arg_dtypes)), lines[4]


def _load_or_build(name: str, arg_dtypes: tuple):
    path = _entry_path(name, arg_dtypes)
    outcome = None
    try:
        with open(path, encoding="utf-8") as f:
            outcome = _parse_entry(f.read(), name, arg_dtypes)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        stats["rebuilt"] += 1  # unreadable: rebuilt below
    else:
        if outcome is not None:
            stats["loaded"] += 1
            return outcome
        stats["rebuilt"] += 1  # truncated, corrupted, or another format: rebuilt below
    try:
        outcome = _build(name, arg_dtypes)
    except HelperNotAvailable as e:
        outcome = e
    _write_atomically(path, _entry_text(name, arg_dtypes, outcome))
    return outcome


def _write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so that
    another process never reads half a file; an unwritable cache costs speed only."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


# =============================================================================
# Building: Numba compiles the helper, we keep its IR and add the C wrapper
# =============================================================================
def _helper_namespace():
    """The helper library, executed as a module of its own whose ``@njit``
    functions do NOT use Numba's disk cache: a compile result loaded from that
    cache holds machine code only, and we need the IR."""
    library_name, source = _library()
    if library_name not in _build_modules:
        uncached = source.replace("cache=True,", "cache=False,")
        module = pytypes.ModuleType(library_name + "_llvm")  # keeps the helpers' name prefix
        uncached += "".join(f"\n\n{_uncached_decorator()}\n{_nested_source(n)}"
                            for n in sorted(NESTED))
        exec(compile(uncached, f"<{module.__name__}>", "exec"), module.__dict__)
        _build_modules[library_name] = module
    return _build_modules[library_name]


def _dispatcher(name: str):
    """Numba's dispatcher of helper ``name`` (an item helper is defined on demand)."""
    namespace = _helper_namespace()
    if name not in namespace.__dict__:
        item = _item_source(name, _library()[1])
        if item is None:
            raise HelperNotAvailable(f"{name} is not a helper of the shared helper library")
        exec(f"{_uncached_decorator()}\n{item}", namespace.__dict__)
    return getattr(namespace, name)


def _uncached_decorator() -> str:
    return helpers._HELPER_DECORATOR.replace("cache=True,", "cache=False,")


def _build(name: str, arg_dtypes: tuple):
    """Compile helper ``name`` for ``arg_dtypes`` with Numba: ``(HelperFunction, IR)``."""
    parts = NESTED.get(name) or (name.rpartition(_ITEM)[0] if _ITEM in name else name,)
    shared = all(p in helpers.HELPERS for p in parts) and helpers.shared_helpers(parts)[1]
    if not shared or len(shared) != len(parts):
        raise HelperNotAvailable(f"{name} is not a helper of the shared helper library")
    dispatcher = _dispatcher(name)
    signature = tuple(numba.from_dtype(d) for d in arg_dtypes)
    stats["built"] += 1
    try:
        dispatcher.compile(signature)
    except Exception as e:  # a typing or lowering error: these argument types do not fit
        raise HelperNotAvailable(f"Numba cannot compile {name} for "
                                 f"({', '.join(d.name for d in arg_dtypes)}): {_gist(e)}") from e
    result = dispatcher.overloads[signature]
    return_type = numba.core.types.unliteral(result.signature.return_type)
    if not isinstance(return_type, (numba.core.types.Boolean, numba.core.types.Integer,
                                    numba.core.types.Float)):
        raise HelperNotAvailable(f"{name} returns {return_type}, not one scalar")
    return_dtype = _scalar_dtype(numba.np.numpy_support.as_dtype(return_type))
    function = HelperFunction(name, arg_dtypes, return_dtype, _symbol(name, arg_dtypes))
    return function, _with_c_wrapper(result.library.get_llvm_str(), result.fndesc.llvm_func_name,
                                     function)


def _gist(error: Exception) -> str:
    """The telling lines of a Numba error, short: its first lines name the pipeline
    step, the next ones what failed to type."""
    lines = [" ".join(line.split()) for line in str(error).splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Failed in", "During:"))]
    return "; ".join(lines)[:300] or type(error).__name__


def _with_c_wrapper(numba_ir: str, mangled: str, function: HelperFunction) -> str:
    """Numba's module for one helper, its definitions made ``linkonce_odr``, plus
    the C-ABI wrapper ``function.symbol``."""
    module = llvm.parse_assembly(numba_ir)
    for f in module.functions:
        if f.is_declaration:
            if not f.name.startswith("llvm.") and not llvm.address_of_symbol(f.name):
                raise HelperNotAvailable(f"{function.name} calls {f.name}, "
                                         "which this process cannot resolve")
            continue
        if f.linkage not in (llvm.Linkage.internal, llvm.Linkage.private):
            f.linkage = llvm.Linkage.linkonce_odr
        if not _has_loop(str(f)) and b"noinline" not in b" ".join(f.attributes):
            f.add_function_attribute("alwaysinline")
    target = module.get_function(mangled)
    if len(list(target.arguments)) != 2 + len(function.arg_dtypes):
        raise HelperNotAvailable(f"{function.name} does not take "
                                 f"{len(function.arg_dtypes)} scalars in Numba's IR")
    if set(re.findall(r"\bret i32 (\S+)", str(target))) != {"0"}:
        raise HelperNotAvailable(f"{function.name} may raise an exception, which a C "
                                 "function cannot pass on")
    module = llvm.parse_assembly(str(module) + _c_wrapper(mangled, function))
    module.verify()
    return str(module)


_LABEL = re.compile(r"^([-\w.$\"]+):")
_TARGET = re.compile(r"label %([-\w.$\"]+)")


def _has_loop(function_ir: str) -> bool:
    """Whether the control-flow graph of ``function_ir`` (one function's text)
    has a cycle: a depth-first walk from the entry block meets a block that is
    still on its path (a loop's back edge)."""
    successors: dict = {}
    block = "<entry>"
    for line in function_ir.splitlines():
        label = _LABEL.match(line)
        if label:
            block = label.group(1)
            successors.setdefault(block, [])
        elif line.startswith("  "):  # an instruction (the entry block may have no label)
            successors.setdefault(block, []).extend(_TARGET.findall(line))
    on_path, done = set(), set()

    def cycle_from(node) -> bool:
        on_path.add(node)
        for nxt in successors.get(node, ()):
            if nxt in on_path or (nxt not in done and cycle_from(nxt)):
                return True
        on_path.discard(node)
        done.add(node)
        return False
    first = next(iter(successors), None)
    return first is not None and cycle_from(first)


def _c_wrapper(mangled: str, function: HelperFunction) -> str:
    """``<ret> @symbol(<args>)``: call Numba's function, return what it wrote.

    The status is always 0: a helper that may raise is refused before
    (:func:`_with_c_wrapper`; with ``error_model="numpy"`` an integer division
    by zero raises nothing).
    """
    params, args, lines = [], ["ptr %ret", "ptr %excinfo"], []
    for i, dtype in enumerate(function.arg_dtypes):
        params.append(f"{_c_type(dtype)} %a{i}")
        if dtype.kind == "b":  # i1 in C, a byte for Numba
            lines.append(f"  %b{i} = zext i1 %a{i} to i8")
            args.append(f"i8 %b{i}")
        else:
            args.append(f"{_c_type(dtype)} %a{i}")
    ret, inner = _c_type(function.return_dtype), _numba_ir_type(function.return_dtype)
    lines += [f"  %ret = alloca {inner}",
              "  %excinfo = alloca ptr",
              f'  %status = call i32 @"{mangled}"({", ".join(args)})',
              f"  %value = load {inner}, ptr %ret"]
    if function.return_dtype.kind == "b":
        lines += ["  %result = icmp ne i8 %value, 0", "  ret i1 %result"]
    else:
        lines += [f"  ret {ret} %value"]
    body = "\n".join(lines)
    return (f"\n; {function.name}({', '.join(d.name for d in function.arg_dtypes)}) -> "
            f"{function.return_dtype.name} with a C signature (Numba's is above)\n"
            f"define weak_odr {ret} @{function.symbol}({', '.join(params)}) alwaysinline {{\n"
            f"entry:\n{body}\n}}\n")


# =============================================================================
# The compiled helper library: each helper as machine code, with vector variants
# =============================================================================
#: The vector widths of a helper's variants, per LLVM element type: 128, 256 and
#: 512 bits, so that the loop vectorizer finds one for whichever width it picks.
VECTOR_WIDTHS = {"float": (4, 8, 16), "double": (2, 4, 8)}

#: The helpers worth calling rather than inlining have at least this many
#: instructions (:func:`helper_size`): a ``max`` is cheaper inlined.
LIBRARY_MIN_SIZE = 25

#: The format of a library object file (its header, and what it exports).
LIBRARY_FORMAT = 1
_LIBRARY_MAGIC = b"minijax helper library object, format %d\n" % LIBRARY_FORMAT


@dataclass(frozen=True)
class CompiledHelper:
    """Helper ``function`` compiled to machine code by itself, with its vector
    variants: ``<W x float> @<symbol>__v<W>(<W x float> ...)`` for each
    ``W`` of ``widths``. ``pure`` says whether LLVM found the scalar function
    to neither read nor write memory (``memory(none)``), the condition for the
    loop vectorizer to call a vector variant in its place; ``body`` is the
    object file."""
    function: HelperFunction
    widths: tuple
    pure: bool
    body: bytes = field(default=b"", repr=False)


def vector_symbol(function: HelperFunction, width: int) -> str:
    """``minijax_helper_sin32__float32__v16``: the variant taking ``width`` lanes."""
    return f"{function.symbol}__v{width}"


def vectorizable(function: HelperFunction) -> bool:
    """Whether ``function`` has vector variants: all its arguments and its result
    are of one floating-point type (float32 or float64)."""
    dtypes = {*function.arg_dtypes, function.return_dtype}
    return len(dtypes) == 1 and function.return_dtype.kind == "f"


def _vector_variant_ir(function: HelperFunction, width: int) -> str:
    """``<W x T> @<symbol>__v<W>(<W x T> %a0, ...)``: each lane through the scalar helper.

    The vectors are stored into stack arrays; a loop over the ``W`` lanes
    loads each lane's arguments, calls the scalar helper and stores its
    result; the result array is loaded as a vector. At -O3 the helper is
    inlined into that loop and the loop vectorized, exactly as in a kernel's
    loop: the same scalar instructions, ``W`` lanes at once, so every lane has
    the bits the scalar helper gives (no fast-math anywhere)."""
    t = _c_type(function.return_dtype)
    vec, arr = f"<{width} x {t}>", f"[{width} x {t}]"
    n = len(function.arg_dtypes)
    params = ", ".join(f"{vec} %a{i}" for i in range(n))
    lines = [f"define {vec} @{vector_symbol(function, width)}({params}) {{", "entry:"]
    for i in range(n):
        lines += [f"  %buf{i} = alloca {arr}, align 64", f"  store {vec} %a{i}, ptr %buf{i}, align 64"]
    lines += [f"  %out = alloca {arr}, align 64", "  br label %lane", "lane:",
              "  %i = phi i64 [ 0, %entry ], [ %next, %lane ]"]
    args = []
    for i in range(n):
        lines += [f"  %p{i} = getelementptr inbounds {arr}, ptr %buf{i}, i64 0, i64 %i",
                  f"  %x{i} = load {t}, ptr %p{i}"]
        args.append(f"{t} %x{i}")
    lines += [f"  %r = call {t} @{function.symbol}({', '.join(args)})",
              f"  %q = getelementptr inbounds {arr}, ptr %out, i64 0, i64 %i",
              f"  store {t} %r, ptr %q",
              "  %next = add nuw nsw i64 %i, 1",
              f"  %done = icmp eq i64 %next, {width}",
              f"  br i1 %done, label %exit, label %lane, !llvm.loop !{3 * width}",
              "exit:", f"  %v = load {vec}, ptr %out, align 64", f"  ret {vec} %v", "}",
              # the loop's width, said: else the vectorizer may pick 16 lanes for
              # every loop, and leave a loop of 4 or 8 iterations scalar
              f"!{3 * width} = distinct !{{!{3 * width}, !{3 * width + 1}, !{3 * width + 2}, "
              f"!{{!\"llvm.loop.unroll.disable\"}}}}",
              f'!{3 * width + 1} = !{{!"llvm.loop.vectorize.width", i32 {width}}}',
              f'!{3 * width + 2} = !{{!"llvm.loop.vectorize.enable", i1 true}}']
    return "\n".join(lines) + "\n"


def _library_module(function: HelperFunction, widths: tuple) -> llvm.ModuleRef:
    """One module exporting the scalar C-ABI helper and its vector variants
    (everything else internal), for this machine."""
    from minijax.backends.cpu import llvm_compile
    machine = llvm_compile.host_machine()
    module = helper_module_ref([function])
    if widths:
        t = _c_type(function.return_dtype)
        declaration = (f"declare {t} @{function.symbol}"
                       f"({', '.join(_c_type(d) for d in function.arg_dtypes)})\n")
        module.link_in(llvm.parse_assembly(
            declaration + "".join(_vector_variant_ir(function, w) for w in widths)))
    module.triple = llvm.get_process_triple()
    module.data_layout = str(machine.target_data)
    exported = {function.symbol, *(vector_symbol(function, w) for w in widths)}
    for fn in module.functions:
        if fn.is_declaration:
            continue
        fn.linkage = "external" if fn.name in exported else "internal"
    for gv in module.global_variables:
        if not gv.is_declaration:
            gv.linkage = "internal"
    module.verify()
    llvm_compile.optimize(module)
    return module


def _build_library_entry(function: HelperFunction) -> CompiledHelper:
    from minijax.backends.cpu import llvm_compile
    widths = VECTOR_WIDTHS[_c_type(function.return_dtype)] if vectorizable(function) else ()
    if any(not fn.is_declaration and _has_loop(str(fn))
           for fn in helper_module_ref([function]).functions):
        widths = ()  # a helper with a loop of its own (``_digamma``) does not vectorize
    module = _library_module(function, widths)
    attributes = b" ".join(module.get_function(function.symbol).attributes)
    pure = b"memory(none)" in attributes and b"nounwind" in attributes
    stats["library built"] = stats.get("library built", 0) + 1
    return CompiledHelper(function, widths, pure, llvm_compile.host_machine().emit_object(module))


def library_object_path(function: HelperFunction) -> str:
    """Where ``function``'s compiled library entry is cached (beside its IR)."""
    return os.path.join(cache_folder(), function.symbol + ".o")


def _library_file(entry: CompiledHelper) -> bytes:
    """The file: the SHA-256 of the rest, a header line, then the object file."""
    header = (f"{entry.function.symbol} widths={','.join(map(str, entry.widths))} "
              f"pure={int(entry.pure)}\n").encode()
    rest = _LIBRARY_MAGIC + header + entry.body
    return hashlib.sha256(rest).digest() + rest


def _parse_library_file(data: bytes, function: HelperFunction) -> CompiledHelper | None:
    """The entry stored in ``data``, or ``None`` if it is not an intact one for ``function``."""
    rest = data[32:]
    if len(data) <= 32 or hashlib.sha256(rest).digest() != data[:32]:
        return None
    if not rest.startswith(_LIBRARY_MAGIC):
        return None
    header, _, body = rest[len(_LIBRARY_MAGIC):].partition(b"\n")
    fields = header.decode(errors="replace").split()
    if len(fields) != 3 or fields[0] != function.symbol or not body:
        return None
    widths = tuple(int(w) for w in fields[1][len("widths="):].split(",") if w)
    return CompiledHelper(function, widths, fields[2] == "pure=1", body)


def compiled_helper(function: HelperFunction) -> CompiledHelper:
    """``function``'s entry of the compiled helper library: from memory, from
    the disk cache (checked against its SHA-256; a damaged file is rebuilt), or
    compiled now (LLVM -O3 over the helper and its vector variants: 50-300 ms)
    and cached."""
    key = ("library", function.symbol)
    with _lock:
        found = _memory.get(key)
        if found is not None:
            return found
        path = library_object_path(function)
        try:
            with open(path, "rb") as f:
                found = _parse_library_file(f.read(), function)
            if found is None:
                stats["rebuilt"] += 1
        except OSError:
            found = None
        if found is None:
            found = _build_library_entry(function)
            _write_bytes_atomically(path, _library_file(found))
        else:
            stats["library loaded"] = stats.get("library loaded", 0) + 1
        _memory[key] = found
        return found


def _write_bytes_atomically(path: str, data: bytes) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


def declarations_ir(entries: Iterable[CompiledHelper]) -> str:
    """A module DECLARING each entry's scalar helper with its vector variants
    named in the ``"vector-function-abi-variant"`` attribute
    (``_ZGV_LLVM_N16v_<scalar>(<variant>)``: LLVM's own ISA, not masked, 16
    lanes, each argument a vector), and the variants themselves, kept in
    ``@llvm.compiler.used`` (an unused declaration is dropped, and with it the
    variant the vectorizer looks for). The scalar is declared
    ``memory(none) nounwind willreturn``, what LLVM found it to be: the
    vectorizer widens only calls without side effects."""
    lines, used, groups = [], [], []
    for k, entry in enumerate(entries):
        f = entry.function
        t = _c_type(f.return_dtype)
        params = ", ".join(_c_type(d) for d in f.arg_dtypes)
        mappings = ",".join(f"_ZGV_LLVM_N{w}{'v' * len(f.arg_dtypes)}_{f.symbol}"
                            f"({vector_symbol(f, w)})" for w in entry.widths)
        lines.append(f"declare {t} @{f.symbol}({params}) #{k}")
        groups.append(f'attributes #{k} = {{ nounwind willreturn memory(none) '
                      f'"vector-function-abi-variant"="{mappings}" }}')
        for w in entry.widths:
            vec = f"<{w} x {t}>"
            lines.append(f"declare {vec} @{vector_symbol(f, w)}"
                         f"({', '.join([vec] * len(f.arg_dtypes))}) nounwind willreturn memory(none)")
            used.append(f"ptr @{vector_symbol(f, w)}")
    if used:
        lines.append(f"@llvm.compiler.used = appending global [{len(used)} x ptr] "
                     f"[{', '.join(used)}], section \"llvm.metadata\"")
    return "\n".join(lines + groups) + "\n"


def helper_size(function: HelperFunction) -> int:
    """The number of instructions in ``function``'s IR (with what it inlines):
    what one inlined call of it adds to a kernel for LLVM to optimize."""
    key = ("size", function.symbol)
    with _lock:
        size = _memory.get(key)
        if size is None:
            text = helper_ir([function])
            size = _memory[key] = sum(1 for line in text.splitlines()
                                      if line.startswith("  ") and not line.startswith("  br "))
        return size
