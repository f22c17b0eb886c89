"""Chapter 00 — the order in which ``einsum`` contracts its operands (its *path*).

``einsum("ij,jk,kl->il", x, y, z)`` can be computed as ``(x @ y) @ z`` or as
``x @ (y @ z)``; with ``x: 200x5``, ``y: 5x100`` and ``z: 100x10`` the first
takes 300,000 multiply-adds and the second 15,000. JAX asks the
``opt_einsum`` package for the cheapest order; this module finds the same
orders, by the same rules, so that minijax's ``einsum`` (and
``linalg.multi_dot``, which is an einsum) contracts the same pairs in the same
order and prints the same jaxpr:

* a *path* is a list of tuples of positions in the current operand list: the
  operands at those positions are contracted (popped, highest position first)
  and the result is appended at the end;
* the *cost* of contracting a group of operands is opt_einsum's FLOP count:
  the product of the sizes of all their labels, times the number of operands
  less one, plus one if some label is summed away;
* ``"optimal"`` tries every order of pairwise contractions (depth-first, and
  abandoning a partial order as soon as it costs more than the best complete
  one found so far); ``"branch-all"``/``"branch-2"``/``"branch-1"`` try, at
  each step, all / the 2 / the 1 most memory-saving pairs (branch and bound);
  ``"greedy"`` repeatedly contracts the pair whose result saves the most
  memory. ``"auto"`` (the default) is ``"optimal"`` for up to 4 operands,
  then ``"branch-all"`` (5-6), ``"branch-2"`` (7-8), ``"branch-1"`` (9-14)
  and ``"greedy"`` beyond, as opt_einsum.

``einsum_path`` returns the path and a :class:`PathInfo` whose printout is
opt_einsum's table (the FLOP counts, the scaling of each step, and which
BLAS routine a step could use).
"""
from __future__ import annotations

import heapq
import itertools
import math
from decimal import Decimal

import numpy as np

__all__ = ["einsum_path"]


def size_of(labels, sizes: dict) -> int:
    """The number of elements of an array indexed by ``labels``."""
    return math.prod(sizes[label] for label in labels)


def flop_count(labels, inner: bool, num_terms: int, sizes: dict) -> int:
    """opt_einsum's cost of one contraction over ``labels`` of ``num_terms`` operands."""
    return size_of(labels, sizes) * (max(1, num_terms - 1) + int(inner))


def find_contraction(positions, input_sets, output_set):
    """Contract the operands at ``positions``: (the result's labels, the new list of
    label sets, the labels summed away, all labels involved)."""
    remaining = list(input_sets)
    inputs = [remaining.pop(i) for i in sorted(positions, reverse=True)]
    involved = frozenset.union(*inputs)
    still_needed = output_set.union(*remaining)
    result = still_needed & involved
    remaining.append(result)
    return result, remaining, involved - result, involved


def _ssa_to_linear(ssa_path):
    """Turn a path naming operands by creation number (inputs 0..n-1, then each result
    in turn) into one naming positions in the shrinking operand list."""
    n = sum(map(len, ssa_path)) - len(ssa_path) + 1
    ids = list(range(n))
    path = []
    for ssa, step in enumerate(ssa_path, start=n):
        positions = sorted(ids.index(s) for s in step)
        for p in reversed(positions):
            ids.pop(p)
        ids.append(ssa)
        path.append(tuple(positions))
    return path


def _pair_cost(inputs, output_set, remaining, i, j, sizes):
    """The labels of ``inputs[i]`` contracted with ``inputs[j]``, and the cost."""
    either, shared = inputs[i] | inputs[j], inputs[i] & inputs[j]
    keep = frozenset.union(output_set, *(inputs[k] for k in remaining - {i, j}))
    return either & keep, flop_count(either, bool(shared - keep), 2, sizes)


def optimal_path(input_sets, output_set, sizes):
    """The cheapest order of pairwise contractions, by exhaustive depth-first search."""
    best = {"flops": math.inf, "path": (tuple(range(len(input_sets))),)}
    cache = {}

    def search(path, remaining, inputs, flops):
        if len(remaining) == 1:
            best["flops"], best["path"] = flops, path
            return
        for i, j in itertools.combinations(remaining, 2):  # (a set: opt_einsum's order)
            i, j = min(i, j), max(i, j)
            key = (inputs[i], inputs[j])
            if key not in cache:
                cache[key] = _pair_cost(inputs, output_set, remaining, i, j, sizes)
            labels, cost = cache[key]
            if flops + cost >= best["flops"]:
                continue  # already dearer than a complete order: prune
            search(path + ((i, j),), remaining - {i, j} | {len(inputs)},
                   inputs + (labels,), flops + cost)

    search((), set(range(len(input_sets))), tuple(input_sets), 0)
    return _ssa_to_linear(best["path"])


