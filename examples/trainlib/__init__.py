"""The small library that chapter 14's training examples share.

One module per job, none of which imports minijax or JAX at import time, so
the same code trains under ``import minijax as jax`` and under ``import jax``:

- :mod:`trainlib.backends`: pick minijax or JAX (and their ``stax``/``optimizers``);
- :mod:`trainlib.data`: scikit-learn's handwritten digits, and a batch loader
  that prepares the next batch on the host while the device runs;
- :mod:`trainlib.models`: the MLP and the small CNN, written with ``stax``;
- :mod:`trainlib.training`: the jitted training step, accuracy, the epoch loop;
- :mod:`trainlib.checkpoint`: a pytree of arrays to an ``.npz`` file and back.
"""
