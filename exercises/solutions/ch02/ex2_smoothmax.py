"""Exercise 2 of chapter 02, a solution: the JVP rule of ``smoothmax``."""
import numpy as np

from minijax import lax
from minijax.interpreters import ad
from minijax.lax.base import FLOAT, naryop
from minijax.numpy.util import promote_args_inexact

smoothmax_p = naryop("smoothmax", np.logaddexp, [FLOAT, FLOAT], transcendental=True)


def smoothmax(x, y):
    """``log(exp(x) + exp(y))``, elementwise, broadcasting as NumPy does."""
    return smoothmax_p.bind(*promote_args_inexact("smoothmax", x, y))


# each partial derivative gets the output ``ans``; defjvp2 skips Zero tangents,
# adds the terms and broadcasts each to the output's shape
ad.defjvp2(smoothmax_p,
           lambda t, ans, x, y: lax.mul(t, lax.exp(lax.sub(x, ans))),
           lambda t, ans, x, y: lax.mul(t, lax.exp(lax.sub(y, ans))))
