"""Chapter 11 benchmark: what asynchronous dispatch buys, and what it costs.

1. The JAX documentation's experiment: the time for ``jnp.dot(x, x)`` (a
   1000x1000 float32 matmul) to *return*, against the time until its result
   is ready (``block_until_ready``). The first is only the dispatch.
2. The training loop of the PJRT vignette: each of 20 steps prepares a
   batch on the host (a 20 ms sleep, or real NumPy work with ``--prep numpy``)
   and runs a compiled step (two matmuls). "sync" blocks after every step;
   "async" lets the device run ahead and blocks once at the end. Reported:
   both times, the speed-up, and the fraction of the run the device was idle
   (from minijax's profiler).
3. The cost of one tiny jitted call: blocking on each call, and a chain of
   1,000 dependent calls blocked once at the end.

Real JAX is measured too when it can be imported, or from another
interpreter with ``--jax-python /path/to/python`` (this file runs there with
``--only jax``; it needs only NumPy and JAX). Run: ``python bench/async_dispatch.py``.
"""
import argparse
import json
import statistics
import subprocess
import time

import numpy as np


def _load(lib: str):
    if lib == "jax":
        import jax
        import jax.numpy as jnp
        return jax, jnp
    import minijax
    import minijax.numpy as jnp
    import minijax.runtime  # noqa: F401  (the asynchronous executor, chapter 11)
    return minijax, jnp


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


# --- 1. the microbenchmark pitfall -------------------------------------------------------
def dot_return_vs_ready(lib: str, repeat: int = 10) -> dict:
    jax, jnp = _load(lib)
    x = jax.device_put(np.random.default_rng(0).uniform(size=(1000, 1000)).astype(np.float32))
    jnp.dot(x, x).block_until_ready()  # warm up
    returned, ready = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        y = jnp.dot(x, x)
        t1 = time.perf_counter()
        y.block_until_ready()
        t2 = time.perf_counter()
        returned.append(t1 - t0)
        ready.append(t2 - t0)
    return {"return_ms": statistics.median(returned) * 1e3,
            "ready_ms": statistics.median(ready) * 1e3}


# --- 2. sync vs async training loop ------------------------------------------------------
def training_loop(lib: str, prep: str = "sleep", steps: int = 20) -> dict:
    jax, jnp = _load(lib)
    rng = np.random.default_rng(0)
    w0 = jax.device_put((rng.standard_normal((1024, 1024)) * 0.03).astype(np.float32))

    @jax.jit
    def step(w, xb):
        h = jnp.tanh(xb @ w)
        return w - 1e-3 * (xb.T @ h) / xb.shape[0]

    def prepare(i):
        if prep == "sleep":
            time.sleep(0.02)
            return np.full((512, 1024), 0.01 * i, np.float32)
        return np.random.default_rng(i).standard_normal((512, 1024), dtype=np.float32)

    def run(block_every_step: bool):
        w = w0
        for i in range(steps):
            xb = jax.device_put(prepare(i))
            w = step(w, xb)
            if block_every_step:
                w.block_until_ready()
        return w.block_until_ready()

    run(True)  # compile, warm up
    out = {}
    for mode, block in (("sync", True), ("async", False)):
        t0 = time.perf_counter()
        if lib == "minijax":
            from minijax import profiler
            with profiler.trace(f"/tmp/minijax_bench_{mode}.json"):
                run(block)
            out[f"{mode}_device_idle"] = 1 - profiler.busy_fraction(
                profiler.last_trace(), "cpu:0")
        else:
            run(block)
        out[f"{mode}_s"] = time.perf_counter() - t0
    out["speedup"] = out["sync_s"] / out["async_s"]
    return out


# --- 3. the cost of a tiny dispatch ------------------------------------------------------
def tiny_dispatch(lib: str, n: int = 1000) -> dict:
    jax, jnp = _load(lib)
    f = jax.jit(lambda a: a * 2.0 - 1.0)
    x = jax.device_put(np.arange(8, dtype=np.float32))
    f(x).block_until_ready()

    def blocking():
        for _ in range(n):
            f(x).block_until_ready()

    def chained():
        y = x
        for _ in range(n):
            y = f(y)
        y.block_until_ready()

    def chained_return_only():
        y = x
        t0 = time.perf_counter()
        for _ in range(n):
            y = f(y)
        t = time.perf_counter() - t0
        y.block_until_ready()
        return t

    return {"blocking_us": _median_time(blocking, 5) / n * 1e6,
            "chained_us": _median_time(chained, 5) / n * 1e6,
            "chain_dispatch_us": statistics.median(chained_return_only()
                                                   for _ in range(5)) / n * 1e6}


def measure(lib: str, prep: str) -> dict:
    return {"dot": dot_return_vs_ready(lib), "loop": training_loop(lib, prep),
            "tiny": tiny_dispatch(lib)}


def _jax_results(args) -> dict | None:
    if args.jax_python:
        out = subprocess.run([args.jax_python, __file__, "--only", "jax", "--prep", args.prep],
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    try:
        import jax  # noqa: F401
    except ImportError:
        return None
    return measure("jax", args.prep)


def report(mj: dict, jx: dict | None) -> None:
    def row(name, key, sub, fmt):
        other = fmt.format(jx[key][sub]) if jx else "—"
        print(f"| {name} | {fmt.format(mj[key][sub])} | {other} |")
    print("| measurement | minijax | jax |\n|---|---:|---:|")
    row("`jnp.dot(x, x)` 1000², time to return", "dot", "return_ms", "{:.3f} ms")
    row("`jnp.dot(x, x)` 1000², time until ready", "dot", "ready_ms", "{:.2f} ms")
    row("training loop, block every step (20 steps)", "loop", "sync_s", "{:.3f} s")
    row("training loop, run ahead (20 steps)", "loop", "async_s", "{:.3f} s")
    row("training loop speed-up", "loop", "speedup", "{:.2f}x")
    print(f"| device idle, sync / async | {mj['loop']['sync_device_idle']:.0%} / "
          f"{mj['loop']['async_device_idle']:.0%} | — |")
    row("tiny jitted call, blocking each", "tiny", "blocking_us", "{:.1f} us")
    row("tiny jitted call, chain of 1,000 (per call)", "tiny", "chained_us", "{:.1f} us")
    row("tiny jitted call, chain: dispatch only (per call)", "tiny", "chain_dispatch_us",
        "{:.1f} us")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prep", choices=["sleep", "numpy"], default="sleep")
    parser.add_argument("--only", choices=["minijax", "jax"])
    parser.add_argument("--jax-python", help="an interpreter where `import jax` works")
    args = parser.parse_args()
    if args.only:
        print(json.dumps(measure(args.only, args.prep)))
        return
    report(measure("minijax", args.prep), _jax_results(args))


if __name__ == "__main__":
    main()
