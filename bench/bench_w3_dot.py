"""Workload 3: ``dot(x, x) + 3.`` for a 1000x1000 float32 (issue 7).

A BLAS matrix product (Numba calls SciPy's BLAS), then one fused pass.
"""
import numpy as np

from harness import compare


def program(jnp):
    def f(x):
        return jnp.dot(x, x) + 3.0
    return f


def main():
    x = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    return compare("workload 3: dot(x, x) + 3, 1000x1000 float32", program, (x,),
                   lambda x: x @ x + np.float32(3.0))


if __name__ == "__main__":
    main()
