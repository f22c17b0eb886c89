"""The shared helpers as LLVM IR (``backends/cpu/llvm_helpers.py``).

Each helper's IR comes from Numba, wrapped in a C signature, cached on disk.
The reference is Numba itself: every symbol, compiled here by llvmlite's
MCJIT, must give the same bits as the helper called from a Numba function,
on edge values (0, -0, inf, nan, subnormals, overflow) and random ones. A
loop calling a float32 helper must vectorize once linked and optimized at -O3.
"""
import ctypes
import os
import re

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest

import minijax
from minijax.backends.cpu import compile as cpu_compile
from minijax.backends.cpu import llvm_helpers
from minijax.backends.cpu.llvm_helpers import HelperNotAvailable, helper_function, helper_ir

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
RNG = np.random.default_rng(21)


# --- inputs ----------------------------------------------------------------------------
def _float_edges(dtype):
    info = np.finfo(dtype)
    tiny, sub = float(info.tiny), float(info.smallest_subnormal)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, sub, -sub, tiny / 3, -tiny / 3,
               tiny, -tiny, float(info.max), -float(info.max), 1.0, -1.0, 0.5, -0.5, 2.0,
               88.72, 88.73, -87.3, -103.9, -104.0, 709.8, -745.1, 1e30, -1e30, 3.0e38,
               0.9999, -0.9999, 1.0001, 5.0, -5.0, 1e-8, -1e-8, 0.7853982, 1e6 + 0.5]
    return np.array(special, dtype)


def _floats(dtype, n=600):
    """Edge values, normal values and magnitudes spread over the whole range."""
    info = np.finfo(dtype)
    spread = np.exp(RNG.uniform(np.log(float(info.smallest_subnormal)),
                                np.log(float(info.max)), n))
    spread *= RNG.choice([-1.0, 1.0], n)
    with np.errstate(over="ignore"):
        return np.concatenate([_float_edges(dtype), (RNG.normal(size=n) * 4).astype(dtype),
                               spread.astype(dtype)])


def _ints(dtype, n=400):
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, 2, 7, info.max - 1]
    if info.min < 0:
        edges += [-1, -2, -7, info.min + 1]
    return np.concatenate([np.array(edges, dtype),
                           RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)])


def _values(dtype, n=600):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return _floats(dtype, n)
    if dtype.kind == "b":
        return np.array([False, True], bool)
    return _ints(dtype, n)


def _pairs(dtype_a, dtype_b):
    """Every edge value against every other, and random pairs."""
    a, b = _values(dtype_a, 300), _values(dtype_b, 300)
    ea, eb = a[:40], b[:40]
    return (np.concatenate([np.repeat(ea, len(eb)), a]),
            np.concatenate([np.tile(eb, len(ea)), b[RNG.permutation(len(b))][:len(a)]]))


def _const(value, dtype, like):
    return np.full(len(like), value, dtype)


UNARY_F32 = ["_exp32", "_log32", "_log1p32", "_tanh32", "_logistic32", "_erf32", "_erf_inv_w",
             "_exp2_32", "_sinh32", "_cosh32", "_atanh32", "_asinh32", "_acosh32",
             "_round_f16", "_round_bf16", "_sign", "_round_away", "_f2h", "_f2bf"]


def _cases():
    """(helper, argument arrays): the helpers of every kind a kernel calls."""
    x32, x64 = _floats(F32), _floats(F64)
    cases = [(name, [x32]) for name in UNARY_F32]
    cases += [(name, [x64]) for name in ("_digamma", "_log_f64", "_exp_f64", "_round_away")]
    halves = np.arange(0, 1 << 16, 7, dtype=np.uint16)
    cases += [("_h2f", [halves]), ("_bf2f", [halves])]
    cases += [("_fmax", list(_pairs(F32, F32))), ("_fmin", list(_pairs(F64, F64))),
              ("_arg_better_max", list(_pairs(F32, F32))),
              ("_arg_better_min", list(_pairs(F64, F64))),
              ("_idiv", list(_pairs(np.int32, np.int32))),
              ("_irem", list(_pairs(np.int64, np.int64))),
              ("_arg_better_max", list(_pairs(bool, bool)))]  # bool arguments: i1 in the C signature
    u32 = _ints(np.uint32)
    cases += [("_popcount", [u32, _const(1, np.uint32, u32)]),
              ("_clz", [u32, _const(32, np.int64, u32), _const(1, np.uint32, u32)])]
    cases += [("_float_to_int", [x32, _const(-2147483648.0, F64, x32),
                                 _const(2147483647.0, F64, x32)]),
              ("_logaddexp", [*_pairs(F32, F32), None])]
    return cases


