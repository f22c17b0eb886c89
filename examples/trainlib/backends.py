"""minijax or JAX: the same training code runs on either.

minijax's promise is that ``import minijax as jax`` can replace ``import
jax``. The examples take the library as a value, a :class:`Backend`, instead
of importing one by name, so the very same functions run on both and their
results can be compared line by line (``train_digits.py --compare``).

Neither library is imported until it is asked for: the JAX path never
imports minijax, and minijax never needs JAX installed.
"""
from __future__ import annotations

import dataclasses
import types

__all__ = ["Backend", "BackendUnavailable", "load_backend", "BACKENDS"]

BACKENDS = ("minijax", "jax")


class BackendUnavailable(ImportError):
    """The library asked for is not installed (the message says what to install)."""


@dataclasses.dataclass(frozen=True)
class Backend:
    """One library's modules, under the names JAX gives them."""
    name: str                     # "minijax" or "jax"
    jax: types.ModuleType         # jit, value_and_grad, device_put, block_until_ready...
    jnp: types.ModuleType         # jax.numpy
    random: types.ModuleType      # jax.random
    stax: types.ModuleType        # jax.example_libraries.stax
    optimizers: types.ModuleType  # jax.example_libraries.optimizers

    @property
    def version(self) -> str:
        return getattr(self.jax, "__version__", "?")

    @property
    def io_callback(self):
        return self.jax.experimental.io_callback


def load_backend(name: str) -> Backend:
    """The :class:`Backend` called ``name`` ("minijax" or "jax")."""
    if name == "minijax":
        import minijax
        import minijax.experimental  # noqa: F401  (io_callback)
        import minijax.numpy
        import minijax.random
        from minijax.example_libraries import optimizers, stax
        return Backend("minijax", minijax, minijax.numpy, minijax.random, stax, optimizers)
    if name == "jax":
        try:
            import jax
        except ImportError as e:
            raise BackendUnavailable(
                "--backend jax needs JAX, which is not installed in this Python "
                "(pip install jax); minijax itself never needs it") from e
        import jax.experimental  # noqa: F401  (io_callback)
        import jax.numpy
        import jax.random
        from jax.example_libraries import optimizers, stax
        return Backend("jax", jax, jax.numpy, jax.random, stax, optimizers)
    raise ValueError(f"unknown backend {name!r}: choose one of {BACKENDS}")
