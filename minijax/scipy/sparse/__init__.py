"""``minijax.scipy.sparse``: iterative linear solvers (``sparse.linalg``)."""
from minijax.scipy.sparse import linalg  # noqa: F401
