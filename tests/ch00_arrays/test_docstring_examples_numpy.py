"""Docstring examples of ``jax.numpy`` (issue 19): each case below prints exactly
what JAX 0.10.2 printed for it (the expected reprs are ``# from JAX 0.10.2``).

Quantiles with every ``method`` (and ``inverted_cdf`` with ``weights``), the
polynomial helpers on 2-D coefficient arrays, ``polydiv``, ``trim_zeros`` along
axes, the ``'r'``/``'c'`` directives of ``r_``/``c_``, ``fromstring``,
``from_dlpack``, ``isscalar`` of 0-d NumPy arrays, complex ``isclose``,
``linalg.tensordot``, ``Array.compress``, ``gradient`` on coordinates,
``logspace`` with an array base, ``nanvar``/``nanstd`` with ``where``, complex
``rint``, ``delete``/``repeat`` that need no concrete indices, and the
non-symmetric eigenproblem (``linalg.eig``, ``eigvals``, ``roots``, ``poly``).
"""
import io

import numpy as np
import pytest

import minijax.numpy as jnp
from minijax.errors import ConcretizationTypeError

# from JAX 0.10.2: each expected string is repr() of the same expression under JAX

CASES = [
    ('quantile_nearest',
     lambda: jnp.quantile(jnp.arange(10), jnp.array([0.25, 0.5, 0.75]), method='nearest'),
     'Array([2., 4., 7.], dtype=float32)'),
    ('quantile_lower',
     lambda: jnp.quantile(jnp.array([[1., 7, 3, 6, 5], [2, 2, 9, 4, 1]]), jnp.array([0., 0.3, 0.625, 1.]), axis=1, method='lower'),
     'Array([[1., 1.],\n       [3., 2.],\n       [5., 2.],\n       [7., 9.]], dtype=float32)'),
    ('quantile_higher',
     lambda: jnp.quantile(jnp.array([[1., 7, 3, 6, 5], [2, 2, 9, 4, 1]]), jnp.array([0., 0.3, 0.625, 1.]), axis=1, method='higher'),
     'Array([[1., 1.],\n       [5., 2.],\n       [6., 4.],\n       [7., 9.]], dtype=float32)'),
    ('quantile_midpoint',
     lambda: jnp.quantile(jnp.array([[1., 7, 3, 6, 5], [2, 2, 9, 4, 1]]), 0.3, axis=0, method='midpoint', keepdims=True),
     'Array([[1.5, 4.5, 6. , 5. , 3. ]], dtype=float32)'),
    ('percentile_nearest',
     lambda: jnp.percentile(jnp.array([1., 2, 3, 4, 5, 6, 7]), jnp.array([10, 50, 55]), method='nearest'),
     'Array([2., 4., 4.], dtype=float32)'),
    ('percentile_nan_propagates',
     lambda: jnp.percentile(jnp.array([0, 1, 2, jnp.nan, 3, 4, 5, 6]), jnp.array([25, 50, 75])),
     'Array([nan, nan, nan], dtype=float32)'),
    ('nanpercentile',
     lambda: jnp.nanpercentile(jnp.array([0, 1, 2, jnp.nan, 3, 4, 5, 6]), jnp.array([25, 50, 75])),
     'Array([1.5, 3. , 4.5], dtype=float32)'),
    ('nanquantile_all_nan_lane',
     lambda: jnp.nanquantile(jnp.array([[jnp.nan, jnp.nan], [1., 2.]]), 0.5, axis=1, method='nearest'),
     'Array([nan,  1.], dtype=float32)'),
    ('quantile_int_is_strong',
     lambda: jnp.quantile(jnp.array([1, 2, 3, 4]), 0.5),
     'Array(2.5, dtype=float32)'),
    ('quantile_inverted_cdf',
     lambda: jnp.quantile(jnp.array([1, 2, 3, 4, 5]), 0.5, weights=jnp.array([1, 1, 2, 1, 1]), method='inverted_cdf'),
     'Array(3., dtype=float32)'),
    ('nanpercentile_inverted_cdf',
     lambda: jnp.nanpercentile(jnp.array([1, 2, jnp.nan, 4, 5]), 50, weights=jnp.array([1, 1, 1, 2, 1]), method='inverted_cdf'),
     'Array(4., dtype=float32)'),
    ('quantile_inverted_cdf_axis',
     lambda: jnp.quantile(jnp.array([[1., 7, 3, 6, 5], [2, 2, 9, 4, 1]]), jnp.array([0., 0.3, 1.]), axis=1, weights=jnp.array([1., 2, 3, 0, 1]), method='inverted_cdf'),
     'Array([[1., 1.],\n       [3., 2.],\n       [7., 9.]], dtype=float32)'),
    ('quantile_inverted_cdf_negative_weight',
     lambda: jnp.quantile(jnp.array([[1., 7, 3, 6, 5], [2, 2, 9, 4, 1]]), 0.4, axis=1, weights=jnp.array([1., -2, 3, 0, 1]), method='inverted_cdf'),
     'Array([nan, nan], dtype=float32)'),
    ('quantile_inverted_cdf_unweighted',
     lambda: jnp.quantile(jnp.array([3., 1, 2, 5]), jnp.array([0.2, 0.5, 0.9]), method='inverted_cdf'),
     'Array([1., 2., 5.], dtype=float32)'),
    ('polyadd_2d',
     lambda: jnp.polyadd(jnp.array([[2, 3, 0], [1, 4, 2]]), jnp.array([[3, 4, 3], [9, 1, 5]])),
     'Array([[ 5,  7,  3],\n       [10,  5,  7]], dtype=int32)'),
    ('polyadd_2d_longer',
     lambda: jnp.polyadd(jnp.array([[1, 2], [3, 4], [5, 6], [7, 8]]), jnp.array([[3, 4], [9, 1], [2, 2]])),
     'Array([[ 1,  2],\n       [ 6,  8],\n       [14,  7],\n       [ 9, 10]], dtype=int32)'),
    ('polysub_2d',
     lambda: jnp.polysub(jnp.array([[2, 3, 0], [1, 4, 2]]), jnp.array([[7, 10, 3], [7, 3, 7]])),
     'Array([[-5, -7, -3],\n       [-6,  1, -5]], dtype=int32)'),
    ('polyadd_1d',
     lambda: jnp.polyadd(jnp.array([2, 3]), jnp.array([1., 0, 4])),
     'Array([1., 2., 7.], dtype=float32)'),
    ('polymul_trim',
     lambda: jnp.polymul(jnp.array([0., 2, 1]), jnp.array([0, 5, 0, 3, 0]), trim_leading_zeros=True),
     'Array([10.,  5.,  6.,  3.,  0.], dtype=float32)'),
    ('polymul_no_trim',
     lambda: jnp.polymul(jnp.array([0., 2, 1]), jnp.array([0, 5, 0, 3, 0])),
     'Array([ 0.,  0., 10.,  5.,  6.,  3.,  0.], dtype=float32)'),
    ('polydiv',
     lambda: jnp.polydiv(jnp.array([5, 2, 3, 1]), jnp.array([4, 2, 1])),
     '(Array([ 1.25 , -0.125], dtype=float32), Array([0.   , 0.   , 2.   , 1.125], dtype=float32))'),
    ('polydiv_docstring',
     lambda: jnp.polydiv(jnp.array([5., 7, 9, 6]), jnp.array([4., 2, 1])),
     '(Array([1.25 , 1.125], dtype=float32), Array([0.   , 0.   , 5.5  , 4.875], dtype=float32))'),
    ('polydiv_trim',
     lambda: jnp.polydiv(jnp.array([1., 3, 2]), jnp.array([1., 1]), trim_leading_zeros=True),
     '(Array([1., 2.], dtype=float32), Array([], shape=(0,), dtype=float32))'),
    ('trim_zeros_2d',
     lambda: jnp.trim_zeros(jnp.array([[0., 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 0]])),
     'Array([[1., 1., 1.],\n       [1., 1., 1.]], dtype=float32)'),
    ('trim_zeros_axis',
     lambda: jnp.trim_zeros(jnp.array([[0, 0, 0, 0], [0, 1, 2, 0], [0, 0, 0, 0]]), axis=1),
     'Array([[0, 0],\n       [1, 2],\n       [0, 0]], dtype=int32)'),
    ('trim_zeros_front',
     lambda: jnp.trim_zeros(jnp.array([0, 0, 1, 0, 2, 0]), trim='f'),
     'Array([1, 0, 2, 0], dtype=int32)'),
    ('trim_zeros_all_zero',
     lambda: jnp.trim_zeros(jnp.zeros((2, 3))),
     'Array([], shape=(0, 0), dtype=float32)'),
    ('r_row',
     lambda: jnp.r_['r', [1, 2, 3], [4, 5, 6]],
     'Array([[1, 2, 3, 4, 5, 6]], dtype=int32)'),
    ('r_column',
     lambda: jnp.r_['c', [1, 2, 3], [4, 5, 6]],
     'Array([[1],\n       [2],\n       [3],\n       [4],\n       [5],\n       [6]], dtype=int32)'),
    ('c_row',
     lambda: jnp.c_['r', [1, 2, 3], [4, 5, 6]],
     'Array([[1, 4],\n       [2, 5],\n       [3, 6]], dtype=int32)'),
    ('r_spec',
     lambda: jnp.r_['0,2,0', [1, 2, 3], [4, 5, 6]],
     'Array([[1],\n       [2],\n       [3],\n       [4],\n       [5],\n       [6]], dtype=int32)'),
    ('r_spec2',
     lambda: jnp.r_['1,2,0', [1, 2, 3], [4, 5, 6]],
     'Array([[1, 4],\n       [2, 5],\n       [3, 6]], dtype=int32)'),
    ('fromstring',
     lambda: jnp.fromstring('1 2 3', dtype=int, sep=' '),
     'Array([1, 2, 3], dtype=int32)'),
    ('fromstring_float',
     lambda: jnp.fromstring('1.5, 2, -3', dtype=np.float32, sep=','),
     'Array([ 1.5,  2. , -3. ], dtype=float32)'),
    ('from_dlpack',
     lambda: jnp.from_dlpack(np.arange(4, dtype=np.float32)),
     'Array([0., 1., 2., 3.], dtype=float32)'),
    ('isscalar_0d_ndarray',
     lambda: jnp.isscalar(np.array(1.0)),
     'True'),
    ('isscalar_1d_ndarray',
     lambda: jnp.isscalar(np.array([1.0])),
     'False'),
    ('allclose_complex',
     lambda: jnp.allclose(jnp.exp(3 - 4j), jnp.exp(3) * jnp.exp(-4j)),
     'Array(True, dtype=bool)'),
    ('isclose_complex',
     lambda: jnp.isclose(jnp.array([1 + 1j, 2, 3j]), jnp.array([1 + 1j, 2.001, 3.00001j])),
     'Array([ True, False,  True], dtype=bool)'),
    ('linalg_tensordot',
     lambda: jnp.linalg.tensordot(jnp.arange(6).reshape(2, 3), jnp.arange(9).reshape(3, 3), axes=1),
     'Array([[15, 18, 21],\n       [42, 54, 66]], dtype=int32)'),
    ('linalg_tensordot_default',
     lambda: jnp.linalg.tensordot(jnp.ones((2, 3, 4)), jnp.arange(60.).reshape(3, 4, 5)),
     'Array([[330., 342., 354., 366., 378.],\n       [330., 342., 354., 366., 378.]], dtype=float32)'),
    ('compress_method',
     lambda: jnp.arange(1, 13).reshape(3, 4).compress(jnp.array([True, False, True]), axis=0),
     'Array([[ 1,  2,  3,  4],\n       [ 9, 10, 11, 12]], dtype=int32)'),
    ('compress_method_flat',
     lambda: jnp.arange(6).reshape(2, 3).compress(jnp.array([0, 1, 1, 0, 1])),
     'Array([1, 2, 4], dtype=int32)'),
    ('gradient_scalar_spacing',
     lambda: jnp.gradient(jnp.array([[1., 2, 4, 7, 11], [2, 3, 5, 8, 20]]), 2.0, axis=0),
     'Array([[0.5, 0.5, 0.5, 0.5, 4.5],\n       [0.5, 0.5, 0.5, 0.5, 4.5]], dtype=float32)'),
    ('gradient_all_axes',
     lambda: jnp.gradient(jnp.array([[1, 2, 4], [2, 3, 9]])),
     '[Array([[1., 1., 5.],\n       [1., 1., 5.]], dtype=float32), Array([[1. , 1.5, 2. ],\n       [1. , 3.5, 6. ]], dtype=float32)]'),
    ('logspace_array_base',
     lambda: jnp.logspace(jnp.array([0, 5]), jnp.array([5, 0]), 5, base=jnp.array([2, 3])),
     'Array([[  1.       , 243.       ],\n       [  2.3784142,  61.54669  ],\n       [  5.656854 ,  15.588457 ],\n       [ 13.454343 ,   3.948222 ],\n       [ 32.       ,   1.       ]], dtype=float32)'),
    ('nanstd_where',
     lambda: jnp.nanstd(jnp.array([[3, jnp.nan, 4, 5], [jnp.nan, 2, jnp.nan, 7], [2, 1, 6, jnp.nan]]), axis=0, keepdims=True, where=jnp.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 1]], dtype=bool)),
     'Array([[0.5, 0.5, 0. , 0. ]], dtype=float32)'),
    ('nanvar_where',
     lambda: jnp.nanvar(jnp.array([[3, jnp.nan, 4, 5], [jnp.nan, 2, jnp.nan, 7], [2, 1, 6, jnp.nan]]), axis=1, keepdims=True, where=jnp.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 1]], dtype=bool)),
     'Array([[0.25],\n       [6.25],\n       [0.25]], dtype=float32)'),
    ('nanvar_too_few',
     lambda: jnp.nanvar(jnp.array([1, 2, 3]), ddof=3),
     'Array(nan, dtype=float32)'),
    ('nanvar_complex_is_real',
     lambda: jnp.nanvar(jnp.array([1 + 2j, 3j, jnp.nan])),
     'Array(0.5, dtype=float32)'),
    ('nanstd_ddof',
     lambda: jnp.nanstd(jnp.array([[3, jnp.nan, 4, 5], [jnp.nan, 2, jnp.nan, 7], [2, 1, 6, jnp.nan]]), axis=0, ddof=1),
     'Array([0.70710677, 0.70710677, 1.4142135 , 1.4142135 ], dtype=float32)'),
    ('rint_complex',
     lambda: jnp.rint(jnp.array([-2.4 + 3.8j, 4.4 - 0.3j])),
     'Array([-2.+4.j,  4.-0.j], dtype=complex64)'),
    ('delete_unique',
     lambda: jnp.delete(jnp.arange(12).reshape(3, 4), jnp.array([-1, 0]), axis=1, assume_unique_indices=True),
     'Array([[ 1,  2],\n       [ 5,  6],\n       [ 9, 10]], dtype=int32)'),
    ('repeat_total_length',
     lambda: jnp.repeat(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 3]), axis=1, total_repeat_length=4),
     'Array([[1, 1, 2, 2],\n       [3, 3, 4, 4]], dtype=int32)'),
    ('repeat_scalar_total_length',
     lambda: jnp.repeat(jnp.array([[1, 2], [3, 4]]), 2, total_repeat_length=3),
     'Array([1, 1, 2], dtype=int32)'),
    ('linalg_eig',
     lambda: jnp.linalg.eig(jnp.array([[1., 2.], [2., 1.]])),
     'EigResult(eigenvalues=Array([ 3.       +0.j, -1.0000002+0.j], dtype=complex64), eigenvectors=Array([[ 0.70710677+0.j, -0.70710677+0.j],\n       [ 0.70710677+0.j,  0.70710677+0.j]], dtype=complex64))'),
    ('linalg_eig_complex_pair',
     lambda: jnp.linalg.eig(jnp.array([[0., -1.], [1., 0.]])),
     'EigResult(eigenvalues=Array([0.+1.j, 0.-1.j], dtype=complex64), eigenvectors=Array([[0.70710677+0.j        , 0.70710677-0.j        ],\n       [0.        -0.70710677j, 0.        +0.70710677j]], dtype=complex64))'),
    ('linalg_eigvals',
     lambda: jnp.linalg.eigvals(jnp.array([[1, 2], [3, 4]])),
     'Array([-0.37228107+0.j,  5.3722816 +0.j], dtype=complex64)'),
    ('linalg_eigvals_batch',
     lambda: jnp.linalg.eigvals(jnp.array([[[2., 1., 5.], [3., 4., 7.], [1., 3., 5.]], [[1., 0., 0.], [0., 2., 0.], [0., 0., 3.]]])),
     'Array([[10.265622  +0.j       ,  0.36718702+1.1516777j,\n         0.36718702-1.1516777j],\n       [ 1.        +0.j       ,  2.        +0.j       ,\n         3.        +0.j       ]], dtype=complex64)'),
    ('roots',
     lambda: jnp.roots(jnp.array([0, 1, 2])),
     'Array([-2.+0.j], dtype=complex64)'),
    ('roots_keep_zeros',
     lambda: jnp.roots(jnp.array([0, 1, 2]), strip_zeros=False),
     'Array([-2. +0.j, nan+nanj], dtype=complex64)'),
    ('roots_cubic',
     lambda: jnp.roots(jnp.array([1., -6, 11, -6])),
     'Array([2.9999952+0.j, 2.0000014+0.j, 1.0000001+0.j], dtype=complex64)'),
    ('roots_constant',
     lambda: jnp.roots(jnp.array([3.])),
     'Array([], shape=(0,), dtype=complex64)'),
]


