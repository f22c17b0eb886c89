"""Chapter 00 — ``lax.fft`` and ``jnp.fft``, against NumPy's FFT and JAX 0.10.2.

Values are checked against ``numpy.fft`` (computed in float64), dtypes and
errors against JAX's, printed jaxprs against the ones JAX 0.10.2 prints for
the same programs. The transformations: ``jit`` on every backend (the CPU
target calls NumPy's FFT back from the kernel; CUDA runs it on the host),
``vmap`` (batch axes are leading axes of the transform), ``jvp`` (an FFT is
linear) and ``grad`` (the transposes: FFT and IFFT are symmetric, RFFT and
IRFFT transpose into each other), checked with finite differences and with
gradients JAX computed.
"""
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

RNG = np.random.RandomState(0)
X = RNG.randn(3, 6).astype(np.float32)                     # a real signal per row
Z = (RNG.randn(3, 6) + 1j * RNG.randn(3, 6)).astype(np.complex64)
X4 = RNG.randn(2, 3, 4, 5).astype(np.float32)              # four axes: two rounds of lax.fft
TOL = dict(rtol=2e-5, atol=2e-5)


def close(actual, expected, dtype, **tol):
    """``actual`` has ``dtype`` and the values of ``expected`` (float64), relative to its size."""
    assert np.asarray(actual).dtype == dtype
    expected = np.asarray(expected)
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    tol = {**TOL, **tol}
    np.testing.assert_allclose(np.asarray(actual, expected.dtype), expected,
                               rtol=tol["rtol"], atol=tol["atol"] * scale)


def _f64(x):
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


# --- values against NumPy ------------------------------------------------------------------------
ONE_D = {"fft": Z, "ifft": Z, "rfft": X, "irfft": Z, "hfft": Z, "ihfft": X}
OUT_DTYPE = {"fft": np.complex64, "ifft": np.complex64, "rfft": np.complex64,
             "irfft": np.float32, "hfft": np.float32, "ihfft": np.complex64}


@pytest.mark.parametrize("name", list(ONE_D))
@pytest.mark.parametrize("n", [None, 4, 9])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_one_dimensional_transforms_match_numpy(name, n, axis, norm):
    a = ONE_D[name]
    got = getattr(jnp.fft, name)(a, n=n, axis=axis, norm=norm)
    close(got, getattr(np.fft, name)(_f64(a), n=n, axis=axis, norm=norm), OUT_DTYPE[name])


N_D = {"fftn": Z, "ifftn": Z, "rfftn": X, "irfftn": Z}


@pytest.mark.parametrize("name", list(N_D))
@pytest.mark.parametrize("s, axes", [(None, None), ((2, 8), None), (None, (1,)),
                                     ((5, 3), (1, 0)), ((4,), (0,))])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_n_dimensional_transforms_match_numpy(name, s, axes, norm):
    a = N_D[name]
    got = getattr(jnp.fft, name)(a, s=s, axes=axes, norm=norm)
    np_axes = tuple(range(-len(s), 0)) if axes is None and s is not None else axes
    close(got, getattr(np.fft, name)(_f64(a), s=s, axes=np_axes, norm=norm),
          np.float32 if name == "irfftn" else np.complex64)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("s, axes", [(None, (-2, -1)), ((4, 5), (-2, -1)), (None, (2, 0)),
                                     ((3, 2), (0, 1))])
def test_two_dimensional_transforms_match_numpy(name, s, axes):
    a = (X4 if name.startswith("r") else X4 + 1j * X4[::-1]).astype(
        np.float32 if name.startswith("r") else np.complex64)
    got = getattr(jnp.fft, name)(a, s=s, axes=axes)
    close(got, getattr(np.fft, name)(_f64(a), s=s, axes=axes),
          np.float32 if name == "irfft2" else np.complex64)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 2, 3, 2, 3)])
def test_more_than_three_axes_match_numpy(name, shape):
    """lax.fft does at most three axes: four or five take two rounds."""
    a = RNG.randn(*shape)
    a = (a if name == "rfftn" else a + 0.5j * a[..., ::-1]).astype(
        np.float32 if name == "rfftn" else np.complex64)
    close(getattr(jnp.fft, name)(a), getattr(np.fft, name)(_f64(a)),
          np.float32 if name == "irfftn" else np.complex64, atol=1e-4)


def test_round_trips():
    close(jnp.fft.ifft(jnp.fft.fft(Z)), Z, np.complex64)
    close(jnp.fft.irfft(jnp.fft.rfft(X), n=6), X, np.float32)
    close(jnp.fft.irfftn(jnp.fft.rfftn(X4), s=X4.shape), X4, np.float32)
    close(jnp.fft.ihfft(jnp.fft.hfft(Z[0, :4], n=6)), np.fft.ihfft(np.fft.hfft(Z[0, :4], n=6)),
          np.complex64)


@pytest.mark.parametrize("fft_type, lengths, operand", [
    ("fft", (6,), Z), ("ifft", (3, 6), Z), ("rfft", (6,), X), ("rfft", (3, 6), X),
    ("irfft", (10,), Z), ("irfft", (3, 10), Z)])