def _case_id(case):
    name, args = case
    return f"{name}-{'-'.join(np.asarray(a).dtype.name for a in args if a is not None)}"


CASES = _cases()


def _args_of(case):
    name, args = case
    if name == "_logaddexp":  # its third argument is log(2) in the dtype of the others
        args = [args[0], args[1], _const(np.log(2.0), F32, args[0])]
    return name, args


# --- the reference: Numba calls the helper -----------------------------------------------
def _library_module():
    name, source = llvm_helpers._library()
    return cpu_compile._import_source(source, name)  # the module kernels import (cache=True)


def numba_reference(name, args):
    """The helper applied elementwise by a Numba function (the kernels' way to call it)."""
    params = ", ".join(f"a{i}" for i in range(len(args)))
    call = ", ".join(f"a{i}[i]" for i in range(len(args)))
    namespace = {"h": getattr(_library_module(), name)}
    exec(f"def apply({params}):\n    return h({params})\n\n"
         f"def loop({params}, out):\n    for i in range(out.shape[0]):\n"
         f"        out[i] = h({call})\n", namespace)
    scalar = numba.njit(namespace["apply"])
    signature = tuple(numba.from_dtype(a.dtype) for a in args)
    scalar.compile(signature)
    return_type = scalar.overloads[signature].signature.return_type
    out = np.empty(len(args[0]), numba.np.numpy_support.as_dtype(return_type))
    numba.njit(namespace["loop"])(*args, out)
    return out


# --- our side: MCJIT on the helper IR -------------------------------------------------------
def target_machine():
    cpu, features = llvm_helpers.host_cpu()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=3, reloc="static", codemodel="jitdefault", jit=True)


_engines = []  # kept alive: their machine code backs the function pointers


def jit_module(module):
    """Machine code for an llvmlite module; returns the engine."""
    module.verify()
    engine = llvm.create_mcjit_compiler(module, target_machine())
    engine.finalize_object()
    _engines.append(engine)
    return engine


_CTYPES = {"b": ctypes.c_bool, "f4": ctypes.c_float, "f8": ctypes.c_double,
           "i1": ctypes.c_int8, "i2": ctypes.c_int16, "i4": ctypes.c_int32, "i8": ctypes.c_int64,
           "u1": ctypes.c_uint8, "u2": ctypes.c_uint16, "u4": ctypes.c_uint32,
           "u8": ctypes.c_uint64}


def _ctype(dtype):
    dtype = np.dtype(dtype)
    return _CTYPES["b" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize}"]


def call_through_ctypes(fn, args):
    """Each element through the C-ABI symbol, one ctypes call at a time."""
    engine = jit_module(llvm.parse_assembly(helper_ir([fn])))
    c_fn = ctypes.CFUNCTYPE(_ctype(fn.return_dtype), *map(_ctype, fn.arg_dtypes))(
        engine.get_function_address(fn.symbol))
    return np.array([c_fn(*(a[i].item() for a in args)) for i in range(len(args[0]))],
                    fn.return_dtype)


def quieted(a):
    """``a`` with each signaling NaN made quiet (the top mantissa bit set)."""
    a = np.array(a)
    if a.dtype.kind != "f":
        return a
    info = np.finfo(a.dtype)
    bits = a.view(f"u{a.dtype.itemsize}")
    bits[np.isnan(a)] |= bits.dtype.type(1 << (info.nmant - 1))
    return a


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        a, b = a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")
    bad = np.flatnonzero(a != b)
    return bad


