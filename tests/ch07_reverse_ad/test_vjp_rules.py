"""Chapter 07: reverse mode through every differentiable primitive, against finite differences.

The cases are chapter 02's (``tests/ch02_ad/test_jvp_rules.py``): one
function per primitive with a NumPy twin. For random output weights ``w`` and
input directions ``u``, the vector-Jacobian product must satisfy
``<vjp(w), u> = <w, J u>``, where ``J u`` is the central finite difference of
the NumPy function in float64. The pairing is ``Re(sum(a * b))``, so complex
primitives (holomorphic or not) are covered by the same identity.
"""
import importlib.util
import pathlib

import numpy as np
import pytest

import minijax  # noqa: F401  (registers everything)
from minijax.autodiff import grad, vjp

pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

_CH02 = pathlib.Path(__file__).resolve().parents[1] / "ch02_ad" / "test_jvp_rules.py"
_spec = importlib.util.spec_from_file_location("_ch02_jvp_cases", _CH02)
ch02 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ch02)


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [np.asarray(x)]


def _pair(a, b) -> float:
    return sum(float(np.real(np.sum(x.astype(np.complex128) * y.astype(np.complex128))))
               for x, y in zip(_leaves(a), _leaves(b)))


def _like(x, seed):
    """A random array shaped like ``x``, in its dtype."""
    return ch02._rand(np.shape(x), -1.0, 1.0, seed, np.asarray(x).dtype)


def _unflatten_like(tree, leaves):
    if isinstance(tree, (list, tuple)):
        out, it = [], iter(leaves)
        for item in tree:
            n = len(_leaves(item))
            out.append(_unflatten_like(item, [next(it) for _ in range(n)]))
        return type(tree)(out)
    return leaves[0]


@pytest.mark.parametrize("case", [ch02._as_case(c) for c in ch02.CASES],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ch02.CASES)])
def test_vjp_matches_finite_differences(case):
    name, f, f_np, args = case
    args = [np.asarray(a) for a in args]
    out, f_vjp = vjp(f, *args)
    w = _unflatten_like(out, [_like(o, 30 + i) for i, o in enumerate(_leaves(out))])
    cts = f_vjp(w)
    assert len(cts) == len(args)
    for ct, a in zip(cts, args):
        assert np.shape(ct) == a.shape and np.asarray(ct).dtype == a.dtype
    u = [_like(a, 40 + i) for i, a in enumerate(args)]
    expected = _pair(w, ch02._central_difference(f_np, args, u))
    np.testing.assert_allclose(_pair(cts, u), expected, rtol=2e-3, atol=5e-4, err_msg=name)


# --- the gradients of the elementwise primitives, one by one ------------------------------
REAL_UNARY = [c for c in ch02.UNARY if np.asarray(c[3]).dtype == np.float32
              and np.asarray(c[2](c[3])).dtype.kind == "f"]


@pytest.mark.parametrize("case", REAL_UNARY, ids=[c[0] for c in REAL_UNARY])
def test_grad_of_each_element(case):
    """``grad`` of one element of a unary primitive is its derivative there."""
    name, f, f_np, x = case
    g = grad(lambda v: f(v)[1, 2])(x)
    expected = np.zeros(x.shape)
    e = np.zeros(x.shape)
    e[1, 2] = 1.0
    expected[1, 2] = ch02._central_difference(f_np, [x], [e])[1, 2]
    np.testing.assert_allclose(g, expected, rtol=2e-3, atol=2e-4, err_msg=name)
