"""Chapter 09 — lowerings that move data: gather, scatter, sort, top_k, split,
stack, tile, unstack, and the threefry key primitives.

Each is a *call* (:data:`~minijax.backends.numba_calls.CALL_LOWERINGS`): its
operands are arrays in memory, and the lowering writes loops over static
shapes into the kernel.

``gather`` and ``scatter`` follow XLA's dimension numbers literally. The
output (for gather) or the updates (for scatter) have *batch* dimensions,
one per window, and *window* dimensions. The kernel loops over the batch
index; for each it computes where the window starts in the operand (from
the index vector, and from the batch index itself for batching dimensions),
clamps it (gather, ``mode="clip"``) or skips it (scatter out of bounds),
then loops over the window: the window dimensions of the operand and of the
output (or updates) come in the same order, so one offset indexes both.
Plain loops, rather than NumPy slice assignments, also keep Numba's compile
times short.

Inside a kernel, an array of threefry keys is its uint32 key data, with one
more trailing axis of 2; data movement on keys therefore leaves that axis
alone, and the key primitives hash with the ``_threefry2x32`` helper.
"""
from __future__ import annotations

import numpy as np

from minijax.backends.numba_calls import (CALL_LOWERINGS, _data, _is_threefry_key, _reshape_code,
                                          copy_loops)
from minijax.backends.numba_scalar import HELPERS, literal, np_dtype
from minijax.jaxpr import DropVar

__all__: list[str] = []


# =============================================================================
# Small utilities
# =============================================================================
def _mode_name(mode) -> str:
    """``GatherScatterMode.CLIP`` -> ``"CLIP"`` (the enum lives in chapter 00)."""
    return getattr(mode, "name", str(mode))


def _out(w, eqn, k: int = 0) -> str:
    """The kernel name of output ``k`` (a name of its own for an unread ``_``)."""
    if not isinstance(eqn.outvars[k], DropVar):
        return w.var(eqn.outvars[k])
    named = [v for v in eqn.outvars if not isinstance(v, DropVar)]  # DCE keeps one at least
    return f"{w.var(named[0])}_drop{k}"


def _open_loops(w, shape, prefix: str) -> list[str]:
    """Emit nested ``for`` loops over ``shape``; the caller closes them (``w.depth -= n``)."""
    names = []
    for d, n in enumerate(shape):
        w.emit(f"for {prefix}{d} in range({n}):")
        w.depth += 1
        names.append(f"{prefix}{d}")
    return names


def _index(parts) -> str:
    return ", ".join(parts) if parts else "()"


def _key_word(w, name: str, aval) -> list[str]:
    """For a key array: open a loop over the 2 words of its key data (the caller
    closes it with the other loops) and return its variable; else nothing."""
    if not _is_threefry_key(aval.dtype):
        return []
    w.emit(f"for {name}_kw in range(2):")
    w.depth += 1
    return [f"{name}_kw"]


def _empty(w, name: str, aval) -> None:
    shape, dtype = _data(aval)
    w.emit(f"{name} = np.empty({shape}, dtype={dtype})")


# =============================================================================
# gather
# =============================================================================
def _window_starts(w, name, operand_shape, sizes, idx, batch, index_map,
                   operand_batching, indices_batching, clamp: bool):
    """Emit the start of the window in every operand dimension, for batch index ``batch``.

    Returns (start expressions, the condition "the window is inside the
    operand" or None when it always is).
    """
    starts = ["0"] * len(operand_shape)
    checks = []
    for k, d in enumerate(index_map):
        raw = f"{name}_s{d}"
        w.emit(f"{raw} = np.int64({idx}[{_index([*batch, str(k)])}])")
        upper = operand_shape[d] - sizes[d]
        checks.append(f"0 <= {raw} <= {upper}")
        if clamp:
            w.emit(f"{raw}c = min(max({raw}, 0), {max(upper, 0)})")
            raw += "c"
        starts[d] = raw
    for od, ib in zip(operand_batching, indices_batching):
        starts[od] = batch[ib]  # batching dims pair operand and indices: always in bounds
    return starts, (" and ".join(checks) if checks else None)