@pytest.mark.parametrize("name,make,jax_repr", CASES, ids=[c[0] for c in CASES])
def test_prints_as_jax_does(name, make, jax_repr):
    """The value, dtype, weak type and layout, all at once: the repr JAX 0.10.2 printed."""
    assert repr(make()) == jax_repr


def test_gradient_on_uneven_coordinates():
    """The three-point formula for uneven steps (XLA fuses a multiply-add differently
    in one entry, hence the tolerance)."""
    f = jnp.array([[1., 2, 4, 7, 11], [2, 3, 5, 8, 20]])
    got = jnp.gradient(f, jnp.array([0., 1, 1.5, 3.5, 4]), axis=1)
    jax_value = [[1., 3.0000002, 3.5, 6.700001, 8.], [1., 3., 3.4999998, 19.5, 24.]]  # from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(got), jax_value, rtol=1e-6)
    assert got.dtype == np.float32


def test_poly_of_a_matrix_from_its_eigenvalues():
    got = jnp.poly(jnp.array([[2., 1., 5.], [3., 4., 7.], [1., 3., 5.]]))
    jax_value = [1, -10.999995 + 9.5367432e-07j, 8.999993 + 1.9073486e-06j,
                 -15.000004 - 4.7683716e-07j]  # from JAX 0.10.2
    np.testing.assert_allclose(np.asarray(got), jax_value, rtol=1e-6, atol=1e-5)
    assert got.dtype == np.complex64


