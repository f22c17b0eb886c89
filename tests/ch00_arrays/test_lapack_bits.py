"""The factorizations run the LAPACK routines JAX's CPU kernels run, from the same
library (SciPy's), so ``svd``, ``eigh``, ``qr``, ``cholesky`` and ``eig`` print
what JAX 0.10.2 printed, to the last digit (issue 19's docstring examples of
``svdvals`` and ``norm(ord='nuc')`` among them). Expected reprs: # from JAX 0.10.2."""
import numpy as np
import pytest

import minijax.numpy as jnp

_r = np.random.RandomState(0)
A = _r.randn(4, 3).astype(np.float32)
S = _r.randn(4, 4).astype(np.float32)
S = S + S.T
P = S @ S.T + np.eye(4, dtype=np.float32)


# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('svdvals_docstring',
     lambda: jnp.linalg.svdvals(jnp.array([[1, 2, 3], [4, 5, 6]])),
     'Array([9.508031 , 0.7728694], dtype=float32)'),
    ('norm_nuclear_docstring',
     lambda: jnp.linalg.norm(jnp.array([[1., 2., 3.], [4., 5., 7.]]), ord='nuc'),
     'Array(10.762534, dtype=float32)'),
    ('svd',
     lambda: jnp.linalg.svd(A, full_matrices=False),
     'SVDResult(U=Array([[-0.4750048 ,  0.58412355, -0.2609068 ],\n       [-0.848176  , -0.41892594,  0.29501593],\n       [-0.21552275,  0.06486042, -0.7883733 ],\n       [-0.09229362,  0.6921664 ,  0.47261104]], dtype=float32), S=Array([3.4685254, 2.0799654, 0.7602213], dtype=float32), Vh=Array([[-0.8595196 , -0.5059117 ,  0.07266032],\n       [ 0.21033129, -0.22055282,  0.952427  ],\n       [-0.46581846,  0.83391243,  0.2959785 ]], dtype=float32))'),
    ('svd_complex',
     lambda: jnp.linalg.svd(A.astype(np.complex64) * (1 + 1j), compute_uv=False),
     'Array([4.9052362, 2.9415145, 1.075115 ], dtype=float32)'),
    ('eigh',
     lambda: jnp.linalg.eigh(S),
     'EighResult(eigenvalues=Array([-4.4706135 ,  0.34974653,  1.7154145 ,  4.8717165 ], dtype=float32), eigenvectors=Array([[ 0.4918179 ,  0.28611562, -0.4775122 ,  0.66950345],\n       [-0.5891163 , -0.08552766, -0.79734063, -0.09937382],\n       [ 0.19041094,  0.77720076, -0.1517367 , -0.5802402 ],\n       [-0.61220974,  0.553879  ,  0.33646122,  0.45300233]],      dtype=float32))'),
    ('qr',
     lambda: jnp.linalg.qr(A),
     'QRResult(Q=Array([[-0.58144104,  0.47915962,  0.2592955 ],\n       [-0.7386102 , -0.641542  , -0.1575249 ],\n       [-0.3131542 ,  0.59551877, -0.46848798],\n       [-0.13533545,  0.06470754,  0.8297415 ]], dtype=float32), R=Array([[-3.0339317 , -1.5841613 , -0.01174235],\n       [ 0.        , -1.0871933 ,  1.1285703 ],\n       [ 0.        ,  0.        ,  1.6627556 ]], dtype=float32))'),
    ('qr_complete',
     lambda: jnp.linalg.qr(A, mode='complete'),
     'QRResult(Q=Array([[-0.58144104,  0.47915962,  0.2592955 , -0.60423356],\n       [-0.7386102 , -0.641542  , -0.1575249 ,  0.13440442],\n       [-0.3131542 ,  0.59551877, -0.46848798,  0.5725478 ],\n       [-0.13533545,  0.06470754,  0.8297415 ,  0.53761166]],      dtype=float32), R=Array([[-3.0339317 , -1.5841613 , -0.01174235],\n       [ 0.        , -1.0871933 ,  1.1285703 ],\n       [ 0.        ,  0.        ,  1.6627556 ],\n       [ 0.        ,  0.        ,  0.        ]], dtype=float32))'),
    ('cholesky',
     lambda: jnp.linalg.cholesky(P),
     'Array([[ 4.1416945 ,  0.        ,  0.        ,  0.        ],\n       [-1.5096358 ,  2.7863054 ,  0.        ,  0.        ],\n       [-1.7161521 , -1.1184478 ,  2.3792384 ,  0.        ],\n       [ 0.17550279,  2.0132945 , -2.5692472 ,  1.7455035 ]],      dtype=float32)'),
    ('eig',
     lambda: jnp.linalg.eig(S @ A @ A.T),
     'EigResult(eigenvalues=Array([-1.9987478e+00+0.j, -4.4703484e-07+0.j,  1.5520665e+01+0.j,\n        1.1514332e+01+0.j], dtype=complex64), eigenvectors=Array([[-0.6387793 +0.j,  0.6042335 +0.j, -0.96930915+0.j,\n         0.18946043+0.j],\n       [ 0.3533615 +0.j, -0.13440454+0.j, -0.12462252+0.j,\n        -0.28137228+0.j],\n       [-0.14091244+0.j, -0.5725477 +0.j,  0.19077954+0.j,\n        -0.5847298 +0.j],\n       [ 0.66876036+0.j, -0.53761184+0.j,  0.09226079+0.j,\n         0.73690265+0.j]], dtype=complex64))'),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    assert repr(make()) == jax_repr
