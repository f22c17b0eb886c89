"""The programs chapter 10 lowers for CUDA: each is run on the simulator
(``test_simulator.py``: against NumPy) and compiled to PTX and assembled
(``test_ptx.py``). Each entry: ``(name, f, args, numpy_f)``; small shapes, as
the simulator runs one Python thread per GPU thread."""
import numpy as np

import minijax.lax as lax
import minijax.numpy as jnp

rng = np.random.default_rng(0)
X = rng.normal(size=(3, 5)).astype(np.float32)
Y = rng.normal(size=(3, 5)).astype(np.float32)
V = rng.normal(size=(7,)).astype(np.float32)
I = np.array([7, -7, 5, -5, 0, 9], dtype=np.int32)
J = np.array([2, 2, -3, -3, 4, 0], dtype=np.int32)
NANS = np.array([1.0, np.nan, -2.0, 3.0, np.nan, 0.5], dtype=np.float32)
A = rng.normal(size=(4, 6)).astype(np.float32)
B = rng.normal(size=(6, 3)).astype(np.float32)
BA = rng.normal(size=(2, 3, 4)).astype(np.float32)
BB = rng.normal(size=(2, 4, 5)).astype(np.float32)


def _selu(x, alpha=1.67, scale=1.05):
    return scale * np.where(x > 0, x, alpha * np.exp(x) - alpha)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


PROGRAMS = [
    ("selu", lambda x: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67), (X,), _selu),
    ("math", lambda x: jnp.sin(x) + jnp.cos(x) * jnp.tanh(x) - jnp.log1p(jnp.abs(x))
     + jnp.sqrt(jnp.abs(x)) + jnp.expm1(x) / 3 + lax.erf(x),
     (X,), lambda x: (np.sin(x) + np.cos(x) * np.tanh(x) - np.log1p(np.abs(x))
                      + np.sqrt(np.abs(x)) + np.expm1(x) / 3
                      + np.vectorize(__import__("math").erf)(x).astype(np.float32))),
    ("broadcast", lambda x, v: x[:, :1] * v[None, :5] + x.T[:5, :1].T, (X, V),
     lambda x, v: x[:, :1] * v[None, :5] + x.T[:5, :1].T),
    ("int_division", lambda i, j: (lax.div(i, j), lax.rem(i, j)), (I, J),
     lambda i, j: (np.where(j == 0, -1, np.trunc(i / np.where(j == 0, 1, j))).astype(np.int32),
                   np.where(j == 0, i, np.fmod(i, np.where(j == 0, 1, j))).astype(np.int32))),
    ("nan_max_min", lambda x: (jnp.maximum(x, 0.75), jnp.minimum(x, 0.75), jnp.max(x)),
     (NANS,), lambda x: (np.maximum(x, 0.75), np.minimum(x, 0.75), np.max(x))),
    ("rounding", lambda x: (jnp.floor(x * 3), jnp.ceil(x * 3), jnp.round(x * 3),
                            lax.round(x * 3), (x * 3).astype(jnp.int32)),
     (X,), lambda x: (np.floor(x * 3), np.ceil(x * 3), np.round(x * 3),
                      np.where(np.abs(x * 3 - np.trunc(x * 3)) >= 0.5,
                               np.trunc(x * 3) + np.sign(x * 3), np.trunc(x * 3)),
                      np.trunc(x * 3).astype(np.int32))),
    ("sum_all", lambda x: jnp.sum(x * 2.0), (X,), lambda x: np.sum(x * 2.0)),
    ("sum_axis0", lambda x: jnp.sum(jnp.exp(x), axis=0), (X,), lambda x: np.exp(x).sum(0)),
    ("reductions", lambda x: (jnp.max(x, axis=1), jnp.min(x, axis=0), jnp.prod(x, axis=1),
                              jnp.argmax(x, axis=1), jnp.argmin(x, axis=0)),
     (X,), lambda x: (x.max(1), x.min(0), x.prod(1), x.argmax(1).astype(np.int32),
                      x.argmin(0).astype(np.int32))),
    ("int_sum", lambda i: (jnp.sum(i), jnp.any(i > 6), jnp.all(i > -9)), (I,),
     lambda i: (i.sum(), np.any(i > 6), np.all(i > -9))),
    ("softmax", lambda x: jnp.exp(x - x.max(axis=1, keepdims=True))
     / jnp.sum(jnp.exp(x - x.max(axis=1, keepdims=True)), axis=1, keepdims=True),
     (X,), _softmax),
    ("matmul", lambda a, b: a @ b, (A, B), lambda a, b: a @ b),
    ("matmul_t", lambda a, b: a.T @ b.T[:, :4].T, (A[:, :3], B), lambda a, b: a.T @ b.T[:, :4].T),
    ("batched_matmul", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (BA, BB),
     lambda a, b: np.einsum("bij,bjk->bik", a, b)),
    ("mlp", lambda a, b, v: jnp.tanh(a @ b + v[:3]).sum(axis=1), (A, B, V),
     lambda a, b, v: np.tanh(a @ b + v[:3]).sum(axis=1)),
    ("int_matmul", lambda i, j: jnp.outer(i, j) @ i, (I, J), lambda i, j: np.outer(i, j) @ i),
    ("transpose_slice_rev", lambda x: (x.T, x[1:, ::2], x[::-1, ::-1], jnp.flip(x, 0)),
     (X,), lambda x: (x.T, x[1:, ::2], x[::-1, ::-1], np.flip(x, 0))),
    ("concat_pad_reshape", lambda x, v: (jnp.concatenate([x, x * 2], axis=0),
                                         jnp.pad(v, (2, 1)), x.reshape(5, 3), jnp.ravel(x)),
     (X, V), lambda x, v: (np.concatenate([x, x * 2], axis=0), np.pad(v, (2, 1)),
                           x.reshape(5, 3), np.ravel(x))),
    # starts are clamped into the array, as XLA does: (2, 2) -> (1, 2) for a 2x2 window
    ("dynamic_slices", lambda x, i: (lax.dynamic_slice(x, (i, i), (2, 2)),
                                     lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i, 4))),
     (X, np.int32(2)), lambda x, i: (x[1:3, 2:4], _dus(x))),
    ("comparisons", lambda x, y: ((x > y) & (x < 1.0), jnp.where(x == x, x, y),
                                  (x >= 0).astype(jnp.float32)),
     (X, Y), lambda x, y: ((x > y) & (x < 1.0), x, (x >= 0).astype(np.float32))),
    ("iota", lambda x: x + jnp.arange(5, dtype=jnp.float32), (X,),
     lambda x: x + np.arange(5, dtype=np.float32)),
    ("scalar_out", lambda x: jnp.mean(x) + 1.0, (X,), lambda x: np.mean(x) + 1.0),
]


