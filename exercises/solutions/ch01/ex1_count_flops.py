"""Exercise 1 of chapter 01, a solution: a trace that counts FLOPs."""
import math

from minijax import core


def flops_of(primitive, avals_in, avals_out, params) -> int:
    """The FLOPs of one application of ``primitive`` (``avals_out``: a list, one per output)."""
    if primitive.moves_data:
        return 0
    if primitive.kind == "dot":
        (lhs_contracting, _), _ = params["dimension_numbers"]
        k = math.prod(avals_in[0].shape[d] for d in lhs_contracting)
        return 2 * avals_out[0].size * k
    if primitive.kind in ("reduction", "cumulative", "sort"):
        return avals_in[0].size
    return sum(a.size for a in avals_out)


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
        vals = [x.val if isinstance(x, FlopTracer) and x._trace is self else x for x in args]
        with core.set_current_trace(self.parent):
            out = primitive.bind(*vals, **params)
        outs = out if primitive.multiple_results else [out]
        n = flops_of(primitive, [core.get_aval(v) for v in vals],
                     [core.get_aval(o) for o in outs], params)
        if n:
            self.flops[primitive.name] = self.flops.get(primitive.name, 0) + n
        tracers = [FlopTracer(self, o) for o in outs]
        return tracers if primitive.multiple_results else tracers[0]


def count_flops(f):
    """A function returning ``(f(*args), {primitive name: FLOPs})``."""
    def wrapped(*args):
        trace = FlopTrace(core.find_cur_trace())
        with core.set_current_trace(trace):
            out = f(*[FlopTracer(trace, a) for a in args])
        return _unwrap(out, trace), trace.flops
    return wrapped


def _unwrap(out, trace):
    if isinstance(out, (tuple, list)):
        return type(out)(_unwrap(o, trace) for o in out)
    return out.val if isinstance(out, FlopTracer) and out._trace is trace else out
