"""Chapter 07: ``checkpoint`` / ``remat`` — same gradients, fewer residuals, recomputation.

The values must equal those without ``checkpoint``; what changes is what
the forward pass saves and what the backward pass recomputes, which the
printed ``make_jaxpr(grad(...))`` shows (JAX 0.10.2's strings, hard-coded).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.checkpoint import checkpoint, checkpoint_name, checkpoint_policies, remat
from tests.ch07_reverse_ad.conftest import per_element_derivatives

cp = checkpoint_policies


def finite_difference(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    grads = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        dx = np.zeros_like(x)
        dx[i] = eps
        grads[i] = (f(x + dx) - f(x - dx)) / (2 * eps)
    return grads


def sin_sin(x):
    return jnp.sin(jnp.sin(x))


def mlp(W, x):
    return jnp.sum(jnp.sin(W @ jnp.sin(x)))


W0 = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2) / 4
X0 = np.array([0.3, -0.2, 0.9], np.float32)
POLICIES = [None, cp.nothing_saveable, cp.everything_saveable, cp.dots_saveable,
            cp.dots_with_no_batch_dims_saveable]
POLICY_IDS = ["default", "nothing", "everything", "dots", "dots_no_batch"]


def test_checkpoint_values():
    assert float(checkpoint(sin_sin)(1.0)) == pytest.approx(np.sin(np.sin(1.0)))
    assert remat(sin_sin)(1.0) == checkpoint(sin_sin)(1.0)


@pytest.mark.parametrize("policy", POLICIES, ids=POLICY_IDS)
def test_gradients_equal_the_uncheckpointed_ones(policy):
    g = checkpoint(mlp, policy=policy)
    for argnum in (0, 1):
        np.testing.assert_allclose(jax.grad(g, argnum)(W0, X0), jax.grad(mlp, argnum)(W0, X0),
                                   rtol=1e-6)
    np.testing.assert_allclose(jax.grad(checkpoint(sin_sin, policy=policy))(0.7),
                               jax.grad(sin_sin)(0.7), rtol=1e-6)


@per_element_derivatives
def test_checkpoint_under_transformations(transform, jit_backend):
    xs = np.array([0.1, 0.5, 1.0], np.float32)
    out = np.asarray(transform(checkpoint(sin_sin))(xs))
    expected = np.asarray(transform(sin_sin)(xs))
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    # expected values from JAX 0.10.2
    diag = np.diagonal(out) if out.ndim == 2 else out
    np.testing.assert_allclose(diag, [0.99004984, 0.7786439, 0.36003947], rtol=1e-6)


def test_higher_order():
    g = checkpoint(sin_sin)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(jax.grad(jax.grad(g))(0.3), -0.5485128, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(checkpoint(lambda x: jnp.sum(jnp.sin(x) * x)))(
        np.array([0.1, 0.5, 1.0], np.float32)), np.diag([1.980025, 1.5154524, 0.2391336]),
        rtol=1e-6)


def test_jvp_and_linearize():
    y, t = jax.jvp(checkpoint(sin_sin), (1.0,), (2.0,))
    assert float(y) == pytest.approx(np.sin(np.sin(1.0)), rel=1e-6)
    assert float(t) == pytest.approx(2 * np.cos(np.sin(1.0)) * np.cos(1.0), rel=1e-6)
    assert float(jax.linearize(checkpoint(sin_sin), 1.0)[1](2.0)) == pytest.approx(float(t))


def test_checkpoint_in_scan_body_under_grad():
    def body(c, x):
        return checkpoint(lambda c, x: jnp.sin(c) * x + jnp.cos(x))(c, x), None

    def loss(c0, xs):
        return jax.lax.scan(body, c0, xs)[0]

    def loss_np(c0, xs):
        c = c0
        for x in xs:
            c = np.sin(c) * x + np.cos(x)
        return c

    xs = np.array([0.1, 0.5, 1.0], np.float32)
    g_c, g_xs = jax.grad(loss, (0, 1))(0.5, xs)
    np.testing.assert_allclose(g_c, finite_difference(lambda c: loss_np(c, xs), 0.5), rtol=1e-3)
    np.testing.assert_allclose(g_xs, finite_difference(lambda x: loss_np(0.5, x), xs),
                               rtol=1e-3)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(g_xs, [0.02469294, 0.09930982, 0.12459236], rtol=1e-5)
    # the backward scan recomputes sin inside its remat2 (cos of the carry, here)
    assert str(jax.make_jaxpr(jax.grad(loss))(0.5, xs)) == SCAN_GRAD_JAXPR


def test_closed_over_tracer():
    def outer(y):
        return checkpoint(lambda x: jnp.sin(x * y))(2.0)

    assert float(jax.grad(outer)(0.5)) == pytest.approx(2 * np.cos(1.0), rel=1e-6)


def test_static_argnums(jit_backend):
    @jax.jit
    def f(x):
        return checkpoint(lambda x, flip: -x if flip else x, static_argnums=1)(x, True)

    assert float(f(2.0)) == -2.0
    assert float(jax.grad(lambda x: checkpoint(lambda x, n: x ** n, static_argnums=(1,))(
        x, 3))(2.0)) == 12.0


# --- printed jaxprs ----------------------------------------------------------------------------
# expected values from JAX 0.10.2
CHECKPOINT_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }
      policy=None
      prevent_cse=True
    ] a
  in (b,) }"""

