"""Printed jaxprs of the control-flow primitives, character for character as JAX's.

The expected strings are ``str(jax.make_jaxpr(f)(*args))`` under JAX 0.10.2.
"""
import numpy as np
import pytest

import minijax
import minijax.control_flow  # noqa: F401  (registers lax.cond, lax.scan...)
import minijax.numpy as jnp
from minijax import lax

w = np.arange(3., dtype=np.float32)

CASES = {
    "cond": (lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), (1.,)),
    "cond_consts": (lambda p, x, y: lax.cond(p, lambda x: x + y, lambda x: x * w, x), (True, w, w)),
    "cond_forwarded": (lambda p, x: lax.cond(p, lambda x: (x, x + 1), lambda x: (x, x * 2), x),
                       (True, 1.)),
    "switch": (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x), (1, 2.)),
    "while": (lambda x: lax.while_loop(lambda c: c < 10, lambda c: c + 1, x), (1,)),
    "while_const_carry": (lambda x, y: lax.while_loop(lambda c: c[0] < 3,
                                                      lambda c: (c[0] + y, c[1]), (x, y)),
                          (1., 2.)),
    "fori_static": (lambda x: lax.fori_loop(0, 5, lambda i, c: c + i, x), (1,)),
    "fori_dynamic": (lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x), (1, 5)),
    "scan": (lambda x: lax.scan(lambda c, x: (c + x, c * 2.), 0., x),
             (np.arange(3., dtype=np.float32),)),
    "scan_consts": (lambda x, y: lax.scan(lambda c, x: (c + y, c * x), x, w), (1., 2.)),
    "scan_forward_xs": (lambda x, y: lax.scan(lambda c, x: (c + y + x, x), x, w), (1., 2.)),
    "map": (lambda x: lax.map(jnp.sin, x), (np.arange(5., dtype=np.float32),)),
    "associative_scan": (lambda x: lax.associative_scan(jnp.add, x),
                         (np.arange(5., dtype=np.float32),)),
    "vmap_cond": (minijax.vmap(lambda x: lax.cond(x > 1.5, lambda x: x * 2, jnp.sin, x)),
                  (np.arange(4., dtype=np.float32),)),
    "vmap_scan": (minijax.vmap(lambda w, xs: lax.scan(lambda c, x: (c * w + x, c), 0., xs)),
                  (np.arange(4., dtype=np.float32), np.ones((4, 3), np.float32))),
    "jvp_cond": (lambda x, t: minijax.jvp(lambda x: lax.cond(x > 1.5, lambda x: x * 2, jnp.sin, x),
                                          (x,), (t,)), (1., 1.)),
    "vmap_while_batched_pred": (
        minijax.vmap(lambda n: lax.while_loop(lambda c: c[0] < n,
                                              lambda c: (c[0] + 1, c[1] * 2.), (0, 1.))),
        (np.arange(3, dtype=np.int32),)),
}

