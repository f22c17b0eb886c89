"""Residual slots a ``cond`` branch does not fill hold ``empty2`` placeholders, as
in JAX: under ``grad`` every known branch returns every branch's residuals (each
slot made by ``empty2`` first, then the branch's own residuals put in theirs).
The printed jaxpr is JAX 0.10.2's."""
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax

# from JAX 0.10.2
GRAD_OF_COND = '{ lambda ; a:f32[]. let\n    b:bool[] = gt a 0.0:f32[]\n    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n    _:f32[] d:f32[] e:f32[] f:f32[] = cond[\n      branches=(\n        { lambda ; g:f32[]. let\n            h:f32[] = mul g 2.0:f32[]\n            i:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n            j:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n            k:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n          in (h, i, j, k) }\n        { lambda ; l:f32[]. let\n            m:f32[] = sin l\n            n:f32[] = cos l\n            o:f32[] = mul m l\n            p:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n            q:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n            r:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n          in (o, n, l, m) }\n      )\n    ] c a\n    s:f32[] = cond[\n      branches=(\n        { lambda ; t:f32[] u:f32[] v:f32[] w:f32[]. let\n            x:f32[] = mul w 2.0:f32[]\n          in (x,) }\n        { lambda ; y:f32[] z:f32[] ba:f32[] bb:f32[]. let\n            bc:f32[] = mul ba bb\n            bd:f32[] = mul bb z\n            be:f32[] = mul bd y\n            bf:f32[] = add_any bc be\n          in (bf,) }\n      )\n    ] c d e f 1.0:f32[]\n  in (s,) }'


def _f(x):
    return lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x * 2.0, x)


def test_grad_of_cond_prints_jaxs_placeholders():
    assert str(minijax.make_jaxpr(minijax.grad(_f))(1.0)) == GRAD_OF_COND


def test_placeholders_do_not_change_values():
    want = np.sin(1.0) + np.cos(1.0)  # d/dx x sin x at 1
    for grad in (minijax.grad(_f), minijax.jit(minijax.grad(_f))):
        np.testing.assert_allclose(float(grad(1.0)), want, rtol=1e-6)
        assert float(grad(-1.0)) == 2.0
    np.testing.assert_allclose(np.asarray(minijax.vmap(minijax.grad(_f))(jnp.array([-1.0, 1.0]))),
                               [2.0, want], rtol=1e-6)


def test_empty2_is_a_scalar_placeholder():
    assert str(minijax.make_jaxpr(lambda: lax.empty2(np.float32))()) == (
        "{ lambda ; . let\n    a:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] \n"
        "  in (a,) }")
    assert float(minijax.jit(lambda: lax.empty2(np.float32))()) == 0.0
