"""``jax_numpy_dtype_promotion``: the 'standard' lattice and the 'strict' mode.

In strict mode two different strong dtypes never promote implicitly; only a
weak Python scalar joins an array of its own kind or above. Every result,
dtype and message below is from JAX 0.10.2. (JAX names the dtypes in its
message in the order of a Python set, which varies from run to run, so the
tests accept either order.)
"""
import re
import threading

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.dtypes import TypePromotionError


def strict_message(*names) -> str:
    """A regex for JAX's strict-mode message naming ``names`` in any order."""
    quoted = [re.escape(repr(n) if n.startswith("<") else f"'{n}'") for n in names]
    either = "|".join(", ".join(p) for p in (quoted, quoted[::-1]))
    return (rf"Input dtypes \(({either})\) have no available implicit dtype promotion "
            r"path when jax_numpy_dtype_promotion=strict\. Try explicitly casting inputs "
            r"to the desired output type, or set jax_numpy_dtype_promotion=standard\.")


i8 = jnp.array([1, 2], jnp.int8)
i32 = jnp.array([1, 2], jnp.int32)
f16 = jnp.array([1.0, 2.0], jnp.float16)
f32 = jnp.array([1.0, 2.0], jnp.float32)


def test_default_is_standard():
    # from JAX 0.10.2: str() 'standard', repr <NumpyDtypePromotion.STANDARD: 'standard'>
    assert str(jax.config.jax_numpy_dtype_promotion) == "standard"
    assert repr(jax.config.jax_numpy_dtype_promotion) == (
        "<NumpyDtypePromotion.STANDARD: 'standard'>")
    assert (i8 + i32).dtype == np.int32


# --- what strict mode still allows (from JAX 0.10.2) ----------------------------------
@pytest.mark.parametrize("fun, expected", [
    (lambda: i8 + 1, "Array([2, 3], dtype=int8)"),
    (lambda: f32 * 2.0, "Array([2., 4.], dtype=float32)"),
    (lambda: jnp.add(1, 2.0), "Array(3., dtype=float32, weak_type=True)"),
    (lambda: jnp.sin(i32), "Array([0.84147096, 0.9092974 ], dtype=float32)"),
    (lambda: i8.astype(jnp.float32) + f32, "Array([2., 4.], dtype=float32)"),
    (lambda: jnp.mean(i32), "Array(1.5, dtype=float32)"),
    (lambda: jnp.array([1, 2.5]), "Array([1. , 2.5], dtype=float32)"),
], ids=["int8+1", "f32*2.0", "add(1,2.0)", "sin(int32)", "astype", "mean(int32)",
        "array([1,2.5])"])
def test_strict_allows(fun, expected):
    with jax.numpy_dtype_promotion("strict"):
        assert str(jax.config.jax_numpy_dtype_promotion) == "strict"
        assert repr(fun()) == expected


def test_strict_promote_and_result_type():
    with jax.numpy_dtype_promotion("strict"):
        # from JAX 0.10.2
        assert jnp.promote_types("int8", "int8") == np.int8
        assert jnp.promote_types("int8", int) == np.int8
        assert jnp.promote_types(float, int) == np.float64
        assert jnp.result_type(1, 2.0) == np.float32
        with pytest.raises(TypePromotionError, match=strict_message("int8", "int16")):
            jnp.promote_types("int8", "int16")
        with pytest.raises(TypePromotionError, match=strict_message("int8", "int32")):
            jnp.result_type(i8, i32)


# --- what strict mode refuses (from JAX 0.10.2) ----------------------------------------
@pytest.mark.parametrize("fun, names", [
    (lambda: i32 * 2.0, ("<class 'float'>", "int32")),
    (lambda: i8 + i32, ("int8", "int32")),
    (lambda: f32 + i32, ("float32", "int32")),
    (lambda: f16 + f32, ("float16", "float32")),
    (lambda: f32 + 1j, ("float32", "<class 'complex'>")),
    (lambda: jnp.where(i8 > 0, i8, f32), ("int8", "float32")),
    (lambda: jnp.concatenate([i8, i32]), ("int8", "int32")),
    (lambda: jnp.dot(f32, i32), ("float32", "int32")),
    (lambda: jnp.array([True]) + i32, ("bool", "int32")),
], ids=["int32*2.0", "int8+int32", "f32+i32", "f16+f32", "f32+1j", "where", "concatenate",
        "dot", "bool+int32"])
def test_strict_refuses(fun, names):
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(TypePromotionError, match=strict_message(*names)):
            fun()
    fun()  # standard again after the block


def test_type_promotion_error_class():
    # from JAX 0.10.2: jax.dtypes.TypePromotionError, a ValueError
    assert jax.dtypes.TypePromotionError is TypePromotionError
    assert issubclass(TypePromotionError, ValueError)


def test_config_update_and_bad_values():
    try:
        jax.config.update("jax_numpy_dtype_promotion", "strict")
        with pytest.raises(TypePromotionError, match=strict_message("int8", "int32")):
            i8 + i32
    finally:
        jax.config.update("jax_numpy_dtype_promotion", "standard")
    assert (i8 + i32).dtype == np.int32
    # from JAX 0.10.2
    with pytest.raises(ValueError, match="'loose' is not a valid NumpyDtypePromotion"):
        jax.config.update("jax_numpy_dtype_promotion", "loose")
    with pytest.raises(ValueError, match="'loose' is not a valid NumpyDtypePromotion"):
        jax.numpy_dtype_promotion("loose")
    with pytest.raises(AttributeError, match="read their value via e.g. "
                       r"`config.jax_numpy_dtype_promotion`"):
        jax.config.read("jax_numpy_dtype_promotion")


def test_decorator_form():
    @jax.numpy_dtype_promotion("strict")
    def add(a, b):
        return a + b
    with pytest.raises(TypePromotionError):
        add(i8, i32)
    assert add(i8, i8).dtype == np.int8


def test_the_mode_is_part_of_jits_cache_key(jit_backend):
    # from JAX 0.10.2: a function traced in standard mode raises when called in strict
    f = jax.jit(lambda a, b: a + b)
    assert f(i8, i32).dtype == np.int32
    with jax.numpy_dtype_promotion("strict"):
        with pytest.raises(TypePromotionError, match=strict_message("int8", "int32")):
            f(i8, i32)
    assert f(i8, i32).dtype == np.int32


def test_the_mode_is_per_thread():
    """A ``with`` block sets the mode for its own thread only (as JAX's contexts)."""
    seen = []
    with jax.numpy_dtype_promotion("strict"):
        t = threading.Thread(target=lambda: seen.append((i8 + i32).dtype))
        t.start()
        t.join()
    assert seen == [np.int32]
