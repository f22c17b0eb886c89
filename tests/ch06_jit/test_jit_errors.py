"""Chapter 06 — jit's errors: the same classes and messages as JAX 0.10.2.

Errors at ``jit(...)`` time (bad static_argnums/argnames, not a function),
at call time (unhashable static values, non-array arguments, the Python
errors of a bad call), and at trace time (a Python ``if``/``int``/``float``
on a traced value names the function being traced and the argument the
value depends on; a non-array output).
"""
import re
import warnings

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import errors
from minijax.devices import CpuDevice
from minijax.interpreters.partial_eval import ShapeDtypeStruct
from minijax.jit import jit

CPU = CpuDevice(0)

# shared: needs jit, jnp, np, functools
def pos(x):
    if x > 0:
        return x
    return -x


def mul(x, n):
    return x * n


def kwonly(x, *, n):
    return x * n


def posonly(x, /, y):
    return x + y


def gen(x):
    yield x


def two_args(x, y):
    return x if x > y else y


def from_dict(d):
    return d['a'] if d['a'] > 0 else 0


def to_int(x):
    return int(x)


def to_float(x):
    return float(x)


def to_numpy(x):
    return np.asarray(x)


def ident(x):
    return x


def ret_str(x):
    return 'a'


def ret_nested_str(x):
    return {'a': (x, 'b')}


ERRORS = {
    'bool_of_tracer': lambda: jit(pos)(1.),
    'bool_of_two_args': lambda: jit(two_args)(1., 2.),
    'bool_of_dict_leaf': lambda: jit(from_dict)({'a': 1.}),
    'int_of_tracer': lambda: jit(to_int)(3),
    'float_of_tracer': lambda: jit(to_float)(3.),
    'numpy_of_tracer': lambda: jit(to_numpy)(1.),
    'unhashable_static_argnum': lambda: jit(mul, static_argnums=1)(1., [1]),
    'unhashable_static_argname': lambda: jit(mul, static_argnames='n')(1., n=[1]),
    'unhashable_static_array': lambda: jit(mul, static_argnums=1)(1., np.ones(2)),
    'static_argnums_out_of_range': lambda: jit(mul, static_argnums=5),
    'static_argnums_negative_out_of_range': lambda: jit(mul, static_argnums=-5),
    'static_argnums_kwonly': lambda: jit(kwonly, static_argnums=1),
    'static_argnames_unknown': lambda: jit(mul, static_argnames='m'),
    'static_argnames_posonly': lambda: jit(posonly, static_argnames='x'),
    'donate_static_names_intersect': lambda: jit(mul, static_argnames='x', donate_argnames='x'),
    'static_argnums_float': lambda: jit(mul, static_argnums=1.5),
    'static_argnames_not_str': lambda: jit(mul, static_argnames=[1]),
    'not_callable': lambda: jit(3),
    'staticmethod': lambda: jit(staticmethod(mul)),
    'generator': lambda: jit(gen),
    'non_array_arg': lambda: jit(mul)(1., "a"),
    'non_array_arg_in_pytree': lambda: jit(from_dict)({'a': "s"}),
    'missing_arg': lambda: jit(mul)(1.),
    'too_many_args': lambda: jit(mul)(1., 2, 3),
    'unexpected_kwarg': lambda: jit(mul)(1., m=2),
    'returns_str': lambda: jit(ret_str)(1.),
    'returns_nested_str': lambda: jit(ret_nested_str)(1.),
    'shape_dtype_struct_called': lambda: jit(ident)(ShapeDtypeStruct((2,), jnp.float32)),
    'device_and_backend': lambda: jit(mul, device=CPU, backend='cpu'),
    'unknown_backend': lambda: jit(mul, backend='gpu')(1., 2.),
}