def test_save_then_load_restores_bfloat16():
    f = io.BytesIO()
    jnp.save(f, jnp.array([2, 4, 6, 8], dtype="bfloat16"))
    f.seek(0)
    assert repr(jnp.load(f)) == "Array([2, 4, 6, 8], dtype=bfloat16)"  # from JAX 0.10.2


def test_from_dlpack_round_trip():
    x = np.random.default_rng(42).random(4, dtype="float32")
    x_mj = jnp.from_dlpack(x)
    assert hasattr(x_mj, "__dlpack__")
    np.testing.assert_array_equal(np.from_dlpack(x_mj), x)


def test_roots_needs_concrete_values_to_strip_zeros():
    import minijax
    with pytest.raises(ConcretizationTypeError):
        minijax.jit(jnp.roots)(jnp.array([0., 1, 2]))


def test_quantile_rejects_weights_without_inverted_cdf():
    with pytest.raises(NotImplementedError, match="inverted_cdf"):
        jnp.quantile(jnp.arange(3.), 0.5, weights=jnp.ones(3))
    with pytest.raises(ValueError, match="method can only be"):
        jnp.quantile(jnp.arange(3.), 0.5, method="cubic")


def test_r_rejects_a_string_after_the_first_item():
    with pytest.raises(ValueError, match="string directive must be placed at the beginning"):
        jnp.r_[[1, 2], "r"]


