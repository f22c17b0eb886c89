"""``jax.random.clone`` (one ``random_clone`` equation: the identity without a
key-reuse checker) and ``jax.nn.initializers.delta_orthogonal`` (issue 19's
docstring examples). Expected reprs: # from JAX 0.10.2."""
import pytest

import minijax as jax
import minijax.numpy as jnp


# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('clone_jaxpr',
     lambda: str(jax.make_jaxpr(jax.random.clone)(jax.random.key(0))),
     "'{ lambda ; a:key<fry>[]. let b:key<fry>[] = random_clone a in (b,) }'"),
    ('clone_raw_jaxpr',
     lambda: str(jax.make_jaxpr(jax.random.clone)(jax.random.PRNGKey(0))),
     "'{ lambda ; a:u32[2]. let b:u32[2] = random_clone a in (b,) }'"),
    ('clone_draw',
     lambda: jax.random.uniform(jax.random.clone(jax.random.key(0))),
     'Array(0.947667, dtype=float32)'),
    ('clone_jit_draw',
     lambda: jax.jit(lambda k: jax.random.uniform(jax.random.clone(k)))(jax.random.key(0)),
     'Array(0.947667, dtype=float32)'),
    ('clone_vmap',
     lambda: jax.random.key_data(jax.vmap(jax.random.clone)(jax.random.split(jax.random.key(0), 2))),
     'Array([[1797259609, 2579123966],\n       [ 928981903, 3453687069]], dtype=uint32)'),
    ('delta_orthogonal_3d',
     lambda: jax.nn.initializers.delta_orthogonal()(jax.random.key(42), (3, 3, 3), jnp.float32),
     'Array([[[ 0.        ,  0.        ,  0.        ],\n        [ 0.        ,  0.        ,  0.        ],\n        [ 0.        ,  0.        ,  0.        ]],\n\n       [[-0.0195297 ,  0.99526775,  0.09518947],\n        [ 0.1059439 , -0.09261153,  0.99005   ],\n        [-0.99418044, -0.02941984,  0.10363387]],\n\n       [[ 0.        ,  0.        ,  0.        ],\n        [ 0.        ,  0.        ,  0.        ],\n        [ 0.        ,  0.        ,  0.        ]]], dtype=float32)'),
    ('delta_orthogonal_4d',
     lambda: jax.nn.initializers.delta_orthogonal(scale=2.0)(jax.random.key(1), (2, 3, 2, 3), jnp.float32),
     'Array([[[[ 0.        ,  0.        ,  0.        ],\n         [ 0.        ,  0.        ,  0.        ]],\n\n        [[-0.24069285, -0.21192773,  1.974121  ],\n         [ 1.1919196 , -1.6058002 , -0.02706373]],\n\n        [[ 0.        ,  0.        ,  0.        ],\n         [ 0.        ,  0.        ,  0.        ]]],\n\n\n       [[[ 0.        ,  0.        ,  0.        ],\n         [ 0.        ,  0.        ,  0.        ]],\n\n        [[ 0.        ,  0.        ,  0.        ],\n         [ 0.        ,  0.        ,  0.        ]],\n\n        [[ 0.        ,  0.        ,  0.        ],\n         [ 0.        ,  0.        ,  0.        ]]]], dtype=float32)'),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    assert repr(make()) == jax_repr


def test_delta_orthogonal_checks_the_shape():
    init = jax.nn.initializers.delta_orthogonal()
    with pytest.raises(ValueError, match="3D, 4D or 5D"):  # from JAX 0.10.2
        init(jax.random.key(0), (3, 3))
    with pytest.raises(ValueError, match="fan_in"):  # from JAX 0.10.2
        init(jax.random.key(0), (3, 4, 2))


def test_clone_on_every_backend(jit_backend):
    key = jax.random.key(3)
    draw = jax.jit(lambda k: jax.random.normal(jax.random.clone(k), (3,)))(key)
    assert jnp.array_equal(draw, jax.random.normal(key, (3,)))
    raw = jax.jit(jax.random.clone)(jax.random.PRNGKey(7))
    assert raw.dtype == jnp.uint32 and raw.tolist() == [0, 7]


def test_jit_returns_typed_keys_as_key_arrays(jit_backend):
    """A jitted function's key-typed results print as eager ones do (as JAX's)."""
    key = jax.random.key(0)
    split = jax.jit(lambda k: jax.random.split(k, 2))
    want = ("Array((2,), dtype=key<fry>) overlaying:\n"
            "[[1797259609 2579123966]\n [ 928981903 3453687069]]")  # from JAX 0.10.2
    assert repr(split(key)) == want
    assert repr(split.lower(key).compile()(key)) == want
    assert repr(jax.jit(jax.random.clone)(key)) == ("Array((), dtype=key<fry>) overlaying:\n"
                                                   "[0 0]")  # from JAX 0.10.2
