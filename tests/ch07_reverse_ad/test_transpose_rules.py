"""Chapter 07: every transpose rule, checked by the dot-product test.

A linear map ``f`` and its transpose ``f^T`` satisfy ``<v, f(u)> = <f^T(v), u>``
for all ``u`` and ``v``. Each case below is a function that is linear in its
arguments (other operands are closed-over constants) and applies one linear
primitive. ``linear_transpose`` builds ``f^T`` from the primitive's transpose
rule; the two inner products, computed in float64 NumPy, must agree for
random ``u`` and ``v``. The pairing is ``<a, b> = Re(sum(a * b))`` (JAX's
convention: the transpose of ``x -> c x`` is ``y -> c y``, no conjugate).
"""
import contextlib

import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything)
from minijax import lax
from minijax.interpreters.transpose import add_any_p, linear_transpose, transpose_rules
from minijax.lax.dot import dot_general_p
from minijax.primitives import Primitive

# minijax's eager complex -> float conversion warns as NumPy does; JAX does not
pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

F32, C64 = np.float32, np.complex64
SD = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=(0,))
GD = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
IDX = np.array([[2], [0], [2]], np.int32)
UNIQUE = np.array([[3], [0], [1]], np.int32)


def rand(*shape, dtype=F32, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


C = rand(3, 4, seed=99)          # a constant factor
WHICH = rand(3, 4, seed=98) > 0  # a constant predicate
ZEROS = np.zeros((3, 4), F32)    # a constant operand keeps a function linear only if zero

# (primitive name, linear function, example arguments)
CASES = [
    ("neg", lax.neg, [rand(3, 4)]),
    ("add", lax.add, [rand(3, 4), rand(3, 4)]),
    ("add", lambda x, y: lax.add(x, y), [rand(), rand(3, 4)]),         # rank-0 operand
    ("add", lambda x, y: lax.add(x, y), [rand(1, 4), rand(3, 4)]),     # size-1 dimension
    ("add_any", lambda x, y: add_any_p.bind(x, y), [rand(3, 4), rand(3, 4)]),
    ("sub", lax.sub, [rand(3, 4), rand(3, 4)]),
    ("sub", lambda x, y: lax.sub(x, y), [rand(3, 4), rand()]),
    ("mul", lambda x: lax.mul(x, C), [rand(3, 4)]),
    ("mul", lambda x: lax.mul(C, x), [rand(3, 4)]),
    ("mul", lambda x: lax.mul(x, C), [rand()]),                         # broadcast operand
    ("div", lambda x: lax.div(x, C + 2), [rand(3, 4)]),
    ("convert_element_type", lambda x: lax.convert_element_type(x, np.float16), [rand(5)]),
    ("convert_element_type", lambda x: lax.convert_element_type(x, C64), [rand(5)]),
    ("copy", lambda x: lax.copy_p.bind(x), [rand(3)]),
    ("reduce_precision", lambda x: lax.reduce_precision(x, 8, 23), [rand(3)]),
    ("select_n", lambda a, b: lax.select_n(WHICH, a, b), [rand(3, 4), rand(3, 4)]),
    ("select_n", lambda b: lax.select_n(WHICH, ZEROS, b), [rand(3, 4)]),
    ("select_n", lambda a, b, c: lax.select_n(np.array([2, 0, 1, 1], np.int32), a, b, c),
     [rand(4), rand(4), rand(4)]),
    ("real", lax.real, [rand(4, dtype=C64)]),
    ("imag", lax.imag, [rand(4, dtype=C64)]),
    ("complex", lax.complex, [rand(4), rand(4)]),
    ("conj", lax.conj, [rand(4, dtype=C64)]),
    ("conj", lax.conj, [rand(4)]),
    ("mul", lambda x: lax.mul(x, rand(4, dtype=C64, seed=5)), [rand(4, dtype=C64)]),
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), [rand(3, 4)]),
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [rand(1, 4)]),
    ("reduce_sum", lambda x: lax.reduce_sum(x, (0, 2)), [rand(2, 3, 4)]),
    ("reshape", lambda x: lax.reshape(x, (4, 3)), [rand(3, 4)]),
    ("reshape", lambda x: lax.reshape(x, (2, 6), (1, 0)), [rand(3, 4)]),
    ("squeeze", lambda x: lax.squeeze(x, (0, 2)), [rand(1, 3, 1)]),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), [rand(2, 3, 4)]),
    ("rev", lambda x: lax.rev(x, (0,)), [rand(3, 4)]),
    ("concatenate", lambda x, y: lax.concatenate([x, y], 1), [rand(3, 2), rand(3, 4)]),
    ("concatenate", lambda x: lax.concatenate([ZEROS, x], 0), [rand(2, 4)]),
    ("stack", lambda x, y: lax.stack_p.bind(x, y, axis=1), [rand(3), rand(3)]),
    ("split", lambda x: lax.split(x, (1, 3), axis=1), [rand(2, 4)]),
    ("unstack", lambda x: lax.unstack_p.bind(x, axis=0), [rand(3, 2)]),
    ("tile", lambda x: lax.tile_p.bind(x, reps=(2, 3)), [rand(2, 2)]),
    ("pad", lambda x, v: lax.pad(x, v, [(1, 2, 1), (-1, 0, 0)]), [rand(3, 4), rand()]),
    ("pad", lambda x: lax.pad(x, np.float32(0), [(2, -1, 2)]), [rand(5)]),
    ("slice", lambda x: lax.slice(x, (0, 1), (3, 4)), [rand(3, 4)]),
    ("slice", lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), [rand(3, 4)]),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (np.int32(1), np.int32(3)), (2, 2)),
     [rand(3, 4)]),
    ("dynamic_update_slice",
     lambda x, u: lax.dynamic_update_slice(x, u, (np.int32(1), np.int32(1))),
     [rand(3, 4), rand(2, 2)]),
    ("dynamic_update_slice",
     lambda u: lax.dynamic_update_slice(ZEROS, u, (np.int32(0), np.int32(2))), [rand(2, 2)]),
    ("gather", lambda x: lax.gather(x, IDX, GD, (1, 4)), [rand(3, 4)]),
    ("scatter-add", lambda x, u: lax.scatter_add(x, IDX, u, SD), [rand(5), rand(3)]),
    ("scatter-sub", lambda x, u: lax.scatter_sub(x, IDX, u, SD), [rand(5), rand(3)]),
    ("scatter-mul", lambda x: lax.scatter_mul(x, IDX, rand(3, seed=4), SD), [rand(5)]),
    ("scatter", lambda x, u: lax.scatter(x, UNIQUE, u, SD, unique_indices=True),
     [rand(5), rand(3)]),
    ("dot_general", lambda x: lax.dot_general(x, C, (((1,), (1,)), ((), ()))), [rand(2, 4)]),
    ("dot_general", lambda y: lax.dot_general(C, y, (((0,), (0,)), ((), ()))), [rand(3, 2)]),
    ("dot_general", lambda x: lax.dot_general(x, rand(2, 4, 5, seed=3),
                                              (((2,), (1,)), ((0,), (0,)))),
     [rand(2, 3, 4)]),
    ("dot_general", lambda y: lax.dot_general(rand(2, 3, 4, seed=3), y,
                                              (((2, 1), (0, 2)), ((0,), (1,)))),
     [rand(4, 2, 3)]),
    ("cumsum", lambda x: lax.cumsum(x, 1), [rand(3, 4)]),
    ("cumsum", lambda x: lax.cumsum(x, 0, reverse=True), [rand(3, 4)]),
]


