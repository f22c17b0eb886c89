"""The two models, written with ``stax`` (``jax.example_libraries.stax``).

A ``stax`` layer is a pair of functions: ``init_fun(rng, input_shape) ->
(output_shape, params)`` and ``apply_fun(params, inputs)``. ``stax.serial``
chains layers into one such pair; the parameters are a list with one entry
per layer (a ``(W, b)`` tuple, or ``()`` for a layer without parameters),
a pytree that ``grad`` differentiates and the optimizers update.

Both models end in ``LogSoftmax``: they return log-probabilities of the ten
digits.
"""
from __future__ import annotations

__all__ = ["MODELS", "make_model"]

MODELS = ("mlp", "cnn")


def mlp(stax, hidden=(256, 256)):
    """A multilayer perceptron on the 64 pixels: 64-256-256-10 by default."""
    layers = []
    for width in hidden:
        layers += [stax.Dense(width), stax.Relu]
    return stax.serial(*layers, stax.Dense(10), stax.LogSoftmax), (-1, 64)


def cnn(stax):
    """A small convolutional network on the 8x8x1 images (NHWC).

    Two 3x3 convolutions (16 channels, then 32 with stride 2: 8x8 -> 4x4),
    then a dense layer of 64 and the ten outputs.
    """
    model = stax.serial(
        stax.Conv(16, (3, 3), padding="SAME"), stax.Relu,
        stax.Conv(32, (3, 3), strides=(2, 2), padding="SAME"), stax.Relu,
        stax.Flatten,
        stax.Dense(64), stax.Relu,
        stax.Dense(10), stax.LogSoftmax)
    return model, (-1, 8, 8, 1)


def make_model(name: str, stax, **options):
    """``(init_fun, apply_fun), input_shape`` of the model called ``name``."""
    if name == "mlp":
        return mlp(stax, **options)
    if name == "cnn":
        return cnn(stax, **options)
    raise ValueError(f"unknown model {name!r}: choose one of {MODELS}")
