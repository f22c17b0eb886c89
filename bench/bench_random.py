"""Chapter 13 benchmark: ``jit(lambda k: random.normal(k, (10**6,)))``.

minijax on the Numba backend (``backend="cpu"``, chapter 09) and on the
interpreter, beside NumPy's own generator (a different algorithm, for scale)
and real JAX. Each figure is the median of many runs after a warm-up (which
traces and compiles). Ratios are ``this / minijax (cpu)``: > 1 means slower
than minijax on Numba.

JAX is timed in this process when it is importable, else in the Python named
by the environment variable ``JAX_PYTHON`` (an environment with JAX), e.g.::

    JAX_PYTHON=/tmp/jaxenv/bin/python python bench/bench_random.py
"""
import importlib.util
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

N = 10**6
RUNS = 30


def _median_seconds(fn, runs=RUNS):
    fn()  # warm up: trace and compile
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_JAX_SNIPPET = f"""
import statistics, time, jax, jax.random as jr
f = jax.jit(lambda k: jr.normal(k, ({N},)))
key = jr.key(0)
f(key).block_until_ready()
times = []
for _ in range({RUNS}):
    t = time.perf_counter(); f(key).block_until_ready(); times.append(time.perf_counter() - t)
print(statistics.median(times))
"""


def _jax_seconds():
    """JAX's median, from this process or from ``$JAX_PYTHON``; None without JAX."""
    if importlib.util.find_spec("jax") is not None:
        python = sys.executable
    else:
        python = os.environ.get("JAX_PYTHON")
        if not python:
            return None
    result = subprocess.run([python, "-c", _JAX_SNIPPET], capture_output=True, text=True)
    return float(result.stdout.strip()) if result.returncode == 0 else None


def main():
    import minijax
    import minijax.random as mr
    warnings.simplefilter("ignore", DeprecationWarning)  # jit(backend=...) is deprecated in JAX
    key = mr.key(0)
    times = {}
    for backend in ("cpu", "interpreter"):
        f = minijax.jit(lambda k: mr.normal(k, (N,)), backend=backend)
        runs = RUNS if backend == "cpu" else 5
        times[f"minijax ({backend})"] = _median_seconds(lambda: f(key).block_until_ready(), runs)
    rng = np.random.default_rng(0)
    times["numpy (default_rng)"] = _median_seconds(lambda: rng.standard_normal(N, dtype=np.float32))
    jax_time = _jax_seconds()
    if jax_time is not None:
        times["jax"] = jax_time
    base = times["minijax (cpu)"]
    print(f"random.normal(key, ({N},)) float32, median of runs after warm-up")
    for name, t in times.items():
        print(f"{name:<22}{t * 1e3:9.2f} ms   this / minijax(cpu) = {t / base:6.2f}")
    if jax_time is None:
        print("(JAX not importable: set JAX_PYTHON to a Python that has it for the JAX row)")


if __name__ == "__main__":
    main()
