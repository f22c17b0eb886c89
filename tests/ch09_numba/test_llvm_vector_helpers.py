"""Chapter 09: big kernels call their helpers through LLVM's vector-function ABI.

A kernel whose loops call many big helpers (``sin``, ``cos``, ``tanh``...)
is compiled first in the *call* form: the helpers are only declared, with
their vector variants named in the ``"vector-function-abi-variant"``
attribute, and the loop vectorizer calls ``<16 x float> @..._v16`` from the
compiled helper library (``llvm_helpers.compiled_helper``). The rule checked
here: the call form computes the same bits as the inlined form and as Numba
(``minijax_cpu_compiler="check"`` runs Numba's kernel beside ours on every
call and raises ``BitsDiffer`` on any difference).
"""
import os
import re

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
import minijax.scipy.special as jsp
from minijax.backends.cpu import llvm_compile, llvm_helpers

from tests.ch09_numba.conftest import run_script

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)


@pytest.fixture
def kernels(monkeypatch, tmp_path):
    """Every kernel compiled in the call form (a threshold of 0), kept there (no
    upgrade), into an object cache of its own (an inlined form cached by another
    test would be loaded instead); yields the list of loaded kernels."""
    monkeypatch.setattr(llvm_compile, "CALL_FORM_MIN_INSTRUCTIONS", 0)
    monkeypatch.setattr(llvm_compile, "UPGRADE_AFTER_CALLS", 10 ** 9)
    monkeypatch.setattr(llvm_compile, "object_cache_dir", lambda: str(tmp_path))
    loaded = []
    real = llvm_compile.load_kernel

    def spy(kernel, inputs):
        loaded.append(real(kernel, inputs))
        return loaded[-1]
    monkeypatch.setattr(llvm_compile, "load_kernel", spy)
    old = minijax.config.read("minijax_cpu_compiler")
    minijax.config.update("minijax_cpu_compiler", "check")
    yield loaded
    minijax.config.update("minijax_cpu_compiler", old)


