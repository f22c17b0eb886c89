"""Chapter 01 — the errors a traced value raises when Python asks for a concrete one.

While a function is being traced, its arguments are *tracers*: stand-ins that
know a shape and dtype but (usually) no value. Python constructs that need a
value — ``if x > 0:``, ``int(x)``, ``np.asarray(x)`` — cannot work on them,
and each raises one of these errors, with the same class and the same advice
as JAX. Under ``make_jaxpr`` and ``jit`` (chapters 05, 06) the message also
names the function being traced and the argument the value depends on.
"""
from __future__ import annotations

# Raised by chapter 00's indexing (a boolean mask needs concrete values); JAX
# lists it among jax.errors, so it is re-exported here.
from minijax.numpy.indexing import NonConcreteBooleanIndexError  # noqa: F401


_ERRORS_PAGE = "https://docs.jax.dev/en/latest/errors.html"


class JAXTypeError(TypeError):
    """Base class of the tracer conversion errors (all are ``TypeError``).

    As in JAX, every message ends with a link to the error's documentation.
    """

    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_ERRORS_PAGE}#jax.errors.{type(self).__name__}")


def _error_repr(tracer) -> str:
    return f"traced array with shape {tracer.aval.str_short()}"


def _origin_msg(tracer) -> str:
    """Where the abstract value came from, if the tracer's trace knows (chapter 05).

    A jaxpr-recording tracer (chapter 05) answers with the function being
    traced and the arguments the value depends on, e.g. "The error occurred
    while tracing the function f at prog.py:3 for jit. This concrete value was
    not available in Python because it depends on the value of the argument
    x." Other tracers answer nothing.
    """
    origin = getattr(tracer, "_origin_msg", None)
    return origin() if origin is not None else ""


class ConcretizationTypeError(JAXTypeError):
    def __init__(self, tracer, context: str = ""):
        super().__init__(
            "Abstract tracer value encountered where concrete value is expected: "
            f"{_error_repr(tracer)}\n{context}{_origin_msg(tracer)}\n")


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer):
        JAXTypeError.__init__(
            self, f"Attempted boolean conversion of {_error_repr(tracer)}."
                  f"{_origin_msg(tracer)}")


class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer):
        super().__init__(f"The __index__() method was called on {_error_repr(tracer)}"
                         f"{_origin_msg(tracer)}")


class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer):
        super().__init__("The numpy.ndarray conversion method __array__() was called on "
                         f"{_error_repr(tracer)}{_origin_msg(tracer)}")


class JaxRuntimeError(RuntimeError):
    """An error while a program *runs* (not while it is traced): JAX's class of the same
    name. Chapter 12 raises it when a callback fails inside a running program
    (``INTERNAL: CpuCallback error calling callback: ...``), from the callback's error."""


class JaxprTypeError(TypeError):
    """A jaxpr is ill-typed (chapter 05's ``check_jaxpr``): JAX's class of the same name."""


class UnexpectedTracerError(JAXTypeError):
    """A tracer used after the transformation that made it ended (a ``TypeError``, as JAX's)."""

    def __init__(self, msg: str, _suffix: bool = True):
        if _suffix:  # escaped_tracer_error's message is complete without it
            msg += ("\nThis tracer escaped the transformation that created it (for "
                    "example by being stored in a global or a closure and used after the "
                    "transformed function returned). Return it as an output instead.")
        super().__init__(msg)


def escaped_tracer_error(tracer, detail: str | None = None) -> UnexpectedTracerError:
    """JAX's ``UnexpectedTracerError`` for a tracer used after its transformation ended.

    A tracer can say more about itself through two optional attributes (as
    in JAX): ``_debug_info`` (the traced function, chapter 05's
    ``DebugInfo``) and ``_line_info`` (the user's source lines, most recent
    last, where the value was created).
    """
    msg = ("Encountered an unexpected tracer. A function transformed by JAX had a side "
           "effect, allowing for a reference to an intermediate value with type "
           f"{tracer.aval.str_short()} wrapped in a {type(tracer).__name__} to escape "
           "the scope of the transformation.\nJAX transformations require that functions "
           "explicitly return their outputs, and disallow saving intermediate values to "
           "global state.")
    dbg = getattr(tracer, "_debug_info", None)
    if dbg is not None:
        msg += ("\nThe function being traced when the value leaked was "
                f"{dbg.func_src_info} traced for {dbg.traced_for}.")
    line_info = getattr(tracer, "_line_info", None)
    if line_info is not None:
        lines = [line_info] if isinstance(line_info, str) else list(line_info)
        divider = "\n" + "-" * 30 + "\n"
        msg += (divider + "The leaked intermediate value was created on line "
                f"{lines[-1] if lines else ''}. " + divider)
        msg += ("When the value was created, the final 5 stack frames (most recent last) "
                "excluding JAX-internal frames were:" + divider + "\n".join(lines[-5:])
                + divider)
    msg += ("\nTo catch the leak earlier, try setting the environment variable "
            "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager.")
    if detail:
        msg += f"Detail: {detail}"
    return UnexpectedTracerError(msg, _suffix=False)

