"""``lax.conv_general_dilated`` and its wrappers: values against a direct NumPy
convolution written here (loops over outputs, no im2col), JAX's shapes,
dtypes, errors and printed jaxprs (recorded from JAX 0.10.2), derivatives
against finite differences and the adjoint identity, vmap against a loop,
and jit on every backend."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

rng = np.random.default_rng(0)


def direct_conv(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, dn, G=1, B=1):
    """The convolution by its definition, in float64: every output element is a
    sum over the input features and kernel positions of its window."""
    x = np.transpose(np.asarray(lhs, np.float64), dn.lhs_spec)
    w = np.transpose(np.asarray(rhs, np.float64), dn.rhs_spec)
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    space, kernel = x.shape[2:], w.shape[2:]
    rank = len(space)
    big = [1 + d * (n - 1) + lo + hi for n, d, (lo, hi) in zip(space, lhs_dilation, padding)]
    canvas = np.zeros((N, C, *[n + 2 * 64 for n in big]))  # room for negative padding
    index = tuple(slice(64 + lo, 64 + lo + 1 + d * (n - 1), d)
                  for n, d, (lo, _) in zip(space, lhs_dilation, padding))
    canvas[(slice(None), slice(None)) + index] = x
    canvas = canvas[(slice(None), slice(None)) + tuple(slice(64, 64 + b) for b in big)]
    eff = [1 + d * (k - 1) for k, d in zip(kernel, rhs_dilation)]
    out_space = [max((b - e) // s + 1, 0) for b, e, s in zip(big, eff, strides)]
    groups = max(G, B)
    og = O // groups
    out = np.zeros((N // B, O, *out_space))
    for n in range(N // B):
        for o in range(O):
            g = o // og
            batch = g * (N // B) + n if B > 1 else n
            for pos in np.ndindex(*out_space):
                total = 0.0
                for i in range(I):
                    feature = g * I + i if G > 1 else i
                    for k in np.ndindex(*kernel):
                        at = tuple(pos[d] * strides[d] + k[d] * rhs_dilation[d] for d in range(rank))
                        total += canvas[(batch, feature) + at] * w[(o, i) + k]
                out[(n, o) + pos] = total
    return np.transpose(out, np.argsort(dn.out_spec))


def dnums(lhs_shape, rhs_shape, spec):
    return lax.conv_dimension_numbers(lhs_shape, rhs_shape, spec)


CASES = [  # lhs shape, rhs shape, strides, padding, lhs_dil, rhs_dil, spec, G, B
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), [(1, 1), (0, 1)], (1, 1), (1, 1), None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 2), [(1, 2), (0, -1)], (2, 1), (1, 2), None, 1, 1),
    ((2, 6, 5, 4), (3, 2, 2, 6), (1, 2), [(1, 0), (1, 1)], (1, 1), (2, 1), ("NHWC", "HWIO", "NHWC"), 2, 1),
    ((4, 5, 6, 3), (2, 2, 3, 6), (1, 1), [(0, 1), (1, 0)], (1, 1), (1, 1), ("NHWC", "HWIO", "NCHW"), 1, 2),
    ((2, 4, 9), (6, 2, 3), (2,), [(2, 1)], (1,), (2,), None, 2, 1),
    ((1, 2, 3, 4, 3), (2, 2, 2, 2, 1), (1, 1, 2), [(1, 0), (0, 1), (0, 0)], (1, 2, 1), (1, 1, 1),
     None, 1, 1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_match_the_definition(case, jit_backend):
    ls, rs, strides, padding, ld, rd, spec, G, B = CASES[case]
    x = rng.standard_normal(ls).astype(np.float32)
    w = rng.standard_normal(rs).astype(np.float32)
    dn = dnums(ls, rs, spec)
    f = jax.jit(lambda x, w: lax.conv_general_dilated(
        x, w, strides, padding, ld, rd, spec, feature_group_count=G, batch_group_count=B))
    got = f(x, w)
    want = direct_conv(x, w, strides, padding, ld, rd, dn, G, B)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    eager = lax.conv_general_dilated(x, w, strides, padding, ld, rd, spec,
                                     feature_group_count=G, batch_group_count=B)
    np.testing.assert_allclose(np.asarray(eager), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.complex64])
def test_other_dtypes(dtype, jit_backend):
    x = (rng.integers(-3, 4, (2, 3, 5, 5)) + (1j * rng.integers(-2, 3, (2, 3, 5, 5))
                                              if dtype == np.complex64 else 0)).astype(dtype)
    w = rng.integers(-2, 3, (2, 3, 3, 3)).astype(dtype)
    got = jax.jit(lambda x, w: lax.conv(x, w, (1, 1), "SAME"))(x, w)
    assert got.dtype == dtype
    want = direct_conv(x.real, w, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1), dnums(x.shape, w.shape, None))
    if dtype == np.complex64:
        want = want + 1j * direct_conv(x.imag, w, (1, 1), [(1, 1)] * 2, (1, 1), (1, 1),
                                       dnums(x.shape, w.shape, None))
    np.testing.assert_allclose(np.asarray(got), want.astype(dtype) if dtype != np.complex64 else want,
                               rtol=1e-6)


def test_preferred_element_type_accumulates_wider(jit_backend):
    x = np.full((1, 1, 4, 4), 100, np.int8)
    w = np.full((1, 1, 3, 3), 100, np.int8)
    out = jax.jit(lambda x, w: lax.conv(x, w, (1, 1), "VALID",
                                        preferred_element_type=jnp.int32))(x, w)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), np.full((1, 1, 2, 2), 90000, np.int32))


def test_padding_strings_and_wrappers():
    # from JAX 0.10.2
    assert lax.padtype_to_pads((8, 8), (3, 3), (2, 2), "SAME") == [(0, 1), (0, 1)]
    assert lax.padtype_to_pads((8, 8), (3, 3), (2, 2), "SAME_LOWER") == [(1, 0), (1, 0)]
    assert lax.padtype_to_pads((8,), (3,), (2,), "VALID") == [(0, 0)]
    assert lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ("NHWC", "HWIO", "NHWC")) == \
        lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    assert lax.conv(x, w, (1, 1), "SAME").shape == (2, 4, 7, 6)
    assert lax.conv(x, w, (2, 1), "VALID").shape == (2, 4, 3, 5)
    dn = dnums(x.shape, w.shape, None)
    np.testing.assert_allclose(
        np.asarray(lax.conv_with_general_padding(x, w, (1, 2), [(2, 0), (1, 1)], (2, 1), (1, 2))),
        direct_conv(x, w, (1, 2), [(2, 0), (1, 1)], (2, 1), (1, 2), dn), rtol=1e-5, atol=1e-5)


def test_conv_transpose_shapes_and_values():
    x = rng.standard_normal((2, 7, 6, 4)).astype(np.float32)
    w = rng.standard_normal((3, 2, 4, 6)).astype(np.float32)
    # shapes from JAX 0.10.2
    assert lax.conv_transpose(x, w, (2, 2), "SAME").shape == (2, 14, 12, 6)
    assert lax.conv_transpose(x, w, (2, 1), ((1, 0), (2, 1))).shape == (2, 12, 8, 6)
    w2 = np.ascontiguousarray(w.transpose(0, 1, 3, 2))
    assert lax.conv_transpose(x, w2, (2, 1), "VALID", transpose_kernel=True).shape == (2, 15, 7, 6)
    # with use_consistent_padding, conv_transpose is the gradient of the strided conv
    forward = lambda z: lax.conv_general_dilated(  # noqa: E731
        z, w2, (2, 2), [(1, 1), (1, 1)], dimension_numbers=("NHWC", "HWIO", "NHWC"))
    z = rng.standard_normal((2, 13, 11, 6)).astype(np.float32)
    _, vjp = jax.vjp(forward, z)
    ct = rng.standard_normal(forward(z).shape).astype(np.float32)
    got = lax.conv_transpose(ct, w2, (2, 2), ((1, 1), (1, 1)), transpose_kernel=True,
                             use_consistent_padding=True)
    assert got.shape == (2, 13, 10, 6)  # from JAX 0.10.2: the last column is not reached
    np.testing.assert_allclose(np.asarray(got), np.asarray(vjp(ct)[0])[:, :, :10],
                               rtol=1e-4, atol=1e-4)


def test_the_transposes_are_adjoints():
    """<conv(x, w), c> = <x, vjp_x(c)> = <w, vjp_w(c)> for every parameter kind."""
    for ls, rs, strides, padding, ld, rd, spec, G, B in CASES:
        x = rng.standard_normal(ls).astype(np.float32)
        w = rng.standard_normal(rs).astype(np.float32)
        f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
            x, w, strides, padding, ld, rd, spec, feature_group_count=G, batch_group_count=B)
        out, vjp = jax.vjp(f, x, w)
        c = rng.standard_normal(out.shape).astype(np.float32)
        gx, gw = vjp(c)
        lhs = float(np.sum(np.asarray(out, np.float64) * c))
        assert np.isclose(lhs, float(np.sum(x * np.asarray(gx, np.float64))), rtol=1e-4)
        assert np.isclose(lhs, float(np.sum(w * np.asarray(gw, np.float64))), rtol=1e-4)


def test_grad_matches_finite_differences(jit_backend):
    x = rng.standard_normal((1, 2, 5, 4)).astype(np.float64)
    w = rng.standard_normal((3, 2, 2, 2)).astype(np.float64)

    def loss(x, w):
        return jnp.sum(jnp.tanh(lax.conv_general_dilated(x, w, (2, 1), "SAME", rhs_dilation=(1, 2))))
    gx, gw = jax.jit(jax.grad(loss, argnums=(0, 1)))(x.astype(np.float32), w.astype(np.float32))
    eps = 1e-3
    for arr, g, which in ((x, gx, 0), (w, gw, 1)):
        for _ in range(4):
            i = tuple(rng.integers(0, n) for n in arr.shape)
            up, down = arr.copy(), arr.copy()
            up[i] += eps
            down[i] -= eps
            args_up = (up, w) if which == 0 else (x, up)
            args_down = (down, w) if which == 0 else (x, down)
            numeric = (float(loss(*[a.astype(np.float32) for a in args_up]))
                       - float(loss(*[a.astype(np.float32) for a in args_down]))) / (2 * eps)
            assert abs(float(np.asarray(g)[i]) - numeric) < 2e-2


@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0), (1, 2)])
@pytest.mark.parametrize("groups", [(1, 1), (2, 1), (1, 2)])
def test_vmap_matches_a_loop(axes, groups, jit_backend):
    G, B = groups
    xs = rng.standard_normal((3, 4, 4, 5, 4)).astype(np.float32)
    ws = rng.standard_normal((3, 4, 4 // G, 3, 2)).astype(np.float32)
    x1, w1 = xs[0], ws[0]
    if axes[0] == 1:
        xs = np.moveaxis(xs, 0, 1)
    if axes[1] == 2:
        ws = np.moveaxis(ws, 0, 2)
    f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
        x, w, (1, 1), "SAME", feature_group_count=G, batch_group_count=B)
    xs_in = xs if axes[0] is not None else x1
    ws_in = ws if axes[1] is not None else w1
    got = jax.jit(jax.vmap(f, in_axes=axes))(xs_in, ws_in)
    xs0 = np.moveaxis(xs, axes[0], 0) if axes[0] is not None else np.stack([x1] * 3)
    ws0 = np.moveaxis(ws, axes[1], 0) if axes[1] is not None else np.stack([w1] * 3)
    want = np.stack([np.asarray(f(a, b)) for a, b in zip(xs0, ws0)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_jvp_is_bilinear():
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    tx, tw = x * 0.5, w * 2
    f = lambda x, w: lax.conv(x, w, (1, 1), "SAME")  # noqa: E731
    _, t = jax.jvp(f, (x, w), (tx, tw))
    np.testing.assert_allclose(np.asarray(t), np.asarray(f(tx, w)) + np.asarray(f(x, tw)),
                               rtol=1e-5, atol=1e-5)


# printed by JAX 0.10.2
GRAD_JAXPR = """\
{ lambda ; a:f32[2,3,8,8] b:f32[4,3,3,3]. let
    c:f32[2,4,8,8] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2, 3) out_sharding=None] c
    d:f32[2,4,8,8] = broadcast_in_dim 1.0:f32[]
    e:f32[4,3,3,3] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(1, 0, 2, 3), rhs_spec=(1, 0, 2, 3), out_spec=(1, 0, 2, 3))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] a d
    f:f32[4,3,3,3] = rev[dimensions=(2, 3)] b
    g:f32[2,3,8,8] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(1, 0, 2, 3), out_spec=(0, 1, 2, 3))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] d f
  in (g, e) }"""

NHWC_JAXPR = """\
{ lambda ; a:f32[2,8,8,3] b:f32[3,3,3,4]. let
    c:f32[2,4,7,4] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 0), (0, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(2, 1)
    ] a b
  in (c,) }"""


def test_printed_jaxprs_are_jaxs():
    x, w = np.ones((2, 3, 8, 8), np.float32), np.ones((4, 3, 3, 3), np.float32)
    grad = jax.grad(lambda x, w: lax.conv(x, w, (1, 1), "SAME").sum(), argnums=(0, 1))
    assert str(jax.make_jaxpr(grad)(x, w)) == GRAD_JAXPR
    f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
        x, w, (2, 1), [(1, 0), (0, 1)], dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert str(jax.make_jaxpr(f)(np.ones((2, 8, 8, 3), np.float32),
                                 np.ones((3, 3, 3, 4), np.float32))) == NHWC_JAXPR


X, W = np.ones((2, 3, 8, 8), np.float32), np.ones((4, 3, 3, 3), np.float32)
ERRORS = [  # (call, class, message), from JAX 0.10.2
    (lambda: lax.conv(X, W.astype(np.int32), (1, 1), "SAME"), TypeError,
     "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.conv(X.astype(np.int32), W.astype(np.int32), (1, 1), "SAME",
                      preferred_element_type=np.int8), TypeError,
     "`preferred_element_type` must not be narrower than the original type."),
    (lambda: lax.conv(X, W, (1, 1), "FOO"), RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    (lambda: lax.conv(X, W, (1,), "SAME"), ValueError,
     "conv_general_dilated window and window_strides must have the same number of dimensions, "
     "but got 2 and 1"),
    (lambda: lax.conv(X, W[:, :2], (1, 1), "SAME"), ValueError,
     "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal "
     "the rhs input feature dimension size, but 3 // 1 != 2."),
    (lambda: lax.conv(X, W[None], (1, 1), "SAME"), TypeError,
     "convolution requires lhs and rhs ndim to be equal, got 4 and 5."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", lhs_dilation=(2, 2)), ValueError,
     "String padding is not implemented for transposed convolution using this op. Please either "
     "exactly specify the required padding or use conv_transpose."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), [(1, 1)]), TypeError,
     "Wrong number of explicit pads for convolution: expected 2, got 1."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW")),
     TypeError, "convolution dimension_numbers list/tuple must be length 3, got 2."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME",
                                      dimension_numbers=("NCHX", "OIHW", "NCHW")), TypeError,
     "convolution dimension_numbers elements must each have the same set of spatial characters, "
     "got ('NCHX', 'OIHW', 'NCHW')."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", feature_group_count=2), ValueError,
     "conv_general_dilated feature_group_count must divide lhs feature dimension size, but 2 "
     "does not divide 3."),
    (lambda: lax.conv_general_dilated(X, W[:, :1], (1, 1), "SAME", feature_group_count=3),
     ValueError, "conv_general_dilated rhs output feature dimension size must be a multiple of "
     "feature_group_count, but 4 is not a multiple of 3."),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_are_jaxs(case):
    call, cls, message = ERRORS[case]
    with pytest.raises(cls) as info:
        call()
    assert str(info.value) == message


# printed by JAX 0.10.2: jnp.correlate is conv_general_dilated on one image, one feature
CORRELATE_JAXPR = """\
{ lambda ; a:f32[2] b:f32[4]. let
    c:f32[5] = jit[
      name=correlate
      jaxpr={ lambda ; a:f32[2] b:f32[4]. let
          c:f32[5] = jit[
            name=_conv
            jaxpr={ lambda ; a:f32[2] b:f32[4]. let
                d:f32[1,1,4] = broadcast_in_dim[broadcast_dimensions=(2,)] b
                e:f32[1,1,2] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:f32[1,1,5] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((1, 1),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] d e
                g:f32[1,1,5] = rev[dimensions=(2,)] f
                c:f32[5] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }"""


def test_jnp_convolve_and_correlate_are_convolutions(jit_backend):
    a, v = np.array([1., 2, 3, 4], np.float32), np.array([0.5, -1, 2], np.float32)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(np.asarray(jax.jit(jnp.convolve, static_argnames="mode")(
            a, v, mode=mode)), np.convolve(a, v, mode), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(jax.jit(jnp.correlate, static_argnames="mode")(
            v, a, mode=mode)), np.correlate(v, a, mode), rtol=1e-6)
    assert str(jax.make_jaxpr(lambda x, y: jnp.correlate(x, y, "full"))(
        jnp.ones(2), jnp.ones(4))) == CORRELATE_JAXPR