def test_lax_fft_transforms_the_last_axes(fft_type, lengths, operand):
    axes = tuple(range(-len(lengths), 0))
    kind = lax.FftType[fft_type.upper()]
    if fft_type == "irfft":
        expected = np.fft.irfftn(_f64(operand), s=lengths, axes=axes)
    else:
        expected = getattr(np.fft, fft_type + "n")(_f64(operand), axes=axes)
    close(lax.fft(operand, kind, lengths), expected,
          np.float32 if fft_type == "irfft" else np.complex64)
    assert lax.fft(operand, fft_type, lengths).shape == expected.shape  # by name too


def test_fft_type_is_jax_enum():
    assert [t.name for t in lax.FftType] == ["FFT", "IFFT", "RFFT", "IRFFT"]
    assert [int(t) for t in lax.FftType] == [0, 1, 2, 3]
    assert str(lax.FftType.RFFT) == "2"  # (an IntEnum: params print as numbers)
    assert lax.fft_p.name == "fft" and lax.fft_p.linear_in == (0,)


def test_empty_transforms():
    assert jnp.fft.fft(np.zeros((0,), np.float32)).shape == (0,)
    assert jnp.fft.fft(np.zeros((3, 0), np.float32)).shape == (3, 0)
    out = jnp.fft.irfft(np.zeros((1,), np.complex64))  # n = 2 * (1 - 1) = 0
    assert out.shape == (0,) and out.dtype == np.float32


# --- dtypes -----------------------------------------------------------------------------------
# from JAX 0.10.2: the result dtype of each transform of a length-4 array of each dtype
DTYPES = {
    "fft": "complex64", "ifft": "complex64", "rfft": "complex64", "irfft": "float32",
    "hfft": "float32", "ihfft": "complex64"}


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.bool_, np.float16,
                                   np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("name", list(DTYPES))
def test_result_dtypes(dtype, name):
    x = np.arange(4).astype(dtype)
    fn = getattr(jnp.fft, name)
    if name in ("rfft", "ihfft") and dtype == np.float16:  # from JAX 0.10.2
        with pytest.raises(ValueError, match="RFFT input must be float32 or float64, got float16"):
            fn(x)
    elif name in ("rfft", "ihfft") and dtype == np.complex64:  # from JAX 0.10.2
        with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
            fn(x)
    else:
        out = fn(x)
        assert out.dtype == DTYPES[name]
        close(out, getattr(np.fft, name)(x.astype(np.complex128 if name in ("fft", "ifft",
                                                                             "irfft", "hfft")
                                                  else np.float64)), out.dtype, atol=1e-3)


# --- frequencies and shifts ----------------------------------------------------------------------
@pytest.mark.parametrize("n, d", [(5, 1.0), (6, 0.1), (1, 2.0), (8, 0.5)])
def test_fftfreq_and_rfftfreq_match_numpy(n, d):
    close(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d), np.float32, rtol=1e-6)
    close(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d), np.float32, rtol=1e-6)


def test_fftfreq_dtypes():
    # from JAX 0.10.2
    np.testing.assert_array_equal(jnp.fft.fftfreq(4, dtype=jnp.int32), np.zeros(4, np.int32))
    assert jnp.fft.fftfreq(4, dtype=jnp.int32).dtype == np.int32
    close(jnp.fft.fftfreq(4, dtype=jnp.float16), [0.0, 0.25, -0.5, -0.25], np.float16)
    close(jnp.fft.rfftfreq(4, dtype=jnp.float16), [0.0, 0.25, 0.5], np.float16)
    close(jnp.fft.fftfreq(4, dtype=jnp.complex64), np.array([0.0, 0.25, -0.5, -0.25], complex),
          np.complex64)


