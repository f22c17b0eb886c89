"""Chapter 09 — lowerings of ``lax.linalg``: one matrix at a time, in the kernel.

Numba compiles ``np.linalg.cholesky``, ``eigh``, ``qr`` and ``svd`` to calls
into LAPACK (through SciPy's bindings), as XLA does on the CPU. What NumPy
does not offer is written out as loops, following the interpreter's impl
rules (:mod:`minijax.lax.linalg`): ``lu`` (Gaussian elimination with partial
pivoting: LAPACK's pivots), ``lu_pivots_to_permutation`` and
``triangular_solve`` (forward or back substitution).

Each lowering views its operand as a stack of matrices ``(batch, m, n)`` and
loops over the stack. Results agree with the interpreter's to rounding (the
LAPACK builds may differ), not always bit for bit.
"""
from __future__ import annotations

import numpy as np

from minijax.backends.numba_calls import CALL_LOWERINGS
from minijax.backends.numba_scalar import HELPERS, np_dtype
from minijax.jaxpr import DropVar

__all__: list[str] = []


HELPERS.update({
    "_copy_matrix": '''
def _copy_matrix(dst, src):
    """dst[:, :] = src with two loops (quicker for Numba to compile than the slice)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]
''',
    "_copy_vector": '''
def _copy_vector(dst, src):
    """dst[:] = src with one loop."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
''',
    "_cholesky_or_nan": '''
def _cholesky_or_nan(a):
    """The lower Cholesky factor; NaNs (as XLA) if ``a`` is not positive definite."""
    try:
        return np.linalg.cholesky(a)
    except Exception:
        return np.full(a.shape, np.nan, a.dtype)
''',
    "_hermitian": '''
def _hermitian(a, lower):
    """The Hermitian matrix that the ``lower`` (or upper) triangle of ``a`` describes."""
    n = a.shape[0]
    h = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            if i == j or (i > j) == lower:
                h[i, j] = a[i, j]
            else:
                h[i, j] = np.conj(a[j, i])
    return h
''',
    "_lu_in_place": '''
def _lu_in_place(a, pivots, perm):
    """Gaussian elimination with partial pivoting on ``a`` (m, n), in place.

    Column j: the first largest |entry| on or below the diagonal (NaN wins, as
    argmax) is the pivot; its row is swapped up; the multipliers go below the
    diagonal and the rows below are updated. A zero pivot is skipped (LAPACK).
    """
    m, n = a.shape
    for i in range(m):
        perm[i] = i
    for j in range(min(m, n)):
        p, best = j, abs(a[j, j])
        for i in range(j + 1, m):
            v = abs(a[i, j])
            if v > best or (v != v and best == best):
                p, best = i, v
        pivots[j] = p
        if p != j:
            for k in range(n):
                a[j, k], a[p, k] = a[p, k], a[j, k]
            perm[j], perm[p] = perm[p], perm[j]
        pivot = a[j, j]
        if pivot != 0:
            for i in range(j + 1, m):
                a[i, j] = a[i, j] / pivot
        for i in range(j + 1, m):
            for k in range(j + 1, n):
                a[i, k] = a[i, k] - a[i, j] * a[j, k]
''',
    "_pivots_to_permutation": '''
def _pivots_to_permutation(pivots, perm):
    """Apply the row swaps ``pivots`` (from ``lu``), in order, to 0, 1, 2..."""
    for i in range(perm.shape[0]):
        perm[i] = i
    for j in range(pivots.shape[0]):
        p = pivots[j]
        if 0 <= p < perm.shape[0]:
            perm[j], perm[p] = perm[p], perm[j]
''',
    "_op_triangle": '''
def _op_triangle(a, lower, transpose, conjugate, unit):
    """op(a) for the ``lower`` (or upper) triangle of ``a``, zeros elsewhere; its
    diagonal is ones if ``unit``; op transposes and/or conjugates."""
    n = a.shape[0]
    t = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            if i != j and (i > j) != lower:
                continue
            v = a[i, j] * 0 + 1 if (i == j and unit) else a[i, j]
            if conjugate:
                v = np.conj(v)
            if transpose:
                t[j, i] = v
            else:
                t[i, j] = v
    return t
''',
    "_triangular_solve": '''
def _triangular_solve(t, b, lower):
    """x with t @ x = b, t triangular: forward (lower) or back substitution."""
    n, k = b.shape
    x = np.empty_like(b)
    for c in range(k):
        for step in range(n):
            i = step if lower else n - 1 - step
            s = b[i, c]
            lo, hi = (0, i) if lower else (i + 1, n)
            for j in range(lo, hi):
                s -= t[i, j] * x[j, c]
            x[i, c] = s / t[i, i]
    return x
''',
})