# nothing saved: both sin and both cos are recomputed inside the backward remat2
# expected values from JAX 0.10.2
GRAD_NOTHING_SAVEABLE = """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    _:f32[] = sin b
    c:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = cos f
          i:f32[] = mul e h
          j:f32[] = mul i g
        in (j,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (c,) }"""

# everything saved: the cosines are computed in the forward pass and passed in
# expected values from JAX 0.10.2
GRAD_EVERYTHING_SAVEABLE = """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = cos a
    _:f32[] = sin b
    d:f32[] = cos b
    e:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:f32[] = mul h g
          j:f32[] = mul i f
        in (j,) }
      policy=<function everything_saveable at 0xXXXXXXXXXXXX>
      prevent_cse=True
    ] c d 1.0:f32[]
  in (e,) }"""

# dots saved (rounded with reduce_precision, as XLA needs): sin and cos recomputed
# expected values from JAX 0.10.2
GRAD_DOTS_SAVEABLE = """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[3] = sin b
    d:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a c
    e:f32[2] = reduce_precision[exponent_bits=8 mantissa_bits=23] d
    f:f32[2] = sin e
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
    g:f32[2,3] = remat2[
      differentiated=True
      jaxpr={ lambda ; h:f32[2] i:f32[3] j:f32[]. let
          k:f32[3] = sin i
          l:f32[2] = cos h
          m:f32[2] = broadcast_in_dim j
          n:f32[2] = mul m l
          o:f32[2,3] = dot_general[
            dimension_numbers=(([], []), ([], []))
            preferred_element_type=float32
          ] n k
        in (o,) }
      policy=DotsSaveable(only_if_no_batch_dims=False)
      prevent_cse=True
    ] e b 1.0:f32[]
  in (g,) }"""

# expected values from JAX 0.10.2
SCAN_GRAD_JAXPR = """\
{ lambda ; a:f32[] b:f32[3]. let
    _:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          h:f32[] = mul g e
          i:f32[] = cos e
          j:f32[] = add h i
        in (j, d) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a b
    k:f32[] = scan[
      jaxpr={ lambda ; l:f32[] m:f32[] n:f32[]. let
          o:f32[] = remat2[
            differentiated=True
            jaxpr={ lambda ; p:f32[] q:f32[] r:f32[]. let
                s:f32[] = cos p
                t:f32[] = mul r q
                u:f32[] = convert_element_type[new_dtype=float32 weak_type=True] t
                v:f32[] = mul u s
              in (v,) }
            policy=None
            prevent_cse=True
          ] m n l
        in (o,) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[] c b
  in (k,) }"""


def test_checkpoint_jaxpr():
    assert str(jax.make_jaxpr(checkpoint(sin_sin))(1.0)) == CHECKPOINT_JAXPR
    assert str(jax.make_jaxpr(jax.grad(checkpoint(sin_sin)))(1.0)) == GRAD_NOTHING_SAVEABLE


@pytest.mark.parametrize("policy, expected", [
    (cp.nothing_saveable, GRAD_NOTHING_SAVEABLE.replace(
        "policy=None", "policy=<function nothing_saveable at 0xXXXXXXXXXXXX>")),
    (cp.everything_saveable, GRAD_EVERYTHING_SAVEABLE),
], ids=["nothing", "everything"])
def test_policy_changes_what_is_recomputed(policy, expected):
    assert str(jax.make_jaxpr(jax.grad(checkpoint(sin_sin, policy=policy)))(1.0)) == expected


def test_dots_saveable_jaxpr():
    f = checkpoint(mlp, policy=cp.dots_saveable)
    assert str(jax.make_jaxpr(jax.grad(f))(W0, X0)) == GRAD_DOTS_SAVEABLE


