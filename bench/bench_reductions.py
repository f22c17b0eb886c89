"""Reductions and the row-wise patterns built on them, jitted, on 1000x1000 float32.

Sums, maxima and the softmax / logsumexp / row-norm patterns of ML code. A
reduction over the last axis accumulates in lanes that LLVM vectorizes, and a
big one runs chunks of rows in parallel (``backends/cpu/writer.KernelWriter._lanes_loop_nest``).
"""
import numpy as np

from harness import compare

X = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)


def _softmax_np(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _logsumexp_np(x):
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


CASES = {
    "sum over rows (axis=1)": (lambda jnp: lambda x: jnp.sum(x, axis=1), lambda x: x.sum(axis=1)),
    "sum over columns (axis=0)": (lambda jnp: lambda x: jnp.sum(x, axis=0),
                                  lambda x: x.sum(axis=0)),
    "max over rows": (lambda jnp: lambda x: jnp.max(x, axis=1), lambda x: x.max(axis=1)),
    "softmax over rows": (lambda jnp: lambda x: jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
                          / jnp.sum(jnp.exp(x - jnp.max(x, axis=1, keepdims=True)), axis=1,
                                    keepdims=True), _softmax_np),
    "logsumexp over rows": (lambda jnp: lambda x: jnp.max(x, axis=1) + jnp.log(jnp.sum(
        jnp.exp(x - jnp.max(x, axis=1, keepdims=True)), axis=1)), _logsumexp_np),
    "x / norm of its row": (lambda jnp: lambda x: x / jnp.sqrt(jnp.sum(x * x, axis=1,
                                                                       keepdims=True)),
                            lambda x: x / np.sqrt((x * x).sum(axis=1, keepdims=True))),
}


def main():
    results = {}
    for title, (program, numpy_fn) in CASES.items():
        results[title] = compare(f"{title}, 1000x1000 float32, jit", program, (X,), numpy_fn,
                                 interpreter=False)
    return results


if __name__ == "__main__":
    main()