# =============================================================================
# Utilities: stacks of matrices
# =============================================================================
def _names(w, eqn) -> list[str]:
    named = next(w.var(v) for v in eqn.outvars if not isinstance(v, DropVar))
    return [f"{named}_drop{k}" if isinstance(v, DropVar) else w.var(v)
            for k, v in enumerate(eqn.outvars)]


def _batch(shape) -> int:
    return int(np.prod(shape[:-2], dtype=np.int64))


def _stack(w, name: str, x: str, aval, keep: int = 2) -> str:
    """Emit ``x`` as a contiguous stack ``(batch, *last keep dims)``; returns its name."""
    shape = tuple(aval.shape)
    w.emit(f"{name} = np.ascontiguousarray({x}).reshape("
           f"{(int(np.prod(shape[:-keep], dtype=np.int64)),) + shape[-keep:]})")
    return name


def _alloc(w, names, avals, batch_rank: int) -> None:
    """Stacked outputs: ``<name>_3d`` of shape ``(batch, *per-matrix dims)``."""
    for name, aval in zip(names, avals):
        shape = tuple(aval.shape)
        stacked = (int(np.prod(shape[:batch_rank], dtype=np.int64)),) + shape[batch_rank:]
        w.emit(f"{name}_3d = np.empty({stacked}, dtype={np_dtype(aval.dtype)})")


def _unstack(w, names, avals) -> None:
    for name, aval in zip(names, avals):
        w.emit(f"{name} = {name}_3d.reshape({tuple(aval.shape)})")


def _per_matrix(w, eqn, body, *, inputs) -> None:
    """Emit: outputs allocated as stacks, a loop over the batch computing each
    matrix's results, outputs reshaped back.

    ``body(b, ins, outs)`` gives (lines, results): lines using ``<in>[b]``, and
    for each output the expression of its matrix, or None if the lines wrote
    ``<out>_3d[b]`` themselves.
    """
    names = _names(w, eqn)
    avals = [v.aval for v in eqn.outvars]
    batch_rank = eqn.invars[0].aval.ndim - 2
    w.emit(f"# {w.text(eqn)}")
    stacks = [_stack(w, f"{names[0]}_in{k}", x, a.aval) for k, (x, a) in
              enumerate(zip(inputs, eqn.invars))]
    _alloc(w, names, avals, batch_rank)
    b = f"{names[0]}_b"
    w.emit(f"for {b} in range({_batch(eqn.invars[0].aval.shape)}):")
    lines, results = body(b, stacks, names)
    for line in lines:
        w.emit("    " + line)
    for name, aval, result in zip(names, avals, results):
        if result is not None:
            copy = "_copy_matrix" if aval.ndim - batch_rank == 2 else "_copy_vector"
            w.emit(f"    {w._helper(copy)}({name}_3d[{b}], {result})")
    _unstack(w, names, avals)


# =============================================================================
# The lowerings
# =============================================================================
def _cholesky(w, eqn, x):
    w.helpers.add("_cholesky_or_nan")
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [], [f"_cholesky_or_nan(np.ascontiguousarray({ins[0]}[{b}]))"]), inputs=[x])
    return None


def _eigh(w, eqn, x):
    """Eigenvectors (columns) and ascending eigenvalues of the triangle ``lower`` reads."""
    if eqn.params.get("subset_by_index") is not None:
        raise NotImplementedError("eigh with subset_by_index")
    w.helpers.add("_hermitian")
    lower = bool(eqn.params["lower"])
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [f"{outs[0]}_w, {outs[0]}_v = np.linalg.eigh(_hermitian({ins[0]}[{b}], {lower}))"],
        [f"{outs[0]}_v", f"{outs[0]}_w"]), inputs=[x])
    return None


