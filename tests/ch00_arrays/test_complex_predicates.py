"""``jnp.isfinite``, ``jnp.isinf`` and ``jnp.angle`` on complex numbers.

``lax.is_finite`` takes real floats only; ``jnp.isfinite`` of a complex
number tests both parts (finite when both are), ``jnp.isinf`` is true when
either part is infinite, as in NumPy. Values, jaxprs and errors from JAX 0.10.2.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

Z = np.array([1 + 2j, np.inf + 1j, complex(0, np.nan), 3 - 1j, complex(1, -np.inf)],
             np.complex64)


@pytest.mark.parametrize("name", ["isfinite", "isinf", "isnan"])
def test_complex_predicates_match_numpy(name, jit_backend):
    expected = getattr(np, name)(Z)
    np.testing.assert_array_equal(np.asarray(getattr(jnp, name)(Z)), expected)
    np.testing.assert_array_equal(np.asarray(jax.jit(getattr(jnp, name))(Z)), expected)


def test_lax_is_finite_refuses_complex():
    # from JAX 0.10.2
    with pytest.raises(TypeError, match="is_finite does not accept dtype complex64. "
                       "Accepted dtypes are subtypes of floating."):
        lax.is_finite(jnp.asarray(Z))


def test_complex_isfinite_jaxpr():
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(jnp.isfinite)(Z[:4])) == """\
{ lambda ; a:c64[4]. let
    b:f32[4] = real a
    c:bool[4] = is_finite b
    d:f32[4] = imag a
    e:bool[4] = is_finite d
    f:bool[4] = and c e
  in (f,) }"""


def test_complex_isinf_jaxpr():
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(jnp.isinf)(Z[:2])) == """\
{ lambda ; a:c64[2]. let
    b:bool[2] = jit[
      name=isinf
      jaxpr={ lambda ; a:c64[2]. let
          c:f32[2] = real a
          d:f32[2] = imag a
          e:f32[2] = abs c
          f:bool[2] = eq e inf:f32[]
          g:f32[2] = abs d
          h:bool[2] = eq g inf:f32[]
          b:bool[2] = or f h
        in (b,) }
    ] a
  in (b,) }"""


def test_angle_values(jit_backend):
    z = jnp.array([1 + 1j, -1, 0, 1j, -1 - 1e-9j], jnp.complex64)
    # from JAX 0.10.2 (NumPy's float32 arctan2, which minijax's atan2 uses, is one
    # unit in the last place below XLA's at pi/4: compared to 1e-6)
    out = jnp.angle(z)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), [0.7853982, 3.1415927, 0.0, 1.5707964,
                                                 -3.1415927], rtol=1e-6)
    assert repr(jnp.angle(jnp.array([1, -2, 0]))) == (
        "Array([0.       , 3.1415927, 0.       ], dtype=float32)")
    assert repr(jnp.angle(jnp.array([1, -2.0]), deg=True)) == (
        "Array([  0., 180.], dtype=float32)")
    assert repr(jnp.angle(-1.0)) == "Array(3.1415927, dtype=float32)"
    np.testing.assert_allclose(np.asarray(jnp.angle(Z[[0, 3]])), np.angle(Z[[0, 3]]),
                               rtol=1e-6)


def test_angle_jaxprs():
    z = jnp.array([1 + 2j, 3j], jnp.complex64)
    # from JAX 0.10.2
    assert str(jax.make_jaxpr(lambda z: jnp.angle(z, deg=True))(z)) == """\
{ lambda ; a:c64[2]. let
    b:f32[2] = jit[
      name=angle
      jaxpr={ lambda ; a:c64[2]. let
          c:f32[2] = real a
          d:f32[2] = imag a
          e:f32[2] = atan2 d c
          b:f32[2] = mul e 57.295780181884766:f32[]
        in (b,) }
    ] a
  in (b,) }"""
    assert str(jax.make_jaxpr(jnp.angle)(jnp.array([1, 2]))) == """\
{ lambda ; a:i32[2]. let
    b:f32[2] = jit[
      name=angle
      jaxpr={ lambda ; a:i32[2]. let
          c:i32[2] = broadcast_in_dim 0:i32[]
          d:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] a
          e:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] c
          b:f32[2] = atan2 e d
        in (b,) }
    ] a
  in (b,) }"""
