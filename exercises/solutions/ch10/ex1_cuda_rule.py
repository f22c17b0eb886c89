"""Chapter 10, exercise 1 (a solution): the CUDA lowering rule of ``squareplus``."""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.backends.cpu.syntax import cast, literal
from minijax.backends.cuda.rules import register
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

squareplus_p = Primitive("squareplus", kind="elementwise")


def squareplus(x):
    """``(x + sqrt(x * x + 4)) / 2``, elementwise, for floating-point ``x``."""
    return squareplus_p.bind(x)


def _impl(x):
    x = np.asarray(x)
    t = x.dtype.type
    return np.asarray((x + np.sqrt(x * x + t(4))) / t(2))


def _abstract_eval(x):
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"squareplus takes floating-point numbers, got {x.dtype}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


impl_rules[squareplus_p] = _impl
abstract_eval_rules[squareplus_p] = _abstract_eval


def squareplus_cuda_rule(c, x):
    """The CUDA kernel-source expression of one element of ``squareplus(x)``."""
    dt = c.out_dtype
    root = cast(dt, f"math.sqrt({x} * {x} + {literal(4, dt)})")
    return f"({x} + {root}) / {literal(2, dt)}"


register(squareplus_p, squareplus_cuda_rule, "scalar")
