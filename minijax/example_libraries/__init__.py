"""Chapter 14: ``jax.example_libraries``, the two small libraries JAX ships as examples.

``stax`` builds neural networks out of *layers*, each a pair of pure functions
``(init_fun, apply_fun)``; ``optimizers`` updates a pytree of parameters with
*optimizers*, each a triple ``(init_fun, update_fun, get_params)``. Neither
library has a class with hidden state or a primitive of its own: they are
written only with what the earlier chapters built (``jax.numpy``, ``lax``,
``random``, ``nn``, pytrees), which is why they run unchanged under ``jit``,
``grad`` and ``vmap``, and why they are the right place to see the whole
system working together.

JAX, like us, does not import these modules with ``import jax``: write
``from jax.example_libraries import stax, optimizers``. (``minijax`` does
import them, so that ``minijax.example_libraries.stax`` works after a plain
``import minijax``.)
"""