def test_det_of_small_matrices_by_formula():
    """JAX computes 2x2 and 3x3 determinants by the explicit formulas (inside a
    ``jit`` named det), so small integer matrices give exact results."""
    import minijax
    assert repr(jnp.linalg.det(jnp.array([[1, 2], [3, 4]]))) == "Array(-2., dtype=float32)"  # from JAX 0.10.2
    a3 = jnp.array([[2., 1, 5], [3, 4, 7], [1, 3, 5]])
    assert repr(jnp.linalg.det(a3)) == "Array(15., dtype=float32)"  # from JAX 0.10.2
    assert repr(minijax.grad(jnp.linalg.det)(a3)) == (
        "Array([[ -1.,  -8.,   5.],\n       [ 10.,   5.,  -5.],\n"
        "       [-13.,   1.,   5.]], dtype=float32)")  # from JAX 0.10.2
    assert str(minijax.make_jaxpr(jnp.linalg.det)(jnp.ones((2, 2)))).endswith(
        "{ lambda ; m:f32[2,2]. let n:f32[] = jit[name=det jaxpr=det] m in (n,) }")  # from JAX 0.10.2


def test_quantile_over_several_axes():
    x = jnp.arange(24.).reshape(2, 3, 4) % 7
    assert repr(jnp.quantile(x, 0.3, axis=(0, 2))) == (
        "Array([1.       , 3.1000001, 1.1000001], dtype=float32)")  # from JAX 0.10.2
    assert jnp.quantile(x, jnp.array([0.3, 0.8]), axis=(2, 0), keepdims=True).shape == (2, 1, 3, 1)
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.quantile(x, 0.5, axis=(0, 0))


