"""Workload 6: training steps on the 8x8 digits, quiet or beside a busy neighbour.

Two models, trained with SGD with momentum on scikit-learn's 1797 digits
(8x8 pixels, batch 100), the whole step (``value_and_grad`` and the update)
inside one ``jit``:

- an MLP 64-256-256-10 with relu;
- a small CNN: conv 3x3 (16 features, SAME), relu, 2x2 average pool, conv 3x3
  (32 features, SAME), relu, flatten, dense 10, log-softmax; written with
  ``lax.conv_general_dilated`` and ``lax.reduce_window`` directly.

What is measured, minijax beside real JAX (when it can be imported):

1. steady-state time per step, in two modes, timed in turns
   (:func:`interleaved_block_means`: blocks of calls, their mean, a median
   over the rounds): *async*, 20 steps dispatched back to back and then one
   ``block_until_ready`` (how a training loop runs), and *sync*, a block
   after every step;
2. the first epoch with compiling: from the first call to the 18th step
   (1797 digits / batch 100) in a fresh process, minijax with an empty
   compile cache, JAX fresh (its persistent cache is off by default), and a
   second minijax process on the now warm cache;
3. the peak resident memory of each of those processes (:func:`peak_rss_mb`).

``--busy`` starts a busy neighbour for the whole run: a NumPy matrix loop
(OpenBLAS on every core) in another process, the load under which
multi-threaded BLAS products used to collapse (see
``minijax.backends.cpu.thread_budget``). ``--repeat N`` runs the steady-state
part N times, to show the spread on a shared machine.

``--profile-steps`` instead times each step of minijax's kernel for both
models (:func:`profile_steps`: a cycle-counter reading between the steps of
the generated source, one thread), to see which convolution, product or loop
nest the time goes to.

Run: ``PYTHONPATH=. python bench/bench_w6_train_digits.py [--busy] [--repeat N]``
with an interpreter that has JAX installed, for the JAX column.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from harness import import_jax

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, LR, MOMENTUM = 100, 0.05, 0.9
MLP_SIZES = (64, 256, 256, 10)
ASYNC_STEPS = 20      # steps dispatched before one block, in the async mode
EPOCH_STEPS = 18      # ceil(1797 / 100)

#: The busy neighbour: a matrix loop on NumPy's OpenBLAS, which uses every core.
BUSY = ("import numpy as np\n"
        "a = np.random.rand(300, 300)\n"
        "while True:\n"
        "    a = a @ a\n"
        "    a /= a.max()\n")


# =============================================================================
# Data and models (one definition for both libraries)
# =============================================================================
def digits():
    """The digits as float32 images in [0, 1] (N, 8, 8, 1) and one-hot labels (N, 10)."""
    from sklearn.datasets import load_digits
    data = load_digits()
    x = (data.images / 16.0).astype(np.float32)[..., None]
    y = np.eye(10, dtype=np.float32)[data.target]
    return x, y


def batches(x, y, n):
    """``n`` batches of ``BATCH``, in order, wrapping around the end of the data."""
    out = []
    for i in range(n):
        idx = np.arange(i * BATCH, (i + 1) * BATCH) % len(x)
        out.append((x[idx], y[idx]))
    return out


def init_params(model: str):
    rng = np.random.default_rng(0)
    if model == "mlp":
        return [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
                 np.zeros(n, np.float32)) for m, n in zip(MLP_SIZES[:-1], MLP_SIZES[1:])]
    return [((rng.standard_normal((3, 3, 1, 16)) / 3).astype(np.float32), np.zeros(16, np.float32)),
            ((rng.standard_normal((3, 3, 16, 32)) / 12).astype(np.float32),
             np.zeros(32, np.float32)),
            ((rng.standard_normal((512, 10)) / np.sqrt(512)).astype(np.float32),
             np.zeros(10, np.float32))]


def make_step(lib, model: str):
    """The jitted training step of ``model`` written with ``lib`` (jax or minijax)."""
    jnp, lax = lib.numpy, lib.lax
    dims = ("NHWC", "HWIO", "NHWC")

    def logits_mlp(params, x):
        h = x.reshape(x.shape[0], -1)
        for w, b in params[:-1]:
            h = lib.nn.relu(h @ w + b)
        w, b = params[-1]
        return h @ w + b

    def logits_cnn(params, x):
        (k1, b1), (k2, b2), (w, b) = params
        h = lib.nn.relu(lax.conv_general_dilated(x, k1, (1, 1), "SAME",
                                                 dimension_numbers=dims) + b1)
        h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
        h = lib.nn.relu(lax.conv_general_dilated(h, k2, (1, 1), "SAME",
                                                 dimension_numbers=dims) + b2)
        return h.reshape(h.shape[0], -1) @ w + b

    logits = logits_mlp if model == "mlp" else logits_cnn

    def loss(params, x, y):
        return -jnp.mean(jnp.sum(lib.nn.log_softmax(logits(params, x)) * y, axis=-1))

    def step(params, velocity, x, y):
        value, grads = lib.value_and_grad(loss)(params, x, y)
        velocity = lib.tree_util.tree_map(lambda v, g: MOMENTUM * v + g, velocity, grads)
        params = lib.tree_util.tree_map(lambda p, v: p - LR * v, params, velocity)
        return params, velocity, value
    return lib.jit(step)


class Trainer:
    """A model's state on one library, and one or many steps of training."""

    def __init__(self, lib, model: str, data):
        self.lib = lib
        self.step = make_step(lib, model)
        self.params = lib.device_put(init_params(model))
        self.velocity = lib.tree_util.tree_map(lib.numpy.zeros_like, self.params)
        self.batches = [lib.device_put(b) for b in data]
        self.i = 0
        self.loss = None

    def steps(self, n: int, block_each: bool = False):
        for _ in range(n):
            x, y = self.batches[self.i % len(self.batches)]
            self.i += 1
            self.params, self.velocity, self.loss = self.step(self.params, self.velocity, x, y)
            if block_each:
                self.loss.block_until_ready()
        self.loss.block_until_ready()


