"""``minijax.scipy.optimize``: ``minimize`` (BFGS) and its line search (chapter 08:
both are ``while_loop``s)."""
from minijax.scipy.optimize.minimize import OptimizeResults, minimize  # noqa: F401
