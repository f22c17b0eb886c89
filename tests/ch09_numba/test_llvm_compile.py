"""Chapter 09: our last stage (``llvm_compile``): LLVM IR -> object file -> a Python builtin.

The kernel here is written by hand in LLVM IR, as the translator would emit
it: ``out[i] = a[i] * s`` for 1,000 float32 elements, ``s`` a 0-d parameter.
Results are checked against NumPy.
"""
import os
import threading

import numpy as np
import pytest

from minijax.backends.cpu import llvm_compile
from minijax.backends.cpu.llvm_translate import ArgSpec, TranslatedKernel

SCALE_IR = r"""
define void @scale(ptr noalias %a, ptr noalias %s, ptr noalias %out) {
entry:
  %sv = load float, ptr %s
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%n, %loop]
  %pa = getelementptr float, ptr %a, i64 %i
  %x = load float, ptr %pa
  %y = fmul float %x, %sv
  %po = getelementptr float, ptr %out, i64 %i
  store float %y, ptr %po
  %n = add i64 %i, 1
  %c = icmp slt i64 %n, SIZE
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
"""


Spec, Translated = ArgSpec, TranslatedKernel  # what the translator gives llvm_compile


def scale_kernel(size: int) -> Translated:
    return Translated(SCALE_IR.replace("SIZE", str(size)), "scale", [Spec(np.float32, (size,))])


INPUTS = [Spec(np.float32, (1000,)), Spec(np.float32, ())]


@pytest.fixture
def private_cache(tmp_path):
    from minijax import config
    old = config.read("minijax_cache_dir")
    config.update("minijax_cache_dir", str(tmp_path))
    yield tmp_path
    config.update("minijax_cache_dir", old)


def test_kernel_runs_and_matches_numpy(private_cache):
    kernel = llvm_compile.load_kernel(scale_kernel(1000), INPUTS)
    a = np.linspace(-3, 3, 1000, dtype=np.float32)
    (out,) = kernel(a, np.float32(2.5))
    assert out.dtype == np.float32 and out.shape == (1000,)
    np.testing.assert_array_equal(out, a * np.float32(2.5))
    (again,) = kernel(a, np.float32(-1.0))  # a new output buffer each call
    np.testing.assert_array_equal(again, -a)
    assert out is not again and out[1] == a[1] * np.float32(2.5)


def test_second_load_comes_from_the_object_cache(private_cache):
    first = llvm_compile.load_kernel(scale_kernel(999), [Spec(np.float32, (999,)), INPUTS[1]])
    second = llvm_compile.load_kernel(scale_kernel(999), [Spec(np.float32, (999,)), INPUTS[1]])
    assert not first.cache_hit and second.cache_hit
    a = np.ones(999, np.float32)
    np.testing.assert_array_equal(second(a, np.float32(3.0))[0], np.full(999, 3.0, np.float32))


def test_a_corrupt_cache_entry_is_compiled_again(private_cache):
    llvm_compile.load_kernel(scale_kernel(998), [Spec(np.float32, (998,)), INPUTS[1]])
    folder = llvm_compile.object_cache_dir()
    (name,) = [f for f in os.listdir(folder) if f.endswith(".o")]
    with open(os.path.join(folder, name), "r+b") as f:  # cut short: a crash if loaded
        f.truncate(100)
    kernel = llvm_compile.load_kernel(scale_kernel(998), [Spec(np.float32, (998,)), INPUTS[1]])
    assert not kernel.cache_hit
    np.testing.assert_array_equal(kernel(np.ones(998, np.float32), np.float32(2.0))[0],
                                  np.full(998, 2.0, np.float32))


def test_optimized_ir_is_vectorized_and_assembly_is_text(private_cache):
    kernel = llvm_compile.load_kernel(scale_kernel(1000), INPUTS)
    assert "x float>" in kernel.optimized_ir  # LLVM's loop vectorizer ran
    assert "ret" in kernel.assembly()


def test_threads_call_one_kernel_at_once(private_cache):
    """Two threads calling one kernel at once (each call releases the GIL and
    allocates its own outputs): each gets its own right result."""
    size = 2_000_000
    kernel = llvm_compile.load_kernel(scale_kernel(size), [Spec(np.float32, (size,)), INPUTS[1]])
    a = np.ones(size, np.float32)
    results = {}

    def work(k):
        results[k] = kernel(a, np.float32(k))[0]

    threads = [threading.Thread(target=work, args=(k,)) for k in (2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in (2, 3):
        np.testing.assert_array_equal(results[k], np.full(size, k, np.float32))