@pytest.mark.parametrize("axes", [None, 0, 1, (1, 0), (-1,)])
@pytest.mark.parametrize("shape", [(3, 4), (5, 2)])
def test_fftshift_and_ifftshift_match_numpy(axes, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
    np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
    np.testing.assert_array_equal(jnp.fft.ifftshift(jnp.fft.fftshift(x, axes), axes), x)


# --- errors: JAX's classes and messages ------------------------------------------------------------
M = np.arange(12, dtype=np.float32).reshape(3, 4)
# from JAX 0.10.2
JNP_ERRORS = [
    (lambda: jnp.fft.fft([1.0, 2.0]), TypeError,
     "jax.numpy.fft.fft requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    (lambda: jnp.fft.fftn(M, axes=(0, 0)), ValueError,
     "jax.numpy.fft.fftn does not support repeated axes. Got axes (0, 0)."),
    (lambda: jnp.fft.fftn(M, s=(0, 2)), ValueError, "Shape should be positive."),
    (lambda: jnp.fft.fft(M, n=-1), ValueError, "Shape should be positive."),
    (lambda: jnp.fft.fftn(M, s=(2,), axes=(0, 1)), ValueError,
     "Shape and axes have different lengths."),
    (lambda: jnp.fft.fft(M, axis=(0, 1)), ValueError,
     "jax.numpy.fft.fft does not support multiple axes. Please use jax.numpy.fft.fftn. "
     "Got axis = (0, 1)."),
    (lambda: jnp.fft.hfft(M, axis=[0]), ValueError,
     "jax.numpy.fft.hfft does not support multiple axes. Please use jax.numpy.fft.hfftn. "
     "Got axis = [0]."),
    (lambda: jnp.fft.fft2(M, axes=(0, 1, 1)), ValueError,
     "jax.numpy.fft.fft2 only supports 2 axes. Got axes = (0, 1, 1)."),
    (lambda: jnp.fft.irfft2(M, axes=(0,)), ValueError,
     "jax.numpy.fft.irfft2 only supports 2 axes. Got axes = (0,)."),
    (lambda: jnp.fft.fft(M, norm="bad"), ValueError,
     'Invalid norm value bad; should be "backward","ortho" or "forward".'),
    (lambda: jnp.fft.fftfreq([4]), ValueError,
     "The n argument of jax.numpy.fft.fftfreq only takes an int. Got n = [4]."),
    (lambda: jnp.fft.fftfreq(4, d=[1.0]), ValueError,
     "The d argument of jax.numpy.fft.fftfreq only takes a single value. Got d = [1.0]."),
    (lambda: jnp.fft.rfftfreq((4,)), ValueError,
     "The n argument of jax.numpy.fft.rfftfreq only takes an int. Got n = [4]."),
    (lambda: jnp.fft.fft(M, axis=2), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
    (lambda: jnp.fft.fft(M, n=2.5), TypeError,
     "'float' object cannot be interpreted as an integer"),
    (lambda: jnp.fft.fftshift([1, 2, 3]), TypeError,
     "fftshift requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    (lambda: jnp.fft.rfft(M.astype(np.complex64)), ValueError,
     "only real valued inputs supported for rfft"),
]

LAX_ERRORS = [
    (lambda: lax.fft(M, "bad", (4,)), ValueError, "Unknown FFT type 'bad'"),
    (lambda: lax.fft(M, 7, (4,)), TypeError, "Unknown FFT type value '7'"),
    (lambda: lax.fft(M[0], "fft", (4, 5)), ValueError,
     "FFT input shape (4,) must have at least as many input dimensions as fft_lengths (4, 5)."),
    (lambda: lax.fft(M[0], "fft", (5,)), ValueError,
     "FFT input shape (4,) minor dimensions must be equal to fft_lengths (5,)"),
    (lambda: lax.fft(M[0], "rfft", (5,)), ValueError,
     "RFFT input shape (4,) minor dimensions must be equal to fft_lengths (5,)"),
    (lambda: lax.fft(M, "irfft", (2, 6)), ValueError,
     "IRFFT input shape (3, 4) minor dimensions must be equal to all except the last "
     "fft_length, got fft_lengths=(2, 6)"),
    (lambda: lax.fft_p.bind(M, fft_type=lax.FftType.FFT, fft_lengths=(4,)), ValueError,
     "FFT input must be complex64 or complex128, got float32"),
    # (JAX raises this one when XLA compiles the program, as an MLIRError)
    (lambda: lax.fft(M, "irfft", (5,)), ValueError,
     "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. "
     "Got: 4 but fft_length is 5."),
]


@pytest.mark.parametrize("k", range(len(JNP_ERRORS) + len(LAX_ERRORS)))
def test_errors(k):
    fn, error, message = (JNP_ERRORS + LAX_ERRORS)[k]
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message


def test_scalars_and_no_axes():
    # from JAX 0.10.2: fftn of a scalar (no axes) and over axes=() only converts
    out = jnp.fft.fftn(np.float32(3.0))
    assert out.dtype == np.complex64 and out.shape == () and complex(out) == 3
    close(jnp.fft.fftn(M, axes=()), M.astype(np.complex64), np.complex64)
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        jnp.fft.fft(np.float32(3.0))


# --- printed jaxprs ----------------------------------------------------------------------------
F8 = np.arange(8, dtype=np.float32)
C5 = np.ones(5, np.complex64)
C4D = np.ones((2, 3, 4, 5), np.complex64)
MJ = minijax.make_jaxpr
JAXPR_PROGRAMS = {
    "fft": lambda: MJ(jnp.fft.fft)(F8),
    "rfft": lambda: MJ(jnp.fft.rfft)(F8),
    "irfft": lambda: MJ(jnp.fft.irfft)(C5),
    "fft2": lambda: MJ(jnp.fft.fft2)(M),
    "fft_axis0": lambda: MJ(lambda x: jnp.fft.fft(x, axis=0))(M),
    "fft_ortho": lambda: MJ(lambda x: jnp.fft.fft(x, norm="ortho"))(F8),
    "fft_backward": lambda: MJ(lambda x: jnp.fft.fft(x, norm="backward"))(M),
    "ifft_forward": lambda: MJ(lambda x: jnp.fft.ifft(x, norm="forward"))(M),
    "hfft": lambda: MJ(jnp.fft.hfft)(M),
    "ihfft": lambda: MJ(jnp.fft.ihfft)(M),
    "fftfreq": lambda: MJ(lambda: jnp.fft.fftfreq(5))(),
    "rfftfreq": lambda: MJ(lambda: jnp.fft.rfftfreq(5))(),
    "fftn_4d": lambda: MJ(jnp.fft.fftn)(np.ones((2, 3, 4, 5), np.float32)),
    "irfftn_4d": lambda: MJ(jnp.fft.irfftn)(C4D),
    "lax_fft_no_lengths": lambda: MJ(lambda x: lax.fft(x, "fft", ()))(F8),
    "lax_fft_int": lambda: MJ(lambda x: lax.fft(x, lax.FftType.RFFT, (8,)))(
        np.arange(8, dtype=np.int32)),
    "vmap_fft": lambda: MJ(minijax.vmap(jnp.fft.fft))(M),
    "vmap_fft_axis1": lambda: MJ(minijax.vmap(jnp.fft.fft, in_axes=1))(M),
    "jvp_fft": lambda: MJ(lambda x, t: minijax.jvp(jnp.fft.fft, (x,), (t,)))(F8, F8),
    "grad_fft": lambda: MJ(minijax.grad(lambda x: jnp.real(jnp.sum(jnp.fft.fft(x)))))(F8),
    "grad_ifft": lambda: MJ(minijax.grad(lambda x: jnp.real(jnp.sum(jnp.fft.ifft(x)))))(F8),
    "grad_rfft": lambda: MJ(minijax.grad(lambda x: jnp.real(jnp.sum(jnp.fft.rfft(x)))))(F8),
    "grad_irfft": lambda: MJ(minijax.grad(
        lambda x: jnp.sum(jnp.fft.irfft(x.astype(jnp.complex64)))))(np.ones(5, np.float32)),
    "grad_rfft2": lambda: MJ(minijax.grad(lambda x: jnp.real(jnp.sum(jnp.fft.rfft2(x)))))(M),
}

# from JAX 0.10.2: str(jax.make_jaxpr(...)) of the programs above
JAXPRS = {
    "fft": """\
{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          c:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[8] = fft[fft_lengths=(8,) fft_type=0] c
        in (b,) }
    ] a
  in (b,) }""",
    "rfft": """\
{ lambda ; a:f32[8]. let
    b:c64[5] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          b:c64[5] = fft[fft_lengths=(8,) fft_type=2] a
        in (b,) }
    ] a
  in (b,) }""",
    "irfft": """\
{ lambda ; a:c64[5]. let
    b:f32[8] = jit[
      name=fft
      jaxpr={ lambda ; a:c64[5]. let
          b:f32[8] = fft[fft_lengths=(8,) fft_type=3] a
        in (b,) }
    ] a
  in (b,) }""",
    "fft2": """\
{ lambda ; a:f32[3,4]. let
    b:c64[3,4] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          c:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[3,4] = fft[fft_lengths=(3, 4) fft_type=0] c
        in (b,) }
    ] a
  in (b,) }""",
    "fft_axis0": """\
{ lambda ; a:f32[3,4]. let
    b:f32[4,3] = transpose[permutation=(1, 0)] a
    c:c64[4,3] = jit[
      name=fft
      jaxpr={ lambda ; b:f32[4,3]. let
          d:c64[4,3] = convert_element_type[new_dtype=complex64 weak_type=False] b
          c:c64[4,3] = fft[fft_lengths=(3,) fft_type=0] d
        in (c,) }
    ] b
    e:c64[3,4] = transpose[permutation=(1, 0)] c
  in (e,) }""",
    "fft_ortho": """\
{ lambda a:c64[1]; b:f32[8]. let
    c:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; b:f32[8]. let
          d:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] b
          c:c64[8] = fft[fft_lengths=(8,) fft_type=0] d
        in (c,) }
    ] b
    e:c64[] = reduce_prod[axes=(0,)] a
    f:c64[] = sqrt e
    g:c64[] = div (1+0j):c64[] f
    h:c64[8] = mul c g
  in (h,) }""",
    "fft_backward": """\
{ lambda ; a:f32[3,4]. let
    b:c64[3,4] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          c:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[3,4] = fft[fft_lengths=(4,) fft_type=0] c
        in (b,) }
    ] a
    d:c64[3,4] = mul b (1+0j):c64[]
  in (d,) }""",
    "ifft_forward": """\
{ lambda a:c64[1]; b:f32[3,4]. let
    c:c64[3,4] = jit[
      name=fft
      jaxpr={ lambda ; b:f32[3,4]. let
          d:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] b
          c:c64[3,4] = fft[fft_lengths=(4,) fft_type=1] d
        in (c,) }
    ] b
    e:c64[] = reduce_prod[axes=(0,)] a
    f:c64[3,4] = mul c e
  in (f,) }""",
    "hfft": """\
{ lambda ; a:f32[3,4]. let
    b:f32[3,6] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          c:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:f32[3,6] = fft[fft_lengths=(6,) fft_type=3] c
        in (b,) }
    ] a
    d:f32[3,6] = mul b 6.0:f32[]
  in (d,) }""",
    "ihfft": """\
{ lambda ; a:f32[3,4]. let
    b:c64[3,3] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          b:c64[3,3] = fft[fft_lengths=(4,) fft_type=2] a
        in (b,) }
    ] a
    c:c64[3,3] = conj[input_dtype=complex64] b
    d:c64[3,3] = mul c (0.25+0j):c64[]
  in (d,) }""",
    "fftfreq": """\
{ lambda ; . let
    a:f32[5] = iota[dimension=0 dtype=float32 shape=(5,) sharding=None] 
    b:f32[5] = add a 2.0:f32[]
    c:f32[5] = jit[
      name=remainder
      jaxpr={ lambda ; b:f32[5] d:i32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          f:f32[5] = rem b e
          g:bool[5] = ne f 0.0:f32[]
          h:bool[5] = lt f 0.0:f32[]
          i:bool[] = lt e 0.0:f32[]
          j:bool[5] = ne h i
          k:bool[5] = and j g
          l:f32[5] = add f e
          c:f32[5] = select_n k f l
        in (c,) }
    ] b 5:i32[]
    m:f32[5] = sub c 2.0:f32[]
    n:f32[5] = div m 5.0:f32[]
  in (n,) }""",
    "rfftfreq": """\
{ lambda ; . let
    a:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] 
    b:f32[3] = div a 5.0:f32[]
  in (b,) }""",
    "fftn_4d": """\
{ lambda ; a:f32[2,3,4,5]. let
    b:c64[2,3,4,5] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[2,3,4,5]. let
          c:c64[2,3,4,5] = convert_element_type[
            new_dtype=complex64
            weak_type=False
          ] a
          b:c64[2,3,4,5] = fft[fft_lengths=(4, 5) fft_type=0] c
        in (b,) }
    ] a
    d:c64[4,5,2,3] = transpose[permutation=(2, 3, 0, 1)] b
    e:c64[4,5,2,3] = jit[
      name=fft
      jaxpr={ lambda ; d:c64[4,5,2,3]. let
          e:c64[4,5,2,3] = fft[fft_lengths=(2, 3) fft_type=0] d
        in (e,) }
    ] d
    f:c64[2,3,4,5] = transpose[permutation=(2, 3, 0, 1)] e
  in (f,) }""",
    "irfftn_4d": """\
{ lambda ; a:c64[2,3,4,5]. let
    b:c64[4,5,2,3] = transpose[permutation=(2, 3, 0, 1)] a
    c:c64[4,5,2,3] = jit[
      name=fft
      jaxpr={ lambda ; b:c64[4,5,2,3]. let
          c:c64[4,5,2,3] = fft[fft_lengths=(2, 3) fft_type=1] b
        in (c,) }
    ] b
    d:c64[2,3,4,5] = transpose[permutation=(2, 3, 0, 1)] c
    e:f32[2,3,4,8] = jit[
      name=fft
      jaxpr={ lambda ; d:c64[2,3,4,5]. let
          e:f32[2,3,4,8] = fft[fft_lengths=(4, 8) fft_type=3] d
        in (e,) }
    ] d
  in (e,) }""",
    "lax_fft_no_lengths": """\
{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          b:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
        in (b,) }
    ] a
  in (b,) }""",
    "lax_fft_int": """\
{ lambda ; a:i32[8]. let
    b:c64[5] = jit[
      name=fft
      jaxpr={ lambda ; a:i32[8]. let
          c:f32[8] = convert_element_type[new_dtype=float32 weak_type=False] a
          b:c64[5] = fft[fft_lengths=(8,) fft_type=2] c
        in (b,) }
    ] a
  in (b,) }""",
    "vmap_fft": """\
{ lambda ; a:f32[3,4]. let
    b:c64[3,4] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          c:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[3,4] = jit[
            name=fft
            jaxpr={ lambda ; c:c64[3,4]. let
                b:c64[3,4] = fft[fft_lengths=(4,) fft_type=0] c
              in (b,) }
          ] c
        in (b,) }
    ] a
  in (b,) }""",
    "vmap_fft_axis1": """\
{ lambda ; a:f32[3,4]. let
    b:c64[4,3] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          c:c64[3,4] = convert_element_type[new_dtype=complex64 weak_type=False] a
          d:c64[4,3] = transpose[permutation=(1, 0)] c
          b:c64[4,3] = jit[
            name=fft
            jaxpr={ lambda ; d:c64[4,3]. let
                b:c64[4,3] = fft[fft_lengths=(3,) fft_type=0] d
              in (b,) }
          ] d
        in (b,) }
    ] a
  in (b,) }""",
    "jvp_fft": """\
{ lambda ; a:f32[8] b:f32[8]. let
    c:c64[8] d:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8] b:f32[8]. let
          e:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          f:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] b
          c:c64[8] = fft[fft_lengths=(8,) fft_type=0] e
          d:c64[8] = fft[fft_lengths=(8,) fft_type=0] f
        in (c, d) }
    ] a b
  in (c, d) }""",
    "grad_fft": """\
{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          c:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[8] = fft[fft_lengths=(8,) fft_type=0] c
        in (b,) }
    ] a
    d:c64[] = reduce_sum[axes=(0,) out_sharding=None] b
    _:f32[] = real d
    e:c64[] = complex 1.0:f32[] 0.0:f32[]
    f:c64[8] = broadcast_in_dim e
    g:f32[8] = jit[
      name=fft
      jaxpr={ lambda ; f:c64[8]. let
          h:c64[8] = jit[
            name=fft
            jaxpr={ lambda ; f:c64[8]. let
                h:c64[8] = fft[fft_lengths=(8,) fft_type=0] f
              in (h,) }
          ] f
          g:f32[8] = convert_element_type[new_dtype=float32 weak_type=False] h
        in (g,) }
    ] f
  in (g,) }""",
    "grad_ifft": """\
{ lambda ; a:f32[8]. let
    b:c64[8] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          c:c64[8] = convert_element_type[new_dtype=complex64 weak_type=False] a
          b:c64[8] = fft[fft_lengths=(8,) fft_type=1] c
        in (b,) }
    ] a
    d:c64[] = reduce_sum[axes=(0,) out_sharding=None] b
    _:f32[] = real d
    e:c64[] = complex 1.0:f32[] 0.0:f32[]
    f:c64[8] = broadcast_in_dim e
    g:f32[8] = jit[
      name=fft
      jaxpr={ lambda ; f:c64[8]. let
          h:c64[8] = jit[
            name=fft
            jaxpr={ lambda ; f:c64[8]. let
                h:c64[8] = fft[fft_lengths=(8,) fft_type=1] f
              in (h,) }
          ] f
          g:f32[8] = convert_element_type[new_dtype=float32 weak_type=False] h
        in (g,) }
    ] f
  in (g,) }""",
    "grad_rfft": """\
{ lambda ; a:f32[8]. let
    b:c64[5] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[8]. let
          b:c64[5] = fft[fft_lengths=(8,) fft_type=2] a
        in (b,) }
    ] a
    c:c64[] = reduce_sum[axes=(0,) out_sharding=None] b
    _:f32[] = real c
    d:c64[] = complex 1.0:f32[] 0.0:f32[]
    e:c64[5] = broadcast_in_dim d
    f:f32[8] = jit[
      name=fft
      jaxpr={ lambda ; e:c64[5]. let
          f:f32[8] = jit[
            name=_rfft_transpose
            jaxpr={ lambda ; e:c64[5]. let
                g:c64[5] = broadcast_in_dim (2+0j):c64[]
                h:c64[1] = broadcast_in_dim (1+0j):c64[]
                i:c64[5] = dynamic_update_slice g h 0:i32[]
                j:c64[1] = broadcast_in_dim (1+0j):c64[]
                k:c64[5] = dynamic_update_slice i j 4:i32[]
                l:c64[5] = conj[input_dtype=complex64] e
                m:c64[5] = div l k
                n:f32[8] = jit[
                  name=fft
                  jaxpr={ lambda ; m:c64[5]. let
                      n:f32[8] = fft[fft_lengths=(8,) fft_type=3] m
                    in (n,) }
                ] m
                f:f32[8] = mul 8.0:f32[] n
              in (f,) }
          ] e
        in (f,) }
    ] e
  in (f,) }""",
    "grad_irfft": """\
{ lambda ; a:f32[5]. let
    b:c64[5] = convert_element_type[new_dtype=complex64 weak_type=False] a
    c:f32[8] = jit[
      name=fft
      jaxpr={ lambda ; b:c64[5]. let
          c:f32[8] = fft[fft_lengths=(8,) fft_type=3] b
        in (c,) }
    ] b
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c
    d:f32[8] = broadcast_in_dim 1.0:f32[]
    e:c64[5] = jit[
      name=fft
      jaxpr={ lambda ; d:f32[8]. let
          f:c64[5] = jit[
            name=fft
            jaxpr={ lambda ; d:f32[8]. let
                f:c64[5] = fft[fft_lengths=(8,) fft_type=2] d
              in (f,) }
          ] d
          g:c64[5] = broadcast_in_dim (2+0j):c64[]
          h:c64[1] = broadcast_in_dim (1+0j):c64[]
          i:c64[5] = dynamic_update_slice g h 0:i32[]
          j:c64[1] = broadcast_in_dim (1+0j):c64[]
          k:c64[5] = dynamic_update_slice i j 4:i32[]
          l:c64[5] = mul (0.125+0j):c64[] k
          m:c64[5] = mul l f
          e:c64[5] = conj[input_dtype=complex64] m
        in (e,) }
    ] d
    n:f32[5] = convert_element_type[new_dtype=float32 weak_type=False] e
  in (n,) }""",
    "grad_rfft2": """\
{ lambda ; a:f32[3,4]. let
    b:c64[3,3] = jit[
      name=fft
      jaxpr={ lambda ; a:f32[3,4]. let
          b:c64[3,3] = fft[fft_lengths=(3, 4) fft_type=2] a
        in (b,) }
    ] a
    c:c64[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    _:f32[] = real c
    d:c64[] = complex 1.0:f32[] 0.0:f32[]
    e:c64[3,3] = broadcast_in_dim d
    f:f32[3,4] = jit[
      name=fft
      jaxpr={ lambda ; e:c64[3,3]. let
          f:f32[3,4] = jit[
            name=_rfft_transpose
            jaxpr={ lambda ; e:c64[3,3]. let
                g:c64[3] = broadcast_in_dim (2+0j):c64[]
                h:c64[1] = broadcast_in_dim (1+0j):c64[]
                i:c64[3] = dynamic_update_slice g h 0:i32[]
                j:c64[1] = broadcast_in_dim (1+0j):c64[]
                k:c64[3] = dynamic_update_slice i j 2:i32[]
                l:c64[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] k
                m:c64[3,3] = conj[input_dtype=complex64] e
                n:c64[3,3] = div m l
                o:f32[3,4] = jit[
                  name=fft
                  jaxpr={ lambda ; n:c64[3,3]. let
                      o:f32[3,4] = fft[fft_lengths=(3, 4) fft_type=3] n
                    in (o,) }
                ] n
                f:f32[3,4] = mul 12.0:f32[] o
              in (f,) }
          ] e
        in (f,) }
    ] e
  in (f,) }""",
}


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("name", list(JAXPRS))
def test_printed_jaxprs_are_jaxs(name):
    assert str(JAXPR_PROGRAMS[name]()) == JAXPRS[name].rstrip("\n")


# --- transformations -----------------------------------------------------------------------------
def _numerical_grad(f, x, eps=1e-5):
    """Central differences of a float64 function."""
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


W = np.array([1.0, 0.5, -2.0, 0.25], np.float32)


def _rfft_loss(xp):
    """A real loss of the spectrum: weighted real and imaginary parts squared."""
    def loss(x):
        y = xp.fft.rfft(x)
        return xp.sum(W * (xp.real(y) ** 2 + xp.imag(y) ** 2 * 0.5))
    return loss


def _irfft_loss(xp):
    """A real loss of the signal made from complex coefficients (real and imaginary parts)."""
    def loss(c):
        z = c[:4] + 1j * c[4:]
        return xp.sum(xp.fft.irfft(z, n=7) * xp.arange(7.0))
    return loss


def _round_trip_loss(xp):
    """A real loss through both RFFT and IRFFT (so through both their transposes)."""
    def loss(x):
        return xp.sum(xp.fft.irfft(xp.fft.rfft(x) * W, n=7) * xp.arange(7.0) ** 2)
    return loss


X7 = np.array([0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0], np.float32)
C8 = np.array([0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0, 1.0], np.float32)
# from JAX 0.10.2: jax.grad of the two losses above at X7 and C8
GRAD_RFFT = [26.555122, 16.966576, -6.397434, 9.697561, 26.535187, 3.8045802, -0.16158962]
GRAD_IRFFT = [3.0000002, -1.0, -1.0, -1.0, 0.0, 2.0765216, 0.7974734, 0.22824343]


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_grad_through_rfft_and_irfft():
    for loss, x, jax_grad in [(_rfft_loss, X7, GRAD_RFFT), (_irfft_loss, C8, GRAD_IRFFT)]:
        g = minijax.grad(loss(jnp))(x)
        close(g, _numerical_grad(loss(np), x), np.float32, atol=1e-4)
        close(g, jax_grad, np.float32, rtol=1e-6, atol=1e-6)
    g = minijax.grad(_round_trip_loss(jnp))(X7)
    close(g, _numerical_grad(_round_trip_loss(np), X7), np.float32, atol=1e-4)


def test_vjps_with_complex_cotangents():
    """The transposes themselves, against JAX's (its convention for complex cotangents)."""
    ct = np.array([1 + 2j, -0.5 + 1j, 0.25 - 1j, 2 + 0.5j], np.complex64)
    _, vjp = minijax.vjp(jnp.fft.rfft, X7)
    close(vjp(ct)[0], [2.7500002, -1.1454674, 3.150894, 2.864494, -0.5418642, 1.1151019,
                       -1.1931584], np.float32)  # from JAX 0.10.2
    _, vjp = minijax.vjp(lambda z: jnp.fft.irfft(z, n=6), ct)
    close(vjp(np.arange(6.0, dtype=np.float32))[0],
          [2.5, -1 - 1.7320508j, -1 - 0.57735026j, -0.5], np.complex64)  # from JAX 0.10.2
    _, vjp = minijax.vjp(jnp.fft.ifft, ct)
    close(vjp(ct)[0], [0.6875 + 0.625j, 0.0625 + 0.125j, -0.0625 - 0.125j, 0.3125 + 1.375j],
          np.complex64)  # from JAX 0.10.2


@pytest.mark.parametrize("fft_type, shape, lengths", [
    ("fft", (2, 3, 4), (3, 4)), ("ifft", (3, 5), (5,)), ("rfft", (2, 6), (6,)),
    ("rfft", (3, 5), (3, 5)), ("irfft", (2, 4), (6,)), ("irfft", (3, 3), (3, 5))])
def test_transpose_satisfies_the_dot_product_identity(fft_type, shape, lengths):
    """The vjp applies the transpose: ``sum(ct * A x) = sum(A^T ct * x)``."""
    kind = lax.FftType[fft_type.upper()]
    x = RNG.randn(*shape).astype(np.float32)
    if fft_type != "rfft":
        x = (x + 1j * RNG.randn(*shape)).astype(np.complex64)
    y, vjp = minijax.vjp(lambda v: lax.fft(v, kind, lengths), x)
    ct = RNG.randn(*y.shape).astype(np.float32)
    if np.asarray(y).dtype.kind == "c":
        ct = (ct + 1j * RNG.randn(*y.shape)).astype(np.complex64)
    ct_x = np.asarray(vjp(ct)[0])
    if fft_type == "irfft":  # only the parts IRFFT reads count: real DC (and Nyquist) terms
        y_of = lambda v: np.fft.irfftn(v, s=lengths, axes=tuple(range(-len(lengths), 0)))
        x_lin = _numerical_grad(lambda re: np.vdot(ct, y_of(re + 1j * x.imag)).real, x.real)
        y_lin = _numerical_grad(lambda im: np.vdot(ct, y_of(x.real + 1j * im)).real, x.imag)
        # JAX's convention: the cotangent of z = a + ib is d/da - i d/db
        close(ct_x, x_lin - 1j * y_lin, np.complex64, atol=1e-4)
    else:  # sum(ct * A x) = sum(A^T ct * x): no conjugation (its real part for RFFT)
        lhs = np.sum(np.asarray(ct, np.complex128) * np.asarray(y, np.complex128))
        rhs = np.sum(ct_x.astype(np.complex128) * x.astype(np.complex128))
        if fft_type == "rfft":
            lhs, rhs = lhs.real, rhs.real
        np.testing.assert_allclose(rhs, lhs, rtol=1e-4)


def test_jvp_is_the_transform_of_the_tangent():
    t = RNG.randn(3, 6).astype(np.float32)
    primal, tangent = minijax.jvp(jnp.fft.rfft, (X,), (t,))
    close(primal, np.fft.rfft(_f64(X)), np.complex64)
    close(tangent, np.fft.rfft(_f64(t)), np.complex64)
    primal, tangent = minijax.jvp(lambda z: jnp.fft.fft2(z, norm="ortho"), (Z,), (Z * 2,))
    close(tangent, np.fft.fft2(_f64(Z) * 2, norm="ortho"), np.complex64)


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_vmap_over_any_axis(in_axes):
    a = X4[0]  # (3, 4, 5)
    got = minijax.vmap(jnp.fft.rfft2, in_axes=in_axes)(a)
    expected = np.stack([np.fft.rfft2(np.take(_f64(a), i, axis=in_axes))
                         for i in range(a.shape[in_axes])])
    close(got, expected, np.complex64)
    got = minijax.vmap(lambda v: lax.fft(v.astype(np.complex64), "ifft", (v.shape[-1],)),
                       in_axes=in_axes)(a)
    close(got, np.stack([np.fft.ifft(np.take(_f64(a), i, axis=in_axes))
                         for i in range(a.shape[in_axes])]), np.complex64)


def test_vmap_of_grad():
    xs = np.stack([X7, X7[::-1], X7 * 2])
    got = minijax.vmap(minijax.grad(_rfft_loss(jnp)))(xs)
    close(got, np.stack([_numerical_grad(_rfft_loss(np), x) for x in xs]), np.float32,
          atol=1e-4)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_under_jit(jit_backend):
    """Jitted (a host call from the CPU kernel, or on the host between CUDA kernels),
    fused with the elementwise work around it, and differentiated."""
    f = minijax.jit(lambda x: jnp.fft.irfft(jnp.fft.rfft(jnp.sin(x)) * 2.0, n=6) + 1.0)
    close(f(X), np.fft.irfft(np.fft.rfft(np.sin(_f64(X))) * 2, n=6) + 1, np.float32)
    g = minijax.jit(lambda z: jnp.fft.fftn(z, axes=(1, 0), norm="ortho"))
    close(g(Z), np.fft.fftn(_f64(Z), axes=(1, 0), norm="ortho"), np.complex64)
    close(minijax.jit(jnp.fft.fftn)(X4), np.fft.fftn(_f64(X4)), np.complex64, atol=1e-4)
    grad = minijax.jit(minijax.grad(_rfft_loss(jnp)))
    close(grad(X7), GRAD_RFFT, np.float32, rtol=1e-5, atol=1e-5)
    # (a real input: the CPU target does not lower complex -> real conversions yet)
    grad = minijax.jit(minijax.grad(_round_trip_loss(jnp)))
    close(grad(X7), _numerical_grad(_round_trip_loss(np), X7), np.float32, atol=1e-4)
    vm = minijax.jit(minijax.vmap(jnp.fft.fft, in_axes=1))
    close(vm(Z), np.fft.fft(_f64(Z), axis=0).T, np.complex64)


def test_under_jit_inside_a_loop(jit_backend):
    """A transform in a loop body: the host call is made on every iteration."""
    def body(i, x):  # (a real carry; complex values inside the body)
        return jnp.fft.irfft(jnp.fft.rfft(x) * jnp.fft.fftfreq(6)[:4] ** 2, n=6) + 1.0
    f = minijax.jit(lambda x: minijax.lax.fori_loop(0, 3, body, x))
    expected = _f64(X)
    for _ in range(3):
        expected = np.fft.irfft(np.fft.rfft(expected) * np.fft.fftfreq(6)[:4] ** 2, n=6) + 1
    close(f(X), expected, np.float32)
