"""Shared by the chapter-04 tests: the property every batching rule must have.

``vmap(f, in_axes, out_axes)(*args)`` must equal running ``f`` on each example
and stacking the results along ``out_axes`` — the definition of ``vmap``. The
examples are made first (one NumPy array per example and operand) and stacked
along each operand's ``in_axes`` entry, so the inputs are exactly the examples.
"""
from __future__ import annotations

import itertools
from typing import Callable, NamedTuple

import numpy as np

import minijax.numpy as jnp
from minijax.interpreters.batching import vmap

B = 3  # examples per batch


class Case(NamedTuple):
    """``fn`` applied to operands made by ``gens`` (rng -> one example's array)."""
    prim: str  # the primitive the case exercises (coverage is checked)
    fn: Callable
    gens: tuple
    id: str = ""


def f32(*shape, lo=-2.0, hi=2.0):
    return lambda rng: rng.uniform(lo, hi, shape).astype(np.float32)


def i32(*shape, lo=-5, hi=6):
    return lambda rng: rng.integers(lo, hi, shape).astype(np.int32)


def boolean(*shape):
    return lambda rng: rng.integers(0, 2, shape).astype(bool)


def c64(*shape):
    return lambda rng: (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
                        ).astype(np.complex64)


def batch_inputs(gens, in_axes, seed=0):
    """Per-example operands, and the batched operands vmap receives."""
    rng = np.random.default_rng(seed)
    examples = [[g(rng) for g in gens] for _ in range(B)]
    batched = []
    for k, ax in enumerate(in_axes):
        if ax is None:  # one value shared by every example
            for ex in examples[1:]:
                ex[k] = examples[0][k]
            batched.append(examples[0][k])
        else:
            batched.append(np.stack([ex[k] for ex in examples], axis=ax))
    # minijax Arrays, so that fn may use array methods (x.at[i].set(...), x[i])
    examples = [[jnp.asarray(x) for x in ex] for ex in examples]
    return examples, [jnp.asarray(x) for x in batched]


def _leaves(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def check_vmap(fn, gens, in_axes, out_axes=0, seed=0, rtol=1e-6):
    """Assert ``vmap(fn)`` equals stacking ``fn`` over the examples."""
    in_axes = tuple(in_axes)
    examples, batched = batch_inputs(gens, in_axes, seed)
    got = _leaves(vmap(fn, in_axes=in_axes, out_axes=out_axes)(*batched))
    per_example = [_leaves(fn(*ex)) for ex in examples]
    assert len(got) == len(per_example[0])
    for k, g in enumerate(got):
        parts = [p[k] for p in per_example]
        want = np.stack([np.asarray(p) for p in parts], axis=out_axes)
        assert g.shape == want.shape, (g.shape, want.shape)
        assert g.dtype == parts[0].dtype, (g.dtype, parts[0].dtype)
        assert getattr(g, "weak_type", False) == getattr(parts[0], "weak_type", False)
        if np.issubdtype(want.dtype, np.inexact):
            np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=1e-6)
        else:
            np.testing.assert_array_equal(np.asarray(g), want)


def axis_choices(rank: int) -> list:
    """In-axes worth trying for an operand whose examples have ``rank`` dims."""
    return sorted({0, -1, min(1, rank)}) + [None]


def in_axes_combos(case: Case, seed=0) -> list[tuple]:
    """Every combination of 0, 1, -1 and None per operand (some operand mapped)."""
    rng = np.random.default_rng(seed)
    ranks = [np.ndim(g(rng)) for g in case.gens]
    combos = itertools.product(*(axis_choices(r) for r in ranks))
    return [c for c in combos if any(a is not None for a in c)]


def out_rank(case: Case) -> int:
    """The smallest rank among ``case``'s outputs, per example."""
    rng = np.random.default_rng(0)
    return min(np.ndim(o) for o in _leaves(case.fn(*[g(rng) for g in case.gens])))


def case_id(case: Case) -> str:
    return case.id or case.prim
