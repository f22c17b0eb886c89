"""Workload 5: first-call latency of workloads 1, 2 and 4 in a fresh process (issue 7).

The first call of a jitted function traces, lowers, compiles and runs. Each
measurement runs in a new Python process (imports are not counted):

- minijax, cold: an empty compile-cache directory, so everything is
  compiled: the kernel (by minijax's own translation to LLVM IR, or by Numba
  for what it does not cover) and the shared helpers it calls (Numba
  compiles each once per machine: ``llvm_helpers``);
- minijax, library: an empty cache but for the helper library, built
  beforehand by another process (``llvm_helpers.prebuild()``): what a
  machine's every later program pays for a kernel it has never compiled;
- minijax, warm: a second process on the same directory, so the kernel's
  machine code is loaded from disk;
- JAX, cold: a fresh process (JAX's persistent cache is off by default).

Targets (issue 21): cold at most 3x JAX's cold; with the library built at
most 1.0x.

The import is timed too, and shown beside: ``import minijax`` starts Numba
(its typing and lowering registries, 0.2-0.4 s), as ``import jax`` loads
XLA, so that cost sits in the import and not in the first call.
"""
import os
import subprocess
import sys
import tempfile

from harness import import_jax

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {"selu (w1)": "bench_w1_selu", "loop grad (w2)": "bench_w2_loop_grad",
             "MLP step (w4)": "bench_w4_mlp_step"}

CHILD = r"""
import importlib, sys, time
import numpy as np
sys.path.insert(0, {here!r})
lib = {lib!r}
mod = importlib.import_module({module!r})
if hasattr(mod, "inputs"):
    args = mod.inputs()
else:
    args = (np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32),)
t0 = time.perf_counter()
if lib == "jax":
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    t_import = time.perf_counter() - t0
    args = [jax.device_put(a) for a in args]
    jax.block_until_ready(args)
    program = getattr(mod, "program", None) or getattr(mod, "selu")
    t0 = time.perf_counter()
    jax.block_until_ready(jax.jit(program(jnp))(*args))
else:
    import minijax
    import minijax.numpy as jnp
    t_import = time.perf_counter() - t0
    args = [minijax.device_put(a) for a in args]
    program = getattr(mod, "program", None) or getattr(mod, "selu")
    t0 = time.perf_counter()
    minijax.block_until_ready(minijax.jit(program(jnp))(*args))
print(t_import, time.perf_counter() - t0)
"""


def first_call(lib: str, module: str, env: dict) -> tuple[float, float]:
    """(import time, first call time) in a fresh process."""
    code = CHILD.format(here=HERE, lib=lib, module=module)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=600)
    if out.returncode:
        raise RuntimeError(out.stderr)
    t_import, t_first = out.stdout.strip().splitlines()[-1].split()
    return float(t_import), float(t_first)


PREBUILD = ("import minijax.backends.cpu\n"
            "from minijax.backends.cpu import llvm_helpers\n"
            "llvm_helpers.prebuild()\n")


def build_library(env: dict) -> None:
    subprocess.run([sys.executable, "-c", PREBUILD], env={**os.environ, **env}, check=True,
                   capture_output=True, timeout=600)


def main():
    have_jax = import_jax() is not None
    results = {}
    print("\nworkload 5: first call in a fresh process (seconds)")
    print("  (cold bg: cold cache with minijax_background_compile on: the first call runs")
    print("   on the interpreter while a child process compiles)")
    print(f"  {'workload':16s}{'minijax cold':>14s}{'library':>9s}{'cold bg':>9s}"
          f"{'minijax warm':>14s}{'jax cold':>10s}{'cold/jax':>10s}{'lib/jax':>9s}"
          f"{'bg/jax':>8s}{'warm/jax':>10s}{'import mj/jax':>16s}")
    for title, module in WORKLOADS.items():
        with tempfile.TemporaryDirectory() as cache:
            env = {"MINIJAX_CACHE_DIR": cache}
            _, cold = first_call("minijax", module, env)
            mj_import, warm = first_call("minijax", module, env)
        with tempfile.TemporaryDirectory() as cache:
            env = {"MINIJAX_CACHE_DIR": cache}
            build_library(env)
            _, library = first_call("minijax", module, env)
        with tempfile.TemporaryDirectory() as cache:
            env = {"MINIJAX_CACHE_DIR": cache, "MINIJAX_BACKGROUND_COMPILE": "1"}
            _, cold_bg = first_call("minijax", module, env)
        jax_import, jax_cold = (first_call("jax", module, {}) if have_jax
                                else (float("nan"), float("nan")))
        results[title] = (cold, library, cold_bg, warm, jax_cold)
        print(f"  {title:16s}{cold:14.3f}{library:9.3f}{cold_bg:9.3f}{warm:14.3f}"
              f"{jax_cold:10.3f}{cold / jax_cold:10.2f}{library / jax_cold:9.2f}"
              f"{cold_bg / jax_cold:8.2f}{warm / jax_cold:10.2f}"
              f"{mj_import:9.2f}/{jax_import:.2f}")
    return results


if __name__ == "__main__":
    main()