@pytest.fixture(scope="module", autouse=True)
def warm_helpers():
    """The session's cache directory; this module's helpers built once."""
    llvm_helpers.forget()
    yield
    llvm_helpers.forget()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_each_symbol_gives_numbas_bits(case):
    name, args = _args_of(case)
    fn = helper_function(name, tuple(a.dtype for a in args))
    expected = numba_reference(name, args)
    assert fn.return_dtype == expected.dtype  # the C signature returns what Numba returns
    in_a_loop = run_loop(optimized_loop(fn), fn, args)  # inlined into a kernel: exact bits
    bad = same_bits(in_a_loop, expected)
    assert not len(bad), (name, [(tuple(a[i] for a in args), in_a_loop[i], expected[i])
                                 for i in bad[:5]])
    # one scalar call at a time (ctypes makes a Python float of a float: that quiets a
    # signaling NaN, the float16 and bfloat16 helpers' results for signaling NaN bits)
    one_by_one = call_through_ctypes(fn, args)
    bad = same_bits(one_by_one, quieted(expected))
    assert not len(bad), (name, [(tuple(a[i] for a in args), one_by_one[i], expected[i])
                                 for i in bad[:5]])


def _memory_type(dtype):
    """How a kernel stores ``dtype`` in memory: a bool is a byte."""
    return "i8" if np.dtype(dtype).kind == "b" else llvm_helpers._c_type(np.dtype(dtype))


def numba_nested_reference(outer, middle, inner, x):
    """``outer(x, middle(inner(x)))`` elementwise, as the float32 trig rules write it."""
    library = _library_module()
    namespace = {"o": getattr(library, outer), "m": getattr(library, middle),
                 "i": getattr(library, inner)}
    exec("def loop(x, out):\n    for k in range(out.shape[0]):\n"
         "        out[k] = o(x[k], m(i(x[k])))\n", namespace)
    out = np.empty_like(x)
    numba.njit(namespace["loop"])(x, out)
    return out


@pytest.mark.parametrize("end", ["_sin_end", "_cos_end", "_tan_end"])
def test_the_trig_pipeline_is_one_nested_helper(end):
    name = llvm_helpers.nested_helper(end, "_sin_cos_f64", "_rem_pio2_32")
    assert name == end.replace("_end", "32")
    fn = helper_function(name, (F32,))
    x = np.concatenate([_floats(F32), np.linspace(-40, 40, 2001, dtype=np.float32)])
    expected = numba_nested_reference(end, "_sin_cos_f64", "_rem_pio2_32", x)
    module = optimized_loop(fn)
    assert re.search(r"<(4|8|16) x float>", str(module.get_function("loop")))
    assert not len(same_bits(run_loop(module, fn, [x]), expected))
    assert not len(same_bits(call_through_ctypes(fn, [x]), expected))
    assert llvm_helpers.nested_helper("_sin_end", "_sin_cos_f64", "_exp32") is None


def numba_item_reference(name, index, args):
    """Item ``index`` of the tuple ``name`` returns, elementwise, computed by Numba."""
    params = ", ".join(f"a{i}" for i in range(len(args)))
    call = ", ".join(f"a{i}[k]" for i in range(len(args)))
    namespace = {"h": getattr(_library_module(), name)}
    exec(f"def loop({params}, out):\n    for k in range(out.shape[0]):\n"
         f"        out[k] = h({call})[{index}]\n", namespace)
    return namespace["loop"]


@pytest.mark.parametrize("name, index, dtypes, out", [
    ("_threefry2x32", 0, (np.uint32,) * 4, np.uint32),
    ("_threefry2x32", 1, (np.uint32,) * 4, np.uint32),
    ("_rem_pio2_32", 0, (F32,), F64),
    ("_rem_pio2_32", 1, (F32,), np.uint64),
])
def test_each_item_of_a_tuple_is_a_helper(name, index, dtypes, out):
    item = llvm_helpers.item_helper(name, index)
    args = [_values(d, 500) for d in dtypes]
    fn = helper_function(item, tuple(np.dtype(d) for d in dtypes))
    assert fn.return_dtype == np.dtype(out)
    expected = np.empty(len(args[0]), out)
    numba.njit(numba_item_reference(name, index, args))(*args, expected)
    assert not len(same_bits(run_loop(optimized_loop(fn), fn, args), expected))
    assert not len(same_bits(call_through_ctypes(fn, args), expected))


