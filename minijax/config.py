"""Chapter 06 — configuration options: ``minijax.config.update("jax_log_compiles", True)``.

JAX's behaviour is steered by named options, each with a default, an
environment variable that overrides the default at import time
(``JAX_LOG_COMPILES=1 python prog.py``), a global value set with
``config.update(name, value)``, and a per-thread override used as a context
manager (``with minijax.log_compiles(True): ...``). This module is the small
machine behind all of that, with the options of chapter 06:

- ``jax_disable_jit``: ``jit`` calls the Python function directly (debugging);
- ``jax_log_compiles``: log every trace and compile (``logging``, WARNING level);
- ``jax_check_tracer_leaks``: after each trace, look for tracers that escaped;
- ``jax_enable_x64``: always False — minijax is 32-bit only;
- ``jax_numpy_dtype_promotion``: ``'standard'`` or ``'strict'``, the type
  promotion mode of chapter 00's lattice (``with jax.numpy_dtype_promotion('strict'):``).

Later chapters add their own options the same way (chapter 09 a cache
directory, chapter 11 a device count)::

    cache_dir = config.optional_string_state("minijax_cache_dir", None, "Where ...")
    cache_dir.value                     # read it (or config.minijax_cache_dir)

Reading: ``config.jax_log_compiles`` (attribute access) or ``state.value``.
As in JAX, ``config.read(name)`` refuses options that have a context manager
(all boolean options) and tells you to use the attribute instead.
"""
from __future__ import annotations

import enum
import os
import threading
from typing import Any, Callable

from minijax import dtypes as _dtypes

__all__ = ["Config", "State", "config", "bool_state", "int_state", "string_state",
           "optional_string_state", "bool_env", "int_env", "disable_jit",
           "log_compiles", "check_tracer_leaks", "checking_leaks", "enable_x64",
           "define_bool_state", "define_int_state", "define_string_state",
           "numpy_dtype_promotion", "NumpyDtypePromotion"]


def bool_env(varname: str, default: bool) -> bool:
    """An environment variable as a boolean: ``1/0``, ``true/false``, ``yes/no``, ``on/off``."""
    val = os.getenv(varname, str(default)).lower()
    if val in ("y", "yes", "t", "true", "on", "1"):
        return True
    if val in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {val!r} for environment {varname!r}")


def int_env(varname: str, default: int) -> int:
    """An environment variable read as an integer."""
    return int(os.getenv(varname, str(default)))


class _NoDefault:
    def __repr__(self):
        return "<no default>"


no_default = _NoDefault()
_unset = _NoDefault()


class Config:
    """The registry of options: ``update``, ``read``, attribute access, ``values``."""
    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self):
        self._value_holders: dict[str, "State"] = {}
        self._contextmanager_flags: set[str] = set()

    def add_option(self, name: str, holder: "State", contextmanager: bool) -> None:
        if name in self._value_holders:
            raise Exception(f"Config option {name} already defined")
        self._value_holders[name] = holder
        if contextmanager:
            self._contextmanager_flags.add(name)

    def update(self, name: str, val: Any) -> None:
        """Set the global value of option ``name``."""
        if name not in self._value_holders:
            raise AttributeError(f"Unrecognized config option: {name}")
        self._value_holders[name]._set(val)

    def read(self, name: str) -> Any:
        """The value of an option without a context manager (JAX's rule)."""
        if name in self._contextmanager_flags:
            raise AttributeError(
                "For flags with a corresponding contextmanager, read their value "
                f"via e.g. `config.{name}` rather than `config.FLAGS.{name}`.")
        return self._read(name)

    def _read(self, name: str) -> Any:
        try:
            return self._value_holders[name].value
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    @property
    def values(self) -> dict[str, Any]:
        return {name: holder.value for name, holder in self._value_holders.items()}

    @property
    def x64_enabled(self) -> bool:
        return False

    def __getattr__(self, name: str):
        holders = self.__dict__.get("_value_holders", {})
        if name in holders:
            return holders[name].value
        raise AttributeError(f"'Config' object has no attribute '{name}'")

    def __dir__(self):
        return [*super().__dir__(), *self._value_holders]

    # Old-style registration, as JAX's ``config.define_bool_state`` was.
    def define_bool_state(self, name: str, default: bool, help: str, **kw) -> "State":
        return bool_state(name, default, help, **kw)

    def define_int_state(self, name: str, default: int, help: str, **kw) -> "State":
        return int_state(name, default, help, **kw)

    def define_string_state(self, name: str, default: str | None, help: str, **kw) -> "State":
        return optional_string_state(name, default, help, **kw)