def _dus(x):
    """lax.dynamic_update_slice(x, ones((2, 2)), (2, 4)) for x of shape (3, 5)."""
    out = x.copy()
    out[1:3, 3:5] = 1.0  # XLA clamps the start (2, 4) into the array: (1, 3)
    return out


def _collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


PROGRAMS += [
    ("cond", lambda x, i: lax.cond(i > 0, lambda x: jnp.sin(x).sum(), lambda x: x.max(), x),
     (V, np.int32(1)), lambda x, i: np.sin(x).sum()),
    ("switch", lambda x, i: lax.switch(i, [lambda x: x * 2, lambda x: -x, lambda x: x + 1], x),
     (V, np.int32(2)), lambda x, i: x + 1),
    ("while_loop", lambda n: lax.while_loop(
        lambda c: c[0] != 1, lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1),
                                        c[1] + 1), (n, 0))[1],
     (np.int32(6),), lambda n: np.int32(_collatz_steps(6))),
    ("fori_loop", lambda x: lax.fori_loop(0, 3, lambda i, x: x * 0.5 + i, x), (V,),
     lambda x: ((x * 0.5 + 0) * 0.5 + 1) * 0.5 + 2),
]

PROGRAMS += [
    ("scan_xs_ys", lambda x: lax.scan(lambda c, row: (c + row, c * row.sum()), jnp.zeros(5),
                                      x), (X,),
     lambda x: (x.sum(0), np.stack([x[:k].sum(0) * x[k].sum() for k in range(3)]))),
    ("scan_reverse", lambda v: lax.scan(lambda c, e: (c * 2 + e, c), 0.0, v, reverse=True),
     (V[:4],), lambda v: _reverse_scan(v)),
]