def test_the_two_words_of_threefry_are_hashed_once_in_a_loop():
    """Both items inlined into one loop: LLVM computes the shared hash once."""
    u32 = np.dtype(np.uint32)
    fns = [helper_function(llvm_helpers.item_helper("_threefry2x32", i), (u32,) * 4)
           for i in (0, 1)]
    kernel = """
declare i32 @{0}(i32, i32, i32, i32)
declare i32 @{1}(i32, i32, i32, i32)
define void @both(i32 %k1, i32 %k2, i32 %x1, i32 %x2, ptr noalias %out) {{
  %a = call i32 @{0}(i32 %k1, i32 %k2, i32 %x1, i32 %x2)
  %b = call i32 @{1}(i32 %k1, i32 %k2, i32 %x1, i32 %x2)
  store i32 %a, ptr %out
  %p = getelementptr i32, ptr %out, i64 1
  store i32 %b, ptr %p
  ret void
}}
""".format(*(f.symbol for f in fns))
    one = optimized_module(kernel, fns)
    text = str(one.get_function("both"))
    # 20 rounds of add, rotate (two shifts), xor per word pair: once, not twice
    assert text.count(" xor ") <= 25, text


def optimized_module(kernel_text, fns):
    tm = target_machine()
    module = llvm.parse_assembly(kernel_text)
    module.triple, module.data_layout = llvm.get_process_triple(), str(tm.target_data)
    module.link_in(llvm.parse_assembly(helper_ir(fns)))
    tuning = llvm.create_pipeline_tuning_options()
    tuning.speed_level, tuning.loop_vectorization, tuning.slp_vectorization = 3, True, True
    passes = llvm.create_pass_builder(tm, tuning)
    passes.getModulePassManager().run(module, passes)
    return module


def _loop_module(fn):
    """``out[i] = fn(in0[i], in1[i], ...)`` for i < n: a kernel loop as the translator
    writes one (a bool is loaded as a byte and passed as i1)."""
    n_args = len(fn.arg_dtypes)
    body = []
    for k, dtype in enumerate(fn.arg_dtypes):
        mem, c = _memory_type(dtype), llvm_helpers._c_type(dtype)
        body += [f"  %p{k} = getelementptr {mem}, ptr %in{k}, i64 %i",
                 f"  %m{k} = load {mem}, ptr %p{k}"]
        body += ([f"  %v{k} = trunc i8 %m{k} to i1"] if mem != c
                 else [f"  %v{k} = bitcast {c} %m{k} to {c}"])
    ret, mem = llvm_helpers._c_type(fn.return_dtype), _memory_type(fn.return_dtype)
    call_args = ", ".join(f"{llvm_helpers._c_type(d)} %v{k}"
                          for k, d in enumerate(fn.arg_dtypes))
    body += [f"  %r = call {ret} @{fn.symbol}({call_args})"]
    body += ["  %s = zext i1 %r to i8"] if mem != ret else [f"  %s = bitcast {ret} %r to {ret}"]
    body += [f"  %q = getelementptr {mem}, ptr %out, i64 %i", f"  store {mem} %s, ptr %q"]
    params = ", ".join(f"{llvm_helpers._c_type(d)}" for d in fn.arg_dtypes)
    inputs = "".join(f"ptr noalias %in{k}, " for k in range(n_args))
    newline = "\n"
    return f"""
declare {ret} @{fn.symbol}({params})

define void @loop({inputs}ptr noalias %out, i64 %n) {{
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %done, label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
{newline.join(body)}
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %body, label %done
done:
  ret void
}}
"""


def run_loop(module, fn, args):
    """Run the optimized loop on ``args``: the helper as an inlined kernel computes it."""
    out = np.empty(len(args[0]), fn.return_dtype)
    engine = jit_module(module)
    pointers = [a.ctypes.data for a in args] + [out.ctypes.data]
    ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(pointers), ctypes.c_int64)(
        engine.get_function_address("loop"))(*pointers, len(out))
    return out


def optimized_loop(fn):
    """The loop linked with the helper's IR and optimized at -O3 for this CPU."""
    return optimized_module(_loop_module(fn), [fn])


