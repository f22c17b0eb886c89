"""``minijax.numpy``: the NumPy API on minijax arrays, as ``jax.numpy`` (chapter 00).

Each submodule holds one family of functions and lists its public names in
``__all__``; this file gathers them and installs the array methods.
"""
from minijax.numpy.scalar_types import *  # noqa: F401,F403
from minijax.numpy.creation import *  # noqa: F401,F403
from minijax.numpy.ufuncs import *  # noqa: F401,F403
from minijax.numpy.shapes import *  # noqa: F401,F403
from minijax.numpy.reductions import *  # noqa: F401,F403
from minijax.numpy.sorting import *  # noqa: F401,F403
from minijax.numpy.tensor_contractions import *  # noqa: F401,F403
from minijax.numpy.einsum_paths import *  # noqa: F401,F403
from minijax.numpy.indexing import *  # noqa: F401,F403
from minijax.numpy.set_ops import *  # noqa: F401,F403
from minijax.numpy.statistics import *  # noqa: F401,F403
from minijax.numpy.index_tricks import *  # noqa: F401,F403
from minijax.numpy.misc import *  # noqa: F401,F403
from minijax.numpy.special_elementwise import *  # noqa: F401,F403
from minijax.numpy.polynomial_fits import *  # noqa: F401,F403
from minijax.numpy.histograms_nd import *  # noqa: F401,F403
from minijax.numpy import linalg  # noqa: F401
from minijax.numpy import fft  # noqa: F401  (a submodule: ``jnp.fft.rfft``)

import numpy as _np

# Constants, as jax.numpy has them (plain Python floats, and None for newaxis)
e, pi, euler_gamma = _np.e, _np.pi, _np.euler_gamma
inf, nan = _np.inf, _np.nan
newaxis = None

from minijax.array import Array as ndarray  # noqa: F401  (jnp.ndarray is jax.Array)
from minijax.array import Array as _Array
from minijax.numpy.array_methods import install_array_methods as _install

_install(_Array)


# --- bfloat16 and the float8 types without ml_dtypes ---------------------------
def __getattr__(name):
    """``jnp.bfloat16`` without ``ml_dtypes`` installed: say what to install."""
    from minijax import narrow_floats
    if name in narrow_floats.NAMES:
        raise narrow_floats.missing_error(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
