"""``jnp.var`` and ``jnp.std`` as JAX writes them: inner ``jit`` s ``_std`` and
``_var`` whose ``correction`` (``ddof``) is a traced argument, and a complex
array's variance real. Printed jaxprs and values from JAX 0.10.2."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

STD_DDOF1 = 'let _var = { lambda ; a:f32[3] b:i32[]. let\n    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    d:f32[1] = broadcast_in_dim c\n    e:f32[1] = div d 3.0:f32[]\n    f:f32[3] = sub a e\n    g:f32[3] = square f\n    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    i:f32[] = sub 3.0:f32[] h\n    j:f32[] = reduce_sum[axes=(0,) out_sharding=None] g\n    k:f32[] = div j i\n    l:bool[] = gt i 0.0:f32[]\n    m:f32[] = jit[\n      name=_where\n      jaxpr={ lambda ; l:bool[] k:f32[] n:f32[]. let\n          o:f32[] = convert_element_type[new_dtype=float32 weak_type=False] n\n          m:f32[] = select_n l o k\n        in (m,) }\n    ] l k nan:f32[]\n  in (m,) } in\n{ lambda ; p:f32[3]. let\n    q:f32[] = jit[\n      name=_std\n      jaxpr={ lambda ; p:f32[3] r:i32[]. let\n          s:f32[] = jit[name=_var jaxpr=_var] p r\n          q:f32[] = sqrt s\n        in (q,) }\n    ] p 1:i32[]\n  in (q,) }'

VAR_CORRECTION = 'let _var = { lambda ; a:f32[3,2] b:f32[]. let\n    c:f32[2] = reduce_sum[axes=(0,) out_sharding=None] a\n    d:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n    e:f32[1,2] = div d 3.0:f32[]\n    f:f32[3,2] = sub a e\n    g:f32[3,2] = square f\n    h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    i:f32[] = sub 3.0:f32[] h\n    j:f32[2] = reduce_sum[axes=(0,) out_sharding=None] g\n    k:f32[2] = div j i\n    l:bool[] = gt i 0.0:f32[]\n    m:f32[2] = jit[\n      name=_where\n      jaxpr={ lambda ; l:bool[] k:f32[2] n:f32[]. let\n          o:f32[] = convert_element_type[new_dtype=float32 weak_type=False] n\n          p:f32[2] = broadcast_in_dim o\n          m:f32[2] = select_n l p k\n        in (m,) }\n    ] l k nan:f32[]\n  in (m,) } in\n{ lambda ; q:f32[3,2]. let\n    r:f32[2] = jit[name=_var jaxpr=_var] q 1.5:f32[]\n  in (r,) }'

COMPLEX_VAR = 'let _var = { lambda ; a:c64[3] b:i32[]. let\n    c:c64[] = reduce_sum[axes=(0,) out_sharding=None] a\n    d:c64[1] = broadcast_in_dim c\n    e:c64[1] = div d (3+0j):c64[]\n    f:c64[3] = sub a e\n    g:c64[3] = conj[input_dtype=complex64] f\n    h:c64[3] = mul f g\n    i:f32[3] = real h\n    j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    k:f32[] = sub 3.0:f32[] j\n    l:f32[] = reduce_sum[axes=(0,) out_sharding=None] i\n    m:f32[] = div l k\n    n:bool[] = gt k 0.0:f32[]\n    o:f32[] = jit[\n      name=_where\n      jaxpr={ lambda ; n:bool[] m:f32[] p:f32[]. let\n          q:f32[] = convert_element_type[new_dtype=float32 weak_type=False] p\n          o:f32[] = select_n n q m\n        in (o,) }\n    ] n m nan:f32[]\n  in (o,) } in\n{ lambda ; r:c64[3]. let s:f32[] = jit[name=_var jaxpr=_var] r 0:i32[] in (s,) }'


def test_std_with_ddof_prints_jaxs_inner_jits():
    # from JAX 0.10.2
    assert str(minijax.make_jaxpr(lambda x: jnp.std(x, ddof=1))(jnp.ones(3))) == STD_DDOF1


def test_var_correction_is_a_traced_argument():
    # from JAX 0.10.2
    got = minijax.make_jaxpr(lambda x: jnp.var(x, axis=0, correction=1.5))(jnp.ones((3, 2)))
    assert str(got) == VAR_CORRECTION


def test_complex_variance_is_real():
    z = jnp.array([1 + 2j, 3 - 1j, 0.5j])
    # from JAX 0.10.2: Array(3.0555556, dtype=float32) Array(1.7480148, dtype=float32) Array(3.0555556+0.j, dtype=complex64)
    assert repr(jnp.var(z)) == "Array(3.0555556, dtype=float32)"
    assert repr(jnp.std(z, axis=0)) == "Array(1.7480148, dtype=float32)"
    assert repr(jnp.var(z, dtype=jnp.complex64)) == "Array(3.0555556+0.j, dtype=complex64)"
    assert str(minijax.make_jaxpr(jnp.var)(z)) == COMPLEX_VAR
    zs = np.array([1 + 2j, 3 - 1j, 0.5j], np.complex64)
    np.testing.assert_allclose(np.asarray(minijax.jit(jnp.var)(zs)), np.var(zs), rtol=1e-6)


def test_ddof_and_correction_together_and_real_dtype_of_complex_are_errors():
    x = jnp.arange(4.0)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        jnp.var(x, ddof=1, correction=1)
    with pytest.raises(ValueError, match="real dtype parameters"):
        jnp.var(jnp.array([1j]), dtype=jnp.float32)


def test_values_against_numpy():
    x = np.array([[1, 3, 4, 2], [4, 2, 5, 3], [5, 4, 2, 3]], np.float32)
    for kw in ({}, {"axis": 0}, {"axis": 1, "ddof": 1}, {"axis": 0, "keepdims": True}):
        np.testing.assert_allclose(np.asarray(jnp.var(x, **kw)), np.var(x, **kw), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(jnp.std(x, **kw)), np.std(x, **kw), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(minijax.jit(lambda x: jnp.var(x, **kw))(x)),
                                   np.var(x, **kw), rtol=1e-6)