def _window_loops(w, name: str, sizes, window_dims) -> dict:
    """Open a loop over each window dimension longer than 1; returns the offset
    (a loop variable, or ``"0"``) of every window dimension."""
    offsets = {}
    for d in window_dims:
        if sizes[d] == 1:
            offsets[d] = "0"
        else:
            offsets[d] = f"{name}_w{d}"
            w.emit(f"for {offsets[d]} in range({sizes[d]}):")
            w.depth += 1
    return offsets


def _plus(start: str, offset: str) -> str:
    return offset if start == "0" else start if offset == "0" else f"{start} + {offset}"


def _operand_index(starts, offsets, word) -> str:
    """One element of the operand: the window start plus the offset in window dims
    (and the key ``word``, for keys)."""
    return _index([_plus(s, offsets.get(d, "0")) for d, s in enumerate(starts)] + word)


def _gather(w, eqn, x, idx):
    """For each batch index: the window start (clamped), then a loop over the
    window copying elements (or the fill value, for a window out of bounds in
    ``"fill"`` mode) to the output, whose offset dims are the window dims."""
    dn, sizes = eqn.params["dimension_numbers"], tuple(eqn.params["slice_sizes"])
    mode = _mode_name(eqn.params["mode"])
    operand, indices = eqn.invars[0].aval, eqn.invars[1].aval
    out = eqn.outvars[0].aval
    if mode == "ONE_HOT" or operand.ndim == 0:
        raise NotImplementedError(f"gather with mode {mode} of a rank {operand.ndim} operand")
    fill = mode == "FILL_OR_DROP"
    if fill and (_is_threefry_key(operand.dtype) or operand.dtype.kind == "c"):
        raise NotImplementedError(f"gather of {operand.dtype} with mode FILL_OR_DROP")
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    scalar = out.ndim == 0 and not _is_threefry_key(out.dtype)  # a one-element array first
    target = f"{name}_1d" if scalar else name
    _empty(w, target, out.update(shape=(1,)) if scalar else out)
    if 0 in out.shape:
        return None
    window_dims = [d for d in range(operand.ndim) if d not in dn.collapsed_slice_dims
                   and d not in dn.operand_batching_dims]
    batch_shape = indices.shape[:-1]
    batch = _open_loops(w, batch_shape, f"{name}_b")
    starts, inside = _window_starts(w, name, operand.shape, sizes, idx, batch,
                                    dn.start_index_map, dn.operand_batching_dims,
                                    dn.start_indices_batching_dims, clamp=True)
    if fill and inside is not None:
        w.emit(f"{name}_ok = {inside}")
    depth = w.depth
    offsets = _window_loops(w, name, sizes, window_dims)
    word = _key_word(w, name, operand)
    # output dims: the offset dims are the window dims (in order), the others the batch
    window_iter, batch_iter = iter(window_dims), iter(batch)
    dst = [offsets[next(window_iter)] if d in dn.offset_dims else next(batch_iter)
           for d in range(out.ndim)]
    dst = ["0"] if scalar else dst + word
    value = f"{x}[{_operand_index(starts, offsets, word)}]"
    if fill and inside is not None:
        value = f"({value} if {name}_ok else {literal(eqn.params['fill_value'], operand.dtype)})"
    w.emit(f"{target}[{_index(dst)}] = {value}")
    w.depth = depth - len(batch_shape)
    if scalar:
        w.emit(f"{name} = {target}[0]")
    return None


# =============================================================================
# scatter, scatter-add, scatter-sub, scatter-mul, scatter-min, scatter-max
# =============================================================================
#: how one element of the updates ``u`` combines into the operand's element ``o``
_COMBINE = {
    "scatter": "{o} = {u}",
    "scatter-add": "{o} += {u}",
    "scatter-sub": "{o} -= {u}",
    "scatter-mul": "{o} *= {u}",
    "scatter-min": "{o} = np.minimum({o}, {u})",  # NaN propagates, as np.minimum.at
    "scatter-max": "{o} = np.maximum({o}, {u})",
}