# expected values from JAX 0.10.2
JAXPRS = {
    'cond': '''\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = cos e in (f,) }
        { lambda ; g:f32[]. let h:f32[] = sin g in (h,) }
      )
    ] c a
  in (d,) }''',
    'cond_consts': '''\
{ lambda a:f32[3]; b:bool[] c:f32[3] d:f32[3]. let
    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    f:f32[3] = cond[
      branches=(
        { lambda ; g:f32[3] h:f32[3] i:f32[3]. let j:f32[3] = mul i h in (j,) }
        { lambda ; k:f32[3] l:f32[3] m:f32[3]. let n:f32[3] = add m k in (n,) }
      )
    ] e d a c
  in (f,) }''',
    'cond_forwarded': '''\
{ lambda ; a:bool[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = mul e 2.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }
      )
    ] c b
  in (b, d) }''',
    'switch': '''\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let g:f32[] = sin f in (g,) }
        { lambda ; h:f32[]. let i:f32[] = cos h in (i,) }
        { lambda ; j:f32[]. let k:f32[] = tan j in (k,) }
      )
    ] d b
  in (e,) }''',
    'while': '''\
{ lambda ; a:i32[]. let
    b:i32[] = while[
      body_jaxpr={ lambda ; c:i32[]. let d:i32[] = add c 1:i32[] in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:i32[]. let f:bool[] = lt e 10:i32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }''',
    'while_const_carry': '''\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:f32[] f:f32[]. let
          g:f32[] = add f e
        in (g,) }
      body_nconsts=2
      cond_jaxpr={ lambda ; h:f32[]. let i:bool[] = lt h 3.0:f32[] in (i,) }
      cond_nconsts=0
    ] b b a
  in (c, b) }''',
    'fori_static': '''\
{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=5
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }''',
    'fori_dynamic': '''\
{ lambda ; a:i32[] b:i32[]. let
    _:i32[] _:i32[] c:i32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:i32[]. let
          g:i32[] = add d 1:i32[]
          h:i32[] = add f d
        in (g, e, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:i32[] j:i32[] k:i32[]. let
          l:bool[] = lt i j
        in (l,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }''',
    'scan': '''\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
          h:f32[] = mul d 2.0:f32[]
        in (g, h) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }''',
    'scan_consts': '''\
{ lambda a:f32[3]; b:f32[] c:f32[]. let
    d:f32[] e:f32[3] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:f32[] = add g f
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          k:f32[] = mul j h
        in (i, k) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] c b a
  in (d, e) }''',
    'scan_forward_xs': '''\
{ lambda a:f32[3] b:f32[3]; c:f32[] d:f32[]. let
    e:f32[] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:f32[] = add g f
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] i
          k:f32[] = add j h
        in (k,) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] d c a
  in (e, b) }''',
    'map': '''\
{ lambda ; a:f32[5]. let
    b:f32[5] = scan[
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      length=5
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }''',
    'associative_scan': '''\
{ lambda ; a:f32[5]. let
    b:f32[2] = slice[limit_indices=(4,) start_indices=(0,) strides=(2,)] a
    c:f32[2] = slice[limit_indices=(5,) start_indices=(1,) strides=(2,)] a
    d:f32[2] = add b c
    e:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(2,)] d
    f:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(2,)] d
    g:f32[1] = add e f
    h:f32[0] = slice[limit_indices=(0,) start_indices=(0,) strides=(1,)] g
    i:f32[0] = slice[limit_indices=(2,) start_indices=(2,) strides=(2,)] d
    j:f32[0] = add h i
    k:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] d
    l:f32[1] = concatenate[dimension=0] k j
    m:f32[2] = pad[padding_config=((0, 1, 1),)] l 0.0:f32[]
    n:f32[2] = pad[padding_config=((1, 0, 1),)] g 0.0:f32[]
    o:f32[2] = add m n
    p:f32[2] = slice[limit_indices=(5,) start_indices=(2,) strides=(2,)] a
    q:f32[2] = add o p
    r:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] a
    s:f32[3] = concatenate[dimension=0] r q
    t:f32[5] = pad[padding_config=((0, 0, 1),)] s 0.0:f32[]
    u:f32[5] = pad[padding_config=((1, 1, 1),)] o 0.0:f32[]
    v:f32[5] = add t u
  in (v,) }''',
    'vmap_cond': '''\
{ lambda ; a:f32[4]. let
    b:bool[4] = gt a 1.5:f32[]
    c:i32[4] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:bool[4] = eq c 0:i32[]
    e:f32[4] = stop_gradient a
    f:f32[4] = select_n d e a
    g:f32[4] = sin f
    h:bool[4] = eq c 1:i32[]
    i:f32[4] = stop_gradient a
    j:f32[4] = select_n h i a
    k:f32[4] = mul j 2.0:f32[]
    l:f32[4] = select_n c g k
  in (l,) }''',
    'vmap_scan': '''\
{ lambda ; a:f32[4] b:f32[4,3]. let
    c:f32[4] = broadcast_in_dim 0.0:f32[]
    d:f32[3,4] = transpose[permutation=(1, 0)] b
    e:f32[4] f:f32[3,4] = scan[
      jaxpr={ lambda ; g:f32[4] h:f32[4] i:f32[4]. let
          j:f32[4] = convert_element_type[new_dtype=float32 weak_type=False] h
          k:f32[4] = mul j g
          l:f32[4] = add k i
        in (l, h) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a c d
    m:f32[4,3] = transpose[permutation=(1, 0)] f
  in (e, m) }''',
    'jvp_cond': '''\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = gt a 1.5:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] f:f32[] = cond[
      branches=(
        { lambda ; g:f32[] h:f32[]. let
            i:f32[] = sin g
            j:f32[] = cos g
            k:f32[] = mul h j
          in (i, k) }
        { lambda ; l:f32[] m:f32[]. let
            n:f32[] = mul l 2.0:f32[]
            o:f32[] = mul m 2.0:f32[]
          in (n, o) }
      )
    ] d a b
  in (e, f) }''',
    'vmap_while_batched_pred': '''\
{ lambda ; a:i32[3]. let
    b:i32[3] = broadcast_in_dim 0:i32[]
    c:f32[3] = broadcast_in_dim 1.0:f32[]
    d:i32[3] e:f32[3] = while[
      body_jaxpr={ lambda ; f:i32[3] g:f32[3]. let
          h:i32[3] = add f 1:i32[]
          i:f32[3] = mul g 2.0:f32[]
        in (h, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[3] k:i32[3] l:f32[3]. let
          m:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] k
          n:bool[3] = lt m j
        in (n,) }
      cond_nconsts=1
    ] a b c
  in (d, e) }''',
}


@pytest.mark.parametrize("name", list(CASES))
def test_printed_jaxpr_matches_jax(name):
    f, args = CASES[name]
    assert str(minijax.make_jaxpr(f)(*args)) == JAXPRS[name]
