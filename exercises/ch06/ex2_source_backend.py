"""Exercise 2 of chapter 06: a backend that compiles a jaxpr to Python source.

``jit`` does not care how a jaxpr is run: it asks a *backend* (section 6 of
the chapter, ``minijax/backends/registry.py``) to ``lower`` the jaxpr into a
program text and to ``compile`` that text into an executable. The
interpreter backend keeps the jaxpr and walks it on every call. Yours
*generates code*: one Python function per jaxpr, with one line per
equation, compiled once by Python's ``exec`` and called on every later call.
That is what chapter 09 does with Numba, in miniature.

The backend below is registered as ``"ex_python"``, so
``jit(f, backend="ex_python")`` uses it and ``.lower(x).as_text()`` prints
your source. Write the two functions it calls:

1. :func:`jaxpr_to_source` ``(jaxpr, name) -> (source, namespace)``. The
   source is exactly ``len(jaxpr.eqns) + 2`` lines::

       def f(a, b, c):
           d = sin_0(c)
           e = mul_1(d, lit_2)
           return [e]

   the first line takes the constvars, then the invars, as parameters; each
   equation is one line ``outs = <callable>(<operands>)``; the last line
   returns the list of outputs. Give each variable a Python name of your
   choice (one per ``Var``). Everything that is not a variable goes in the
   ``namespace`` dict under a name the source uses: for each equation, a
   callable that binds its primitive with its params
   (``functools.partial(eqn.primitive.bind, **eqn.params)``), and each
   ``Literal``'s value (``lit.val``). A primitive with
   ``multiple_results`` returns a list: unpack it (``[b, c] = split_0(a)``).
   An output nobody reads is a ``DropVar``: any name will do (``_``). A
   primitive's name may not be a Python name (``scatter-add``): clean it.
2. :func:`compile_source` ``(source, namespace, name) -> function``:
   ``exec`` the source in the namespace and return the function it defines.

Check: ``make exercise-ch06`` (``pytest exercises/ch06``): results against
NumPy, and the shape of the source.
Hint: a ``Literal`` is not a ``Var``: test with ``isinstance(v, Literal)``.
"""
import functools  # noqa: F401

from minijax.backends.interpreter import as_output_array
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.core import eval_trace, set_current_trace
from minijax.jaxpr import Literal  # noqa: F401


def jaxpr_to_source(jaxpr, name):
    """``(source of a Python function that runs jaxpr, namespace it reads)``."""
    raise NotImplementedError("exercise 2 of chapter 06: write jaxpr_to_source")


def compile_source(source, namespace, name):
    """The function ``name`` that ``source`` defines, executed in ``namespace``."""
    raise NotImplementedError("exercise 2 of chapter 06: write compile_source")


# --- the backend (given): jit calls lower once and compile once per program ---------------
class SourceLowering(Lowering):
    def __init__(self, backend, closed_jaxpr, name):
        super().__init__(backend, closed_jaxpr, name)
        self.fun_name = "".join(c if c.isalnum() else "_" for c in name) or "f"
        self.source, self.namespace = jaxpr_to_source(self.jaxpr, self.fun_name)

    def as_text(self) -> str:
        return self.source


class SourceExecutable(Executable):
    def __init__(self, lowering):
        super().__init__(lowering)
        self.function = compile_source(lowering.source, dict(lowering.namespace),
                                       lowering.fun_name)

    def __call__(self, *flat_args):
        with set_current_trace(eval_trace):          # run the primitives eagerly
            outs = self.function(*self.lowering.consts, *flat_args)
        return [as_output_array(x, aval) for x, aval in zip(outs, self.out_avals)]

    def as_text(self) -> str:
        return self.lowering.source


class SourceBackend(Backend):
    name = "ex_python"
    platform = "cpu"
    ir_name = "Python source"
    compiler_name = "exec"

    def lower(self, closed_jaxpr, *, name, **options):
        return SourceLowering(self, closed_jaxpr, name)

    def compile(self, lowering, **options):
        return SourceExecutable(lowering)


register_backend("ex_python", SourceBackend(), priority=-100)   # by name only, never the default