# =============================================================================
# 1. Steady state, minijax and JAX in turns
# =============================================================================
def interleaved_block_means(fns: dict, *, rounds: int = 7, block_seconds: float = 0.3,
                            settle_seconds: float = 0.25) -> dict:
    """Seconds per call of each of ``fns``, timed in turns: the median over ``rounds`` of
    each block's *mean* (its total time over its calls).

    Unlike ``harness.interleaved_medians`` (the median of single calls), a stall
    inside a block counts: with a busy neighbour most steps can be quick while a
    few take tens of milliseconds, and a median of single calls would hide them;
    a training loop pays the total.
    """
    for fn in fns.values():
        fn()
    means: dict = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            settle = time.perf_counter()
            while time.perf_counter() - settle < settle_seconds:
                fn()  # the hand-over from the other contender, not counted
            calls, start = 0, time.perf_counter()
            while True:
                fn()
                calls += 1
                elapsed = time.perf_counter() - start
                if elapsed >= block_seconds:
                    break
            means[name].append(elapsed / calls)
    return {name: statistics.median(m) for name, m in means.items()}


def steady_state(jax) -> dict:
    """Seconds per step: {(model, mode): {"minijax": s, "jax": s}}."""
    import minijax
    x, y = digits()
    data = batches(x, y, EPOCH_STEPS - 1)  # the 17 full batches
    results = {}
    for model in ("mlp", "cnn"):
        libs = {"minijax": minijax} if jax is None else {"minijax": minijax, "jax": jax}
        trainers = {name: Trainer(lib, model, data) for name, lib in libs.items()}
        for mode, n, block_each in (("async", ASYNC_STEPS, False), ("sync", 1, True)):
            fns = {name: (lambda t=t: t.steps(n, block_each)) for name, t in trainers.items()}
            times = interleaved_block_means(fns)
            results[(model, mode)] = {name: s / n for name, s in times.items()}
    return results


# =============================================================================
# 2-3. The first epoch and the peak memory, in fresh processes
# =============================================================================
CHILD = r"""
import json, sys, time
sys.path.insert(0, {here!r})
import bench_w6_train_digits as w6
t0 = time.perf_counter()
if {lib!r} == "jax":
    import jax as lib
    lib.config.update("jax_platforms", "cpu")
else:
    import minijax as lib
t_import = time.perf_counter() - t0
x, y = w6.digits()
data = w6.batches(x, y, w6.EPOCH_STEPS)
t0 = time.perf_counter()
trainer = w6.Trainer(lib, {model!r}, data)
trainer.steps(w6.EPOCH_STEPS)
t_epoch = time.perf_counter() - t0
print(json.dumps(dict(import_s=t_import, epoch_s=t_epoch, loss=float(trainer.loss),
                      maxrss_mb=w6.peak_rss_mb())))
"""


