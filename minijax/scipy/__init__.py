"""``minijax.scipy``: the parts of ``jax.scipy`` minijax provides.

The submodules below are imported here so that ``jax.scipy.signal`` (say)
works as an attribute after ``import minijax as jax``, as in JAX.
"""
from minijax.scipy import cluster, fft, integrate, ndimage, signal, spatial  # noqa: F401