def _count(jaxpr_text: str, prim: str) -> int:
    return sum(line.split("=")[1].split("[")[0].split()[0] == prim
               for line in jaxpr_text.splitlines() if " = " in line)


def test_recomputation_counted():
    """Structure: sin is computed twice in the forward pass either way, and recomputed in
    the backward remat2 only when nothing is saved."""
    def backward(policy):
        text = str(jax.make_jaxpr(jax.grad(checkpoint(sin_sin, policy=policy)))(1.0))
        return text.split("remat2[")[1]

    assert _count(backward(cp.nothing_saveable), "sin") == 1
    assert _count(backward(cp.nothing_saveable), "cos") == 2
    assert _count(backward(cp.everything_saveable), "sin") == 0
    assert _count(backward(cp.everything_saveable), "cos") == 0


def test_vmap_and_jvp_jaxprs():
    # expected values from JAX 0.10.2
    assert str(jax.make_jaxpr(jax.vmap(checkpoint(sin_sin)))(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[3]. let
          d:f32[3] = sin c
          e:f32[3] = sin d
        in (e,) }
      policy=None
      prevent_cse=True
    ] a
  in (b,) }"""
    assert str(jax.make_jaxpr(lambda x: jax.jvp(checkpoint(sin_sin), (x,), (1.0,)))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] c:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = mul e g
          i:f32[] = sin f
          j:f32[] = cos f
          k:f32[] = mul h j
        in (i, k) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (b, c) }"""


def test_checkpoint_name_policies():
    def h(x):
        y = checkpoint_name(jnp.sin(x), "y")
        return jnp.sin(jnp.sin(y))

    f = checkpoint(h, policy=cp.save_only_these_names("y"))
    assert float(jax.grad(f)(0.4)) == pytest.approx(float(jax.grad(h)(0.4)), rel=1e-6)
    # expected values from JAX 0.10.2: the named value is saved, the rest recomputed
    assert str(jax.make_jaxpr(jax.grad(f))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = name[name=y] b
    d:f32[] = reduce_precision[exponent_bits=8 mantissa_bits=23] c
    e:f32[] = sin d
    _:f32[] = sin e
    f:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; g:f32[] h:f32[] i:f32[]. let
          j:f32[] = cos h
          k:f32[] = sin g
          l:f32[] = cos g
          m:f32[] = cos k
          n:f32[] = mul i m
          o:f32[] = mul n l
          p:f32[] = mul o j
        in (p,) }
      policy=SaveOnlyTheseNames(saveable_names=frozenset({'y'}))
      prevent_cse=True
    ] d a 1.0:f32[]
  in (f,) }"""


# --- errors ------------------------------------------------------------------------------------
def test_python_control_flow_error_suggests_static_argnums():
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        checkpoint(f)(1.0)
    msg = str(info.value)
    # expected values from JAX 0.10.2
    assert msg.startswith("Attempted boolean conversion of traced array with shape bool[].\n"
                          "The error occurred while tracing the function f at ")
    assert msg.endswith(
        "for checkpoint / remat. This concrete value was not available in Python because it "
        "depends on the value of the argument x.\nSee https://docs.jax.dev/en/latest/"
        "errors.html#jax.errors.TracerBoolConversionError\n\nConsider using the "
        "`static_argnums` parameter for `jax.remat` or `jax.checkpoint`. See the "
        "`jax.checkpoint` docstring and its example involving `static_argnums`:\n"
        "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n")


@pytest.mark.parametrize("static_argnums, exc, msg", [
    ((1.5,), TypeError, "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must "
     "be an int, tuple of ints or, bool, but got value (1.5,)"),
    (3, ValueError, "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only "
     "take integer values greater than or equal to `-len(args)` and less than `len(args)`, but "
     "got (3,), while `len(args)` = 2"),
    (-3, ValueError, "Positional argument indices, e.g. for `static_argnums`, must have value "
     "greater than or equal to -len(args) and less than len(args), but got value -3 for "
     "len(args) == 2."),
])
def test_static_argnums_errors(static_argnums, exc, msg):
    # expected values from JAX 0.10.2
    with pytest.raises(exc) as info:
        checkpoint(lambda x, y: x * y, static_argnums=static_argnums)(1.0, 2.0)
    assert str(info.value) == msg


def test_prevent_cse_type_error():
    with pytest.raises(TypeError) as info:
        checkpoint(sin_sin, prevent_cse=3)
    # expected values from JAX 0.10.2
    assert str(info.value) == ("prevent_cse must be a bool or tuple of bools, got "
                               "type(prevent_cse)=<class 'int'>")