def _reverse_scan(v):
    c, ys = np.float32(0), [None] * len(v)
    for k in reversed(range(len(v))):
        ys[k] = c
        c = c * 2 + v[k]
    return c, np.array(ys, np.float32)

IDX = np.array([2, 0, 2, 4, -1, 9], dtype=np.int32)
PROGRAMS += [
    ("gather", lambda x, i: (x[:, i], x[i[:3] % 3], jnp.take(x, i, axis=1, mode="fill",
                                                                 fill_value=-5.0)),
     (X, IDX), lambda x, i: (x[:, np.clip(np.where(i < 0, i + 5, i), 0, 4)],
                             x[i[:3] % 3],
                             _take_fill(x, i, -5.0))),
    ("scatter_add", lambda v, i: jnp.zeros(5).at[i].add(v[:6]), (V, IDX),
     lambda v, i: _scatter_add(np.zeros(5, np.float32), i, v[:6])),
    ("scatter_set_max", lambda v, i: (jnp.zeros(5).at[i].set(v[:6]),
                                      jnp.zeros(5).at[i].max(v[:6])), (V, IDX),
     lambda v, i: (_scatter_set(np.zeros(5, np.float32), i, v[:6]),
                   _scatter_max(np.zeros(5, np.float32), i, v[:6]))),
    ("gather_grad", lambda x, i: __import__("minijax").grad(lambda x: (x[i % 3] ** 2).sum())(x),
     (V[:3], IDX), lambda x, i: _scatter_add(np.zeros(3, np.float32), i % 3, 2 * x[i % 3])),
]


def _in_bounds(i, n):
    """jnp's .at[] indices: negative ones wrap once; out of bounds ones are dropped."""
    i = np.where(i < 0, i + n, i)
    return i, (i >= 0) & (i < n)


def _scatter_add(out, i, v):
    i, ok = _in_bounds(i, len(out))
    np.add.at(out, i[ok], v[ok])
    return out


def _scatter_set(out, i, v):
    i, ok = _in_bounds(i, len(out))
    for k, u in zip(i[ok], v[ok]):
        out[k] = u
    return out


def _scatter_max(out, i, v):
    i, ok = _in_bounds(i, len(out))
    np.maximum.at(out, i[ok], v[ok])
    return out


def _take_fill(x, i, fill):
    """jnp.take(x, i, axis=1, mode="fill"): negative indices wrap once, the rest of
    the out-of-bounds ones give ``fill``."""
    i, ok = _in_bounds(i, x.shape[1])
    return np.where(ok, x[:, np.clip(i, 0, x.shape[1] - 1)], np.float32(fill))

import minijax.random as jrandom  # noqa: E402

KEY = np.array([0, 42], dtype=np.uint32)  # random.PRNGKey(42), a legacy uint32 key
PROGRAMS += [
    # the NumPy side is the CPU backend's own result: its bits are JAX's (chapter 13 tests)
    ("random_normal", lambda k: jrandom.normal(k, (3, 4)), (KEY,), None),
    ("random_split_uniform", lambda k: jrandom.uniform(jrandom.split(k, 3)[1], (5,)),
     (KEY,), None),
    ("random_fold_in_bits", lambda k: (jrandom.bits(jrandom.fold_in(k, 7), (4,)),
                                       jrandom.randint(k, (6,), 0, 10)), (KEY,), None),
    ("typed_keys", lambda s: jrandom.key_data(jrandom.split(jrandom.key(s), 4)[::2]),
     (np.int32(3),), None),
]

PROGRAMS += [
    ("cumulative", lambda x: (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0),
                              lax.cummax(x, axis=1, reverse=True), lax.cummin(x, axis=0),
                              lax.cumlogsumexp(x, axis=1)),
     (X,), lambda x: (np.cumsum(x, axis=1), np.cumprod(x, axis=0),
                      np.maximum.accumulate(x[:, ::-1], axis=1)[:, ::-1],
                      np.minimum.accumulate(x, axis=0),
                      np.logaddexp.accumulate(x, axis=1))),
]

SORTME = np.array([[3.0, np.nan, -1.0, 3.0, 0.5, -np.inf],
                   [2.0, 2.0, 1.0, np.nan, -0.0, 7.0]], dtype=np.float32)
