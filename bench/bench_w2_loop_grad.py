"""Workload 2: ``jit(grad(f))`` of the learner's 10-step loop on 1e6 float32 (issue 7).

``y = sin(y) + 0.1 * cos(y * y) - tanh(y)`` ten times (a Python loop, so the
jaxpr is unrolled), then ``sum(y)``. The gradient's jaxpr is long; fused, it
is a couple of passes over memory with many transcendentals per element.
NumPy column: the same forward and backward pass written by hand.
"""
import numpy as np

from harness import compare, library_of


def make(jnp, grad):
    def f(x):
        y = x
        for _ in range(10):
            y = jnp.sin(y) + 0.1 * jnp.cos(y * y) - jnp.tanh(y)
        return jnp.sum(y)
    return grad(f)


def grad_numpy(x):
    ys = [x]
    y = x
    for _ in range(10):
        y = np.sin(y) + np.float32(0.1) * np.cos(y * y) - np.tanh(y)
        ys.append(y)
    g = np.ones_like(x)
    for y in reversed(ys[:-1]):
        t = np.tanh(y)
        g = g * (np.cos(y) - np.float32(0.2) * y * np.sin(y * y) - (1 - t * t))
    return g


def program(jnp):
    return make(jnp, library_of(jnp).grad)


def main():
    x = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
    return compare("workload 2: jit(grad(10-step loop)), 1e6 float32", program, (x,),
                   grad_numpy)


if __name__ == "__main__":
    main()
