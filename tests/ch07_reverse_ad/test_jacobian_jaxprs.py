"""The jaxprs of ``jacfwd``, ``jacrev`` and ``hessian`` as JAX prints them: the
basis is ``jnp.eye`` traced into the program, split by leaf (one ``split``,
NumPy integer sizes), reshaped and cast, and the Jacobian split back into
the pytree. Recorded from JAX 0.10.2."""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

# from JAX 0.10.2
EXPECTED = {
    'jacfwd_sin': '{ lambda ; a:f32[3]. let\n    b:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] \n    c:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] \n    d:i32[3,3] = add b 0:i32[]\n    e:bool[3,3] = eq d c\n    f:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] e\n    g:f32[3,3] = split[axis=1 sizes=(np.int64(3),)] f\n    h:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] g\n    _:f32[3] = sin a\n    i:f32[3] = cos a\n    j:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] i\n    k:f32[3,3] = mul h j\n    l:f32[3,3] = transpose[permutation=(1, 0)] k\n    m:f32[3,3] = split[axis=1 sizes=(np.int64(3),)] l\n  in (m,) }',
    'jacrev_sin': '{ lambda ; a:f32[3]. let\n    _:f32[3] = sin a\n    b:f32[3] = cos a\n    c:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] \n    d:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] \n    e:i32[3,3] = add c 0:i32[]\n    f:bool[3,3] = eq e d\n    g:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] f\n    h:f32[3,3] = split[axis=1 sizes=(np.int64(3),)] g\n    i:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] h\n    j:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    k:f32[3,3] = mul i j\n    l:f32[3,3] = split[axis=0 sizes=(np.int64(3),)] k\n  in (l,) }',
    'jacfwd_pytree': '{ lambda ; a:f32[2] b:f32[]. let\n    c:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] \n    d:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] \n    e:i32[3,3] = add c 0:i32[]\n    f:bool[3,3] = eq e d\n    g:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] f\n    h:f32[3,2] i:f32[3,1] = split[axis=1 sizes=(np.int64(2), np.int64(1))] g\n    j:f32[3,2] = convert_element_type[new_dtype=float32 weak_type=False] h\n    k:f32[3] = reshape[dimensions=None new_sizes=(3,) sharding=None] i\n    l:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] k\n    m:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    n:f32[3] = reduce_sum[axes=(np.int64(1),) out_sharding=None] j\n    _:f32[] = mul m b\n    o:f32[3] = mul n b\n    p:f32[3] = mul m l\n    q:f32[3] = add_any o p\n    _:f32[2] = mul a 2.0:f32[]\n    r:f32[3,2] = mul j 2.0:f32[]\n    s:f32[2,3] = transpose[permutation=(1, 0)] r\n    t:f32[2] u:f32[1] = split[axis=0 sizes=(np.int64(2), np.int64(1))] q\n    v:f32[] = reshape[dimensions=None new_sizes=() sharding=None] u\n    w:f32[2,2] x:f32[2,1] = split[axis=1 sizes=(np.int64(2), np.int64(1))] s\n    y:f32[2] = reshape[dimensions=None new_sizes=(2,) sharding=None] x\n  in (t, v, w, y) }',
    'jacrev_pytree': '{ lambda ; a:f32[2] b:f32[]. let\n    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] a\n    _:f32[] = mul c b\n    _:f32[2] = mul a 2.0:f32[]\n    d:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] \n    e:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] \n    f:i32[3,3] = add d 0:i32[]\n    g:bool[3,3] = eq f e\n    h:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] g\n    i:f32[3,1] j:f32[3,2] = split[axis=1 sizes=(np.int64(1), np.int64(2))] h\n    k:f32[3] = reshape[dimensions=None new_sizes=(3,) sharding=None] i\n    l:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] k\n    m:f32[3,2] = convert_element_type[new_dtype=float32 weak_type=False] j\n    n:f32[3,2] = mul m 2.0:f32[]\n    o:f32[3] = mul c l\n    p:f32[3] = mul l b\n    q:f32[3,2] = broadcast_in_dim[broadcast_dimensions=(0,)] p\n    r:f32[3,2] = add_any n q\n    s:f32[1,2] t:f32[2,2] = split[axis=0 sizes=(np.int64(1), np.int64(2))] r\n    u:f32[2] = reshape[dimensions=None new_sizes=(2,) sharding=None] s\n    v:f32[1] w:f32[2] = split[axis=0 sizes=(np.int64(1), np.int64(2))] o\n    x:f32[] = reshape[dimensions=None new_sizes=() sharding=None] v\n  in (u, x, t, w) }',
    'jacfwd_weak_scalar': '{ lambda ; a:f32[]. let\n    b:i32[1,1] = iota[dimension=0 dtype=int32 shape=(1, 1) sharding=None] \n    c:i32[1,1] = iota[dimension=1 dtype=int32 shape=(1, 1) sharding=None] \n    d:i32[1,1] = add b 0:i32[]\n    e:bool[1,1] = eq d c\n    f:f32[1,1] = convert_element_type[new_dtype=float32 weak_type=False] e\n    g:f32[1,1] = split[axis=1 sizes=(np.int64(1),)] f\n    h:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] g\n    i:f32[1] = convert_element_type[new_dtype=float32 weak_type=True] h\n    _:f32[] = sin a\n    j:f32[] = cos a\n    k:f32[1] = mul i j\n    l:f32[1] = split[axis=0 sizes=(np.int64(1),)] k\n    m:f32[] = reshape[dimensions=None new_sizes=() sharding=None] l\n  in (m,) }',
    'jacrev_argnums': '{ lambda ; a:f32[] b:f32[2]. let\n    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n    _:f32[2] = mul c b\n    d:i32[2,2] = iota[dimension=0 dtype=int32 shape=(2, 2) sharding=None] \n    e:i32[2,2] = iota[dimension=1 dtype=int32 shape=(2, 2) sharding=None] \n    f:i32[2,2] = add d 0:i32[]\n    g:bool[2,2] = eq f e\n    h:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] g\n    i:f32[2,2] = split[axis=1 sizes=(np.int64(2),)] h\n    j:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] i\n    k:f32[2,2] = mul c j\n    l:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    m:f32[2,2] = mul j l\n    n:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] m\n    o:f32[2] = convert_element_type[new_dtype=float32 weak_type=True] n\n    p:f32[2] = split[axis=0 sizes=(np.int64(2),)] o\n    q:f32[2,2] = split[axis=0 sizes=(np.int64(2),)] k\n  in (p, q) }',
    'hessian': '{ lambda ; a:f32[2]. let\n    b:i32[2,2] = iota[dimension=0 dtype=int32 shape=(2, 2) sharding=None] \n    c:i32[2,2] = iota[dimension=1 dtype=int32 shape=(2, 2) sharding=None] \n    d:i32[2,2] = add b 0:i32[]\n    e:bool[2,2] = eq d c\n    f:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] e\n    g:f32[2,2] = split[axis=1 sizes=(np.int64(2),)] f\n    h:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] g\n    i:f32[2] = integer_pow[y=3] a\n    j:f32[2] = integer_pow[y=2] a\n    k:f32[2] = mul 3.0:f32[] j\n    l:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] k\n    m:f32[2,2] = mul h l\n    n:f32[2] = integer_pow[y=2] a\n    o:f32[2] = mul 2.0:f32[] a\n    p:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] o\n    q:f32[2,2] = mul h p\n    r:f32[2] = mul 3.0:f32[] n\n    s:f32[2,2] = mul 3.0:f32[] q\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] i\n    _:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] m\n    t:i32[1,1] = iota[dimension=0 dtype=int32 shape=(1, 1) sharding=None] \n    u:i32[1,1] = iota[dimension=1 dtype=int32 shape=(1, 1) sharding=None] \n    v:i32[1,1] = add t 0:i32[]\n    w:bool[1,1] = eq v u\n    x:f32[1,1] = convert_element_type[new_dtype=float32 weak_type=False] w\n    y:f32[1,1] = split[axis=1 sizes=(np.int64(1),)] x\n    z:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] y\n    ba:f32[1] = convert_element_type[new_dtype=float32 weak_type=False] z\n    bb:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(0,)] ba\n    bc:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] r\n    bd:f32[2,1,2] = broadcast_in_dim[broadcast_dimensions=(0, np.int64(2))] s\n    be:f32[1,2] = mul bb bc\n    bf:f32[1,1,2] = broadcast_in_dim[\n      broadcast_dimensions=(np.int64(1), np.int64(2))\n    ] bb\n    bg:f32[2,1,2] = mul bf bd\n    bh:f32[1,2] = split[axis=0 sizes=(np.int64(1),)] be\n    bi:f32[2,1,2] = split[axis=1 sizes=(np.int64(1),)] bg\n    _:f32[2] = reshape[dimensions=None new_sizes=(2,) sharding=None] bh\n    bj:f32[2,2] = reshape[dimensions=None new_sizes=(2, 2) sharding=None] bi\n    bk:f32[2,2] = transpose[permutation=(1, 0)] bj\n    bl:f32[2,2] = split[axis=1 sizes=(np.int64(2),)] bk\n  in (bl,) }',
}