def branch_path(input_sets, output_set, sizes, nbranch=None, cutoff_factor=4):
    """Branch and bound: at each step try the ``nbranch`` most promising pairs (all
    with ``None``), most memory saved first, pairs sharing a label before outer
    products; abandon an order once it costs more than the best complete one, or
    more than ``cutoff_factor`` times the best seen at the same depth."""
    best = {"flops": math.inf, "size": math.inf, "path": None}
    best_at_depth = {}
    size_cache = {k: size_of(k, sizes) for k in input_sets}
    cost_cache = {}

    def search(path, inputs, remaining, flops, size):
        if len(remaining) == 1:
            best.update(flops=flops, size=size, path=path)
            return

        def assess(i, j):
            k1, k2 = inputs[i], inputs[j]
            if (k1, k2) not in cost_cache:
                cost_cache[k1, k2] = _pair_cost(inputs, output_set, remaining, i, j, sizes)
            k12, flops12 = cost_cache[k1, k2]
            if k12 not in size_cache:
                size_cache[k12] = size_of(k12, sizes)
            new_flops, new_size = flops + flops12, max(size, size_cache[k12])
            if (new_flops, new_size) >= (best["flops"], best["size"]):
                return None
            depth_best = best_at_depth.get(len(inputs), math.inf)
            if new_flops < depth_best:
                best_at_depth[len(inputs)] = new_flops
            elif new_flops > cutoff_factor * depth_best:
                return None
            saved = size_cache[k12] - size_cache[k1] - size_cache[k2]
            return saved, flops12, new_flops, new_size, (i, j), k12

        candidates = []
        for sharing_only in (True, False):  # outer products only if nothing shares a label
            for i, j in itertools.combinations(remaining, 2):
                i, j = min(i, j), max(i, j)
                if sharing_only and inputs[i].isdisjoint(inputs[j]):
                    continue
                candidate = assess(i, j)
                if candidate:
                    heapq.heappush(candidates, candidate)
            if candidates:
                break
        tried = 0
        while (nbranch is None or tried < nbranch) and candidates:
            _, _, new_flops, new_size, (i, j), k12 = heapq.heappop(candidates)
            search(path + ((i, j),), inputs + (k12,), (remaining - {i, j}) | {len(inputs)},
                   new_flops, new_size)
            tried += 1

    search((), tuple(input_sets), set(range(len(input_sets))), 0, 0)
    return _ssa_to_linear(best["path"])


