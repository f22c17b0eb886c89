"""Convolutions (issue 19): a 3x3 convolution over a batch of 128 small
images, forward alone and forward + backward (the gradient with respect to
the input and the kernel), minijax's im2col + sgemm lowering beside JAX
(XLA's CPU convolution) and NumPy (im2col by ``sliding_window_view``).

    PYTHONPATH=. python bench/bench_conv.py
"""
import numpy as np

from harness import compare, library_of

# (title, input NHWC, kernel HWIO)
SHAPES = [("28x28x1 -> 32", (128, 28, 28, 1), (3, 3, 1, 32)),
          ("14x14x32 -> 64", (128, 14, 14, 32), (3, 3, 32, 64)),
          ("8x8x16 -> 16", (128, 8, 8, 16), (3, 3, 16, 16))]


def conv(lax, x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def forward(jnp):
    lax = library_of(jnp).lax
    return lambda x, w: conv(lax, x, w)


def backward(jnp):
    lib = library_of(jnp)

    def loss(x, w):
        return jnp.sum(jnp.tanh(conv(lib.lax, x, w)))
    return lib.value_and_grad(loss, argnums=(0, 1))


def forward_numpy(x, w):
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    return np.tensordot(windows, w, axes=([3, 4, 5], [2, 0, 1]))  # (N, H, W, C, 3, 3)


def main():
    rng = np.random.default_rng(0)
    for title, xs, ws in SHAPES:
        x = rng.standard_normal(xs).astype(np.float32)
        w = (rng.standard_normal(ws) / np.sqrt(9 * ws[2])).astype(np.float32)
        compare(f"conv 3x3 SAME, batch 128, {title}: forward", forward, (x, w), forward_numpy,
                interpreter=False)
        compare(f"conv 3x3 SAME, batch 128, {title}: value_and_grad (input and kernel)",
                backward, (x, w), interpreter=False)


if __name__ == "__main__":
    main()