@contextlib.contextmanager
def transpose_calls():
    """Record the names of the primitives whose transpose rule runs inside the block."""
    seen, saved = set(), dict(transpose_rules)

    def spy(prim, rule):
        def wrapped(*args, **kwargs):
            seen.add(prim.name)
            return rule(*args, **kwargs)
        return wrapped
    for prim, rule in saved.items():
        transpose_rules[prim] = spy(prim, rule)
    try:
        yield seen
    finally:
        transpose_rules.update(saved)


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flat(item)]
    return [np.asarray(x).astype(np.complex128)]


def _pair(a, b) -> float:
    return sum(float(np.real(np.sum(x * y))) for x, y in zip(_flat(a), _flat(b)))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_dot_product(case):
    name, f, args = case
    out = f(*args)
    v = [rand(*np.shape(o), dtype=np.asarray(o).dtype, seed=7 + i)
         for i, o in enumerate(_flat_outputs(out))]
    v = v if isinstance(out, (list, tuple)) else v[0]
    f_t = linear_transpose(f, *args)
    with transpose_calls() as seen:
        ct = f_t(v)
    assert name in seen, f"the transpose rule of {name} did not run"
    assert len(ct) == len(args)
    for c, a in zip(ct, args):
        assert np.shape(c) == np.shape(a) and np.asarray(c).dtype == a.dtype
    u = [rand(*a.shape, dtype=a.dtype, seed=20 + i) for i, a in enumerate(args)]
    lhs, rhs = _pair(v, f(*u)), _pair(f_t(v), u)
    np.testing.assert_allclose(lhs, rhs, rtol=2e-3, atol=2e-5, err_msg=name)