def _f(p):
    return {"s": jnp.sum(p["a"]) * p["b"], "v": p["a"] * 2.0}


def _cases():
    p = {"a": jnp.ones((2,)), "b": jnp.float32(3.0)}
    return {
        "jacfwd_sin": lambda: minijax.make_jaxpr(minijax.jacfwd(jnp.sin))(jnp.ones(3)),
        "jacrev_sin": lambda: minijax.make_jaxpr(minijax.jacrev(jnp.sin))(jnp.ones(3)),
        "jacfwd_pytree": lambda: minijax.make_jaxpr(minijax.jacfwd(_f))(p),
        "jacrev_pytree": lambda: minijax.make_jaxpr(minijax.jacrev(_f))(p),
        "jacfwd_weak_scalar": lambda: minijax.make_jaxpr(minijax.jacfwd(jnp.sin))(1.0),
        "jacrev_argnums": lambda: minijax.make_jaxpr(
            minijax.jacrev(lambda x, y: x * y, argnums=(0, 1)))(1.0, jnp.ones(2)),
        "hessian": lambda: minijax.make_jaxpr(minijax.hessian(lambda x: jnp.sum(x ** 3)))(
            jnp.ones(2)),
    }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_jacobian_jaxprs_print_as_jax(name):
    assert str(_cases()[name]()) == EXPECTED[name]


def test_jacobian_values_of_a_pytree_function():
    p = {"a": np.array([1.0, 2.0], np.float32), "b": np.float32(3.0)}
    for jac in (minijax.jacfwd(_f), minijax.jacrev(_f), minijax.jit(minijax.jacfwd(_f))):
        j = jac(p)
        np.testing.assert_array_equal(np.asarray(j["s"]["a"]), [3.0, 3.0])
        assert float(j["s"]["b"]) == 3.0
        np.testing.assert_array_equal(np.asarray(j["v"]["a"]), 2 * np.eye(2))
        np.testing.assert_array_equal(np.asarray(j["v"]["b"]), [0.0, 0.0])
