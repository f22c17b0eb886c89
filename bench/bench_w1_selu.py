"""Workload 1: selu over 1e6 float32, jitted (issue 7).

``lambda_ * where(x > 0, x, alpha * exp(x) - alpha)``: one elementwise chain.
NumPy makes five temporaries; the fused kernel reads ``x`` once and writes
the result once, so its floor is memory bandwidth (about 0.6 ms here).
"""
import numpy as np

from harness import compare

ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def selu(jnp):
    def f(x):
        return SCALE * jnp.where(x > 0, x, ALPHA * jnp.exp(x) - ALPHA)
    return f


def main():
    x = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    return compare("workload 1: selu, 1e6 float32, jit", selu, (x,), selu(np))


if __name__ == "__main__":
    main()