def _flat_outputs(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _chapter00_primitives():
    """The primitives of ``minijax.lax`` (chapter 00): higher-order ones (``jit``, ``cond``)
    are tested with their chapters (``jit``: ``test_grad_of_jit.py``)."""
    from minijax.lax import dot, elementwise, reductions, shapes, slicing, sorting
    return {p for m in (dot, elementwise, reductions, shapes, slicing, sorting)
            for p in vars(m).values() if isinstance(p, Primitive)}


def test_every_transpose_rule_has_a_case():
    covered = {name for name, _, _ in CASES}
    rules = {p.name for p in transpose_rules if p in _chapter00_primitives() or p is add_any_p}
    assert rules - covered == set()


def test_nonlinear_div_and_product_cannot_be_transposed():
    with pytest.raises(RuntimeError, match="nonlinear div can't be transposed"):
        linear_transpose(lambda x: lax.div(C, x), C)(C)
    with pytest.raises(TypeError, match="not linear"):
        linear_transpose(lambda x: lax.mul(x, x), C)(C)


def test_missing_rule_message():
    # expected message from JAX 0.10.2
    with pytest.raises(NotImplementedError, match="Transpose rule \\(for reverse-mode "
                       "differentiation\\) for 'sin' not implemented"):
        linear_transpose(lax.sin, 1.0)(3.0)


def test_dot_general_is_bilinear():
    assert dot_general_p in transpose_rules


# --- add_any: the accumulation primitive has every rule of a primitive -------------------------
def test_add_any_eval_jvp_and_batching():
    from minijax import vmap
    from minijax.interpreters.ad import jvp
    x, y = rand(3, 4), rand(3, 4, seed=1)
    np.testing.assert_allclose(add_any_p.bind(x, y), x + y)
    out, t = jvp(lambda a, b: add_any_p.bind(a, b), (x, y), (y, x))
    np.testing.assert_allclose(out, x + y)
    np.testing.assert_allclose(t, x + y)
    _, t = jvp(lambda a: add_any_p.bind(a, y), (x,), (y,))  # one Zero tangent
    np.testing.assert_allclose(t, y)
    for in_axes in [(0, 0), (0, None), (None, 1), (1, 0)]:
        xs = rand(*((3, 4) if in_axes[0] == 0 else (4, 3) if in_axes[0] == 1 else (4,)))
        ys = rand(*((3, 4) if in_axes[1] == 0 else (4, 3) if in_axes[1] == 1 else (4,)), seed=2)
        out = vmap(lambda a, b: add_any_p.bind(a, b), in_axes=in_axes)(xs, ys)
        move = lambda v, ax: v if ax == 0 else v.T if ax == 1 else np.broadcast_to(v, (3, 4))
        np.testing.assert_allclose(out, move(xs, in_axes[0]) + move(ys, in_axes[1]))