def peak_rss_mb() -> float:
    """This process's peak resident memory, in MiB.

    Linux's ``VmHWM`` (the high-water mark of this program's memory) where it
    exists: ``getrusage``'s ``ru_maxrss`` survives ``exec``, so a child started by
    a big parent (``subprocess`` forks, then execs) reports the parent's peak.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_epoch(lib: str, model: str, env: dict) -> dict:
    code = CHILD.format(here=HERE, lib=lib, model=model)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_epochs(have_jax: bool) -> dict:
    results = {}
    for model in ("mlp", "cnn"):
        with tempfile.TemporaryDirectory() as cache:
            env = {"MINIJAX_CACHE_DIR": cache}
            cold = first_epoch("minijax", model, env)
            warm = first_epoch("minijax", model, env)
        jax = first_epoch("jax", model, {}) if have_jax else None
        results[model] = {"minijax cold": cold, "minijax warm": warm, "jax": jax}
    return results


# =============================================================================
# 4. Where a minijax step's time goes: each step of its kernel plan, timed
# =============================================================================
def _cycle_counter():
    """A Numba function returning the processor's cycle counter (LLVM's
    ``readcyclecounter``: ``rdtsc`` on x86), and the intrinsic itself."""
    from llvmlite import ir
    from numba import njit
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def cycles(typingctx):
        def codegen(context, builder, sig, args):
            fn = builder.module.declare_intrinsic(
                "llvm.readcyclecounter", (), ir.FunctionType(ir.IntType(64), ()))
            return builder.call(fn, ())
        return types.int64(), codegen
    return njit(lambda: cycles()), cycles


def _timed_source(source: str, entry: str) -> tuple[str, list[str]]:
    """The kernel module ``source`` with a cycle-counter reading before each
    top-level step of ``entry`` (the writer heads each with a comment) and
    the readings returned first; the steps' headings."""
    lines, out, labels = source.splitlines(), [], []
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {entry}("))
    for i, line in enumerate(lines):
        step = i > start and (line.startswith("    # ") or line.startswith("    return ("))
        if step and not line.startswith("    # (") and not line.startswith("     "):
            out.append(f"    _cycles[{len(labels)}] = _read_cycles()")
            labels.append(line.strip())
        out.append(line.replace("    return (", "    return (_cycles, ", 1)
                   if line.startswith("    return (") and i > start else line)
        if i == start:
            out.append("    _cycles = np.zeros(1000, np.int64)")
    return "\n".join(out).replace("cache=True", "cache=False"), labels


def profile_steps(model: str, top: int = 12, runs: int = 200) -> list:
    """Time each step of the kernel of minijax's ``model`` step, on one thread
    (one BLAS thread, one Numba thread): the kernel's source with a cycle-
    counter reading between its steps, the minimum of each step over
    ``runs`` calls. Returns ``[(microseconds, heading)]``, slowest first."""
    import importlib.util
    import minijax
    import numba
    from minijax.backends.cpu import blas_threads
    x, y = digits()
    trainer = Trainer(minijax, model, batches(x, y, 1))
    args = (trainer.params, trainer.velocity, *trainer.batches[0])
    executable = trainer.step.lower(*args).compile()._executable
    source, labels = _timed_source(executable.lowering.source, executable.lowering.fn_name)
    from minijax.backends.cpu import compile as numba_compile
    library = numba_compile._HELPER_LIBRARY.get("name")   # kernels compiled by our LLVM
    if library:                                           # stage never imported it
        numba_compile._import_source(numba_compile._HELPER_LIBRARY["source"], library)
    counter, cycles = _cycle_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "timed_kernel.py")
        with open(path, "w") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location("timed_kernel", path)
        module = importlib.util.module_from_spec(spec)
        module._read_cycles = cycles
        spec.loader.exec_module(module)
        kernel = getattr(module, executable.lowering.fn_name)
    flat = [np.asarray(a) for a in minijax.tree_util.tree_leaves(args)]
    numba.set_num_threads(1)
    blas_threads.set_threads(1)
    readings = np.array([np.diff(kernel(*executable._consts, *flat)[0][:len(labels)])
                         for _ in range(runs)])
    c0, t0 = counter(), time.perf_counter()
    time.sleep(0.2)
    per_us = (counter() - c0) / (time.perf_counter() - t0) / 1e6
    us = readings.min(axis=0) / per_us
    print(f"\n{model}: the kernel's steps on one thread, minimum of {runs} calls, "
          f"{us.sum():.0f} us in all; the {top} slowest:")
    ranked = sorted(zip(us, labels), key=lambda p: -p[0])
    for t, label in ranked[:top]:
        print(f"  {t:7.1f} us  {label[:100]}")
    return ranked


