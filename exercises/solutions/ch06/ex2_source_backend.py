"""Exercise 2 of chapter 06, a solution: a backend that compiles a jaxpr to Python source."""
import functools

from minijax.backends.interpreter import as_output_array
from minijax.backends.registry import Backend, Executable, Lowering, register_backend
from minijax.core import eval_trace, set_current_trace
from minijax.jaxpr import Literal


def jaxpr_to_source(jaxpr, name):
    names, namespace = {}, {}

    def atom(v):
        if isinstance(v, Literal):
            namespace[f"lit_{len(namespace)}"] = v.val
            return f"lit_{len(namespace) - 1}"
        if v not in names:
            names[v] = f"v{len(names)}"
        return names[v]

    params = ", ".join(atom(v) for v in list(jaxpr.constvars) + list(jaxpr.invars))
    lines = [f"def {name}({params}):"]
    for eqn in jaxpr.eqns:
        fn = "".join(c if c.isalnum() else "_" for c in eqn.primitive.name) + f"_{len(namespace)}"
        namespace[fn] = functools.partial(eqn.primitive.bind, **eqn.params)
        args = ", ".join(atom(v) for v in eqn.invars)
        outs = [atom(v) for v in eqn.outvars]
        target = f"[{', '.join(outs)}]" if eqn.primitive.multiple_results else outs[0]
        lines.append(f"    {target} = {fn}({args})")
    lines.append(f"    return [{', '.join(atom(v) for v in jaxpr.outvars)}]")
    return "\n".join(lines), namespace


def compile_source(source, namespace, name):
    exec(source, namespace)
    return namespace[name]


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