def test_scaled_dot_general_configs_and_fallback():
    import minijax
    nn = minijax.nn
    assert repr(nn.get_scaled_dot_general_config("mxfp8")) == (
        "BlockScaleConfig(mode='mxfp8', block_size=32, data_type=<class 'ml_dtypes.float8_e4m3fn'>, "
        "scale_type=<class 'ml_dtypes.float8_e8m0fnu'>, global_scale=None, infer_only=False)")  # from JAX 0.10.2
    assert repr(nn.get_scaled_dot_general_config("nvfp4")) == (
        "BlockScaleConfig(mode='nvfp4', block_size=16, data_type=<class 'ml_dtypes.float4_e2m1fn'>, "
        "scale_type=<class 'ml_dtypes.float8_e4m3fn'>, global_scale=Array([1.], dtype=float32), "
        "infer_only=False)")  # from JAX 0.10.2
    with pytest.raises(ValueError, match="Unsupported mode"):
        nn.get_scaled_dot_general_config("fp2")
    dn = (((1,), (0,)), ((), ()))
    out = nn.scaled_dot_general(jnp.ones((2, 3)), jnp.ones((3, 2)), dn)  # no configs: dot_general
    assert repr(out) == "Array([[3., 3.],\n       [3., 3.]], dtype=float32)"  # from JAX 0.10.2
    configs = [nn.get_scaled_dot_general_config("mxfp8")] * 3
    with pytest.raises(NotImplementedError, match="scaled_matmul"):  # as JAX 0.10.2 on the CPU
        nn.scaled_dot_general(jnp.ones((1, 32, 64)), jnp.ones((1, 32, 64)),
                              (((2,), (2,)), ((0,), (0,))), configs=configs)
