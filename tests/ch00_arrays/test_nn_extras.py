"""The rest of ``jax.nn``'s activations and ``dot_product_attention`` (chapter 00)."""
import numpy as np
import pytest

import minijax.numpy as jnp
from minijax import nn

X = np.array([-5., -1.5, -1., -0.5, 0., 0.5, 1., 1.5, 3., 7., 40.], np.float32)
x64 = X.astype(np.float64)
softplus = np.logaddexp(x64, 0)
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

FORMULAS = {
    "selu": SELU_S * np.where(x64 > 0, x64, SELU_A * np.expm1(np.minimum(x64, 0))),
    "celu": np.maximum(x64, 0) + np.expm1(np.minimum(x64, 0)),
    "hard_tanh": np.clip(x64, -1, 1),
    "hard_sigmoid": np.clip(x64 + 3, 0, 6) / 6,
    "hard_silu": x64 * np.clip(x64 + 3, 0, 6) / 6,
    "hard_swish": x64 * np.clip(x64 + 3, 0, 6) / 6,
    "identity": x64,
    "mish": x64 * np.tanh(softplus),
    "soft_sign": x64 / (np.abs(x64) + 1),
    "squareplus": (x64 + np.sqrt(x64 ** 2 + 4)) / 2,
    "sparse_plus": np.where(x64 <= -1, 0, np.where(x64 >= 1, x64, (x64 + 1) ** 2 / 4)),
    "sparse_sigmoid": np.clip((x64 + 1) / 2, 0, 1),
    "tanh": np.tanh(x64),
    "relu6": np.clip(x64, 0, 6),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_activation_matches_formula(name):
    out = getattr(nn, name)(jnp.asarray(X))
    assert out.dtype == np.float32 and out.shape == X.shape
    np.testing.assert_allclose(np.asarray(out), FORMULAS[name], rtol=2e-6, atol=1e-7)


def test_activation_extras_jax_values():
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(
        nn.celu(X, 2.0)[:4], [-1.8358299732, -1.0552668571, -0.7869386672, -0.4423984], rtol=1e-6)
    np.testing.assert_allclose(
        nn.squareplus(X, 1.0)[:4], [0.0495097637, 0.1513878107, 0.2071067690, 0.3090170025],
        rtol=1e-6)
    y = jnp.array([0., 1e-8, 0.1, 0.6931, 0.7, 2., 20.])
    np.testing.assert_allclose(
        nn.log1mexp(y), [-np.inf, -18.42068099975586, -2.352168560028076, -0.6931943893432617,
                         -0.6863409876823425, -0.14541345834732056, -2.06115369216775e-09],
        rtol=1e-6)
    assert nn.hard_swish is nn.hard_silu
    assert nn.hard_tanh(3).dtype == np.int32 and nn.hard_tanh(3).aval.weak_type
    assert nn.soft_sign(2).dtype == nn.selu(1).dtype == nn.sparse_sigmoid(1).dtype == np.float32


def test_glu():
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    np.testing.assert_allclose(nn.glu(a), a[:, :2] * sig(a[:, 2:]), rtol=1e-6)
    b = a.reshape(2, 6)
    np.testing.assert_allclose(nn.glu(b, axis=0), b[:1] * sig(b[1:]), rtol=1e-6)
    with pytest.raises(AssertionError, match="axis size must be divisible by 2"):
        nn.glu(jnp.ones(3))


def test_logmeanexp():
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 3
    lme = lambda v, **kw: np.log(np.mean(np.exp(v.astype(np.float64)), **kw))  # noqa: E731
    np.testing.assert_allclose(nn.logmeanexp(a), lme(a), rtol=1e-6)
    np.testing.assert_allclose(nn.logmeanexp(a, axis=1), lme(a, axis=1), rtol=1e-6)
    np.testing.assert_allclose(nn.logmeanexp(a, axis=0, keepdims=True),
                               lme(a, axis=0, keepdims=True), rtol=1e-6)
    w = np.array([[True, False, True, True]] * 3)
    # expected values from JAX 0.10.2
    np.testing.assert_allclose(nn.logmeanexp(a, axis=1, where=w),
                               [0.6358737945556641, 1.9692072868347168, 3.3025407791137695],
                               rtol=1e-6)


def _attention_reference(q, k, v, bias=None, mask=None, scale=None, causal=False):
    """Plain NumPy attention on (B, T, N, H) / (B, S, K, H), float64."""
    B, T, N, H = q.shape
    k, v = np.repeat(k, N // k.shape[2], axis=2), np.repeat(v, N // v.shape[2], axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) * (1 / np.sqrt(H) if scale is None else scale)
    if bias is not None:
        logits = logits + bias
    allowed = np.ones(logits.shape, bool)
    if mask is not None:
        allowed &= mask
    if causal:
        allowed &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(allowed, logits, -1e30)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


rng = np.random.RandomState(0)
Q = rng.randn(2, 5, 4, 8).astype(np.float32)
K, V = rng.randn(2, 6, 2, 8).astype(np.float32), rng.randn(2, 6, 2, 8).astype(np.float32)
BIAS = rng.randn(1, 4, 5, 6).astype(np.float32)
MASK = rng.rand(2, 1, 5, 6) > 0.3


@pytest.mark.parametrize("kw", [{}, dict(bias=BIAS), dict(mask=MASK), dict(is_causal=True),
                                dict(scale=0.5, bias=BIAS, mask=MASK, is_causal=True)])
def test_dot_product_attention(kw):
    out = nn.dot_product_attention(Q, K, V, **kw)
    assert out.shape == Q.shape and out.dtype == np.float32
    ref = _attention_reference(Q.astype(np.float64), K, V, kw.get("bias"), kw.get("mask"),
                               kw.get("scale"), kw.get("is_causal", False))
    np.testing.assert_allclose(np.asarray(out), ref, rtol=2e-5, atol=2e-5)


def test_dot_product_attention_jax_values():
    # expected values from JAX 0.10.2
    out = nn.dot_product_attention(Q, K, V, scale=0.5, bias=BIAS, mask=MASK, is_causal=True)
    assert float(np.abs(np.asarray(out)).sum()) == pytest.approx(213.670166015625, rel=1e-5)
    lens = dict(query_seq_lengths=jnp.array([3, 5], dtype=jnp.int32),
                key_value_seq_lengths=jnp.array([6, 2], dtype=jnp.int32))
    out = nn.dot_product_attention(Q, K, V, **lens)
    assert float(np.abs(np.asarray(out)).sum()) == pytest.approx(105.25820922851562, rel=1e-5)
    assert not np.asarray(out)[0, 3:].any()  # padded queries give zeros
    out3 = nn.dot_product_attention(Q[0], K[0], V[0], is_causal=True)  # no batch axis
    assert out3.shape == (5, 4, 8)
    assert float(np.asarray(out3).sum()) == pytest.approx(-31.075305938720703, rel=1e-5)


def test_dot_product_attention_errors():
    with pytest.raises(ValueError, match="mask dtype should be bool, but got int32"):
        nn.dot_product_attention(Q, K, V, mask=MASK.astype(np.int32))
    with pytest.raises(ValueError, match="The number of query heads must be a multiple of "
                                         "key/value heads, but got 4 vs 3"):
        nn.dot_product_attention(Q, np.repeat(K[:, :, :1], 3, 2), np.repeat(V[:, :, :1], 3, 2))
    with pytest.raises(ValueError, match="value shape should be"):
        nn.dot_product_attention(Q, K, V[..., :4])
    with pytest.raises(ValueError, match="Unsupported implementation option: foo"):
        nn.dot_product_attention(Q, K, V, implementation="foo")
