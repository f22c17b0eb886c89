"""``minijax.lax``: primitive operations with JAX's names and signatures (chapter 00).

Each submodule defines a family of primitives together with their wrappers
(``add_p`` and ``add`` side by side); this file only gathers the wrappers.
"""
from minijax.lax.elementwise import *  # noqa: F401,F403
from minijax.lax.elementwise import _array_copy, _convert_element_type  # noqa: F401
from minijax.lax.shapes import *  # noqa: F401,F403
from minijax.lax.reductions import *  # noqa: F401,F403
from minijax.lax.dot import *  # noqa: F401,F403
from minijax.lax.sorting import *  # noqa: F401,F403
from minijax.lax.slicing import *  # noqa: F401,F403
from minijax.lax.convolution import *  # noqa: F401,F403
from minijax.lax.windowed import *  # noqa: F401,F403
from minijax.lax.compiler_hints import *  # noqa: F401,F403
from minijax.lax import linalg  # noqa: F401  (a submodule: ``lax.linalg.cholesky``)
from minijax.lax.fft import FftType, fft, fft_p  # noqa: F401  (``lax.fft`` is the function)


def _export_primitives():
    """Export every ``*_p`` primitive object (``lax.sin_p``), as ``jax.lax`` does."""
    import importlib
    from minijax.primitives import Primitive
    # (by module path: the wrappers ``lax.dot`` and ``lax.slice`` shadow their modules)
    for name in ("elementwise", "shapes", "reductions", "dot", "sorting", "slicing",
                 "convolution", "windowed", "compiler_hints"):
        module = importlib.import_module(f"minijax.lax.{name}")
        for attr, value in vars(module).items():
            if attr.endswith("_p") and isinstance(value, Primitive):
                globals()[attr] = value


_export_primitives()
