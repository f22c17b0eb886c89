"""Chapter 08, exercise 1 (a solution): ``fori_loop`` written with ``while_loop``."""
from minijax import lax


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, as a ``while`` loop."""
    def cond(carry):
        i, _ = carry
        return i < upper

    def body(carry):
        i, val = carry
        return i + 1, body_fun(i, val)

    return lax.while_loop(cond, body, (lower, init_val))[1]
