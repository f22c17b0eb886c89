"""Chapter 01 — the errors a traced value raises when Python asks for a concrete one.

While a function is being traced, its arguments are *tracers*: stand-ins that
know a shape and dtype but (usually) no value. Python constructs that need a
value — ``if x > 0:``, ``int(x)``, ``np.asarray(x)`` — cannot work on them,
and each raises one of these errors, with the same class and the same advice
as JAX. Chapter 06 (``jit``) adds the name of the function being traced.
"""
from __future__ import annotations

# Raised by chapter 00's indexing (a boolean mask needs concrete values); JAX
# lists it among jax.errors, so it is re-exported here.
from minijax.numpy.indexing import NonConcreteBooleanIndexError  # noqa: F401


class JAXTypeError(TypeError):
    """Base class of the tracer conversion errors (all are ``TypeError``)."""


class ConcretizationTypeError(JAXTypeError):
    def __init__(self, tracer, context: str = ""):
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: "
            f"{tracer._short_repr()}\n{context}\n"
            "The problem arose with the value of an abstract tracer. If the value "
            "is used as a Python control-flow condition or shape, consider making "
            "it static (for jit: static_argnums/static_argnames) or using "
            "structured control flow (lax.cond, lax.while_loop).\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.ConcretizationTypeError")


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer):
        JAXTypeError.__init__(
            self,
            f"Attempted boolean conversion of traced array with shape "
            f"{tracer.aval.str_short()}.\n"
            "The error occurred while tracing a function. Python's `if`, `while`, "
            "`and`, `or` and `not` need a concrete bool, but this value is only "
            "known abstractly. Use jnp.where or lax.cond / lax.select for a "
            "value-dependent choice, or mark the argument static.\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.TracerBoolConversionError")


class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer):
        super().__init__(
            f"The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short()}.\n"
            "A traced value cannot be used as a Python integer (an index, a "
            "length, a shape). Mark the argument static, or use lax.dynamic_slice "
            "/ jnp.take for value-dependent indexing.\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.TracerIntegerConversionError")


class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer):
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {tracer.aval.str_short()}.\n"
            "NumPy functions cannot operate on traced values: use the matching "
            "minijax.numpy function instead of numpy.\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.TracerArrayConversionError")


class UnexpectedTracerError(Exception):
    def __init__(self, msg: str):
        super().__init__(
            msg + "\nThis tracer escaped the transformation that created it (for "
            "example by being stored in a global or a closure and used after the "
            "transformed function returned). Return it as an output instead.\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.UnexpectedTracerError")
