"""``minijax.lax``: primitive operations with JAX's names and signatures (chapter 00).

Each submodule defines a family of primitives together with their wrappers
(``add_p`` and ``add`` side by side); this file only gathers the wrappers.
"""
from minijax.lax.elementwise import *  # noqa: F401,F403
from minijax.lax.elementwise import _convert_element_type  # noqa: F401
from minijax.lax.shapes import *  # noqa: F401,F403
from minijax.lax.reductions import *  # noqa: F401,F403
from minijax.lax.dot import *  # noqa: F401,F403
from minijax.lax.sorting import *  # noqa: F401,F403
from minijax.lax.slicing import *  # noqa: F401,F403