config = Config()
define_bool_state = config.define_bool_state
define_int_state = config.define_int_state
define_string_state = config.define_string_state


class State:
    """One option: a global value plus an optional per-thread override.

    ``state.value`` reads it; ``config.update(name, v)`` sets the global
    value; ``with state(v): ...`` overrides it in this thread for the block
    (and ``@state(v)`` decorates a function the same way).
    """

    def __init__(self, name: str, default: Any, help: str, *,
                 parser: Callable[[Any], Any] | None = None,
                 default_context_manager_value: Any = no_default,
                 update_hook: Callable[[Any], None] | None = None):
        self.name = name
        self.__name__ = name[4:] if name.startswith("jax_") else name
        self.__doc__ = f"Context manager for `{name}` config option.\n\n{help}"
        self._parser = parser
        self._default_context_manager_value = default_context_manager_value
        self._update_hook = update_hook
        self._global = parser(default) if parser else default
        self._local = threading.local()
        # How many ``with state(v):`` blocks are open, in all threads. While there
        # is none, ``value`` is the global value without asking the thread-local
        # storage (``jit`` reads options on every call: this keeps that cheap).
        self._overrides = 0
        if update_hook:
            update_hook(self._global)

    @property
    def value(self) -> Any:
        if not self._overrides:
            return self._global
        local = getattr(self._local, "value", _unset)
        return self._global if local is _unset else local

    def _set(self, value: Any) -> None:
        self._global = self._parser(value) if self._parser else value
        if self._update_hook:
            self._update_hook(self.value)

    def __call__(self, new_val: Any = no_default) -> "_StateContextManager":
        return _StateContextManager(self, new_val)

    def __bool__(self):
        raise TypeError("bool() not supported for instances of type 'State' "
                        "(did you mean to use 'State.value' instead?)")

    def __repr__(self):
        return f"<minijax.config.State {self.name}={self.value!r}>"


_overrides_lock = threading.Lock()  # (``+= 1`` on an attribute is not atomic across threads)


class _StateContextManager:
    """``with state(new_val):`` — a per-thread override for the block."""

    def __init__(self, state: State, new_val: Any):
        if new_val is no_default:
            new_val = state._default_context_manager_value
            if new_val is no_default:
                raise TypeError(f"Context manager for {state.__name__} config option "
                                "requires an argument representing the new value for "
                                "the config option.")
        self.state = state
        self.new_val = state._parser(new_val) if state._parser else new_val

    def __enter__(self):
        self.prev = getattr(self.state._local, "value", _unset)
        self.state._local.value = self.new_val
        with _overrides_lock:
            self.state._overrides += 1
        if self.state._update_hook:
            self.state._update_hook(self.new_val)

    def __exit__(self, *exc):
        self.state._local.value = self.prev
        with _overrides_lock:
            self.state._overrides -= 1
        if self.state._update_hook:
            self.state._update_hook(self.state.value)

    def __call__(self, func: Callable) -> Callable:
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _StateContextManager(self.state, self.new_val):
                return func(*args, **kwargs)
        return wrapper


# --- kinds of options: each reads its environment variable once, at import ----------
def bool_state(name: str, default: bool, help: str, *,
               validator: Callable[[Any], None] | None = None,
               update_hook: Callable[[bool], None] | None = None) -> State:
    """A boolean option ``name``, overridden by the environment variable ``NAME``."""
    if not isinstance(default, bool):
        raise TypeError(f"Default value must be of type bool, got {default} "
                        f"of type {type(default).__name__}")

    def parser(val):
        if validator:
            validator(val)
        return bool(val)

    name = name.lower()
    state = State(name, bool_env(name.upper(), default), help, parser=parser,
                  default_context_manager_value=True, update_hook=update_hook)
    config.add_option(name, state, contextmanager=True)
    return state