# =============================================================================
# Printing
# =============================================================================
def print_steady(all_runs: list) -> None:
    print(f"\nsteady state, us per step, block means (async: {ASYNC_STEPS} steps then a block; "
          "sync: a block after each step)")
    have_jax = "jax" in all_runs[0][("mlp", "async")]
    print(f"  {'model':5s} {'mode':6s} {'minijax':>18s} {'jax':>18s} {'minijax/jax':>14s}")
    for key in all_runs[0]:
        mj = [r[key]["minijax"] * 1e6 for r in all_runs]
        cell = (lambda v: f"{min(v):8.0f}" if len(v) == 1 else f"{min(v):7.0f}-{max(v):<7.0f}")
        line = f"  {key[0]:5s} {key[1]:6s} {cell(mj):>18s}"
        if have_jax:
            jx = [r[key]["jax"] * 1e6 for r in all_runs]
            ratio = [a / b for a, b in zip(mj, jx)]
            rtxt = (f"{ratio[0]:.2f}" if len(ratio) == 1
                    else f"{min(ratio):.2f}-{max(ratio):.2f}")
            line += f" {cell(jx):>18s} {rtxt:>14s}"
        print(line)


def print_first_epochs(results: dict) -> None:
    print(f"\nfirst epoch ({EPOCH_STEPS} steps, compile included), fresh processes: "
          "seconds, and peak RSS")
    print(f"  {'model':5s} {'who':13s} {'import s':>9s} {'epoch s':>9s} {'peak RSS MB':>12s} "
          f"{'loss':>7s}")
    for model, by in results.items():
        for who, r in by.items():
            if r is not None:
                print(f"  {model:5s} {who:13s} {r['import_s']:9.2f} {r['epoch_s']:9.2f} "
                      f"{r['maxrss_mb']:12.0f} {r['loss']:7.3f}")
        if by["jax"] is not None:
            cold, warm, jx = by["minijax cold"], by["minijax warm"], by["jax"]
            print(f"  {model:5s} minijax/jax: epoch cold {cold['epoch_s'] / jx['epoch_s']:.2f}, "
                  f"warm {warm['epoch_s'] / jx['epoch_s']:.2f}; peak RSS cold "
                  f"{cold['maxrss_mb'] / jx['maxrss_mb']:.2f}, warm "
                  f"{warm['maxrss_mb'] / jx['maxrss_mb']:.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true",
                        help="run a NumPy matrix loop in another process meanwhile")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the steady-state part this many times")
    parser.add_argument("--no-first-epoch", action="store_true",
                        help="skip the fresh-process first epochs")
    parser.add_argument("--no-steady", action="store_true",
                        help="skip the steady-state steps")
    parser.add_argument("--profile-steps", action="store_true",
                        help="only time each step of minijax's kernels (one thread)")
    args = parser.parse_args(argv)
    if args.profile_steps:
        return [profile_steps(model) for model in ("mlp", "cnn")]
    neighbour = subprocess.Popen([sys.executable, "-c", BUSY]) if args.busy else None
    try:
        jax = import_jax()
        print(f"\nworkload 6: training on the digits, batch {BATCH}"
              f"{' (beside a busy neighbour)' if args.busy else ''}")
        runs = [] if args.no_steady else [steady_state(jax) for _ in range(args.repeat)]
        if runs:
            print_steady(runs)
        epochs = None
        if not args.no_first_epoch:
            epochs = first_epochs(jax is not None)
            print_first_epochs(epochs)
        return runs, epochs
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()


if __name__ == "__main__":
    main()
