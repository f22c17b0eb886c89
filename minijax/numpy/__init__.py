"""``minijax.numpy``: the NumPy API on minijax arrays, as ``jax.numpy`` (chapter 00)."""
from minijax.numpy.scalar_types import *  # noqa: F401,F403
from minijax.numpy.creation import *  # noqa: F401,F403
from minijax.numpy.ufuncs import *  # noqa: F401,F403

from minijax.array import Array as ndarray  # noqa: F401  (jnp.ndarray is jax.Array)
from minijax.array import Array as _Array
from minijax.numpy.array_methods import install_array_methods as _install

_install(_Array)
