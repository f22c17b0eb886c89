"""The cost of a ``prange`` loop on Numba's pool, in our own LLVM IR (``llvm_parallel``).

For a loop of N iterations, each ``out[i*cols:(i+1)*cols] = 2 * a[...]``
(float32), three kernels are timed, interleaved call by call (best and
median of 3,000 calls, output allocation included):

* ``parts``: the iterations cut into one contiguous part per thread (the default);
* ``per_iteration``: the pool calls the body once per iteration;
* ``numba``: the same loop in ``@njit(parallel=True)`` with ``prange`` (it
  allocates its output inside; that costs it page faults for large outputs).

With one Numba thread our kernels call the loop directly (no pool). With two,
the time includes waking the pool's other thread: about 1.5 us when it is
still spinning after the last loop, tens of microseconds when it sleeps (on
a busy machine, often).
"""
import os
import sys
import time

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "ch09_numba"))
import test_llvm_parallel as kernels  # noqa: E402  (the tests' IR builders)

from minijax.backends.cpu import llvm_compile  # noqa: E402


def rows_kernel(rows: int, cols: int, per_iteration: bool):
    module = ir.Module("rows")
    fn, b = kernels.kernel_function(module, "rows", 2)

    def fill(b, i, values):
        a, out = values
        first = b.mul(i, kernels.i64(cols), flags=["nsw"])
        with kernels.counted_loop(b, first, b.add(first, kernels.i64(cols), flags=["nsw"])) as j:
            x = b.load(kernels.element(b, a, j, kernels.f32))
            b.store(b.fmul(x, kernels.f32(2.0)), kernels.element(b, out, j, kernels.f32))

    kernels.run_parallel(module, b, "rows.body", list(fn.args), fill, kernels.i64(rows),
                         per_iteration)
    b.ret_void()
    spec = kernels.Spec(np.float32, (rows * cols,))
    return llvm_compile.load_kernel(kernels.Translated(str(module), "rows", [spec]), [spec])


def numba_rows(rows: int, cols: int):
    @njit(parallel=True)
    def f(a):
        out = np.empty(rows * cols, np.float32)
        for i in prange(rows):
            for j in range(i * cols, i * cols + cols):
                out[j] = a[j] * np.float32(2.0)
        return (out,)
    return f


def interleaved(fns: dict, arg, calls: int = 3000) -> dict:
    times = {name: [] for name in fns}
    order = list(fns.items())
    for r in range(calls):
        for name, fn in (order if r % 2 else order[::-1]):
            t0 = time.perf_counter()
            fn(arg)
            times[name].append(time.perf_counter() - t0)
    return {name: (min(v) * 1e6, sorted(v)[len(v) // 2] * 1e6) for name, v in times.items()}


def main():
    for rows, cols in ((64, 1), (1000, 16), (1000, 256)):
        a = np.random.default_rng(0).standard_normal(rows * cols).astype(np.float32)
        fns = {"parts": rows_kernel(rows, cols, False),
               "per_iteration": rows_kernel(rows, cols, True),
               "numba": numba_rows(rows, cols)}
        for fn in fns.values():
            assert np.array_equal(fn(a)[0], a * np.float32(2))
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(threads)
            result = interleaved(fns, a)
            print(f"N={rows} x {cols}, {threads} thread(s): " + "   ".join(
                f"{name} {best:.1f} us (median {median:.1f})"
                for name, (best, median) in result.items()))


if __name__ == "__main__":
    main()