@pytest.mark.parametrize("name", ["_exp32", "_tanh32", "_log1p32", "_erf_inv_w", "_round_f16"])
def test_a_loop_calling_a_float32_helper_vectorizes_and_keeps_the_bits(name):
    fn = helper_function(name, (F32,))
    module = optimized_loop(fn)
    loop = str(module.get_function("loop"))
    assert re.search(r"<(4|8|16) x float>", loop), loop  # SIMD lanes of float32
    assert fn.symbol not in loop and "call i32 @" not in loop  # everything inlined
    x = _floats(F32)
    assert not len(same_bits(run_loop(module, fn, [x]), numba_reference(name, [x])))


def test_several_helpers_link_into_one_module_sharing_their_callees():
    """``_erf_inv_w`` carries a copy of ``_log1p32``, ``_round_f16`` of ``_f2h`` and
    ``_h2f``: with both callers and callees in one module nothing clashes."""
    names = ["_log1p32", "_erf_inv_w", "_f2h", "_h2f", "_round_f16", "_exp32", "_exp32"]
    dtypes = [(F32,), (F32,), (F32,), (np.dtype(np.uint16),), (F32,), (F32,), (F32,)]
    fns = [helper_function(n, d) for n, d in zip(names, dtypes)]
    text = helper_ir(fns)
    module = llvm.parse_assembly(text)
    defined = {f.name for f in module.functions if not f.is_declaration}
    assert {f.symbol for f in fns} <= defined
    engine = jit_module(module)
    exp32 = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(
        engine.get_function_address("minijax_helper_exp32__float32"))
    assert exp32(1.0) == np.float32(np.e)
    # linked a second time into a module that already has some of them: still fine
    again = llvm.parse_assembly(helper_ir(fns[:3]))
    again.link_in(llvm.parse_assembly(text))
    again.verify()


def test_symbols_are_named_after_the_helper_and_its_dtypes():
    fn = helper_function("_fmax", (F32, F32))
    assert fn.symbol == "minijax_helper_fmax__float32_float32"
    assert fn.return_dtype == F32 and fn.arg_dtypes == (F32, F32)
    assert re.search(r"define weak_odr float @minijax_helper_fmax__float32_float32"
                     r"\(float %a0, float %a1\)", helper_ir([fn]))
    better = helper_function("_arg_better_max", (F32, F32))
    assert better.return_dtype == np.dtype(bool)
    assert ("define weak_odr i1 @minijax_helper_arg_better_max__float32_float32"
            in helper_ir([better]))


@pytest.mark.parametrize("name, dtypes, reason", [
    ("_rem_pio2_32", (F32,), "returns Tuple"),       # the trig pipeline's tuples
    ("_sin_end", (F32, F32), "Numba cannot compile"),
    ("_leading", (F32,), "Numba cannot compile"),     # takes a matrix
    ("_cdiv", (np.complex128, np.complex128), "not a scalar type"),
    ("_cdiv", (F64, F64), "returns complex128"),
    ("_exp32", (np.float16,), "not a scalar type"),
    ("_no_such_helper", (F32,), "not a helper of the shared helper library"),
])
def test_helpers_that_are_not_scalar_functions_are_not_available(name, dtypes, reason):
    with pytest.raises(HelperNotAvailable, match=reason):
        helper_function(name, dtypes)


def test_scalar_helpers_lists_what_compiles(monkeypatch):
    monkeypatch.setattr(llvm_helpers.helpers, "HELPERS",
                        {n: llvm_helpers.helpers.HELPERS[n]
                         for n in ("_exp32", "_fmax", "_rem_pio2_32", "_leading", "_digamma")})
    found = llvm_helpers.scalar_helpers()
    assert {n: [f.arg_dtypes for f in fns] for n, fns in found.items()} == {
        "_exp32": [(F32,), (F64,)], "_fmax": [(F32, F32), (F64, F64)],
        "_digamma": [(F32,), (F64,)]}