def _scatter(w, eqn, x, idx, updates):
    """Updates are applied one window at a time in the order of the indices, so
    with repeated indices the combining ops accumulate and plain ``scatter``
    keeps the last one (as the interpreter does; XLA leaves it unspecified)."""
    kind = eqn.primitive.name
    if eqn.params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter with a Python update function (scatter_apply)")
    dn = eqn.params["dimension_numbers"]
    operand, indices, upd = (a.aval for a in eqn.invars)
    if kind in ("scatter-min", "scatter-max") and operand.dtype.kind == "c":
        raise NotImplementedError(f"{kind} on complex numbers")
    if operand.ndim == 0:
        raise NotImplementedError("scatter into a rank 0 operand")
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name} = {x}.copy()")
    window_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                   and d not in dn.operand_batching_dims]
    sizes = [1] * operand.ndim
    for d, ud in zip(window_dims, dn.update_window_dims):
        sizes[d] = upd.shape[ud]
    if 0 in upd.shape:
        return None
    batch_shape = indices.shape[:-1]
    batch = _open_loops(w, batch_shape, f"{name}_b")
    clip = _mode_name(eqn.params["mode"]) == "CLIP"
    starts, inside = _window_starts(w, name, operand.shape, sizes, idx, batch,
                                    dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                    dn.scatter_indices_batching_dims, clamp=clip)
    depth = w.depth
    if not clip and inside is not None:  # a window not wholly inside is dropped
        w.emit(f"if {inside}:")
        w.depth += 1
    offsets = _window_loops(w, name, sizes, window_dims)
    word = _key_word(w, name, operand)
    # updates dims: the update window dims are the window dims (in order), the others the batch
    window_iter, batch_iter = iter(window_dims), iter(batch)
    src = [offsets[next(window_iter)] if d in dn.update_window_dims else next(batch_iter)
           for d in range(upd.ndim)] + word
    u = f"{updates}[{_index(src)}]" if src else updates  # rank 0 updates: a scalar
    o = f"{name}[{_operand_index(starts, offsets, word)}]"
    w.emit(_COMBINE[kind].format(o=o, u=u))
    w.depth = depth - len(batch_shape)
    return None


# =============================================================================
# sort and top_k
# =============================================================================
def _before(x: str, y: str) -> str:
    """``x`` sorts strictly before ``y`` in XLA's order: NaNs last, -0.0 == 0.0."""
    return f"({x} < {y} or ({y} != {y} and {x} == {x}))"


def _tied(x: str, y: str) -> str:
    """Neither sorts before the other (two NaNs are tied)."""
    return f"({x} == {y} or ({x} != {x} and {y} != {y}))"


def _sort_helper(num_keys: int) -> str:
    """``_sort_perm_<n>``: the stable sorting permutation of one row of n keys,
    compared lexicographically (key 0 first).

    A bottom-up merge sort (runs of width 1, 2, 4...) that moves the keys
    along with their positions, so that comparisons read memory in order.
    """
    name = f"_sort_perm_{num_keys}"
    if name in HELPERS:
        return name
    ks = range(num_keys)
    less = _before(f"a{num_keys - 1}[j]", f"a{num_keys - 1}[i]")
    for j in reversed(range(num_keys - 1)):  # key j decides unless tied
        x, y = f"a{j}[j]", f"a{j}[i]"
        less = f"({_before(x, y)} or ({_tied(x, y)} and {less}))"
    lines = ["", f"def {name}({', '.join(f'k{j}' for j in ks)}):",
             f'    """The stable sorting permutation of {num_keys} key row(s): a merge sort."""',
             "    n = k0.shape[0]",
             "    p, q = np.arange(n), np.empty(n, dtype=np.int64)"]
    lines += [f"    a{j}, b{j} = k{j}.copy(), np.empty_like(k{j})" for j in ks]
    lines += ["    width = 1",
              "    while width < n:",
              "        for lo in range(0, n, 2 * width):",
              "            mid, hi = min(lo + width, n), min(lo + 2 * width, n)",
              "            i, j = lo, mid",
              "            for t in range(lo, hi):",
              "                # the right run goes first only if strictly less: stable",
              f"                if j < hi and (i >= mid or {less}):",
              "                    s = j",
              "                    j += 1",
              "                else:",
              "                    s = i",
              "                    i += 1",
              "                q[t] = p[s]"]
    lines += [f"                b{j}[t] = a{j}[s]" for j in ks]
    lines += ["        p, q = q, p"]
    lines += [f"        a{j}, b{j} = b{j}, a{j}" for j in ks]
    lines += ["        width *= 2", "    return p", ""]
    HELPERS[name] = "\n".join(lines)
    return name


def _row_of(idx, shape, axis) -> str:
    """The row (in C order over every dim but ``axis``) of the element at ``idx``."""
    row = "0"
    for i, n, d in zip(idx, shape, range(len(shape))):
        if d != axis:
            row = i if row == "0" else f"({row}) * {n} + {i}"
    return row


