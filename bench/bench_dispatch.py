"""Issue 21 benchmark: the Python dispatch path of jitted calls and eager ops.

What one call costs when the work itself is nearly nothing, so that what is
measured is the path from the Python call to the returned ``Array``:

1. ``f(x)`` with ``f = jit(lambda x: x + 1)`` on a float32[16] array, the
   result not waited for (the call returns a future-backed Array);
2. the same, each result blocked on (``.block_until_ready()``);
3. 1,000 chained calls ``x = f(x)``, blocked once at the end (per call);
4. an eager ``x + y`` on 16 float32 elements (per op), not blocked and blocked;
5. a ``lax.scan`` training step: an Elman RNN (8 inputs, 32 hidden units)
   over 300 time steps, ``jit`` of ``value_and_grad`` and the SGD update in
   one call, blocked on each step.

Each library runs in its own process (``--only LIB`` prints its figures as
JSON), several processes in turns, so that a neighbour's load falls on all of
them alike; each figure is the best of many rounds (a round times each of a
block of calls after a warm-up, and keeps their median; for the chain, its
fastest run), and the worst process's figure is printed beside it (the
spread). Real JAX is never a dependency: it is measured with the interpreter
given by ``--jax-python`` (or this one, when it can import ``jax``), and left
out otherwise. ``--neighbour`` runs a busy NumPy matrix loop in the background
while measuring, to see the figures on a loaded machine.

Run: ``python bench/bench_dispatch.py [--jax-python PATH] [--neighbour]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SEQ, N_IN, N_HID = 300, 8, 32

CASES = ["jit call", "jit call, blocked", "jit chain of 1000 (per call)", "eager x + y",
         "eager x + y, blocked", "scan RNN train step (300 steps)"]


def _load(lib: str):
    if lib == "jax":
        import jax
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy as jnp
        return jax, jnp
    if lib == "numpy":
        return None, np
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, here)  # this checkout's minijax
    import minijax
    import minijax.numpy as jnp
    return minijax, jnp


def _rnn_step(jax, jnp):
    """One jitted SGD step of an RNN whose loss runs ``lax.scan`` over the sequence."""
    def loss(params, xs, target):
        wx, wh, b, wo = params

        def cell(h, x):
            h = jnp.tanh(x @ wx + h @ wh + b)
            return h, h @ wo

        _, ys = jax.lax.scan(cell, jnp.zeros((N_HID,), jnp.float32), xs)
        return jnp.mean((ys[:, 0] - target) ** 2)

    @jax.jit
    def step(params, xs, target):
        value, grads = jax.value_and_grad(loss)(params, xs, target)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

    rng = np.random.default_rng(0)
    params = tuple(jax.device_put((rng.standard_normal(s) * 0.3).astype(np.float32))
                   for s in [(N_IN, N_HID), (N_HID, N_HID), (N_HID,), (N_HID, 1)])
    xs = jax.device_put(rng.standard_normal((SEQ, N_IN)).astype(np.float32))
    target = jax.device_put(np.sin(np.linspace(0, 6, SEQ)).astype(np.float32))
    state = {"params": params}

    def run():
        value, state["params"] = step(state["params"], xs, target)
        value.block_until_ready()
    return run


def cases(lib: str) -> dict:
    """name -> (fn, calls): ``fn()`` makes ``calls`` calls of the case."""
    jax, jnp = _load(lib)
    x = np.arange(16, dtype=np.float32)
    y = np.ones(16, dtype=np.float32)
    if lib == "numpy":
        def add_one(v):
            return v + 1
        return {"jit call": (lambda: add_one(x), 1), "eager x + y": (lambda: x + y, 1)}
    x, y = jax.device_put(x), jax.device_put(y)
    f = jax.jit(lambda v: v + 1)

    def chain():
        v = x
        for _ in range(1000):
            v = f(v)
        v.block_until_ready()
    return {
        "jit call": (lambda: f(x), 1),
        "jit call, blocked": (lambda: f(x).block_until_ready(), 1),
        "jit chain of 1000 (per call)": (chain, 1000),
        "eager x + y": (lambda: x + y, 1),
        "eager x + y, blocked": (lambda: (x + y).block_until_ready(), 1),
        "scan RNN train step (300 steps)": (_rnn_step(jax, jnp), 1),
    }


def best_per_call(fn, calls: int, rounds: int, round_seconds: float) -> float:
    """Seconds per call: the best round's median, after a warm-up (which compiles);
    for a chain of ``calls`` calls, its fastest run.

    Each ``fn()`` is timed alone, so a round's median ignores the calls that the
    operating system interrupted (on a loaded 2-core machine a few calls in a
    thousand stall for milliseconds, which would swamp a mean of 4 us calls);
    the best round is the one least disturbed. (The clock reads add about 0.1 us
    to every library's single calls alike.)
    """
    for _ in range(3):
        fn()
    clock = time.perf_counter
    best = float("inf")
    for _ in range(rounds):
        times = []
        end = clock() + round_seconds
        while True:
            t0 = clock()
            fn()
            t1 = clock()
            times.append(t1 - t0)
            if t1 >= end and len(times) >= 5:
                break
        best = min(best, statistics.median(times) if calls == 1 else min(times))
    return best / calls


def measure(lib: str, rounds: int, round_seconds: float) -> dict:
    return {name: best_per_call(fn, calls, rounds, round_seconds)
            for name, (fn, calls) in cases(lib).items()}


def _run_child(python: str, lib: str, rounds: int, round_seconds: float) -> dict:
    out = subprocess.run([python, os.path.abspath(__file__), "--only", lib,
                          "--rounds", str(rounds), "--round-seconds", str(round_seconds)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _jax_python(given: str | None) -> str | None:
    if given:
        return given
    try:
        import jax  # noqa: F401
    except ImportError:
        return None
    return sys.executable


def _fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f} us"


def _neighbour():
    """A busy NumPy matrix loop in the background (another program on the cores)."""
    code = ("import numpy as np\n"
            "while True: np.dot(np.ones((300, 300)), np.ones((300, 300)))")
    return subprocess.Popen([sys.executable, "-c", code])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["minijax", "jax", "numpy"])
    ap.add_argument("--jax-python", help="an interpreter with JAX installed")
    ap.add_argument("--processes", type=int, default=3, help="processes per library, in turns")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--round-seconds", type=float, default=0.05)
    ap.add_argument("--neighbour", action="store_true", help="measure beside a busy program")
    a = ap.parse_args()
    if a.only:
        print(json.dumps(measure(a.only, a.rounds, a.round_seconds)))
        return
    pythons = {"minijax": sys.executable, "numpy": sys.executable}
    jax_python = _jax_python(a.jax_python)
    if jax_python:
        pythons["jax"] = jax_python
    neighbour = _neighbour() if a.neighbour else None
    try:
        runs = {lib: [] for lib in pythons}
        for _ in range(a.processes):
            for lib, python in pythons.items():
                runs[lib].append(_run_child(python, lib, a.rounds, a.round_seconds))
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()

    def best(lib, case):
        got = [r[case] for r in runs.get(lib, ()) if case in r]
        return (min(got), max(got)) if got else (None, None)
    print(f"{a.processes} processes per library in turns, best of {a.rounds} rounds each"
          + (", beside a busy neighbour" if a.neighbour else ""))
    print(f"{'case':34}{'minijax':>11}{'(worst)':>11}{'jax':>11}{'(worst)':>11}"
          f"{'numpy':>11}{'mjx/jax':>9}{'mjx/np':>9}")
    for case in CASES:
        m, m_worst = best("minijax", case)
        j, j_worst = best("jax", case)
        n, _ = best("numpy", case)
        print(f"{case:34}{_fmt(m):>11}{_fmt(m_worst):>11}{_fmt(j):>11}{_fmt(j_worst):>11}"
              f"{_fmt(n):>11}" + (f"{m / j:9.2f}" if j else f"{'-':>9}")
              + (f"{m / n:9.1f}" if n else f"{'-':>9}"))


if __name__ == "__main__":
    main()
