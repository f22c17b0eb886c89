"""The order of ``einsum``'s contractions (issue 19: ``jnp.einsum_path``,
``linalg.multi_dot``): the paths opt_einsum finds for JAX, the printed
``PathInfo`` table, and the jaxprs that follow the path (pairs popped highest
position first, contracted labels in sorted order). Expected values:
# from JAX 0.10.2."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.numpy.einsum_paths import flop_count

X, Y, Z = np.arange(6.).reshape(2, 3), np.arange(300.).reshape(3, 100) % 7, np.arange(500.).reshape(100, 5) % 5
CHAIN6 = [np.ones(sh, np.float32) for sh in [(2, 30), (30, 4), (4, 50), (50, 3), (3, 7), (7, 2)]]


# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('path_optimal',
     lambda: jnp.einsum_path('ij,jk,kl', X, Y, Z, optimize='optimal')[0],
     '[(1, 2), (0, 1)]'),
    ('path_info_optimal',
     lambda: str(jnp.einsum_path('ij,jk,kl', X, Y, Z, optimize='optimal')[1]),
     "'  Complete contraction:  ij,jk,kl->il\\n         Naive scaling:  4\\n     Optimized scaling:  3\\n      Naive FLOP count:  9.000e+3\\n  Optimized FLOP count:  3.060e+3\\n   Theoretical speedup:  2.941e+0\\n  Largest intermediate:  1.500e+1 elements\\n--------------------------------------------------------------------------------\\nscaling        BLAS                current                             remaining\\n--------------------------------------------------------------------------------\\n   3           GEMM              kl,jk->lj                             ij,lj->il\\n   3           GEMM              lj,ij->il                                il->il'"),
    ('path_unoptimized',
     lambda: jnp.einsum_path('ij,jk,kl', X, Y, Z, optimize=False)[0],
     '[(0, 1), (0, 1)]'),
    ('path_info_four',
     lambda: str(jnp.einsum_path('abc,cbd,de,ea->', np.ones((2, 3, 4)), np.ones((4, 3, 5)), np.ones((5, 2)), np.ones((2, 2)))[1]),
     "'  Complete contraction:  abc,cbd,de,ea->\\n         Naive scaling:  5\\n     Optimized scaling:  4\\n      Naive FLOP count:  9.600e+2\\n  Optimized FLOP count:  2.880e+2\\n   Theoretical speedup:  3.333e+0\\n  Largest intermediate:  1.000e+1 elements\\n--------------------------------------------------------------------------------\\nscaling        BLAS                current                             remaining\\n--------------------------------------------------------------------------------\\n   4           TDOT            cbd,abc->da                            de,ea,da->\\n   3           GEMM              da,de->ae                               ea,ae->\\n   2     DOT/EINSUM                ae,ea->                                    ->'"),
    ('path_info_repeat',
     lambda: str(jnp.einsum_path('iij,jk->ik', np.ones((3, 3, 4)), np.ones((4, 2)))[1]),
     "'  Complete contraction:  iij,jk->ik\\n         Naive scaling:  3\\n     Optimized scaling:  3\\n      Naive FLOP count:  4.800e+1\\n  Optimized FLOP count:  4.800e+1\\n   Theoretical speedup:  1.000e+0\\n  Largest intermediate:  6.000e+0 elements\\n--------------------------------------------------------------------------------\\nscaling        BLAS                current                             remaining\\n--------------------------------------------------------------------------------\\n   3              0             jk,iij->ik                                ik->ik'"),
    ('path_info_outer',
     lambda: str(jnp.einsum_path('ij,kl->ijkl', np.ones((2, 3)), np.ones((4, 5)))[1]),
     "'  Complete contraction:  ij,kl->ijkl\\n         Naive scaling:  4\\n     Optimized scaling:  4\\n      Naive FLOP count:  1.200e+2\\n  Optimized FLOP count:  1.200e+2\\n   Theoretical speedup:  1.000e+0\\n  Largest intermediate:  1.200e+2 elements\\n--------------------------------------------------------------------------------\\nscaling        BLAS                current                             remaining\\n--------------------------------------------------------------------------------\\n   4   OUTER/EINSUM            kl,ij->ijkl                            ijkl->ijkl'"),
    ('path_info_batch',
     lambda: str(jnp.einsum_path('bij,bjk,bkl->bil', np.ones((2, 3, 4)), np.ones((2, 4, 50)), np.ones((2, 50, 3)))[1]),
     "'  Complete contraction:  bij,bjk,bkl->bil\\n         Naive scaling:  5\\n     Optimized scaling:  4\\n      Naive FLOP count:  1.080e+4\\n  Optimized FLOP count:  2.544e+3\\n   Theoretical speedup:  4.245e+0\\n  Largest intermediate:  2.400e+1 elements\\n--------------------------------------------------------------------------------\\nscaling        BLAS                current                             remaining\\n--------------------------------------------------------------------------------\\n   4              0           bkl,bjk->blj                          bij,blj->bil\\n   4              0           blj,bij->bil                              bil->bil'"),
    ('path_chain6',
     lambda: jnp.einsum_path('ab,bc,cd,de,ef,fg->ag', *CHAIN6)[0],
     '[(2, 3), (0, 1), (0, 1), (0, 1), (0, 1)]'),
    ('einsum_with_path',
     lambda: jnp.einsum('ij,jk,kl', X, Y, Z, optimize=[(1, 2), (0, 1)]),
     'Array([[    0.,   905.,  1810.,  2715.,  3620.],\n       [    0.,  3596.,  7192., 10788., 14384.]], dtype=float32)'),
    ('jaxpr_chain3',
     lambda: str(jax.make_jaxpr(lambda a, b, c: jnp.einsum('ij,jk,kl->il', a, b, c))(X, Y, Z)),
     "'{ lambda ; a:f32[2,3] b:f32[3,100] c:f32[100,5]. let\\n    d:f32[5,3] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] c b\\n    e:f32[2,5] = dot_general[\\n      dimension_numbers=(([1], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] a d\\n  in (e,) }'"),
    ('jaxpr_chain3_unoptimized',
     lambda: str(jax.make_jaxpr(lambda a, b, c: jnp.einsum('ij,jk,kl->il', a, b, c, optimize=False))(X, Y, Z)),
     "'{ lambda ; a:f32[2,3] b:f32[3,100] c:f32[100,5]. let\\n    d:f32[100,2] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] b a\\n    e:f32[2,5] = dot_general[\\n      dimension_numbers=(([0], [0]), ([], []))\\n      preferred_element_type=float32\\n    ] d c\\n  in (e,) }'"),
    ('jaxpr_sorted_contraction',
     lambda: str(jax.make_jaxpr(lambda a, b: jnp.einsum('ba,ab->', a, b))(X, X.T)),
     "'{ lambda ; a:f32[2,3] b:f32[3,2]. let\\n    c:f32[] = dot_general[\\n      dimension_numbers=(([1, 0], [0, 1]), ([], []))\\n      preferred_element_type=float32\\n    ] a b\\n  in (c,) }'"),
    ('jaxpr_chain6',
     lambda: str(jax.make_jaxpr(lambda *o: jnp.einsum('ab,bc,cd,de,ef,fg->ag', *o))(*CHAIN6)),
     "'{ lambda ; a:f32[2,30] b:f32[30,4] c:f32[4,50] d:f32[50,3] e:f32[3,7] f:f32[7,2]. let\\n    g:f32[3,4] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] d c\\n    h:f32[4,2] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] b a\\n    i:f32[2,3] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] f e\\n    j:f32[2,3] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] h g\\n    k:f32[2,2] = dot_general[\\n      dimension_numbers=(([1], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] j i\\n  in (k,) }'"),
    ('jaxpr_multi_dot',
     lambda: str(jax.make_jaxpr(jnp.linalg.multi_dot)([np.ones((200, 5), np.float32), np.ones((5, 100), np.float32), np.ones((100, 10), np.float32)])),
     "'{ lambda ; a:f32[200,5] b:f32[5,100] c:f32[100,10]. let\\n    d:f32[10,5] = dot_general[\\n      dimension_numbers=(([0], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] c b\\n    e:f32[200,10] = dot_general[\\n      dimension_numbers=(([1], [1]), ([], []))\\n      preferred_element_type=float32\\n    ] a d\\n  in (e,) }'"),
    ('jaxpr_multi_dot_vectors',
     lambda: str(jax.make_jaxpr(jnp.linalg.multi_dot)([np.ones(5, np.float32), np.ones((5, 100), np.float32), np.ones(100, np.float32)])),
     "'{ lambda ; a:f32[5] b:f32[5,100] c:f32[100]. let\\n    d:f32[5] = dot_general[\\n      dimension_numbers=(([1], [0]), ([], []))\\n      preferred_element_type=float32\\n    ] b c\\n    e:f32[] = dot_general[\\n      dimension_numbers=(([0], [0]), ([], []))\\n      preferred_element_type=float32\\n    ] a d\\n  in (e,) }'"),
    ('multi_dot_value',
     lambda: jnp.linalg.multi_dot([jnp.arange(6).reshape(2, 3), jnp.arange(12).reshape(3, 4), jnp.arange(8).reshape(4, 2), jnp.arange(4).reshape(2, 2)]),
     'Array([[ 844, 1590],\n       [2608, 4920]], dtype=int32)'),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    assert repr(make()) == jax_repr


def test_flop_count_as_opt_einsum_documents_it():
    sizes = {"a": 2, "b": 3, "c": 5}
    assert flop_count("abc", False, 1, sizes) == 30  # opt_einsum's docstring examples
    assert flop_count("abc", True, 2, sizes) == 60


def test_the_cheaper_order_is_chosen():
    """``x @ (y @ z)`` costs 15,000 multiply-adds here, ``(x @ y) @ z`` 300,000."""
    x, y, z = np.ones((200, 5)), np.ones((5, 100)), np.ones((100, 10))
    path, info = jnp.einsum_path("ij,jk,kl->il", x, y, z)
    assert path == [(1, 2), (0, 1)]
    assert info.opt_cost < info.naive_cost
    np.testing.assert_allclose(np.asarray(jnp.linalg.multi_dot([x, y, z])), x @ y @ z)


def test_three_operands_at_once_is_refused():
    with pytest.raises(NotImplementedError, match="3 or more"):
        jnp.einsum("ij,jk,kl", X, Y, Z, optimize=[(0, 1, 2)])


def test_ellipsis_letters_as_opt_einsum_picks_them():
    """``...`` takes the last of as many spare letters as the largest rank has (which
    also fixes the order of contracted labels in the jaxpr)."""
    info = jnp.einsum_path("ij...,jk...->ik", np.ones((2, 3, 4, 5)), np.ones((3, 2, 4, 5)))[1]
    assert str(info) == '  Complete contraction:  ijcd,jkcd->ik\n         Naive scaling:  5\n     Optimized scaling:  5\n      Naive FLOP count:  4.800e+2\n  Optimized FLOP count:  4.800e+2\n   Theoretical speedup:  1.000e+0\n  Largest intermediate:  4.000e+0 elements\n--------------------------------------------------------------------------------\nscaling        BLAS                current                             remaining\n--------------------------------------------------------------------------------\n   5           TDOT          jkcd,ijcd->ik                                ik->ik'  # from JAX 0.10.2


#: (subscripts, operand shapes, the path opt_einsum chose for JAX 0.10.2's einsum): 5 to
#: 8 operands use its branch-and-bound searches, 9-14 branch-1, and 16 its greedy one
AUTO_PATHS = [  # from JAX 0.10.2 (opt_einsum.contract_path)
    ('ge,de,bge,fe,a->g', [(7, 2), (2, 2), (5, 7, 2), (7, 2), (7,)], [(1, 3), (0, 3), (0, 2), (0, 1)]),
    ('efb,aeg,a,b,adc,eb->d', [(2, 7, 5), (3, 2, 5), (3,), (5,), (3, 2, 7), (2, 5)], [(0, 3), (1, 2), (1, 2), (0, 2), (0, 1)]),
    ('gac,gb,caf,gad,g,da,g->d', [(7, 2, 3), (7, 3), (3, 2, 7), (7, 2, 2), (7,), (2, 2), (7,)], [(2, 5), (0, 5), (1, 4), (0, 1), (0, 2), (0, 1)]),
    ('e,bfc,ac,ad,b,f,a,d->f', [(3,), (3, 3, 3), (7, 3), (7, 7), (3,), (3,), (7,), (7,)], [(2, 6), (2, 5), (1, 2), (2, 3), (1, 2), (0, 1), (0, 1)]),
    ('ad,ba,ge,ab,d,fea,b,d,ae->f', [(5, 2), (5, 5), (3, 2), (5, 5), (2,), (2, 2, 5), (5,), (2,), (5, 2)], [(1, 3), (4, 7), (3, 5), (1, 5), (0, 3), (2, 3), (0, 1), (0, 1)]),
    ('bae,ce,be,ge,g,bf,c,g,bfg,f,ebd,ea->f', [(2, 7, 2), (2, 2), (2, 2), (3, 2), (3,), (2, 5), (2,), (3,), (2, 5, 3), (5,), (2, 2, 2), (2, 7)], [(0, 11), (4, 7), (1, 7), (5, 7), (5, 6), (0, 3), (1, 2), (0, 4), (0, 3), (0, 2), (0, 1)]),
    ('dcg,dce,f,b,d,feg,c,b,agc,db,a,c,eg,a,bd,fg->a', [(7, 2, 2), (7, 2, 5), (5,), (2,), (7,), (5, 5, 2), (2,), (2,), (3, 2, 2), (7, 2), (3,), (2,), (5, 2), (3,), (2, 7), (5, 2)], [(3, 7), (5, 9), (7, 9), (6, 8), (4, 6), (5, 10), (2, 9), (1, 8), (0, 7), (2, 5), (0, 5), (3, 4), (0, 3), (0, 2), (0, 1)]),
]


@pytest.mark.parametrize("subscripts,shapes,jax_path", AUTO_PATHS)
def test_auto_path_as_opt_einsum(subscripts, shapes, jax_path):
    operands = [np.ones(shape, np.float32) for shape in shapes]
    assert jnp.einsum_path(subscripts, *operands)[0] == jax_path