def edge_values(n=1001) -> np.ndarray:
    """Random float32s of every magnitude (sin's range reduction for huge ones),
    then the special values; 1001 of them, so the vector loop has a remainder."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(np.float32)
    x[:10] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 3e38, 0.5, 88.7]
    return x


def loop_grad(steps):
    def f(x):
        y = x
        for _ in range(steps):
            y = jnp.sin(y) + 0.1 * jnp.cos(y * y) - jnp.tanh(y)
        return jnp.sum(y)
    return minijax.grad(f)


@pytest.mark.parametrize("name,fn", [
    ("exp", jnp.exp), ("log", jnp.log), ("tanh", jnp.tanh), ("sin", jnp.sin),
    ("cos", jnp.cos), ("erf", jsp.erf), ("sigmoid", minijax.nn.sigmoid),
    ("log1p", jnp.log1p)])
def test_call_form_gives_numbas_bits(kernels, name, fn):
    x = edge_values()
    if name == "log":
        x = np.abs(x)
    out = np.asarray(minijax.jit(fn)(x))  # check: raises BitsDiffer on a difference
    assert kernels and all(k.form == "called" for k in kernels)
    with np.errstate(all="ignore"):  # and the values are the function's
        ref = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
               "log1p": np.log1p, "sigmoid": lambda v: 1 / (1 + np.exp(-v))}.get(name)
    if ref is not None:
        finite = (np.abs(x) < 80) & (np.abs(x) > 1e-30)  # no overflow, no subnormal
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(out[finite], ref(x[finite].astype(np.float64)),
                                       rtol=1e-5, atol=1e-6)


def test_loop_grad_call_form_gives_numbas_bits_and_the_gradient(kernels):
    x = edge_values()[10:]
    g = np.asarray(minijax.jit(loop_grad(3))(x))
    assert [k.form for k in kernels] == ["called"]
    called = sorted(e.function.name for e in kernels[0].called)
    assert called == ["_cos32", "_sin32", "_tanh32"]
    xs = x[:50].astype(np.float64)  # central differences, in float64

    def f(v):
        for _ in range(3):
            v = np.sin(v) + 0.1 * np.cos(v * v) - np.tanh(v)
        return v
    numeric = (f(xs + 1e-6) - f(xs - 1e-6)) / 2e-6
    ok = np.abs(xs) < 100
    np.testing.assert_allclose(g[:50][ok], numeric[ok], rtol=2e-3, atol=2e-3)


def test_the_big_kernel_calls_the_vector_variants(kernels):
    x = edge_values()[10:]
    minijax.jit(loop_grad(3))(x)
    text = kernels[0].optimized_ir
    calls = re.findall(r"call <(\d+) x float> @\"?minijax_helper_sin32__float32__v(\d+)", text)
    widths = {int(lanes) for lanes, variant in calls if lanes == variant}
    assert widths and min(widths) >= 4
    assert "<16 x float>" in text or "<8 x float>" in text  # the loop itself is vectorized
    assert "define" in text and "@minijax_helper_sin32__float32(" not in text.split(
        "declare float @minijax_helper_sin32__float32")[0]  # not defined here: declared


def test_a_small_kernel_inlines(monkeypatch):
    monkeypatch.setattr(llvm_compile, "UPGRADE_AFTER_CALLS", 10 ** 9)
    loaded = []
    real = llvm_compile.load_kernel
    monkeypatch.setattr(llvm_compile, "load_kernel",
                        lambda k, i: (loaded.append(real(k, i)), loaded[-1])[1])
    x = edge_values()
    minijax.jit(lambda v: jnp.exp(v) * 1.5 + 0.25)(x)
    assert [k.form for k in loaded] == ["inlined"]
    assert "__v16" not in loaded[0].optimized_ir


def test_the_call_form_upgrades_to_the_inlined_form_with_the_same_bits(kernels, monkeypatch):
    monkeypatch.setattr(llvm_compile, "UPGRADE_AFTER_CALLS", 2)
    x = edge_values()[10:]
    g = minijax.jit(loop_grad(2))
    first = np.asarray(g(x))
    (kernel,) = kernels
    assert kernel.form == "called"
    second = np.asarray(g(x))
    assert kernel.wait_upgraded(timeout=60)
    assert kernel.form == "inlined" and "__v16" not in kernel.optimized_ir
    third = np.asarray(g(x))  # (check mode: Numba's bits again)
    assert first.tobytes() == second.tobytes() == third.tobytes()
    # the inlined form is cached now: a new kernel of the same IR loads it
    again = llvm_compile.LlvmKernel(kernel.translated, [llvm_compile_spec(x)])
    assert again.cache_hit and again.form == "inlined"


def llvm_compile_spec(x):
    from minijax.backends.cpu.llvm_translate import ArgSpec
    return ArgSpec(x.dtype, x.shape)


# --- float64 helpers: a hand-written loop, both forms, and Numba's helper itself ------
LOOP64 = r"""
declare double @SYM(double)
define void @apply(ptr noalias %a, ptr noalias %out) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%n, %loop]
  %pa = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %y = call double @SYM(double %x)
  %po = getelementptr double, ptr %out, i64 %i
  store double %y, ptr %po
  %n = add i64 %i, 1
  %c = icmp slt i64 %n, 1001
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
"""


@pytest.mark.parametrize("name", ["_exp_f64", "_log_f64", "_log1p_f64", "_expm1_f64"])
def test_float64_helpers_called_in_the_library_give_the_inlined_and_numbas_bits(
        name, monkeypatch, tmp_path):
    from minijax.backends.cpu.llvm_translate import ArgSpec, TranslatedKernel
    monkeypatch.setattr(llvm_compile, "UPGRADE_AFTER_CALLS", 10 ** 9)
    monkeypatch.setattr(llvm_compile, "object_cache_dir", lambda: str(tmp_path))
    f = llvm_helpers.helper_function(name, (F64,))
    entry = llvm_helpers.compiled_helper(f)
    assert entry.pure and entry.widths == (2, 4, 8)
    translated = TranslatedKernel(LOOP64.replace("SYM", f.symbol), "apply",
                                  [ArgSpec(F64, (1001,))], [f])
    x = np.random.default_rng(3).standard_normal(1001) * 30
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 700.0, -745.0]
    if "log" in name:
        x = np.abs(x)
    forms = {}
    for threshold in (0, 10 ** 9):
        monkeypatch.setattr(llvm_compile, "CALL_FORM_MIN_INSTRUCTIONS", threshold)
        kernel = llvm_compile.LlvmKernel(translated, [ArgSpec(F64, (1001,))])
        forms[kernel.form] = kernel(x)[0]
    assert forms["called"].tobytes() == forms["inlined"].tobytes()
    assert forms["called"].tobytes() == numba_loop(name, x).tobytes()


def numba_loop(name, x):
    """The helper applied elementwise by a Numba loop (as a Numba kernel calls it)."""
    import numba
    library_name, source = llvm_helpers._library()
    from minijax.backends.cpu import compile as cpu_compile
    namespace = {"h": getattr(cpu_compile._import_source(source, library_name), name)}
    exec("def loop(a, out):\n    for i in range(out.shape[0]):\n        out[i] = h(a[i])\n",
         namespace)
    out = np.empty_like(x)
    numba.njit(namespace["loop"])(x, out)
    return out


# --- the library's cache ---------------------------------------------------------------
def test_library_entry_round_trips_through_the_disk_cache_and_survives_damage():
    f = llvm_helpers.helper_function("_tanh32", (F32,))
    built = llvm_helpers.compiled_helper(f)
    path = llvm_helpers.library_object_path(f)
    assert os.path.exists(path)
    llvm_helpers.forget()
    loaded_before = llvm_helpers.stats.get("library loaded", 0)
    loaded = llvm_helpers.compiled_helper(f)
    assert llvm_helpers.stats["library loaded"] == loaded_before + 1
    assert (loaded.body, loaded.widths, loaded.pure) == (built.body, built.widths, built.pure)
    for damage in ("truncate", "flip"):
        with open(path, "r+b") as fh:
            if damage == "truncate":
                fh.truncate(200)
            else:
                fh.seek(-100, os.SEEK_END)
                byte = fh.read(1)
                fh.seek(-100, os.SEEK_END)
                fh.write(bytes([byte[0] ^ 0xFF]))
        llvm_helpers.forget()
        rebuilt_before = llvm_helpers.stats["rebuilt"]
        again = llvm_helpers.compiled_helper(f)
        assert llvm_helpers.stats["rebuilt"] == rebuilt_before + 1
        assert again.widths == built.widths and again.pure
        with open(path, "rb") as fh:  # written again, intact
            assert llvm_helpers._parse_library_file(fh.read(), f) is not None


def test_a_helper_with_a_loop_of_its_own_gets_no_vector_variant_and_stays_inlined():
    f = llvm_helpers.helper_function("_digamma", (F64,))  # a loop: the lanes would not vectorize
    assert llvm_helpers.compiled_helper(f).widths == ()

    class Kernel:  # the fields called_helpers reads: many call sites of _digamma
        helpers = [f]
        ir = f"declare double @{f.symbol}(double)\n" + "".join(
            f"  %y{i} = call double @{f.symbol}(double %x)\n" for i in range(50))
    assert llvm_compile._call_sites(Kernel.ir, f.symbol) == 50
    assert llvm_compile.called_helpers(Kernel) == []


def test_declarations_name_each_variant_and_keep_them():
    f = llvm_helpers.helper_function("_sin32", (F32,))
    text = llvm_helpers.declarations_ir([llvm_helpers.compiled_helper(f)])
    for w in (4, 8, 16):
        assert (f"_ZGV_LLVM_N{w}v_minijax_helper_sin32__float32"
                f"(minijax_helper_sin32__float32__v{w})") in text
        assert f"ptr @minijax_helper_sin32__float32__v{w}" in text.split("llvm.compiler.used")[1]
    assert "memory(none)" in text


# --- a fresh process: kernels and library from the disk cache ----------------------------
SCRIPT = r"""
import sys, hashlib, numpy as np
import minijax, minijax.numpy as jnp
from minijax.backends.cpu import llvm_compile, llvm_helpers
minijax.config.update("minijax_cpu_compiler", sys.argv[2])
loaded = []
real = llvm_compile.load_kernel
llvm_compile.load_kernel = lambda k, i: (loaded.append(real(k, i)), loaded[-1])[1]
def f(x):
    y = x
    for _ in range(3):
        y = jnp.sin(y) + 0.1 * jnp.cos(y * y) - jnp.tanh(y)
    return jnp.sum(y)