def _qr(w, eqn, x):
    m, n = eqn.invars[0].aval.shape[-2:]
    if eqn.params["full_matrices"] and m > n:
        raise NotImplementedError("qr with full_matrices=True of a tall matrix")
    if eqn.params.get("pivoting"):
        raise NotImplementedError("qr with pivoting")
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [f"{outs[0]}_q, {outs[0]}_r = np.linalg.qr(np.ascontiguousarray({ins[0]}[{b}]))"],
        [f"{outs[0]}_q", f"{outs[0]}_r"]), inputs=[x])
    return None


def _svd(w, eqn, x):
    if eqn.params.get("subset_by_index") is not None:
        raise NotImplementedError("svd with subset_by_index")
    full = bool(eqn.params["full_matrices"])

    def body(b, ins, outs):
        n = outs[0]
        line = (f"{n}_u, {n}_s, {n}_vh = np.linalg.svd(np.ascontiguousarray({ins[0]}[{b}]), "
                f"full_matrices={full})")
        if not eqn.params["compute_uv"]:
            return [line], [f"{n}_s"]
        return [line], [f"{n}_s", f"{n}_u", f"{n}_vh"]
    _per_matrix(w, eqn, body, inputs=[x])
    return None


def _lu(w, eqn, x):
    w.helpers.add("_lu_in_place")
    _per_matrix(w, eqn, lambda b, ins, outs: (
        [f"_copy_matrix({outs[0]}_3d[{b}], {ins[0]}[{b}])",
         f"_lu_in_place({outs[0]}_3d[{b}], {outs[1]}_3d[{b}], {outs[2]}_3d[{b}])"],
        [None, None, None]), inputs=[x])
    w.helpers.add("_copy_matrix")
    return None


def _lu_pivots_to_permutation(w, eqn, pivots):
    name = _names(w, eqn)[0]
    pshape, out = tuple(eqn.invars[0].aval.shape), eqn.outvars[0].aval
    batch = int(np.prod(pshape[:-1], dtype=np.int64))
    w.helpers.add("_pivots_to_permutation")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_piv = np.ascontiguousarray({pivots}).reshape(({batch}, {pshape[-1]}))")
    w.emit(f"{name}_2d = np.empty(({batch}, {out.shape[-1]}), dtype=np.int32)")
    w.emit(f"for {name}_b in range({batch}):")
    w.emit(f"    _pivots_to_permutation({name}_piv[{name}_b], {name}_2d[{name}_b])")
    w.emit(f"{name} = {name}_2d.reshape({tuple(out.shape)})")
    return None


def _triangular_solve(w, eqn, a, b_):
    """``op(a) @ x = b``, or ``x @ op(a) = b`` solved as ``op(a)^T @ x^T = b^T``."""
    p = eqn.params
    conjugate = bool(p["conjugate_a"]) and eqn.invars[0].aval.dtype.kind == "c"
    transpose, left = bool(p["transpose_a"]), bool(p["left_side"])
    lower = bool(p["lower"]) != transpose  # the triangle op(a) has
    if not left:
        transpose, lower = not transpose, not lower
    w.helpers.update({"_op_triangle", "_triangular_solve"})

    def body(b, ins, outs):
        t = (f"_op_triangle({ins[0]}[{b}], {bool(p['lower'])}, {transpose}, {conjugate}, "
             f"{bool(p['unit_diagonal'])})")
        rhs = f"{ins[1]}[{b}]" if left else f"np.ascontiguousarray({ins[1]}[{b}].T)"
        x = f"_triangular_solve({t}, {rhs}, {lower})"
        return [], [x if left else x + ".T"]
    _per_matrix(w, eqn, body, inputs=[a, b_])
    return None


CALL_LOWERINGS.update({
    "cholesky": _cholesky, "eigh": _eigh, "qr": _qr, "svd": _svd, "lu": _lu,
    "lu_pivots_to_permutation": _lu_pivots_to_permutation,
    "triangular_solve": _triangular_solve,
})