PROGRAMS += [
    ("sort", lambda x: (jnp.sort(x, axis=1), jnp.sort(x, axis=0), jnp.argsort(x, axis=1),
                        lax.sort((x[0], x[1]), num_keys=1)),
     (SORTME,), lambda x: (np.sort(x, axis=1), np.sort(x, axis=0),
                           np.argsort(x, axis=1, kind="stable").astype(np.int32),
                           x[0][np.argsort(x[0], kind="stable")],
                           x[1][np.argsort(x[0], kind="stable")])),
]

PROGRAMS += [
    ("split_stack_tile", lambda x: (*lax.split(x, (1, 2), axis=0), *lax.unstack(x, axis=1)[:2],
                                    lax.stack([x, -x], axis=1), jnp.tile(x, (2, 1))),
     (X,), lambda x: (x[:1], x[1:], x[:, 0], x[:, 1], np.stack([x, -x], axis=1),
                      np.tile(x, (2, 1)))),
]

H = (X * 3).astype(np.float16)
HB = B.astype(np.float16)
PROGRAMS += [
    # float16 is stored as float16 and computed with in float32, each result rounded
    # to float16 (as the CPU backend does); the CPU backend's values are the oracle
    ("float16", lambda h: (jnp.exp(h / 4) * h + 1, jnp.sum(h, axis=1), jnp.max(h),
                           jnp.argmax(h, axis=0), h.T, h.astype(jnp.float32) * 2),
     (H,), None),
    ("float16_matmul", lambda h, b: h[:, :3] @ b[:3], (H, HB), None),
]

BITS = np.array([0, 1, 7, -1, 2**30, -2**31], dtype=np.int32)
PROGRAMS += [
    ("bit_counts", lambda i: (lax.population_count(i), lax.clz(i),
                              lax.population_count(i.astype(jnp.uint8)),
                              lax.clz(i.astype(jnp.int16))),
     (BITS,), lambda i: (np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in i], np.int32),
                         np.array([32 - (int(v) & 0xFFFFFFFF).bit_length() for v in i], np.int32),
                         np.array([bin(int(v) & 0xFF).count("1") for v in i], np.uint8),
                         np.array([16 - (int(v) & 0xFFFF).bit_length() for v in i], np.int16))),
]

_G = rng.normal(size=(2, 4, 4)).astype(np.float32)
SPD = (_G @ np.swapaxes(_G, 1, 2) + 4 * np.eye(4, dtype=np.float32)).astype(np.float32)
RHS = rng.normal(size=(2, 4, 3)).astype(np.float32)
PROGRAMS += [
    ("cholesky_solve", lambda a, b: (lax.linalg.cholesky(a),
                                     lax.linalg.triangular_solve(lax.linalg.cholesky(a), b,
                                                                 left_side=True, lower=True),
                                     lax.linalg.triangular_solve(
                                         a, jnp.swapaxes(b, 1, 2), left_side=False,
                                         lower=False, transpose_a=True, unit_diagonal=True)),
     (SPD, RHS), lambda a, b: (np.linalg.cholesky(a),
                               np.linalg.solve(np.linalg.cholesky(a), b),
                               np.swapaxes(np.linalg.solve(
                                   np.triu(a, 1) + np.eye(4, dtype=np.float32),
                                   b), 1, 2))),
    # NaNs where the factor would be (lax.linalg.cholesky keeps the lower triangle)
    ("not_positive_definite", lambda a: lax.linalg.cholesky(-a), (SPD,),
     lambda a: np.tril(np.full(a.shape, np.nan, np.float32))),
]

SQ = rng.normal(size=(2, 4, 4)).astype(np.float32)
PROGRAMS += [
    ("lu_solve_det_inv", lambda a, b: (lax.linalg.lu(a)[0], lax.linalg.lu(a)[2],
                                       jnp.linalg.solve(a, b), jnp.linalg.det(a),
                                       jnp.linalg.inv(a), lax.linalg.lu_pivots_to_permutation(
                                           lax.linalg.lu(a)[1], 4)),
     (SQ, RHS), None),
]

TOPK = np.array([[1.0, np.nan, 3.0, -0.0, 0.0, 3.0, -np.nan, -np.inf],
                 [5.0, 4.0, 4.0, 2.0, np.inf, -1.0, 0.0, 7.0]], dtype=np.float32)