# --- the disk cache ----------------------------------------------------------------------------
@pytest.fixture
def empty_cache(tmp_path, cache_dir):
    """An empty compile cache for one test (then the session's again)."""
    minijax.config.update("minijax_cache_dir", str(tmp_path))
    llvm_helpers.forget()
    yield tmp_path
    minijax.config.update("minijax_cache_dir", str(cache_dir))
    llvm_helpers.forget()


@pytest.fixture
def no_numba(monkeypatch):
    """Fail on any attempt to build a helper (to compile it, or even to import the library)."""
    def refuse(*args):
        raise AssertionError("a helper was compiled")
    monkeypatch.setattr(llvm_helpers, "_build", refuse)
    monkeypatch.setattr(llvm_helpers, "_helper_namespace", refuse)
    monkeypatch.setattr(numba.core.dispatcher.Dispatcher, "compile", refuse)


def _exp32_works(fn):
    engine = jit_module(llvm.parse_assembly(helper_ir([fn])))
    exp32 = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(engine.get_function_address(fn.symbol))
    assert exp32(0.5) == np.float32(1.6487212)


def test_a_warm_cache_needs_no_numba(empty_cache, monkeypatch):
    built = llvm_helpers.stats["built"]
    fn = helper_function("_exp32", (F32,))
    with pytest.raises(HelperNotAvailable):
        helper_function("_rem_pio2_32", (F32,))
    text = helper_ir([fn])
    assert llvm_helpers.stats["built"] == built + 2  # one compile each
    entry = os.path.join(llvm_helpers.cache_folder(), fn.symbol + ".ll")
    assert os.path.isfile(entry) and str(empty_cache) in entry

    llvm_helpers.forget()  # a new process, as far as the helpers go
    with monkeypatch.context() as m:
        m.setattr(llvm_helpers, "_build", lambda *a: pytest.fail("compiled again"))
        m.setattr(llvm_helpers, "_helper_namespace", lambda: pytest.fail("imported the library"))
        m.setattr(numba.core.dispatcher.Dispatcher, "compile",
                  lambda *a: pytest.fail("Numba compiled"))
        loaded = llvm_helpers.stats["loaded"]
        assert helper_function("_exp32", (F32,)) == fn
        with pytest.raises(HelperNotAvailable, match="returns Tuple"):  # the refusal is cached too
            helper_function("_rem_pio2_32", (F32,))
        assert helper_ir([fn]) == text
        assert llvm_helpers.stats["loaded"] == loaded + 2
    _exp32_works(fn)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "one_char", "empty", "old_format",
                                    "other_helper", "binary"])
