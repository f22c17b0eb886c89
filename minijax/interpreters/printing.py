"""Chapter 01 — the smallest useful trace: one that prints every primitive.

``print_primitives(f)(*args)`` runs ``f`` with each argument wrapped in a
:class:`PrintTracer`. Every primitive that ``f`` binds on those tracers is
interpreted by :class:`PrintTrace`, which writes the equation down (in the
same ``name:type = prim[params] operands`` form chapter 05's jaxprs use) and
then evaluates it with its *parent* trace, so the function still computes its
real result.

What it shows: tracing sees primitives, and only primitives. A Python
``print`` inside ``f``, a Python loop, a list append: none of them is a
primitive, so none of them appears in the log; a loop appears unrolled.
"""
from __future__ import annotations

import numpy as np

from minijax.abstract_arrays import ShapedArray
from minijax.core import Trace, Tracer, find_cur_trace, get_aval, set_current_trace


def var_name(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, 27 -> bb: base 26 with letters, as JAX names variables."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = letters[r] + out
        if n == 0:
            return out


class PrintTracer(Tracer):
    """A value seen by a :class:`PrintTrace`: the real value plus a name for the log."""
    __slots__ = ("val", "name")

    def __init__(self, trace: "PrintTrace", val, name: str):
        super().__init__(trace)
        self.val = val
        self.name = name

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.val)

    def to_concrete_value(self):
        val = self.val
        return val.to_concrete_value() if isinstance(val, Tracer) else val


class PrintTrace(Trace):
    """Log each primitive application, then evaluate it with the parent trace."""

    def __init__(self, parent: Trace, log: list[str] | None = None, echo: bool = True):
        self.parent = parent
        self.log = [] if log is None else log
        self.echo = echo
        self._count = 0

    def new_tracer(self, val) -> PrintTracer:
        name = var_name(self._count)
        self._count += 1
        return PrintTracer(self, val, name)

    def _operand(self, x) -> tuple:
        """(value for the parent, text for the log) of one argument."""
        if isinstance(x, PrintTracer) and x._trace is self:
            return x.val, x.name
        aval = get_aval(x).str_short(short_dtypes=True)  # f32[3], as a jaxpr shows it
        if isinstance(x, Tracer) or get_aval(x).shape:
            # another trace's value, or a non-scalar constant: show only its type
            return x, f"<const {aval}>"
        return x, f"{np.asarray(x).item()!r}:{aval}"  # a scalar literal

    def process_primitive(self, primitive, args, params):
        vals, texts = zip(*(self._operand(x) for x in args)) if args else ((), ())
        with set_current_trace(self.parent):
            outs = primitive.bind(*vals, **params)
        outs_list = outs if primitive.multiple_results else [outs]
        tracers = [self.new_tracer(o) for o in outs_list]
        lhs = " ".join(f"{t.name}:{t.aval.str_short(short_dtypes=True)}" for t in tracers)
        param_text = " ".join(f"{k}={v}" for k, v in sorted(params.items()))
        line = f"{lhs} = {primitive.name}{f'[{param_text}]' if params else ''} {' '.join(texts)}"
        self.log.append(line.rstrip())
        if self.echo:
            print(line.rstrip())
        return tracers if primitive.multiple_results else tracers[0]


def print_primitives(f, echo: bool = True, log: list[str] | None = None):
    """Return a function that runs ``f`` and prints each primitive it binds.

    >>> import minijax.numpy as jnp
    >>> print_primitives(lambda x: jnp.sin(x) * 2.0)(jnp.arange(3.))  # doctest: +SKIP
    b:f32[3] = sin a
    c:f32[3] = mul b 2.0:f32[]
    """
    def wrapped(*args):
        trace = PrintTrace(find_cur_trace(), log, echo)
        tracers = [trace.new_tracer(a) for a in args]
        with set_current_trace(trace):
            out = f(*tracers)
        return _unwrap(out, trace)
    wrapped.trace_log = log
    return wrapped


def _unwrap(out, trace):
    if isinstance(out, (tuple, list)):
        return type(out)(_unwrap(o, trace) for o in out)
    if isinstance(out, PrintTracer) and out._trace is trace:
        return out.val
    return out