def int_state(name: str, default: int, help: str, *,
              update_hook: Callable[[int], None] | None = None) -> State:
    """An integer option, overridden by the environment variable ``NAME``."""
    def parser(val):
        if not isinstance(val, int) or isinstance(val, bool):
            raise ValueError(f"new int config value must be of type int, got {val} "
                             f"of type {type(val)}")
        return val

    name = name.lower()
    state = State(name, int_env(name.upper(), default), help, parser=parser,
                  update_hook=update_hook)
    config.add_option(name, state, contextmanager=False)
    return state


def optional_string_state(name: str, default: str | None, help: str, *,
                          update_hook: Callable[[str | None], None] | None = None) -> State:
    """A string option (``None`` allowed), overridden by the environment variable ``NAME``."""
    def parser(val):
        if val is not None and not isinstance(val, str):
            raise TypeError(f"new string config value must be None or of type str, "
                            f"got {val} of type {type(val)}.")
        return val

    name = name.lower()
    state = State(name, os.getenv(name.upper(), default), help, parser=parser,
                  update_hook=update_hook)
    config.add_option(name, state, contextmanager=False)
    return state


def string_state(name: str, default: str, help: str, **kw) -> State:
    """A string option (never ``None``)."""
    if not isinstance(default, str):
        raise TypeError(f"Default value must be of type str, got {default}")
    return optional_string_state(name, default, help, **kw)


# --- the options of chapter 06 ------------------------------------------------------------
def _no_x64(val) -> None:
    if val:
        raise NotImplementedError(
            "minijax is 32-bit only: jax_enable_x64 cannot be enabled (float64 and "
            "int64 values are always converted to float32 and int32, as in JAX with "
            "x64 disabled).")


disable_jit = bool_state(
    "jax_disable_jit", False,
    "Disable JIT compilation and just call original Python.")

log_compiles = bool_state(
    "jax_log_compiles", False,
    "Log a message each time `jit` traces or compiles a function. Logging is "
    "performed with `logging`. When this option is set, the log level is WARNING; "
    "otherwise the level is DEBUG.")

check_tracer_leaks = bool_state(
    "jax_check_tracer_leaks", False,
    "Turn on checking for leaked tracers as soon as a trace completes. Enabling leak "
    "checking may have performance impacts: some caching is disabled.")


def checking_leaks():
    """``with checking_leaks():`` is ``with check_tracer_leaks(True):``."""
    return check_tracer_leaks(True)


# JAX_ENABLE_X64=1 in the environment fails at import, with the same clear error.
enable_x64 = bool_state("jax_enable_x64", False,
                        "Enable 64-bit types to be used (not supported by minijax).",
                        validator=_no_x64)
config._contextmanager_flags.discard("jax_enable_x64")  # as JAX: config.read works for it


# --- chapter 00's promotion modes: jax_numpy_dtype_promotion --------------------------
class NumpyDtypePromotion(str, enum.Enum):
    """The two type-promotion modes (``jax_numpy_dtype_promotion``).

    ``standard``: JAX's lattice (``int8 + int32`` is int32). ``strict``: no
    implicit promotion between two different strong dtypes at all; only a
    weak Python scalar may join an array of its own kind or above
    (``int8_array + 1``, ``float32_array * 2.0``), everything else raises
    ``TypePromotionError``.
    """
    STANDARD = "standard"
    STRICT = "strict"

    def __str__(self):
        return self.value


def _enum_parser(enum_class):
    def parser(val):
        return enum_class(val)  # JAX's ValueError: 'loose' is not a valid ...
    return parser


numpy_dtype_promotion = State(
    "jax_numpy_dtype_promotion",
    os.getenv("JAX_NUMPY_DTYPE_PROMOTION", NumpyDtypePromotion.STANDARD),
    'Specify the rules used for implicit type promotion in operations between arrays. '
    'Options are "standard" or "strict"; in strict-mode, binary operations between '
    'arrays of differing strongly-specified dtypes will result in an error.',
    parser=_enum_parser(NumpyDtypePromotion),
    update_hook=lambda mode: _dtypes.note_promotion_mode(str(mode)))
config.add_option("jax_numpy_dtype_promotion", numpy_dtype_promotion, contextmanager=True)


def _promotion_mode() -> str:
    """The mode as a plain string (read on every op: an identity test, no enum machinery)."""
    return "strict" if numpy_dtype_promotion.value is NumpyDtypePromotion.STRICT else "standard"


# Chapter 00's lattice reads the mode from here (dtypes cannot import this chapter).
_dtypes.set_promotion_mode_reader(_promotion_mode)
