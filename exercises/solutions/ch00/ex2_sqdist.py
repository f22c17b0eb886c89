"""Exercise 2 of chapter 00, a solution: the binary primitive ``sqdist``."""
from minijax.abstract_arrays import ShapedArray
from minijax.lax.base import INEXACT, broadcast_shapes_or_error, check_family, check_same_dtypes
from minijax.numpy.util import promote_args_inexact
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

sqdist_p = Primitive("sqdist", kind="elementwise")


def _sqdist_impl(x, y):
    d = x - y
    return d * d


def _sqdist_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    check_family("sqdist", x, INEXACT, 0)
    check_family("sqdist", y, INEXACT, 1)
    check_same_dtypes("sqdist", x, y)
    shape = broadcast_shapes_or_error("sqdist", x.shape, y.shape)
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


impl_rules[sqdist_p] = _sqdist_impl
abstract_eval_rules[sqdist_p] = _sqdist_abstract_eval


def sqdist(x, y):
    """``(x - y) ** 2``, elementwise, with JAX's promotion and broadcasting."""
    return sqdist_p.bind(*promote_args_inexact("sqdist", x, y))