def _rows(w, name: str, x: str, aval, axis: int) -> tuple[str, int, tuple, tuple]:
    """Emit a copy of ``x`` with ``axis`` moved last, as a C-contiguous 2-D array
    of rows (a fresh writable array, so the helpers compile for one type).

    Returns (its name, rows, the transposed shape, the permutation).
    """
    shape, nd = tuple(aval.shape), len(aval.shape)
    perm = tuple(d for d in range(nd) if d != axis) + (axis,)
    tshape = tuple(shape[d] for d in perm)
    n, m = shape[axis], int(np.prod(tshape[:-1], dtype=np.int64))
    if axis == nd - 1:
        w.emit(f"{name} = {x}.copy().reshape(({m}, {n}))")
        return name, m, tshape, perm
    w.emit(f"{name} = np.empty(({m}, {n}), dtype={np_dtype(aval.dtype)})")
    idx = _open_loops(w, shape, f"{name}_i")  # loops, not .transpose(): quick to compile
    w.emit(f"{name}[{_row_of(idx, shape, axis)}, {idx[axis]}] = {x}[{_index(idx)}]")
    w.depth -= nd
    return name, m, tshape, perm


def _unrows(w, name: str, rows: str, tshape, perm, dtype) -> None:
    """Emit the inverse of :func:`_rows`: the rows back in the operand's layout."""
    axis, nd = perm[-1], len(perm)
    shape = [0] * nd
    for d, n in zip(perm, tshape):
        shape[d] = n
    if axis == nd - 1:
        w.emit(f"{name} = {rows}.reshape({tuple(shape)})")
        return
    w.emit(f"{name} = np.empty({tuple(shape)}, dtype={np_dtype(dtype)})")
    idx = _open_loops(w, shape, f"{name}_i")
    w.emit(f"{name}[{_index(idx)}] = {rows}[{_row_of(idx, shape, axis)}, {idx[axis]}]")
    w.depth -= nd


def _permute_row(w, dst: str, src: str, r: str, p: str, count) -> None:
    """Emit ``dst[r, t] = src[r, p[t]]`` for the first ``count`` positions."""
    w.emit(f"    for {dst}_t in range({count}):")
    w.emit(f"        {dst}[{r}, {dst}_t] = {src}[{r}, {p}[{dst}_t]]")


def _sort(w, eqn, *xs):
    """Per row: the stable permutation of the keys, then every operand through it."""
    num_keys, axis = eqn.params["num_keys"], eqn.params["dimension"]
    avals = [a.aval for a in eqn.invars]
    if any(a.dtype.kind == "c" for a in avals[:num_keys]):
        raise NotImplementedError("sort by complex keys")
    names = [_out(w, eqn, k) for k in range(len(xs))]
    w.emit(f"# {w.text(eqn)}")
    rows = []
    for k, (x, aval) in enumerate(zip(xs, avals)):
        r, m, tshape, perm = _rows(w, f"{names[0]}_in{k}", x, aval, axis)
        rows.append(r)
        w.emit(f"{names[k]}_rows = np.empty_like({r})")
    sort_fn = w._helper(_sort_helper(num_keys))
    r, p = f"{names[0]}_r", f"{names[0]}_p"
    w.emit(f"for {r} in range({m}):")
    w.emit(f"    {p} = {sort_fn}({', '.join(f'{k}[{r}]' for k in rows[:num_keys])})")
    for k, src in enumerate(rows):
        _permute_row(w, f"{names[k]}_rows", src, r, p, tshape[-1])
    for k in range(len(xs)):
        _unrows(w, names[k], f"{names[k]}_rows", tshape, perm, avals[k].dtype)
    return None


