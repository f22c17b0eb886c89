"""Where a cold compile goes: the digits training steps of workload 6, compiled
in this process with an empty compile cache, taken apart.

For the first call of the jitted step (the MLP's or the CNN's of
``bench_w6_train_digits``) it prints:

1. the CPU and wall time of the call (on a shared machine, CPU time is the
   steadier measure: the wall time grows with the neighbours' load);
2. every function Numba compiled meanwhile (the kernel, the shared helpers,
   Numba's own overloads such as ``np.empty``'s), with its CPU time less that
   of the functions it compiled on the way (Numba's ``numba:compile`` events);
3. the kernel's compiler passes, the slowest first (Numba's
   ``pipeline_times``: type inference, the ``prange`` passes, the lowering,
   which includes LLVM), in wall time;
4. LLVM's share of the kernel's own code library (``NUMBA_LLVM_PASS_TIMINGS``):
   the per-function pipeline, the module pipeline, the machine code.

Run: ``PYTHONPATH=. python bench/profile_cold_compile.py [mlp|cnn]``.
"""
import os
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_LLVM_PASS_TIMINGS", "1")  # read when Numba is imported
os.environ["MINIJAX_CACHE_DIR"] = tempfile.mkdtemp(prefix="minijax-cold-")

import minijax  # noqa: E402
from minijax.backends.cpu import compile as compiler  # noqa: E402
from numba.core import event  # noqa: E402

import bench_w6_train_digits as w6  # noqa: E402


class CompileTimes(event.Listener):
    """CPU seconds of each Numba compile, less those of the compiles nested in it."""

    def __init__(self):
        self.stack, self.rows = [], []

    def on_start(self, ev):
        name = ev.data["dispatcher"].py_func.__name__
        self.stack.append([name, str(ev.data["args"])[:50], time.process_time(), 0.0])

    def on_end(self, ev):
        name, args, start, nested = self.stack.pop()
        spent = time.process_time() - start
        self.rows.append((spent - nested, name, args))
        if self.stack:
            self.stack[-1][3] += spent


def main(model: str = "cnn") -> None:
    kernels = {}
    compile_kernel = compiler.compile_kernel

    def recording(source, fn_name, signature):
        result = compile_kernel(source, fn_name, signature)
        kernels[fn_name] = (result[0], signature, source.count("\n"))
        return result

    compiler.compile_kernel = recording
    times = CompileTimes()
    event.register("numba:compile", times)
    x, y = w6.digits()
    trainer = w6.Trainer(minijax, model, w6.batches(x, y, 1))
    cpu, wall = time.process_time(), time.perf_counter()
    trainer.steps(1)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    compiler.compile_kernel = compile_kernel

    print(f"\n{model}: first call {cpu:.2f} s CPU, {wall:.2f} s wall")
    print(f"\nNumba compiles ({len(times.rows)}), CPU seconds less nested compiles:")
    for spent, name, args in sorted(times.rows, reverse=True)[:12]:
        print(f"  {spent:6.2f}  {name} {args}")
    for fn_name, (dispatcher, signature, lines) in kernels.items():
        meta = dispatcher.get_metadata(signature)
        print(f"\nkernel {fn_name} ({lines} lines of source): Numba's passes, wall seconds")
        for pipeline, passes in meta["pipeline_times"].items():
            rows = sorted(((t.init + t.run + t.finalize, name) for name, t in passes.items()),
                          reverse=True)
            print(f"  pipeline {pipeline}: {sum(s for s, _ in rows):.2f}")
            for spent, name in rows[:8]:
                print(f"    {spent:6.2f}  {name}")
        llvm = meta.get("llvm_pass_timings")
        if llvm is not None:
            print(f"  LLVM on the kernel's own library: {llvm.get_total_time():.2f} s")
            for record in sorted(llvm, key=lambda r: -r.timings.get_total_time())[:4]:
                print(f"    {record.timings.get_total_time():6.2f}  {record.name[:70]}")


if __name__ == "__main__":
    main(*sys.argv[1:])