PROGRAMS += [
    # the interpreter's order: IEEE totalOrder (NaN first, 0 before -0), ties by index
    ("top_k", lambda x, i: (*lax.top_k(x, 5), *lax.top_k(i, 3)),
     (TOPK, np.array([[3, 1, 3, 2], [0, 9, 9, 9]], np.int32)), None),
]

Z = (X + 1j * Y).astype(np.complex64)
PROGRAMS += [
    ("complex", lambda z, x: (z * z + 1j, z / (z + 0.5), jnp.exp(z), jnp.abs(z), jnp.conj(z),
                              jnp.real(z) + jnp.imag(z), lax.complex(x, x * 2),
                              jnp.sum(z, axis=1), z @ z.T, jnp.sqrt(z), z.T[::-1]),
     (Z, X), lambda z, x: (z * z + 1j, z / (z + 0.5), np.exp(z), np.abs(z), np.conj(z),
                           z.real + z.imag, x + 2j * x, z.sum(1), z @ z.T, np.sqrt(z),
                           z.T[::-1])),
]

NEXT = np.array([1.0, -1.0, 0.0, -0.0, 2.0, 1e-45, np.inf, np.nan,
                 np.finfo(np.float32).max, 0.5], dtype=np.float32)
TOWARD = np.array([2.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1.0, np.inf, 0.5], dtype=np.float32)
PROGRAMS += [
    ("nextafter", lambda x, y: (lax.nextafter(x, y), lax.nextafter(x.astype(jnp.float32) * 3,
                                                                   -y)),
     (NEXT, TOWARD), lambda x, y: (np.nextafter(x, y), np.nextafter(x * np.float32(3), -y))),
]

TALL = rng.normal(size=(2, 5, 3)).astype(np.float32)
PROGRAMS += [
    # LAPACK's reflectors, so the CPU's signs: the interpreter (NumPy) is the oracle
    ("qr", lambda t, s: (*lax.linalg.qr(t, full_matrices=False), *lax.linalg.qr(t),
                         *lax.linalg.qr(jnp.swapaxes(t, 1, 2)), *lax.linalg.qr(s)),
     (TALL, SQ), None),
]

DIG = np.array([0.5, 1.0, 3.7, 10.0, -2.5, -3.0, 0.0, np.inf, 1e-3], dtype=np.float32)
PROGRAMS += [
    ("digamma", lambda x: lax.digamma(x), (DIG,), None),  # the interpreter's (SciPy's)
]

IMAGES = rng.normal(size=(2, 5, 4, 3)).astype(np.float32)   # NHWC
FILTERS = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)  # HWIO
DEPTHWISE = rng.normal(size=(3, 2, 1, 6)).astype(np.float32)  # HWIO, 3 groups of 1 input
PROGRAMS += [
    # the CPU's result is the oracle (tests/ch00_arrays/test_convolution.py checks it)
    ("conv", lambda x, w, d: (
        lax.conv_general_dilated(x, w, (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        lax.conv_general_dilated(x, d, (2, 1), [(1, 2), (0, -1)], (2, 1), (1, 2),
                                 ("NHWC", "HWIO", "NCHW"), feature_group_count=3),
        lax.conv_general_dilated(x, w[:, :, :, :2], (1, 1), "VALID", rhs_dilation=(1, 2),
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"), batch_group_count=2)),
     (IMAGES, FILTERS, DEPTHWISE), None),
]

POOL_IN = rng.normal(size=(2, 5, 6)).astype(np.float32)
PROGRAMS += [
    # the CPU's result is the oracle (tests/ch00_arrays/test_reduce_window.py checks it)
    ("pooling", lambda x: (
        lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3), (1, 2, 2), "SAME"),
        lax.reduce_window(x, 0.0, lax.add, (1, 2, 2), (1, 1, 2), ((0, 0), (1, 0), (0, 1)),
                          (1, 2, 1), (1, 1, 2)),
        lax.reduce_window(x, jnp.inf, lax.min, (2, 2, 1), (1, 2, 1), "VALID"),
        __import__("minijax").grad(lambda x: jnp.sum(jnp.sin(lax.reduce_window(
            x, -jnp.inf, lax.max, (1, 3, 3), (1, 2, 2), "SAME"))))(x)),
     (POOL_IN,), None),
]