def _top_k(w, eqn, x):
    """IEEE total order, largest first, ties by position: a stable ascending
    sort of ``~key``, where ``key`` is an integer that orders as the values
    (a float's bits as a signed integer, all but the sign flipped if negative)."""
    k, axis = eqn.params["k"], eqn.params["axis"]
    aval, dt = eqn.invars[0].aval, eqn.invars[0].aval.dtype
    vals, idxs = _out(w, eqn, 0), _out(w, eqn, 1)
    w.emit(f"# {w.text(eqn)}")
    rows, m, tshape, perm = _rows(w, f"{vals}_in", x, aval, axis)
    n = tshape[-1]
    kdt = (np.dtype(f"int{8 * dt.itemsize}") if dt.kind == "f"
           else np.dtype(np.int8) if dt == np.bool_ else dt)
    w.emit(f"{vals}_key = np.empty(({m}, {n}), dtype={np_dtype(kdt)})")
    bits = f"{rows}.view({np_dtype(kdt)})" if dt.kind == "f" else rows
    w.emit(f"{vals}_bits = {bits}")
    w.emit(f"for {vals}_r in range({m}):")
    w.emit(f"    for {vals}_t in range({n}):")
    b = f"{vals}_b"
    w.emit(f"        {b} = {np_dtype(kdt)}({vals}_bits[{vals}_r, {vals}_t])")
    flip = f"({b} ^ {literal(np.iinfo(kdt).max, kdt)} if {b} < 0 else {b})" if dt.kind == "f" else b
    w.emit(f"        {vals}_key[{vals}_r, {vals}_t] = {np_dtype(kdt)}(~{flip})")
    out_t = tshape[:-1] + (k,)
    w.emit(f"{vals}_rows = np.empty(({m}, {k}), dtype={np_dtype(dt)})")
    w.emit(f"{idxs}_rows = np.empty(({m}, {k}), dtype=np.int32)")
    sort_fn = w._helper(_sort_helper(1))
    r, p = f"{vals}_r", f"{vals}_p"
    w.emit(f"for {r} in range({m}):")
    w.emit(f"    {p} = {sort_fn}({vals}_key[{r}])")
    _permute_row(w, f"{vals}_rows", rows, r, p, k)
    w.emit(f"    for {idxs}_t in range({k}):")
    w.emit(f"        {idxs}_rows[{r}, {idxs}_t] = {p}[{idxs}_t]")
    _unrows(w, vals, f"{vals}_rows", out_t, perm, dt)
    _unrows(w, idxs, f"{idxs}_rows", out_t, perm, np.dtype(np.int32))
    return None


# =============================================================================
# split, stack, unstack, tile
# =============================================================================
def _at_axis(rank: int, axis: int, what: str) -> str:
    return _index([what if d == axis else ":" for d in range(rank)])


def _split(w, eqn, x):
    aval, axis = eqn.invars[0].aval, eqn.params["axis"]
    w.emit(f"# {w.text(eqn)}")
    start = 0
    for k, size in enumerate(eqn.params["sizes"]):
        if not isinstance(eqn.outvars[k], DropVar):
            part = _at_axis(aval.ndim, axis, f"{start}:{start + size}")
            w.emit(f"{_out(w, eqn, k)} = {x}[{part}].copy()")
        start += size
    return None


def _unstack(w, eqn, x):
    aval, axis = eqn.invars[0].aval, eqn.params["axis"]
    w.emit(f"# {w.text(eqn)}")
    scalar = aval.ndim == 1 and not _is_threefry_key(aval.dtype)
    for k in range(aval.shape[axis]):
        if not isinstance(eqn.outvars[k], DropVar):
            part = f"{x}[{_at_axis(aval.ndim, axis, str(k))}]"
            w.emit(f"{_out(w, eqn, k)} = {part if scalar else part + '.copy()'}")
    return None


def _stack(w, eqn, *xs):
    out, axis = eqn.outvars[0].aval, eqn.params["axis"]
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    _empty(w, name, out)
    shape, _ = _data(eqn.invars[0].aval)
    for k, x in enumerate(xs):
        if not shape:
            w.emit(f"{name}[{k}] = {x}")
            continue
        copy_loops(w, f"{name}_i", shape,
                   lambda i: f"{name}[{_index(i[:axis] + [str(k)] + i[axis:])}]",
                   lambda i: f"{x}[{_index(i)}]")
    return None


def _tile(w, eqn, x):
    """Output element ``i`` is ``x[i % shape]`` (``np.tile``'s layout)."""
    aval, out = eqn.invars[0].aval, eqn.outvars[0].aval
    shape = (1,) * (out.ndim - aval.ndim) + tuple(aval.shape)
    if out.ndim == 0:
        return x
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    _empty(w, name, out)
    if 0 in out.shape:
        return None
    src = x if tuple(shape) == tuple(aval.shape) else _reshape_code(w, x, aval, shape)
    w.emit(f"{name}_src = {src}")
    data, _ = _data(out)
    key = ["2"] if _is_threefry_key(out.dtype) else []
    copy_loops(w, f"{name}_i", data, lambda i: f"{name}[{_index(i)}]",
               lambda i: f"{name}_src[{_index([f'{j} % {n}' for j, n in zip(i, [*shape, *key])])}]")
    return None


