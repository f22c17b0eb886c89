"""The data: scikit-learn's handwritten digits, and a loader of shuffled batches.

``sklearn.datasets.load_digits`` ships with scikit-learn (nothing to
download): 1,797 images of 8x8 pixels, each pixel an integer 0..16, labels
0..9. We keep a fixed, stratified split (1,437 images to train on, 360 to
test on) and *standardize* every pixel with the training set's mean and
spread, as float32: a network learns faster from inputs centred on zero
with similar scales (here it is worth a point of test accuracy after five
epochs). Pixels at the border are almost always blank, so their spread is
near zero: a floor of 0.1 keeps their rare ink from becoming huge inputs.

The loader is where asynchronous dispatch pays. A training loop reads::

    for x, y in loader.epoch(e):
        opt_state, loss = update(step, opt_state, (x, y))   # returns at once

``update`` only *dispatches* the step: the device (a worker thread on the
CPU) computes it while Python carries on into ``loader.epoch``'s generator,
which shuffles, gathers and puts on the device (``device_put``) the *next*
batch. Host preparation and device compute overlap, with no thread of our
own: the asynchrony of dispatch is enough. Nothing in the loop reads a value, so
nothing blocks.
"""
from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["EXAMPLES_EXTRA_HINT", "MissingExtra", "Digits", "load_digits_split",
           "BatchLoader"]

#: What to run when a package of the examples extra is missing.
EXAMPLES_EXTRA_HINT = 'pip install -e ".[examples]"'

NUM_CLASSES = 10


class MissingExtra(ImportError):
    """A package of the ``examples`` extra is not installed (the message says how to fix it)."""


def require(module: str, package: str, why: str):
    """Import ``module`` or raise :class:`MissingExtra` naming the extra to install."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtra(f"{why} needs {package}, which is not installed. Install the "
                           f"examples extra from the project's root: {EXAMPLES_EXTRA_HINT}"
                           ) from e


class Digits:
    """The split data set, as NumPy arrays on the host (images standardized float32)."""

    def __init__(self, x_train, y_train, x_test, y_test):
        self.x_train, self.y_train, self.x_test, self.y_test = x_train, y_train, x_test, y_test

    def as_images(self) -> "Digits":
        """The same data as NHWC images (N, 8, 8, 1), for a convolutional network."""
        return Digits(self.x_train.reshape(-1, 8, 8, 1), self.y_train,
                      self.x_test.reshape(-1, 8, 8, 1), self.y_test)

    def __repr__(self):
        return (f"Digits(train={self.x_train.shape}, test={self.x_test.shape}, "
                f"dtype={self.x_train.dtype})")


def load_digits_split(test_size: int = 360, seed: int = 0) -> Digits:
    """The digits, split into train and test sets with the same class balance."""
    datasets = require("sklearn.datasets", "scikit-learn", "The digits data set")
    model_selection = require("sklearn.model_selection", "scikit-learn", "The digits data set")
    images, labels = datasets.load_digits(return_X_y=True)
    images = images / 16.0
    labels = labels.astype(np.int32)
    x_train, x_test, y_train, y_test = model_selection.train_test_split(
        images, labels, test_size=test_size, random_state=seed, stratify=labels)
    mean, spread = x_train.mean(axis=0), x_train.std(axis=0) + 0.1   # the training set's only
    return Digits(((x_train - mean) / spread).astype(np.float32), y_train,
                  ((x_test - mean) / spread).astype(np.float32), y_test)


class BatchLoader:
    """Shuffled mini-batches of ``(images, labels)``, put on the device one by one.

    Every batch has ``batch_size`` rows (the last, incomplete batch of an epoch
    is dropped), so a jitted step sees one shape and compiles once. The order
    of epoch ``e`` depends only on ``(seed, e)``: a run is repeatable.

    ``device_put`` is the backend's (``jax.device_put``): with asynchronous
    dispatch it returns at once. ``annotate`` is an optional context manager
    factory (``profiler.TraceAnnotation``) that marks the host's preparation
    of each batch on a profiler timeline; ``prepare`` an optional extra host
    step applied to each batch's images (reading files, augmenting...).
    """

    def __init__(self, images, labels, batch_size: int, device_put, seed: int = 0,
                 annotate=None, prepare=None):
        if batch_size > len(images):
            raise ValueError(f"batch_size {batch_size} is larger than the data ({len(images)})")
        self.images, self.labels = images, labels
        self.batch_size = batch_size
        self.device_put = device_put
        self.seed = seed
        self.annotate = annotate or (lambda name: contextlib.nullcontext())
        self.prepare = prepare

    def __len__(self) -> int:
        """Steps per epoch."""
        return len(self.images) // self.batch_size

    def epoch(self, epoch: int):
        """Yield the batches of epoch ``epoch`` (a generator: each is made when asked for)."""
        order = np.random.default_rng([self.seed, epoch]).permutation(len(self.images))
        for step in range(len(self)):
            with self.annotate("prepare batch"):
                rows = order[step * self.batch_size:(step + 1) * self.batch_size]
                x, y = self.images[rows], self.labels[rows]
                if self.prepare is not None:
                    x = self.prepare(x)
                batch = self.device_put(x), self.device_put(y)
            yield batch
