"""Chapter 06 — the cost model: a rough count of a jaxpr's work, like XLA's cost_analysis().

``jit(f).lower(x).cost_analysis()`` answers "how much arithmetic, how many
transcendental functions, how many bytes" before anything runs. The counts
follow from what each primitive *is*, stated once where it is made
(``Primitive.kind``, ``moves_data``, ``transcendental``), so a new primitive
is counted without touching this file. A target's kernel plan refines the
bytes (a fused loop reads each input once: ``KernelPlan.cost_analysis``).
"""
from __future__ import annotations

import numpy as np

from minijax.jaxpr import jaxprs_in_params

__all__ = ["jaxpr_cost_analysis"]

#: Kinds whose primitives read their whole input once (reductions, scans, sorts).
_READS_INPUT = frozenset({"reduction", "cumulative", "sort"})


def _size(aval) -> int:
    return int(np.prod(aval.shape, dtype=np.int64))


def _nbytes(aval) -> int:
    return _size(aval) * aval.dtype.itemsize


def _eqn_flops(eqn) -> int:
    """The arithmetic of one equation (not counting nested jaxprs)."""
    prim = eqn.primitive
    if prim.moves_data:
        return 0
    if prim.kind == "dot":  # 2*M*N*K: one multiply and one add per term
        (lhs_contract, _), _ = eqn.params["dimension_numbers"]
        k = int(np.prod([eqn.invars[0].aval.shape[d] for d in lhs_contract], dtype=np.int64))
        return 2 * _size(eqn.outvars[0].aval) * k
    if prim.kind in _READS_INPUT:
        return _size(eqn.invars[0].aval)
    return sum(_size(v.aval) for v in eqn.outvars)  # elementwise: one op per output


def jaxpr_cost_analysis(closed_jaxpr) -> dict[str, float]:
    """``{'flops', 'transcendentals', 'bytes accessed'}`` of a jaxpr, as floats.

    - ``flops``: elementwise operations count one per output element,
      ``dot_general`` counts ``2*M*N*K``, reductions one per input element,
      and data movement (reshape, transpose, gather...) nothing;
    - ``transcendentals``: output elements of ``exp``, ``sin``, ``log``...
      (also counted in ``flops``; XLA counts them only here);
    - ``bytes accessed``: bytes read and written, each equation's inputs
      and outputs (so a value used twice is counted twice).

    Equations holding jaxprs (a nested ``jit``) count the work inside.
    """
    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    cost = {"flops": 0.0, "transcendentals": 0.0, "bytes accessed": 0.0}
    for eqn in jaxpr.eqns:
        inner = list(jaxprs_in_params(eqn.params))
        if inner:
            for sub in inner:
                for key, val in jaxpr_cost_analysis(sub).items():
                    cost[key] += val
            continue
        cost["flops"] += _eqn_flops(eqn)
        if eqn.primitive.transcendental:
            cost["transcendentals"] += sum(_size(v.aval) for v in eqn.outvars)
        cost["bytes accessed"] += (sum(_nbytes(v.aval) for v in eqn.invars)
                                   + sum(_nbytes(v.aval) for v in eqn.outvars))
    return cost