# =============================================================================
# threefry keys: the key data is uint32 with a trailing axis of 2
# =============================================================================
def _random_seed(w, eqn, seeds):
    """A seed's key data is (0, its low 32 bits): x64 is off, seeds have 32 bits."""
    shape = tuple(eqn.invars[0].aval.shape)
    n = int(np.prod(shape, dtype=np.int64))
    name = _out(w, eqn)
    w.emit(f"# {w.text(eqn)}")
    flat = f"{seeds}.ravel()" if shape else f"np.full(1, {seeds})"
    w.emit(f"{name}_seeds = {flat}")
    w.emit(f"{name} = np.zeros(({n}, 2), dtype=np.uint32)")
    w.emit(f"for {name}_k in range({n}):")
    w.emit(f"    {name}[{name}_k, 1] = np.uint32(np.int64({name}_seeds[{name}_k]) & 0xFFFFFFFF)")
    w.emit(f"{name} = {name}.reshape({shape + (2,)})")
    return None


def _random_split(w, eqn, keys):
    """Key ``j`` of each key's block: the hash of the counter ``j`` (both words)."""
    key_shape, shape = tuple(eqn.invars[0].aval.shape), tuple(eqn.params["shape"])
    n_keys, n = int(np.prod(key_shape, dtype=np.int64)), int(np.prod(shape, dtype=np.int64))
    name = _out(w, eqn)
    hash_fn = w._helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_keys = np.ascontiguousarray({keys}).reshape(({n_keys}, 2))")
    w.emit(f"{name} = np.empty(({n_keys}, {n}, 2), dtype=np.uint32)")
    w.emit(f"for {name}_k in range({n_keys}):")
    w.emit(f"    for {name}_j in range({n}):")
    w.emit(f"        {name}[{name}_k, {name}_j, 0], {name}[{name}_k, {name}_j, 1] = {hash_fn}("
           f"{name}_keys[{name}_k, 0], {name}_keys[{name}_k, 1], "
           f"np.uint32(np.uint64({name}_j) >> np.uint64(32)), np.uint32({name}_j & 0xFFFFFFFF))")
    w.emit(f"{name} = {name}.reshape({key_shape + shape + (2,)})")
    return None


def _random_fold_in(w, eqn, keys, msgs):
    """The hash of the counter ``(0, msg)``; keys and messages broadcast (NumPy rules)."""
    out = tuple(eqn.outvars[0].aval.shape)
    kshape, mshape = tuple(eqn.invars[0].aval.shape), tuple(eqn.invars[1].aval.shape)
    name = _out(w, eqn)
    hash_fn = w._helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name} = np.empty({out + (2,)}, dtype=np.uint32)")
    idx = _open_loops(w, out, f"{name}_i")

    def at(shape):  # trailing dims line up; size-1 dims broadcast
        own = idx[len(out) - len(shape):]
        return ["0" if n == 1 else i for n, i in zip(shape, own)]
    key = f"{keys}[{_index(at(kshape) + [':'])}]" if kshape else keys
    msg = f"{msgs}[{_index(at(mshape))}]" if mshape else msgs
    w.emit(f"{name}_key = {key}")
    words = [f"{name}[{_index([*idx, str(j)])}]" for j in (0, 1)]
    w.emit(f"{words[0]}, {words[1]} = "
           f"{hash_fn}({name}_key[0], {name}_key[1], np.uint32(0), np.uint32({msg}))")
    w.depth -= len(out)
    return None


CALL_LOWERINGS.update({
    "gather": _gather,
    **{kind: _scatter for kind in _COMBINE},
    "sort": _sort, "top_k": _top_k,
    "split": _split, "unstack": _unstack, "stack": _stack, "tile": _tile,
    "random_seed": _random_seed, "random_split": _random_split,
    "random_fold_in": _random_fold_in,
    "random_wrap": lambda w, eqn, data: data,    # typed keys *are* their data here
    "random_unwrap": lambda w, eqn, keys: keys,
})
