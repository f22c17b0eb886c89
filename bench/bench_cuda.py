"""Chapter 10: workloads 1-4 of chapter 09 on a GPU.

minijax's CUDA backend (its inputs put on the GPU, so ``jit`` compiles for
it) beside real JAX on the same GPU (when a CUDA build of JAX is installed)
and beside minijax's CPU backend. Needs a real GPU: the CUDA simulator runs
one Python thread per GPU thread, so its timings mean nothing, and this
script refuses to run on it. Times: medians after a warm-up (which compiles);
every call blocks on its result.

    PYTHONPATH=. python bench/bench_cuda.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from harness import interleaved_medians, median_time, minijax_jit, report  # noqa: E402


def workloads():
    import bench_w1_selu as w1
    import bench_w2_loop_grad as w2
    import bench_w3_dot as w3
    import bench_w4_mlp_step as w4
    x = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    m = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    return [("workload 1: selu, 1e6 float32", w1.selu, (x,)),
            ("workload 2: jit(grad(10-step loop)), 1e6 float32", w2.program, (x,)),
            ("workload 3: dot(x, x) + 3, 1000x1000 float32", w3.program, (m,)),
            ("workload 4: MLP 784-512-512-10 SGD step, batch 128", w4.program, w4.inputs())]


def cuda_jax():
    """Real JAX on a GPU, or None."""
    try:
        import jax
        return jax if jax.devices("gpu") else None
    except Exception:
        return None


def main():
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        print("bench_cuda: skipped: the CUDA simulator's timings mean nothing; run on a GPU")
        return
    import minijax
    import minijax.numpy as mjnp
    try:
        gpu = minijax.devices("gpu")[0]
    except RuntimeError as e:
        print(f"bench_cuda: skipped: no GPU ({e})")
        return
    print(f"GPU: {gpu.device_kind}")
    jax = cuda_jax()
    for title, program, np_args in workloads():
        on_gpu = [minijax.device_put(a, gpu) for a in np_args]
        fast = minijax_jit(program(mjnp))
        contenders = {"minijax cuda": lambda: minijax.block_until_ready(fast(*on_gpu))}
        if jax is not None:
            jf = jax.jit(program(jax.numpy))
            jargs = [jax.device_put(a, jax.devices("gpu")[0]) for a in np_args]
            contenders["jax gpu"] = lambda: jax.block_until_ready(jf(*jargs))
        times = interleaved_medians(contenders)
        cpu = minijax_jit(program(mjnp), backend="cpu")
        cpu_args = [minijax.device_put(a) for a in np_args]
        times["minijax cpu"] = median_time(lambda: minijax.block_until_ready(cpu(*cpu_args)))
        report(title, times, base="minijax cuda")


if __name__ == "__main__":
    main()