def test_a_damaged_entry_is_rebuilt(empty_cache, damage):
    fn = helper_function("_exp32", (F32,))
    path = os.path.join(llvm_helpers.cache_folder(), fn.symbol + ".ll")
    with open(path) as f:
        good = f.read()
    bad = {"truncated": good[:len(good) // 2], "garbage": "define i32 @nonsense( {\n",
           "one_char": good.replace("fma", "fmb", 1), "empty": "",
           "old_format": good.replace("format 1", "format 0", 1),
           "other_helper": good.replace("; _exp32(", "; _log32(", 1)}
    if damage == "binary":
        with open(path, "wb") as f:
            f.write(b"\xff\xfe\x00\x80" * 50)
    else:
        with open(path, "w") as f:
            f.write(bad[damage])
    llvm_helpers.forget()
    rebuilt = llvm_helpers.stats["rebuilt"]
    assert helper_function("_exp32", (F32,)) == fn
    assert llvm_helpers.stats["rebuilt"] == rebuilt + 1
    with open(path) as f:
        assert f.read() == good  # the entry is whole again
    _exp32_works(fn)


def test_an_intact_entry_of_bad_ir_is_rebuilt_when_linked(empty_cache):
    fn = helper_function("_exp32", (F32,))
    path = os.path.join(llvm_helpers.cache_folder(), fn.symbol + ".ll")
    with open(path) as f:
        good = f.read()
    with open(path, "w") as f:  # a whole entry, with a correct hash, of IR that does not parse
        f.write(llvm_helpers._entry_text("_exp32", (F32,), (fn, "define float @x( {\n")))
    llvm_helpers.forget()
    assert helper_function("_exp32", (F32,)) == fn  # read back: the hash is right
    rebuilt = llvm_helpers.stats["rebuilt"]
    _exp32_works(fn)  # helper_ir parses it, fails, builds it again
    assert llvm_helpers.stats["rebuilt"] == rebuilt + 1
    with open(path) as f:
        assert f.read() == good


def test_an_unreadable_cache_costs_speed_not_correctness(empty_cache):
    os.makedirs(llvm_helpers.cache_folder())
    fn_path = os.path.join(llvm_helpers.cache_folder(), "minijax_helper_exp32__float32.ll")
    os.makedirs(fn_path)  # a folder where the entry should be: unreadable, unwritable
    fn = helper_function("_exp32", (F32,))
    _exp32_works(fn)


def test_the_key_changes_with_the_helper_source(monkeypatch):
    key = llvm_helpers.library_key()
    assert re.fullmatch(r"[0-9a-f]{24}", key)
    name, source = llvm_helpers._library()
    monkeypatch.setattr(llvm_helpers, "_library", lambda: (name, source + "\n# changed\n"))
    assert llvm_helpers.library_key() != key


def test_a_helper_that_may_raise_is_refused():
    """A C function cannot pass an exception on: Numba's status would be lost."""
    @numba.njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    def checked(x):
        if x > 1.0:
            raise ValueError("too big")
        return x

    checked.compile((numba.float64,))
    result = checked.overloads[(numba.float64,)]
    fn = llvm_helpers.HelperFunction("checked", (F64,), F64, "checked_c")
    with pytest.raises(HelperNotAvailable, match="may raise"):
        llvm_helpers._with_c_wrapper(result.library.get_llvm_str(),
                                     result.fndesc.llvm_func_name, fn)


def test_loop_free_helpers_are_always_inlined_and_helpers_with_loops_are_not():
    """Numba's function inside the wrapper is marked ``alwaysinline`` unless it loops."""
    def numba_function(name, dtypes):
        module = llvm.parse_assembly(helper_ir([helper_function(name, dtypes)]))
        (f,) = [f for f in module.functions if not f.is_declaration and
                f.name.startswith("_ZN") and name in f.name]
        return b"alwaysinline" in b" ".join(f.attributes)
    assert numba_function("_fmax", (F32, F32))   # branches, no loop
    assert numba_function("_round_f16", (F32,))
    assert not numba_function("_digamma", (F64,))  # its recurrence is a loop
    assert not numba_function("_popcount", (np.dtype(np.uint32),) * 2)


def test_has_loop_reads_the_control_flow_graph():
    forward = "entry:\n  br i1 %c, label %b, label %a\na:\n  br label %b\nb:\n  ret void\n"
    assert not llvm_helpers._has_loop(forward)
    # a block printed after the one it branches to is not a loop by itself
    printed_late = ("entry:\n  br i1 %c, label %end, label %mid\nend:\n  ret void\n"
                    "mid:\n  br label %end\n")
    assert not llvm_helpers._has_loop(printed_late)
    looping = "entry:\n  br label %head\nhead:\n  br i1 %c, label %body, label %end\n" \
              "body:\n  br label %head\nend:\n  ret void\n"
    assert llvm_helpers._has_loop(looping)
    unlabelled_entry = "define void @f() {\n  br label %head\nhead:\n  br label %head\n}\n"
    assert llvm_helpers._has_loop(unlabelled_entry)
    assert llvm_helpers._has_loop("define void @f() {\nB0:\n  br label %B0\n}\n")


def test_prebuild_reports_each_helper_or_why_not():
    results = llvm_helpers.prebuild([("_exp32", (F32,)), ("_leading", (F32,))])
    assert results[("_exp32", (F32,))] == helper_function("_exp32", (F32,))
    assert isinstance(results[("_leading", (F32,))], HelperNotAvailable)


@pytest.mark.slow
def test_every_helper_of_the_common_set_builds():
    results = llvm_helpers.prebuild()
    assert len(results) >= 40
    assert not [spec for spec, fn in results.items() if isinstance(fn, Exception)]
    module = llvm.parse_assembly(helper_ir(results.values()))
    module.verify()
    assert {fn.symbol for fn in results.values()} <= {f.name for f in module.functions}
