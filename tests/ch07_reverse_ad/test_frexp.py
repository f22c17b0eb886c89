"""``jnp.frexp`` as JAX writes it: the bits of the float read off (a subnormal
scaled into the normal range first) inside a ``custom_jvp`` whose rule gives
the mantissa's derivative. The printed jaxpr is JAX 0.10.2's."""
import numpy as np

import minijax
import minijax.numpy as jnp

FREXP = 'let jaxpr = { lambda ; a:f32[3]. let\n    b:f32[3] = abs a\n    c:bool[3] = lt b 1.1754943508222875e-38:f32[]\n    d:f32[3] = mul a 8388608.0:f32[]\n    e:f32[3] = jit[name=_where jaxpr=_where] c d a\n    f:i32[3] = jit[\n      name=_where\n      jaxpr={ lambda ; c:bool[3] g:i32[] h:i32[]. let\n          i:i32[3] = broadcast_in_dim g\n          j:i32[3] = broadcast_in_dim h\n          f:i32[3] = select_n c j i\n        in (f,) }\n    ] c -23:i32[] 0:i32[]\n    k:i32[3] = bitcast_convert_type[new_dtype=int32] e\n    l:i32[3] = shift_right_arithmetic k 23:i32[]\n    m:i32[3] = and l 255:i32[]\n    n:i32[3] = sub m 127:i32[]\n    o:i32[3] = add n 1:i32[]\n    p:i32[3] = add f o\n    q:i32[3] = and k -2139095041:i32[]\n    r:i32[3] = or q 1056964608:i32[]\n    s:f32[3] = bitcast_convert_type[new_dtype=float32] r\n    t:bool[3] = jit[\n      name=isinf\n      jaxpr={ lambda ; a:f32[3]. let\n          u:f32[3] = abs a\n          t:bool[3] = eq u inf:f32[]\n        in (t,) }\n    ] a\n    v:bool[3] = ne a a\n    w:bool[3] = or t v\n    x:bool[3] = eq a 0.0:f32[]\n    y:bool[3] = or w x\n    z:i32[3] = broadcast_in_dim 0:i32[]\n    ba:i32[3] = jit[\n      name=_where\n      jaxpr={ lambda ; y:bool[3] z:i32[3] p:i32[3]. let\n          ba:i32[3] = select_n y p z\n        in (ba,) }\n    ] y z p\n    bb:f32[3] = jit[name=_where jaxpr=_where] y a s\n  in (bb, ba) } in\nlet _where = { lambda ; bc:bool[3] bd:f32[3] be:f32[3]. let\n    bf:f32[3] = select_n bc be bd\n  in (bf,) } in\n{ lambda ; bg:f32[3]. let\n    bh:f32[3] bi:i32[3] = jit[\n      name=frexp\n      jaxpr={ lambda ; bg:f32[3]. let\n          bh:f32[3] bi:i32[3] = custom_jvp_call[\n            name=_frexp\n            call_jaxpr=jaxpr\n            jvp=_frexp_jvp\n            symbolic_zeros=False\n          ] bg\n        in (bh, bi) }\n    ] bg\n  in (bh, bi) }'


def test_frexp_prints_jaxs_jaxpr():
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(jnp.frexp)(jnp.ones(3))) == FREXP


def test_frexp_values_against_numpy_eager_and_jitted():
    x = np.array([0., -0., 1., 3., 0.75, -5.5, 1e-30, 1e-40, -1e-45, np.inf, -np.inf, np.nan,
                  3.4e38, 1.1754944e-38, 16777215.], np.float32)
    want_m, want_e = np.frexp(x)  # subnormals are kept (chapter 00): NumPy's answer
    for f in (jnp.frexp, minijax.jit(jnp.frexp)):
        m, e = f(x)
        np.testing.assert_array_equal(np.asarray(m), want_m)
        np.testing.assert_array_equal(np.asarray(e), want_e)
        assert m.dtype == np.float32 and e.dtype == np.int32
    m, e = jnp.frexp(np.array([3.0, 0.1], np.float16))
    np.testing.assert_array_equal(np.asarray(m), np.frexp(np.float16([3.0, 0.1]))[0])
    assert m.dtype == np.float16


def test_frexp_derivative_is_the_rules():
    # from JAX 0.10.2: jvp at 3 gives (0.75, 2) and tangent 0.25; grad of the mantissa at 6 is 0.125
    (m, e), (dm, de) = minijax.jvp(jnp.frexp, (jnp.float32(3.0),), (jnp.float32(1.0),))
    assert (float(m), int(e), float(dm)) == (0.75, 2, 0.25)
    assert de.dtype == minijax.dtypes.float0
    assert float(minijax.grad(lambda x: jnp.frexp(x)[0])(6.0)) == 0.125
    m, e = minijax.vmap(jnp.frexp)(jnp.arange(1., 4.))
    assert repr(m) == "Array([0.5 , 0.5 , 0.75], dtype=float32)"
    assert repr(e) == "Array([1, 2, 2], dtype=int32)"
