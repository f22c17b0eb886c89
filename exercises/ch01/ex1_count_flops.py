"""Exercise 1 of chapter 01: a ``Trace`` that counts floating-point operations.

``count_flops(f)(*args)`` runs ``f`` on ``args`` and returns ``(out, flops)``:
``out`` is what ``f`` returns (real values: the trace computes as it counts)
and ``flops`` is a dict ``{primitive name: FLOPs}`` summed over every
primitive ``f`` binds, leaving out primitives that count 0.

What one application of a primitive costs (``flops_of``), from what the
primitive *is* (its ``kind`` and ``moves_data`` attributes, chapter 00):

- data movement (``primitive.moves_data``: ``reshape``, ``broadcast_in_dim``,
  ``convert_element_type``...): 0;
- ``kind == "dot"`` (``dot_general``): ``2 * M * N * K``, that is
  2 x (output elements) x (size of the contracted dimensions of the left
  operand, ``params["dimension_numbers"][0][0]``): a multiply and an add
  per term;
- ``kind`` ``"reduction"``, ``"cumulative"`` or ``"sort"``: one per *input*
  element (of the first operand);
- anything else (elementwise arithmetic, comparisons, ``select_n``...): one
  per *output* element, summed over the outputs of a primitive with
  ``multiple_results``.

``W @ x + b`` with ``W`` of shape (4, 3) is 24 FLOPs of ``dot_general`` and 4
of ``add``. These are the counts chapter 06's cost model makes.

The trace must compose with the other interpreters: it counts what the
rules of an inner ``jvp`` bind (``count_flops`` of ``jvp(jnp.sin, ...)`` also
counts the ``cos`` and ``mul`` of ``sin``'s derivative), and an outer ``jvp``
of ``count_flops(f)`` still differentiates ``f``: evaluate each primitive
under the trace's *parent*, not under the eval trace.

Write ``flops_of``, ``FlopTrace.process_primitive`` and ``count_flops``.
``FlopTracer`` is given (it is chapter 01's ``LoggingTracer``).

Check it: ``make exercise-ch01`` (or ``pytest exercises/ch01/test_ex1_count_flops.py``).

Hint: section 2 of the chapter's notebook (``LoggingTrace``, ``logged``) is
most of the answer; ``core.get_aval`` gives the aval of anything.
"""
from minijax import core


def flops_of(primitive, avals_in, avals_out, params) -> int:
    """The FLOPs of one application of ``primitive`` (``avals_out``: a list, one per output)."""
    raise NotImplementedError("exercise 1 of chapter 01: flops_of")


class FlopTracer(core.Tracer):
    """A value of a :class:`FlopTrace`: the real value it stands for."""

    def __init__(self, trace, val):
        super().__init__(trace)
        self.val = val

    @property
    def aval(self):
        return core.get_aval(self.val)

    def to_concrete_value(self):
        val = self.val
        return val.to_concrete_value() if isinstance(val, core.Tracer) else val


class FlopTrace(core.Trace):
    """Count each primitive's FLOPs into ``self.flops``, then evaluate it with the parent."""

    def __init__(self, parent):
        self.parent = parent
        self.flops = {}

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError("exercise 1 of chapter 01: FlopTrace.process_primitive")


def count_flops(f):
    """A function returning ``(f(*args), {primitive name: FLOPs})``."""
    raise NotImplementedError("exercise 1 of chapter 01: count_flops")
