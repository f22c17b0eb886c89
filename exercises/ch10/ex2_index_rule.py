"""Chapter 10, exercise 2: data movement as a grid-stride kernel (an ``"index"`` rule).

This module adds ``roll(x, shift)``: NumPy's ``np.roll(x, shift, axis=0)``,
the rows of ``x`` moved down by ``shift`` (a static Python int), the last ones
wrapping around to the top. It is a primitive of kind ``"data_movement"``
with its impl and abstract-eval rules; what it lacks is a CUDA rule.

Data movement on the GPU (``transpose``, ``slice``, ``rev``, ``pad``...) is
written in the ``"index"`` form: ``rule(c, idx) -> str``. The writer makes a
grid-stride kernel over the *output*; each thread, for each output element it
takes, has that element's index as a list of expressions ``idx`` (``["i0",
"i1"]`` for a 2-D output), and the rule returns the expression that reads the
element it comes from: ``c.read(c.operand(), [index expressions])`` reads the
operand at that index. ``c.params["shift"]`` is the shift and
``c.operand().aval.shape`` the operand's shape. Read ``_rev`` and ``_slice`` in
``minijax/backends/cuda/rules.py``: ``roll`` is one line like theirs.

Mind negative numbers: an index expression must stay in ``0 .. n-1``, for any
``shift``, negative or larger than ``n`` (reduce it modulo ``n`` in Python,
where you write the rule, so the kernel only adds and takes one remainder).

Check: ``make exercise-ch10`` (or ``pytest exercises/ch10/test_ex2_index_rule.py``).
"""
import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.backends.cuda.rules import register
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

roll_p = Primitive("roll", kind="data_movement")


def roll(x, shift: int):
    """``np.roll(x, shift, axis=0)``."""
    return roll_p.bind(x, shift=int(shift))


impl_rules[roll_p] = lambda x, *, shift: np.roll(np.asarray(x), shift, axis=0)
abstract_eval_rules[roll_p] = lambda x, *, shift: ShapedArray(x.shape, x.dtype, x.weak_type)


def roll_cuda_rule(c, idx):
    """The expression reading the operand element that lands at output index ``idx``."""
    raise NotImplementedError("exercise 2 of chapter 10: the CUDA index rule of roll")


register(roll_p, roll_cuda_rule, "index")


def roll_by_3(x):
    """What the check runs on the simulator."""
    return roll(x, 3)