def greedy_path(input_sets, output_set, sizes):
    """opt_einsum's greedy search: contract identical operands first; then, again and
    again, the pair sharing a label whose result saves the most memory (ties: the
    operands made last); finally multiply out what is left, smallest first.

    A label is dropped from a result once no other operand needs it (the
    reference counts say which labels two, or three or more, operands carry).
    """
    if len(input_sets) == 1:
        return [(0,)]
    inputs = [frozenset(x) for x in input_sets]
    output = frozenset(output_set) | frozenset.intersection(*inputs)  # labels all share stay
    remaining = {}  # operand labels -> creation number
    next_id = itertools.count(len(inputs))
    ssa_path = []
    for ssa_id, key in enumerate(inputs):
        if key in remaining:  # an identical operand: contract the two at once
            ssa_path.append((remaining[key], ssa_id))
            remaining[key] = next(next_id)
        else:
            remaining[key] = ssa_id
    holders = {}  # summable label -> the operands carrying it
    for key in remaining:
        for label in key - output:
            holders.setdefault(label, set()).add(key)
    shared_by = {n: {d for d, keys in holders.items() if len(keys) >= n} - output for n in (2, 3)}
    footprint = {key: size_of(key, sizes) for key in remaining}

    def candidate(k1, k2):
        either, both = k1 | k2, k1 & k2
        k12 = (either & output) | (both & shared_by[3]) | ((either - both) & shared_by[2])
        saved = size_of(k12, sizes) - footprint[k1] - footprint[k2]
        id1, id2 = remaining[k1], remaining[k2]
        if id1 > id2:
            k1, id1, k2, id2 = k2, id2, k1, id1
        return (saved, id2, id1), k1, k2, k12

    queue = []
    for keys in holders.values():
        ordered = sorted(keys, key=remaining.__getitem__)
        for i, k1 in enumerate(ordered[:-1]):
            heapq.heappush(queue, min(candidate(k1, k2) for k2 in ordered[i + 1:]))
    while queue:
        _, k1, k2, k12 = heapq.heappop(queue)
        if k1 not in remaining or k2 not in remaining:
            continue  # one of them was contracted since: an obsolete candidate
        ssa_path.append((remaining.pop(k1), remaining.pop(k2)))
        for label in k1 - output:
            holders[label].remove(k1)
        for label in k2 - output:
            holders[label].remove(k2)
        if k12 in remaining:
            ssa_path.append((remaining[k12], next(next_id)))
        else:
            for label in k12 - output:
                holders[label].add(k12)
        remaining[k12] = next(next_id)
        for label in k1 | k2 - output:  # (k1 | (k2 - output), as opt_einsum writes it)
            count = len(holders.get(label, ()))
            for n in (2, 3):
                (shared_by[n].add if count >= n else shared_by[n].discard)(label)
        footprint[k12] = size_of(k12, sizes)
        partners = {k2 for label in k12 for k2 in holders.get(label, ())} - {k12}
        if partners:
            heapq.heappush(queue, min(candidate(k12, k2) for k2 in partners))
    # what is left shares no summable label: outer products, smallest first
    final = [(size_of(key & output, sizes), ssa_id, key) for key, ssa_id in remaining.items()]
    heapq.heapify(final)
    _, id1, k1 = heapq.heappop(final)
    while final:
        _, id2, k2 = heapq.heappop(final)
        ssa_path.append((min(id1, id2), max(id1, id2)))
        k12 = (k1 | k2) & output
        _, id1, k1 = heapq.heappushpop(final, (size_of(k12, sizes), next(next_id), k12))
    return _ssa_to_linear(ssa_path)


def _path_for(optimize, input_sets, output_set, sizes):
    n = len(input_sets)
    if optimize is False:  # JAX's "unoptimized": always the first two operands
        return [(0, 1)] * (n - 1) if n > 1 else [(0,)]
    if not isinstance(optimize, (str, bool)) and optimize is not None:
        return [tuple(step) for step in optimize]  # a path given explicitly
    if n <= 2:
        return [tuple(range(n))]
    if optimize in ("auto", None):  # opt_einsum's choice by the number of operands
        optimize = ("optimal" if n <= 4 else "branch-all" if n <= 6 else "branch-2" if n <= 8
                    else "branch-1" if n <= 14 else "greedy")
    if optimize is True or optimize == "optimal":
        return optimal_path(input_sets, output_set, sizes)
    if optimize in _BRANCHES:
        return branch_path(input_sets, output_set, sizes, nbranch=_BRANCHES[optimize])
    return greedy_path(input_sets, output_set, sizes)


_BRANCHES = {"branch-all": None, "branch-2": 2, "branch-1": 1}


def _blas_kind(inputs, result, removed, shapes):
    """Which BLAS routine one pairwise contraction maps to (opt_einsum's guess), or False."""
    if len(inputs) != 2:
        return False
    left, right = inputs
    for c in set(left + right):
        nl, nr = left.count(c), right.count(c)
        if nl > 1 or nr > 1 or nl + nr > 2:
            return False
        if nl + nr - 1 == int(c in result):  # a label kept by one side only, or summed alone
            return False
    for c in removed:
        if shapes[0][left.find(c)] != shapes[1][right.find(c)]:
            return False
    if not removed:
        return "OUTER/EINSUM"
    k = len(removed)
    if left == right:
        return "DOT"
    if set(left) == set(right):
        return "DOT/EINSUM"
    if left[-k:] == right[:k] or left[:k] == right[-k:] or left[-k:] == right[-k:] \
            or left[:k] == right[:k]:
        return "GEMM"
    if not set(left) - removed or not set(right) - removed:
        return "GEMV/EINSUM"
    return "TDOT"


def _label_sizes(terms, shapes) -> dict:
    sizes = {}
    for term, shape in zip(terms, shapes):
        for label, d in zip(term, shape):
            if sizes.get(label, 1) == 1:  # a size-1 axis broadcasts against the others
                sizes[label] = int(d)
    return sizes