# expected values from JAX 0.10.2 ({name}: the function's file:line;
# {SDS}: our ShapeDtypeStruct class)
EXPECTED = {
    'bool_of_tracer': ('TracerBoolConversionError',
     'Attempted boolean conversion of traced array with shape bool[].\n'
     'The error occurred while tracing the function pos at {pos} for jit. This concrete value was not available in Python because it depends on the value of the argument x.\n'
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError'),
    'bool_of_two_args': ('TracerBoolConversionError',
     'Attempted boolean conversion of traced array with shape bool[].\n'
     'The error occurred while tracing the function two_args at {two_args} for jit. This concrete value was not available in Python because it depends on the values of the arguments x and y.\n'
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError'),
    'bool_of_dict_leaf': ('TracerBoolConversionError',
     'Attempted boolean conversion of traced array with shape bool[].\n'
     "The error occurred while tracing the function from_dict at {from_dict} for jit. This concrete value was not available in Python because it depends on the value of the argument d['a'].\n"
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError'),
    'int_of_tracer': ('ConcretizationTypeError',
     'Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]\n'
     'The problem arose with the `int` function. If trying to convert the data type of a value, try using `x.astype(int)` or `jnp.array(x, int)` instead.\n'
     'The error occurred while tracing the function to_int at {to_int} for jit. This concrete value was not available in Python because it depends on the value of the argument x.\n'
     '\n'
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError'),
    'float_of_tracer': ('ConcretizationTypeError',
     'Abstract tracer value encountered where concrete value is expected: traced array with shape float32[]\n'
     'The problem arose with the `float` function. If trying to convert the data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.\n'
     'The error occurred while tracing the function to_float at {to_float} for jit. This concrete value was not available in Python because it depends on the value of the argument x.\n'
     '\n'
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError'),
    'numpy_of_tracer': ('TracerArrayConversionError',
     'The numpy.ndarray conversion method __array__() was called on traced array with shape float32[]\n'
     'The error occurred while tracing the function to_numpy at {to_numpy} for jit. This concrete value was not available in Python because it depends on the value of the argument x.\n'
     'See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError'),
    'unhashable_static_argnum': ('ValueError',
     "Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, [1]. The error was:\n"
     "TypeError: unhashable type: 'list'\n"
     ''),
    'unhashable_static_argname': ('ValueError',
     "Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, [1]. The error was:\n"
     "TypeError: unhashable type: 'list'\n"
     ''),
    'unhashable_static_array': ('ValueError',
     "Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'numpy.ndarray'>, [1. 1.]. The error was:\n"
     "TypeError: unhashable type: 'numpy.ndarray'\n"
     ''),
    'static_argnums_out_of_range': ('ValueError',
     'Jitted function has static_argnums=(5,), but only accepts 2 positional arguments.'),
    'static_argnums_negative_out_of_range': ('ValueError',
     'Jitted function has static_argnums=(-5,), but only accepts 2 positional arguments.'),
    'static_argnums_kwonly': ('ValueError',
     'Jitted function has static_argnums=(1,), but only accepts 1 positional arguments.'),
    'static_argnames_unknown': ('ValueError',
     "Jitted function has invalid argnames {'m'} in static_argnames. Function does not take these args."),
    'static_argnames_posonly': ('ValueError',
     "Jitted function has invalid argnames {'x'} in static_argnames. These are positional-only"),
    'donate_static_names_intersect': ('ValueError',
     "static_argnames and donate_argnames cannot intersect. Argument names {'x'} appear in both static_argnames and donate_argnames"),
    'static_argnums_float': ('TypeError',
     "'float' object is not iterable"),
    'static_argnames_not_str': ('TypeError',
     'argument is not a string: 1'),
    'not_callable': ('TypeError',
     'Expected a callable value, got 3'),
    'staticmethod': ('TypeError',
     'staticmethod arguments are not supported, got <staticmethod(<function mul at 0x>)>'),
    'generator': ('TypeError',
     'Expected a function, got a generator function: <function gen at 0x>'),
    'non_array_arg': ('TypeError',
     "Error interpreting argument to <function mul at 0x> as an abstract array. The problematic value is of type <class 'str'> and was passed to the function at path n.\n"
     'This typically means that a jit-wrapped function was called with a non-array argument, and this argument was not marked as static using the static_argnums or static_argnames parameters of jax.jit.'),
    'non_array_arg_in_pytree': ('TypeError',
     "Error interpreting argument to <function from_dict at 0x> as an abstract array. The problematic value is of type <class 'str'> and was passed to the function at path d['a'].\n"
     'This typically means that a jit-wrapped function was called with a non-array argument, and this argument was not marked as static using the static_argnums or static_argnames parameters of jax.jit.'),
    'missing_arg': ('TypeError',
     "mul() missing 1 required positional argument: 'n'"),
    'too_many_args': ('TypeError',
     'mul() takes 2 positional arguments but 3 were given'),
    'unexpected_kwarg': ('TypeError',
     "mul() got an unexpected keyword argument 'm'"),
    'returns_str': ('TypeError',
     "function ret_str at {ret_str} traced for jit returned a value of type <class 'str'>, which is not a valid JAX type"),
    'returns_nested_str': ('TypeError',
     "function ret_nested_str at {ret_nested_str} traced for jit returned a value of type <class 'str'> at output component ['a'][1], which is not a valid JAX type"),
    'shape_dtype_struct_called': ('TypeError',
     "Argument 'x' of shape float32[2] of type {SDS} is not a valid JAX type."),
    'device_and_backend': ('ValueError',
     "can't specify both a device and a backend for jit, got device=CpuDevice(id=0) and backend='cpu'"),
    'unknown_backend': ('RuntimeError',
     "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu"),
}


def _where(fn) -> str:
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}"


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_matches_jax(case):
    cls_name, template = EXPECTED[case]
    names = {name: _where(fn) for name, fn in globals().items()
             if callable(fn) and getattr(fn, "__code__", None) is not None}
    names["SDS"] = str(ShapeDtypeStruct)  # the class lives in another module than JAX's
    expected = re.sub(r"\{(\w+)\}", lambda m: names.get(m.group(1), m.group(0)), template)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(Exception) as info:
            ERRORS[case]()
    assert type(info.value).__name__ == cls_name
    assert re.sub(r"0x[0-9a-f]+", "0x", str(info.value)) == expected


def test_tracer_errors_are_jax_error_classes():
    with pytest.raises(errors.TracerBoolConversionError):
        jit(pos)(1.)
    with pytest.raises(errors.ConcretizationTypeError):
        jit(to_int)(1)
    with pytest.raises(errors.TracerArrayConversionError):
        jit(to_numpy)(1.)


def test_two_fixes_for_a_value_branch(jit_backend):
    """JAX's advice: make the argument static, or make the branch a value (``jnp.where``)."""
    assert jit(pos, static_argnums=0)(-2.) == 2.
    np.testing.assert_allclose(jit(lambda x: jnp.where(x > 0, x, -x))(jnp.array([-2., 3.])),
                               [2., 3.])


def test_backend_and_device_are_deprecated():
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit is deprecated"):
        jit(mul, backend="cpu")