x = np.linspace(-4, 4, 1001).astype(np.float32)
g = np.asarray(minijax.jit(minijax.grad(f))(x))
(k,) = loaded
print(k.form, int(k.cache_hit), llvm_helpers.stats.get("library built", 0),
      hashlib.sha256(g.tobytes()).hexdigest()[:16])
if sys.argv[1] == "upgrade":
    k.wait_upgraded()
"""


@pytest.mark.slow
def test_a_fresh_process_loads_kernel_and_library_from_the_cache(tmp_path):
    env = dict(os.environ, MINIJAX_CACHE_DIR=str(tmp_path))
    old = os.environ.copy()
    os.environ.update(env)
    try:
        run_script("from minijax.backends.cpu import llvm_helpers\n"
                   "llvm_helpers.prebuild([(n, ('float32',)) for n in ('_sin32', '_cos32', '_tanh32')])")
        # compiles the call form (Numba's kernel beside it: the same bits), then the inlined one
        first = run_script(SCRIPT, "upgrade", "check")
        second = run_script(SCRIPT, "stay", "llvm")     # loads the inlined form
    finally:
        os.environ.clear()
        os.environ.update(old)
    assert first[:3] == ["called", "0", "0"]  # the library came from the cache: not built
    assert second[:3] == ["inlined", "1", "0"]
    assert first[3] == second[3]