def contraction_list(terms, output: str, shapes, optimize="auto"):
    """The steps of the path for operands labelled ``terms`` (after ``...`` expansion).

    Each step is ``(positions, labels summed away, "in,puts->result", remaining
    terms, BLAS kind)``, as opt_einsum's ``contract_path(..., einsum_call=True)``
    lists them; also returned: the path, the label sizes, the naive cost, and
    each step's cost, scaling and result size (for :class:`PathInfo`).
    """
    terms, shapes = list(terms), [tuple(s) for s in shapes]
    sizes = _label_sizes(terms, shapes)
    input_sets = [frozenset(t) for t in terms]
    output_set = frozenset(output)
    every_label = frozenset("".join(terms))
    inner = sum(len(s) for s in input_sets) - len(every_label) > 0
    naive = flop_count(every_label, inner, len(terms), sizes)
    path = _path_for(optimize, input_sets, output_set, sizes)
    steps, costs, scales, result_sizes = [], [], [], []
    for n, positions in enumerate(path):
        positions = tuple(sorted(positions, reverse=True))
        result, input_sets, removed, involved = find_contraction(positions, input_sets,
                                                                 output_set)
        costs.append(flop_count(involved, bool(removed), len(positions), sizes))
        scales.append(len(involved))
        result_sizes.append(size_of(result, sizes))
        popped = [terms.pop(p) for p in positions]
        popped_shapes = [shapes.pop(p) for p in positions]
        blas = _blas_kind(popped, result, removed, popped_shapes)
        if n == len(path) - 1:
            result_term = output
        else:  # the result's labels in the order they first appear in the inputs
            joined = "".join(popped)
            result_term = "".join(sorted(result, key=joined.find))
        terms.append(result_term)
        shapes.append(tuple(sizes[c] for c in result_term))
        steps.append((positions, removed, ",".join(popped) + "->" + result_term,
                      tuple(terms) if len(terms) <= 20 else None, blas))
    return steps, path, sizes, naive, costs, scales, result_sizes


class PathInfo:
    """The printable report of an einsum path (opt_einsum's layout)."""

    def __init__(self, terms, output, steps, naive, costs, scales, result_sizes):
        self.contraction_list = steps
        self.eq = ",".join(terms) + "->" + output
        self.output_subscript = output
        self.naive_scaling = len(set("".join(terms)))
        self.scale_list = scales
        self.naive_cost = Decimal(naive)
        self.opt_cost = Decimal(sum(costs))
        self.speedup = self.naive_cost / max(self.opt_cost, Decimal(1))
        self.largest_intermediate = Decimal(max(result_sizes, default=1))

    def __repr__(self) -> str:
        lines = [
            f"  Complete contraction:  {self.eq}\n",
            f"         Naive scaling:  {self.naive_scaling}\n",
            f"     Optimized scaling:  {max(self.scale_list, default=0)}\n",
            f"      Naive FLOP count:  {self.naive_cost:.3e}\n",
            f"  Optimized FLOP count:  {self.opt_cost:.3e}\n",
            f"   Theoretical speedup:  {self.speedup:.3e}\n",
            f"  Largest intermediate:  {self.largest_intermediate:.3e} elements\n",
            "-" * 80 + "\n",
            "{:>6} {:>11} {:>22} {:>37}\n".format("scaling", "BLAS", "current", "remaining"),
            "-" * 80,
        ]
        for scaling, (_, _, step, remaining, blas) in zip(self.scale_list,
                                                          self.contraction_list):
            rest = ",".join(remaining) + "->" + self.output_subscript if remaining else "..."
            width = max(0, 56 - max(22, len(step)))
            lines.append("\n{:>4} {:>14} {:>22}    {:>{}}".format(scaling, blas, step, rest,
                                                                  width))
        return "".join(lines)

    __str__ = __repr__


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """``(path, info)``: the order in which :func:`einsum` would contract the operands
    (a list of position tuples, which ``einsum(..., optimize=path)`` accepts) and a
    printable report of its cost. ``optimize`` is ``"auto"``, ``"optimal"``,
    ``"greedy"``, ``True`` (optimal), ``False`` (first two operands each time) or a path.
    """
    from minijax.numpy import tensor_contractions as _tc
    if not isinstance(subscripts, str):
        subscripts, operands = _tc._sublists_to_subscripts((subscripts, *operands))
    shapes = [tuple(np.shape(x)) for x in operands]
    terms, output = _tc._parse_einsum(subscripts, shapes)
    _tc._check_sizes(terms, shapes)
    steps, path, _, naive, costs, scales, sizes = contraction_list(terms, output, shapes,
                                                                   optimize)
    return path, PathInfo(terms, output, steps, naive, costs, scales, sizes)
