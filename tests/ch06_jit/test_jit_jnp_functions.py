"""Chapter 06 — jnp functions that JAX runs under an inner ``jit`` print as JAX's.

JAX 0.10 implements many ``jax.numpy`` and ``jax.nn`` functions as jitted
functions (``jnp.where`` is ``jit(_where)``), so a traced program shows
``jit[name=_where jaxpr={ ... }]``. Chapter 00 marks those functions with
``@jnp_jit(name, static_argnames=...)``; chapter 06 installs the real inner
``jit``. Eager calls skip it (same values, no tracing cost), as do traces
that do not record a jaxpr.
"""
import numpy as np
import pytest

import minijax.nn as nn
import minijax.numpy as jnp
from minijax.core import Trace, Tracer, find_cur_trace, get_aval, set_current_trace
from minijax.interpreters.ad import jvp
from minijax.interpreters.batching import vmap
from minijax.interpreters.partial_eval import make_jaxpr
from minijax.jaxpr import jaxpr_as_fun
from minijax.jit import jit


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


X3 = np.array([0.5, -1.0, 2.0], np.float32)
M33 = np.arange(9, dtype=np.float32).reshape(3, 3)
I3 = np.array([1, 2, 0], np.int32)

# expected values from JAX 0.10.2
CASES = [
    ('selu', lambda: make_jaxpr(selu)(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:bool[3] = gt a 0.0:f32[]\n'
     '    c:f32[3] = exp a\n'
     '    d:f32[3] = mul 1.6699999570846558:f32[] c\n'
     '    e:f32[3] = sub d 1.6699999570846558:f32[]\n'
     '    f:f32[3] = jit[\n'
     '      name=_where\n'
     '      jaxpr={ lambda ; b:bool[3] a:f32[3] e:f32[3]. let\n'
     '          f:f32[3] = select_n b e a\n'
     '        in (f,) }\n'
     '    ] b a e\n'
     '    g:f32[3] = mul 1.0499999523162842:f32[] f\n'
     '  in (g,) }'),
    ('jit_selu', lambda: make_jaxpr(jit(selu))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=selu\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:bool[3] = gt a 0.0:f32[]\n'
     '          d:f32[3] = exp a\n'
     '          e:f32[3] = mul 1.6699999570846558:f32[] d\n'
     '          f:f32[3] = sub e 1.6699999570846558:f32[]\n'
     '          g:f32[3] = jit[\n'
     '            name=_where\n'
     '            jaxpr={ lambda ; c:bool[3] a:f32[3] f:f32[3]. let\n'
     '                g:f32[3] = select_n c f a\n'
     '              in (g,) }\n'
     '          ] c a f\n'
     '          b:f32[3] = mul 1.0499999523162842:f32[] g\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('jvp_clip', lambda: make_jaxpr(lambda x: jvp(lambda y: jnp.clip(y, 0., 1.), (x,), (x,)))(X3),
     'let clip = { lambda ; a:f32[3] b:f32[] c:f32[] d:f32[3]. let\n'
     '    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
     '    f:f32[3] = max e a\n'
     '    g:bool[3] = eq a f\n'
     '    h:f32[3] = broadcast_in_dim 1.0:f32[]\n'
     '    i:f32[3] = broadcast_in_dim 0.0:f32[]\n'
     '    j:f32[3] = select_n g i h\n'
     '    k:bool[3] = eq e f\n'
     '    l:f32[3] = broadcast_in_dim 2.0:f32[]\n'
     '    m:f32[3] = broadcast_in_dim 1.0:f32[]\n'
     '    n:f32[3] = select_n k m l\n'
     '    o:f32[3] = div j n\n'
     '    p:f32[3] = mul d o\n'
     '    q:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
     '    r:f32[3] = min q f\n'
     '    s:bool[3] = eq f r\n'
     '    t:f32[3] = broadcast_in_dim 1.0:f32[]\n'
     '    u:f32[3] = broadcast_in_dim 0.0:f32[]\n'
     '    v:f32[3] = select_n s u t\n'
     '    w:bool[3] = eq q r\n'
     '    x:f32[3] = broadcast_in_dim 2.0:f32[]\n'
     '    y:f32[3] = broadcast_in_dim 1.0:f32[]\n'
     '    z:f32[3] = select_n w y x\n'
     '    ba:f32[3] = div v z\n'
     '    bb:f32[3] = mul p ba\n'
     '  in (r, bb) } in\n'
     '{ lambda ; bc:f32[3]. let\n'
     '    bd:f32[3] be:f32[3] = jit[name=clip jaxpr=clip] bc 0.0:f32[] 1.0:f32[] bc\n'
     '  in (bd, be) }'),
    ('jvp_cumsum_flip', lambda: make_jaxpr(lambda x: jvp(lambda y: jnp.cumsum(jnp.flip(y)), (x,), (x,)))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] c:f32[3] = jit[\n'
     '      name=_flip\n'
     '      jaxpr={ lambda ; a:f32[3] d:f32[3]. let\n'
     '          b:f32[3] = rev[dimensions=(0,)] a\n'
     '          c:f32[3] = rev[dimensions=(0,)] d\n'
     '        in (b, c) }\n'
     '    ] a a\n'
     '    e:f32[3] f:f32[3] = jit[\n'
     '      name=cumsum\n'
     '      jaxpr={ lambda ; b:f32[3] c:f32[3]. let\n'
     '          e:f32[3] = cumsum[axis=0 reverse=False] b\n'
     '          f:f32[3] = cumsum[axis=0 reverse=False] c\n'
     '        in (e, f) }\n'
     '    ] b c\n'
     '  in (e, f) }'),
    ('vmap_selu', lambda: make_jaxpr(vmap(selu))(M33),
     '{ lambda ; a:f32[3,3]. let\n'
     '    b:bool[3,3] = gt a 0.0:f32[]\n'
     '    c:f32[3,3] = exp a\n'
     '    d:f32[3,3] = mul 1.6699999570846558:f32[] c\n'
     '    e:f32[3,3] = sub d 1.6699999570846558:f32[]\n'
     '    f:f32[3,3] = jit[\n'
     '      name=_where\n'
     '      jaxpr={ lambda ; b:bool[3,3] a:f32[3,3] e:f32[3,3]. let\n'
     '          f:f32[3,3] = select_n b e a\n'
     '        in (f,) }\n'
     '    ] b a e\n'
     '    g:f32[3,3] = mul 1.0499999523162842:f32[] f\n'
     '  in (g,) }'),
    ('clip', lambda: make_jaxpr(lambda x: jnp.clip(x, 0., 1.))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=clip\n'
     '      jaxpr={ lambda ; a:f32[3] c:f32[] d:f32[]. let\n'
     '          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
     '          f:f32[3] = max e a\n'
     '          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
     '          b:f32[3] = min g f\n'
     '        in (b,) }\n'
     '    ] a 0.0:f32[] 1.0:f32[]\n'
     '  in (b,) }'),
    ('clip_max_only', lambda: make_jaxpr(lambda x: jnp.clip(x, max=1.))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=clip\n'
     '      jaxpr={ lambda ; a:f32[3] c:f32[]. let\n'
     '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
     '          b:f32[3] = min d a\n'
     '        in (b,) }\n'
     '    ] a 1.0:f32[]\n'
     '  in (b,) }'),
    ('sort_argsort', lambda: make_jaxpr(lambda x: (jnp.sort(x), jnp.argsort(x)))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=sort\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          b:f32[3] = sort[dimension=0 is_stable=True num_keys=1] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    c:i32[3] = jit[\n'
     '      name=argsort\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          d:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n'
     '          e:f32[3] c:i32[3] = sort[dimension=0 is_stable=True num_keys=1] a d\n'
     '        in (c,) }\n'
     '    ] a\n'
     '  in (b, c) }'),
    ('cumsum_cumprod', lambda: make_jaxpr(lambda m: (jnp.cumsum(m, axis=1), jnp.cumprod(m)))(M33),
     '{ lambda ; a:f32[3,3]. let\n'
     '    b:f32[3,3] = jit[\n'
     '      name=cumsum\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          b:f32[3,3] = cumsum[axis=1 reverse=False] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    c:f32[9] = jit[\n'
     '      name=cumprod\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          d:f32[9] = reshape[dimensions=None new_sizes=(9,) sharding=None] a\n'
     '          c:f32[9] = cumprod[axis=0 reverse=False] d\n'
     '        in (c,) }\n'
     '    ] a\n'
     '  in (b, c) }'),
    ('floor_divide_remainder', lambda: make_jaxpr(lambda x: (jnp.floor_divide(x, 2.), x % 2.))(X3),
     'let floor_divide = { lambda ; a:f32[3] b:f32[]. let\n'
     '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
     '    d:f32[3] = rem a c\n'
     '    e:bool[] = eq c 0.0:f32[]\n'
     '    f:f32[3] = sub a d\n'
     '    g:f32[3] = jit[\n'
     '      name=_where\n'
     '      jaxpr={ lambda ; e:bool[] a:f32[3] f:f32[3]. let\n'
     '          g:f32[3] = select_n e f a\n'
     '        in (g,) }\n'
     '    ] e a f\n'
     '    h:f32[3] = div g c\n'
     '    i:bool[3] = ne d 0.0:f32[]\n'
     '    j:f32[] = sign c\n'
     '    k:f32[3] = sign d\n'
     '    l:bool[3] = ne j k\n'
     '    m:bool[3] = and i l\n'
     '    n:f32[3] = add d c\n'
     '    o:f32[3] = select_n m d n\n'
     '    p:f32[3] = sub h 1.0:f32[]\n'
     '    q:f32[3] = select_n m h p\n'
     '    r:f32[3] = round[rounding_method=0] q\n'
     '  in (r,) } in\n'
     '{ lambda ; s:f32[3]. let\n'
     '    t:f32[3] = jit[name=floor_divide jaxpr=floor_divide] s 2.0:f32[]\n'
     '    u:f32[3] = jit[\n'
     '      name=remainder\n'
     '      jaxpr={ lambda ; s:f32[3] v:f32[]. let\n'
     '          w:f32[] = convert_element_type[new_dtype=float32 weak_type=False] v\n'
     '          x:f32[3] = rem s w\n'
     '          y:bool[3] = ne x 0.0:f32[]\n'
     '          z:bool[3] = lt x 0.0:f32[]\n'
     '          ba:bool[] = lt w 0.0:f32[]\n'
     '          bb:bool[3] = ne z ba\n'
     '          bc:bool[3] = and bb y\n'
     '          bd:f32[3] = add x w\n'
     '          u:f32[3] = select_n bc x bd\n'
     '        in (u,) }\n'
     '    ] s 2.0:f32[]\n'
     '  in (t, u) }'),
    ('round_decimals', lambda: make_jaxpr(lambda x: jnp.round(x, 2))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=round\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:f32[3] = mul a 100.0:f32[]\n'
     '          d:f32[3] = round[rounding_method=1] c\n'
     '          b:f32[3] = div d 100.0:f32[]\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('isclose_allclose', lambda: make_jaxpr(lambda x: (jnp.isclose(x, x), jnp.allclose(x, x)))(X3),
     'let isclose = { lambda ; a:f32[3] b:f32[3]. let\n'
     '    c:bool[3] = ne a a\n'
     '    d:bool[3] = ne b b\n'
     '    e:bool[3] = and c d\n'
     '    f:bool[3] = is_finite b\n'
     '    g:f32[3] = sub a b\n'
     '    h:f32[3] = abs g\n'
     '    i:f32[3] = abs b\n'
     '    j:f32[3] = mul 9.999999747378752e-06:f32[] i\n'
     '    k:f32[3] = add 9.99999993922529e-09:f32[] j\n'
     '    l:bool[3] = le h k\n'
     '    m:bool[3] = eq a b\n'
     '    n:bool[3] = and f l\n'
     '    o:bool[3] = or m n\n'
     '  in (o,) } in\n'
     'let isclose1 = { lambda ; p:f32[3] q:f32[3] r:f32[] s:f32[]. let\n'
     '    t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] r\n'
     '    u:f32[] = convert_element_type[new_dtype=float32 weak_type=False] s\n'
     '    v:bool[3] = ne p p\n'
     '    w:bool[3] = ne q q\n'
     '    x:bool[3] = and v w\n'
     '    y:bool[3] = is_finite q\n'
     '    z:f32[3] = sub p q\n'
     '    ba:f32[3] = abs z\n'
     '    bb:f32[3] = abs q\n'
     '    bc:f32[3] = mul t bb\n'
     '    bd:f32[3] = add u bc\n'
     '    be:bool[3] = le ba bd\n'
     '    bf:bool[3] = eq p q\n'
     '    bg:bool[3] = and y be\n'
     '    bh:bool[3] = or bf bg\n'
     '  in (bh,) } in\n'
     '{ lambda ; bi:f32[3]. let\n'
     '    bj:bool[3] = jit[name=isclose jaxpr=isclose] bi bi\n'
     '    bk:bool[] = jit[\n'
     '      name=allclose\n'
     '      jaxpr={ lambda ; bi:f32[3] bl:f32[3]. let\n'
     '          bm:bool[3] = jit[name=isclose jaxpr=isclose1] bi bl 1e-05:f32[] 1e-08:f32[]\n'
     '          bk:bool[] = reduce_and[axes=(0,)] bm\n'
     '        in (bk,) }\n'
     '    ] bi bi\n'
     '  in (bj, bk) }'),
    ('flip_fliplr', lambda: make_jaxpr(lambda m: (jnp.flip(m), jnp.fliplr(m)))(M33),
     '{ lambda ; a:f32[3,3]. let\n'
     '    b:f32[3,3] = jit[\n'
     '      name=_flip\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          b:f32[3,3] = rev[dimensions=(0, 1)] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    c:f32[3,3] = jit[\n'
     '      name=_flip\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          c:f32[3,3] = rev[dimensions=(1,)] a\n'
     '        in (c,) }\n'
     '    ] a\n'
     '  in (b, c) }'),
    ('linspace', lambda: make_jaxpr(lambda x: jnp.linspace(0., 1., 5) + x[0])(X3),
     'let _linspace = { lambda ; a:f32[] b:f32[]. let\n'
     '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
     '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
     '    e:f32[] = sub d c\n'
     '    f:f32[] = div e 4.0:f32[]\n'
     '    g:f32[4] = iota[dimension=0 dtype=float32 shape=(4,) sharding=None] \n'
     '    h:f32[4] = div g 4.0:f32[]\n'
     '    i:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] c\n'
     '    j:f32[4] = sub 1.0:f32[] h\n'
     '    k:f32[4] = mul i j\n'
     '    l:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] d\n'
     '    m:f32[4] = mul l h\n'
     '    n:f32[4] = add k m\n'
     '    o:f32[1] = broadcast_in_dim d\n'
     '    p:f32[5] = concatenate[dimension=0] n o\n'
     '  in (p,) } in\n'
     '{ lambda ; q:f32[3]. let\n'
     '    r:f32[5] = jit[name=_linspace jaxpr=_linspace] 0.0:f32[] 1.0:f32[]\n'
     '    s:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=None] q\n'
     '    t:f32[] = squeeze[dimensions=(0,)] s\n'
     '    u:f32[5] = add r t\n'
     '  in (u,) }'),
    ('fmin_nan_to_num', lambda: make_jaxpr(lambda x: jnp.nan_to_num(jnp.fmin(x, x)))(X3),
     'let _where = { lambda ; a:bool[3] b:f32[] c:f32[3]. let\n'
     '    d:f32[3] = broadcast_in_dim b\n'
     '    e:f32[3] = select_n a c d\n'
     '  in (e,) } in\n'
     '{ lambda ; f:f32[3]. let\n'
     '    g:f32[3] = jit[\n'
     '      name=fmin\n'
     '      jaxpr={ lambda ; f:f32[3] h:f32[3]. let\n'
     '          i:bool[3] = lt f h\n'
     '          j:bool[3] = ne h h\n'
     '          k:bool[3] = or i j\n'
     '          g:f32[3] = jit[\n'
     '            name=_where\n'
     '            jaxpr={ lambda ; k:bool[3] f:f32[3] h:f32[3]. let\n'
     '                g:f32[3] = select_n k h f\n'
     '              in (g,) }\n'
     '          ] k f h\n'
     '        in (g,) }\n'
     '    ] f f\n'
     '    l:f32[3] = jit[\n'
     '      name=nan_to_num\n'
     '      jaxpr={ lambda ; g:f32[3]. let\n'
     '          m:bool[3] = ne g g\n'
     '          n:f32[3] = jit[name=_where jaxpr=_where] m 0.0:f32[] g\n'
     '          o:bool[3] = eq n inf:f32[]\n'
     '          p:f32[3] = jit[name=_where jaxpr=_where] o 3.4028234663852886e+38:f32[]\n'
     '            n\n'
     '          q:bool[3] = eq p -inf:f32[]\n'
     '          l:f32[3] = jit[name=_where jaxpr=_where] q -3.4028234663852886e+38:f32[]\n'
     '            p\n'
     '        in (l,) }\n'
     '    ] g\n'
     '  in (l,) }'),
    ('vmap_clip_where', lambda: make_jaxpr(vmap(lambda r: jnp.where(r > 1., r, jnp.clip(r, 0., 1.))))(M33),
     '{ lambda ; a:f32[3,3]. let\n'
     '    b:bool[3,3] = gt a 1.0:f32[]\n'
     '    c:f32[3,3] = jit[\n'
     '      name=clip\n'
     '      jaxpr={ lambda ; a:f32[3,3] d:f32[] e:f32[]. let\n'
     '          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
     '          g:f32[3,3] = max f a\n'
     '          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e\n'
     '          c:f32[3,3] = min h g\n'
     '        in (c,) }\n'
     '    ] a 0.0:f32[] 1.0:f32[]\n'
     '    i:f32[3,3] = jit[\n'
     '      name=_where\n'
     '      jaxpr={ lambda ; b:bool[3,3] a:f32[3,3] c:f32[3,3]. let\n'
     '          i:f32[3,3] = select_n b c a\n'
     '        in (i,) }\n'
     '    ] b a c\n'
     '  in (i,) }'),
    ('nn_elu_leaky_relu', lambda: make_jaxpr(lambda x: (nn.elu(x), nn.leaky_relu(x)))(X3),
     'let _where = { lambda ; a:bool[3] b:f32[3] c:f32[3]. let\n'
     '    d:f32[3] = select_n a c b\n'
     '  in (d,) } in\n'
     '{ lambda ; e:f32[3]. let\n'
     '    f:f32[3] = jit[\n'
     '      name=elu\n'
     '      jaxpr={ lambda ; e:f32[3]. let\n'
     '          g:bool[3] = gt e 0.0:f32[]\n'
     '          h:bool[3] = gt e 0.0:f32[]\n'
     '          i:f32[3] = jit[\n'
     '            name=_where\n'
     '            jaxpr={ lambda ; h:bool[3] j:f32[] e:f32[3]. let\n'
     '                k:f32[] = convert_element_type[\n'
     '                  new_dtype=float32\n'
     '                  weak_type=False\n'
     '                ] j\n'
     '                l:f32[3] = broadcast_in_dim k\n'
     '                i:f32[3] = select_n h e l\n'
     '              in (i,) }\n'
     '          ] h 0.0:f32[] e\n'
     '          m:f32[3] = expm1 i\n'
     '          n:f32[3] = mul 1.0:f32[] m\n'
     '          f:f32[3] = jit[name=_where jaxpr=_where] g e n\n'
     '        in (f,) }\n'
     '    ] e\n'
     '    o:f32[3] = jit[\n'
     '      name=leaky_relu\n'
     '      jaxpr={ lambda ; e:f32[3]. let\n'
     '          p:bool[3] = ge e 0.0:f32[]\n'
     '          q:f32[3] = mul 0.009999999776482582:f32[] e\n'
     '          o:f32[3] = jit[name=_where jaxpr=_where] p e q\n'
     '        in (o,) }\n'
     '    ] e\n'
     '  in (f, o) }'),
    ('nn_log_softmax', lambda: make_jaxpr(nn.log_softmax)(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=log_softmax\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:f32[] = reduce_max[axes=(0,)] a\n'
     '          d:f32[] = max -inf:f32[] c\n'
     '          e:f32[1] = broadcast_in_dim d\n'
     '          f:f32[1] = stop_gradient e\n'
     '          g:f32[3] = sub a f\n'
     '          h:f32[3] = exp g\n'
     '          i:f32[] = reduce_sum[axes=(0,) out_sharding=None] h\n'
     '          j:f32[1] = broadcast_in_dim i\n'
     '          k:f32[1] = log j\n'
     '          b:f32[3] = sub g k\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('nn_one_hot', lambda: make_jaxpr(lambda i: nn.one_hot(i, 4))(I3),
     '{ lambda ; a:i32[3]. let\n'
     '    b:f32[3,4] = jit[\n'
     '      name=_one_hot\n'
     '      jaxpr={ lambda ; a:i32[3]. let\n'
     '          c:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n'
     '          d:i32[1,4] = iota[dimension=1 dtype=int32 shape=(1, 4) sharding=None] \n'
     '          e:bool[3,4] = eq c d\n'
     '          b:f32[3,4] = convert_element_type[new_dtype=float32 weak_type=False] e\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('atleast_2d_kron', lambda: make_jaxpr(lambda x: jnp.kron(jnp.atleast_2d(x), x))(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[1,3] = jit[\n'
     '      name=atleast_2d\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    c:f32[1,9] = jit[\n'
     '      name=kron\n'
     '      jaxpr={ lambda ; b:f32[1,3] a:f32[3]. let\n'
     '          d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n'
     '          e:f32[1,1,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 2)] b\n'
     '          f:f32[1,1,1,3] = broadcast_in_dim[broadcast_dimensions=(1, 3)] d\n'
     '          g:f32[1,1,3,3] = mul e f\n'
     '          c:f32[1,9] = reshape[dimensions=None new_sizes=(1, 9) sharding=None] g\n'
     '        in (c,) }\n'
     '    ] b a\n'
     '  in (c,) }'),
    ('count_nonzero_ptp', lambda: make_jaxpr(lambda m: (jnp.count_nonzero(m), jnp.ptp(m)))(M33),
     '{ lambda ; a:f32[3,3]. let\n'
     '    b:i32[] = jit[\n'
     '      name=count_nonzero\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          c:bool[3,3] = ne a 0.0:f32[]\n'
     '          d:i32[3,3] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
     '          b:i32[] = reduce_sum[axes=(0, 1) out_sharding=None] d\n'
     '        in (b,) }\n'
     '    ] a\n'
     '    e:f32[] = jit[\n'
     '      name=_ptp\n'
     '      jaxpr={ lambda ; a:f32[3,3]. let\n'
     '          f:f32[] = reduce_max[axes=(0, 1)] a\n'
     '          g:f32[] = reduce_min[axes=(0, 1)] a\n'
     '          e:f32[] = sub f g\n'
     '        in (e,) }\n'
     '    ] a\n'
     '  in (b, e) }'),
    ('where_twice_shared', lambda: make_jaxpr(lambda x: jnp.where(x > 0, x, 0.) + jnp.where(x > 0, x, 0.))(X3),
     'let _where = { lambda ; a:bool[3] b:f32[3] c:f32[]. let\n'
     '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
     '    e:f32[3] = broadcast_in_dim d\n'
     '    f:f32[3] = select_n a e b\n'
     '  in (f,) } in\n'
     '{ lambda ; g:f32[3]. let\n'
     '    h:bool[3] = gt g 0.0:f32[]\n'
     '    i:f32[3] = jit[name=_where jaxpr=_where] h g 0.0:f32[]\n'
     '    j:bool[3] = gt g 0.0:f32[]\n'
     '    k:f32[3] = jit[name=_where jaxpr=_where] j g 0.0:f32[]\n'
     '    l:f32[3] = add i k\n'
     '  in (l,) }'),
    # expected values from JAX 0.10.2: a shared jaxpr's body refers to the other shared ones
    ('hypot', lambda: make_jaxpr(jnp.hypot)(X3, X3),
     'let hypot = { lambda ; a:f32[3] b:f32[3]. let\n'
     '    c:f32[3] = abs a\n'
     '    d:f32[3] = abs b\n'
     '    e:bool[3] = eq c inf:f32[]\n'
     '    f:bool[3] = eq d inf:f32[]\n'
     '    g:bool[3] = or e f\n'
     '    h:f32[3] = max c d\n'
     '    i:f32[3] = min c d\n'
     '    j:bool[3] = eq h 0.0:f32[]\n'
     '    k:bool[3] = eq h 0.0:f32[]\n'
     '    l:f32[3] = broadcast_in_dim 1.0:f32[]\n'
     '    m:f32[3] = jit[name=_where jaxpr=_where] k l h\n'
     '    n:f32[3] = div i m\n'
     '    o:f32[3] = square n\n'
     '    p:f32[3] = add 1.0:f32[] o\n'
     '    q:f32[3] = sqrt p\n'
     '    r:f32[3] = mul h q\n'
     '    s:f32[3] = jit[name=_where jaxpr=_where] j h r\n'
     '    t:f32[3] = jit[\n'
     '      name=_where\n'
     '      jaxpr={ lambda ; g:bool[3] u:f32[] s:f32[3]. let\n'
     '          v:f32[3] = broadcast_in_dim u\n'
     '          t:f32[3] = select_n g s v\n'
     '        in (t,) }\n'
     '    ] g inf:f32[] s\n'
     '  in (t,) } in\n'
     'let _where = { lambda ; w:bool[3] x:f32[3] y:f32[3]. let\n'
     '    z:f32[3] = select_n w y x\n'
     '  in (z,) } in\n'
     '{ lambda ; ba:f32[3] bb:f32[3]. let\n'
     '    bc:f32[3] = jit[name=hypot jaxpr=hypot] ba bb\n'
     '  in (bc,) }'),
    ('modf', lambda: make_jaxpr(jnp.modf)(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] c:f32[3] = jit[\n'
     '      name=modf\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          d:bool[3] = ge a 0.0:f32[]\n'
     '          e:f32[3] = floor a\n'
     '          f:f32[3] = ceil a\n'
     '          c:f32[3] = jit[\n'
     '            name=_where\n'
     '            jaxpr={ lambda ; d:bool[3] e:f32[3] f:f32[3]. let\n'
     '                c:f32[3] = select_n d f e\n'
     '              in (c,) }\n'
     '          ] d e f\n'
     '          b:f32[3] = sub a c\n'
     '        in (b, c) }\n'
     '    ] a\n'
     '  in (b, c) }'),
    ('isinf', lambda: make_jaxpr(jnp.isinf)(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:bool[3] = jit[\n'
     '      name=isinf\n'
     '      jaxpr={ lambda ; a:f32[3]. let\n'
     '          c:f32[3] = abs a\n'
     '          b:bool[3] = eq c inf:f32[]\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('arccosh', lambda: make_jaxpr(jnp.arccosh)(X3),
     '{ lambda ; a:f32[3]. let\n'
     '    b:f32[3] = jit[\n'
     '      name=arccosh\n'
     '      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = acosh a in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
    ('bitwise_count', lambda: make_jaxpr(jnp.bitwise_count)(I3),
     '{ lambda ; a:i32[3]. let\n'
     '    b:u8[3] = jit[\n'
     '      name=bitwise_count\n'
     '      jaxpr={ lambda ; a:i32[3]. let\n'
     '          c:i32[3] = abs a\n'
     '          d:i32[3] = population_count c\n'
     '          b:u8[3] = convert_element_type[new_dtype=uint8 weak_type=False] d\n'
     '        in (b,) }\n'
     '    ] a\n'
     '  in (b,) }'),
]


@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_printed_jaxpr_matches_jax(name, make, expected):
    assert str(make()) == expected


@pytest.mark.parametrize("name,arg,want", [
    ("selu", X3, lambda: [selu(X3)]),
    ("jit_selu", X3, lambda: [selu(X3)]),
    ("vmap_selu", M33, lambda: [vmap(selu)(M33)]),
    ("clip", X3, lambda: [np.clip(X3, 0.0, 1.0)]),
    ("clip_max_only", X3, lambda: [np.minimum(X3, 1.0)]),
    ("flip_fliplr", M33, lambda: [M33[::-1, ::-1], M33[:, ::-1]]),
])
def test_staged_programs_compute_the_eager_values(name, arg, want, jit_backend):
    make = next(make for n, make, _ in CASES if n == name)
    for staged, expected in zip(jaxpr_as_fun(make())(arg), want()):
        np.testing.assert_allclose(staged, expected, rtol=1e-6)


def test_eager_calls_do_not_trace():
    """Outside a jaxpr trace the function runs directly (a counter would see no tracers)."""
    np.testing.assert_allclose(jnp.where(X3 > 0, X3, 0.0), np.where(X3 > 0, X3, 0.0))
    np.testing.assert_allclose(jnp.clip(X3, 0.0, 1.0), np.clip(X3, 0.0, 1.0))
    np.testing.assert_allclose(jnp.roll(X3, 1), np.roll(X3, 1))
    np.testing.assert_allclose(jnp.pad(X3, [(1, 2)]), np.pad(X3, [(1, 2)]))


def test_list_static_arguments_are_accepted_under_jit(jit_backend):
    """Static lists (a pad width) become tuples, as JAX's public functions make them."""
    out = jit(lambda x: jnp.pad(x, [(1, 2)]))(X3)
    np.testing.assert_allclose(out, np.pad(X3, [(1, 2)]))
    shift = jnp.asarray(1)
    np.testing.assert_allclose(jit(lambda x, s: jnp.roll(x, s))(X3, shift), np.roll(X3, 1))


class TaggingTracer(Tracer):
    """A chapter-01 style trace that knows nothing of multiple-result primitives."""
    __slots__ = ("val",)

    def __init__(self, trace, val):
        super().__init__(trace)
        self.val = val

    aval = property(lambda self: get_aval(self.val))


class TaggingTrace(Trace):
    def __init__(self, parent):
        self.parent = parent

    def process_primitive(self, primitive, args, params):
        vals = [x.val if isinstance(x, TaggingTracer) else x for x in args]
        with set_current_trace(self.parent):
            return TaggingTracer(self, primitive.bind(*vals, **params))


def test_simple_traces_see_the_primitives_not_a_jit():
    trace = TaggingTrace(find_cur_trace())
    with set_current_trace(trace):
        out = selu(TaggingTracer(trace, X3))
    np.testing.assert_allclose(out.val, selu(X3), rtol=1e-6)
