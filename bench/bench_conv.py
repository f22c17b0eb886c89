"""Convolutions (issue 19): 3x3 convolutions over a batch of small images,
minijax's CPU lowering (``backends/cpu/conv.py``) beside JAX (XLA's CPU
convolution) and NumPy (im2col by ``sliding_window_view``).

For each shape, four programs, each jitted:

- ``forward``: the convolution;
- ``grad input``: the gradient with respect to the input alone, ``vjp`` of the
  convolution applied to a cotangent (the forward is dead code, removed);
- ``grad kernel``: the same with respect to the kernel;
- ``value_and_grad``: of ``sum(tanh(conv(x, w)))`` with respect to both (three
  convolutions and the elementwise work).

The shapes are issue 19's (batch 128) and chapter 14's CNN on 8x8 digits
(batch 100: a 3x3 convolution 1 -> 16, a 2x2 pool, then 16 -> 32 on 4x4).

    PYTHONPATH=. python bench/bench_conv.py                # everything
    PYTHONPATH=. python bench/bench_conv.py 8x8x16 forward # blocks whose title has both words
"""
import sys

import numpy as np

from harness import compare, library_of

# (title, input NHWC, kernel HWIO)
SHAPES = [("batch 128, 28x28x1 -> 32", (128, 28, 28, 1), (3, 3, 1, 32)),
          ("batch 128, 14x14x32 -> 64", (128, 14, 14, 32), (3, 3, 32, 64)),
          ("batch 128, 8x8x16 -> 16", (128, 8, 8, 16), (3, 3, 16, 16)),
          ("CNN layer 1, batch 100, 8x8x1 -> 16", (100, 8, 8, 1), (3, 3, 1, 16)),
          ("CNN layer 2, batch 100, 4x4x16 -> 32", (100, 4, 4, 16), (3, 3, 16, 32))]


def conv(lax, x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def forward(jnp):
    lax = library_of(jnp).lax
    return lambda x, w, g: conv(lax, x, w)


def grad_input(jnp):
    lib = library_of(jnp)
    return lambda x, w, g: lib.vjp(lambda x: conv(lib.lax, x, w), x)[1](g)[0]


def grad_kernel(jnp):
    lib = library_of(jnp)
    return lambda x, w, g: lib.vjp(lambda w: conv(lib.lax, x, w), w)[1](g)[0]


def value_and_grad(jnp):
    lib = library_of(jnp)

    def loss(x, w):
        return jnp.sum(jnp.tanh(conv(lib.lax, x, w)))
    grad = lib.value_and_grad(loss, argnums=(0, 1))
    return lambda x, w, g: grad(x, w)


def forward_numpy(x, w, g):
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    return np.tensordot(windows, w, axes=([3, 4, 5], [2, 0, 1]))  # (N, H, W, C, 3, 3)


PROGRAMS = [("forward", forward, forward_numpy),
            ("grad input", grad_input, None),
            ("grad kernel", grad_kernel, None),
            ("value_and_grad (input and kernel)", value_and_grad, None)]


def main(words=()):
    rng = np.random.default_rng(0)
    for title, xs, ws in SHAPES:
        x = rng.standard_normal(xs).astype(np.float32)
        w = (rng.standard_normal(ws) / np.sqrt(9 * ws[2])).astype(np.float32)
        g = rng.standard_normal((*xs[:3], ws[3])).astype(np.float32)
        for what, program, numpy_fn in PROGRAMS:
            name = f"conv 3x3 SAME, {title}: {what}"
            if all(word in name for word in words):
                compare(name, program, (x, w, g), numpy_fn, interpreter=False)


if __name__ == "__main__":
    main(sys.argv[1:])
