"""Chapter 09 — lowerings of the non-fused equations ("calls").

A call is an equation that is not computed element by element: reshapes and
transposes, slices and pads, cumulative sums, dynamic slices, threefry
hashing of key arrays. Each lowering in :data:`CALL_LOWERINGS` takes the
kernel writer, the equation and the names of its (materialized) operands,
and returns the expression of the result, or writes its own lines and
returns ``None``.

:func:`make_plan` asks chapter 09's fusion planner for a plan restricted to
what these rules and the scalar rules can lower.
"""
from __future__ import annotations

import numpy as np

from minijax.backends import fusion
from minijax.backends.numba_scalar import (HELPERS, SCALAR_RULES, _binop, _Ctx, _minmax,
                                           cast, literal, np_dtype)
from minijax.jaxpr import Var

__all__ = ["CALL_LOWERINGS", "make_plan"]


def _reshape(w, eqn, x):
    if eqn.params.get("dimensions") is not None:
        raise NotImplementedError("reshape with dimensions")
    return _reshape_code(w, x, eqn.invars[0].aval, eqn.outvars[0].aval.shape)


def _reshape_code(w, x, aval, new_shape) -> str:
    """A reshape; keys keep the trailing axis of their data (see :func:`_key_ok`)."""
    if _is_threefry_key(aval.dtype):
        return f"np.ascontiguousarray({x}).reshape({tuple(new_shape) + (2,)})"
    return w.reshape_code(x, aval, new_shape)


def copy_loops(w, prefix: str, shape, dst, src) -> None:
    """Emit loops over ``shape`` copying ``src(idx)`` to ``dst(idx)`` element by element.

    ``dst`` and ``src`` map the list of loop variables to an element's code.
    Element loops compile much faster in Numba than assigning an array to a
    slice (``out[a:b] = x``) or ``x.transpose(perm)``, and run as fast.
    """
    idx = [f"{prefix}{d}" for d in range(len(shape))]
    for d, n in enumerate(shape):
        w.emit(f"for {idx[d]} in range({n}):")
        w.depth += 1
    w.emit(f"{dst(idx)} = {src(idx)}")
    w.depth -= len(shape)


def _data(aval) -> tuple[tuple, str]:
    """The shape and dtype of a value inside a kernel (keys: their uint32 key data)."""
    if _is_threefry_key(aval.dtype):
        return tuple(aval.shape) + (2,), "np.uint32"
    return tuple(aval.shape), np_dtype(aval.dtype)


#: The side of the square tiles a transposing copy goes through. Measured on a
#: 1000x1000 float32 transpose (one core / two): no tiles 0.66 ms; 4: 0.45 / 0.25;
#: 8: 0.29 / 0.26; 16: 0.58 / 0.65; 32: 0.50 / 0.47 (JAX: 0.25, NumPy: 0.68).
TRANSPOSE_TILE = 8


def permuted_copy(w, name: str, x: str, shape, dtype: str, perm, comment=None) -> None:
    """Emit ``name``, a new C-contiguous array of ``shape``: ``x`` with its axes
    permuted by ``perm`` (``name[i] = x[i permuted back]``), as element loops.

    When the innermost output axis does not read the innermost input axis (a
    transpose), plain loops read ``x`` with a stride: every element a new
    cache line, used once. The copy then goes tile by tile over the two axes
    involved (``TRANSPOSE_TILE`` square), so the lines read for a tile are
    used for all its rows; a big copy spreads its outermost loop over threads.
    """
    from minijax.backends.numba_writer import PARALLEL_THRESHOLD  # (imports this module)
    w.emit(f"{name} = np.empty({tuple(shape)}, dtype={dtype})", comment)
    src = lambda i: f"{x}[{', '.join(i[perm.index(d)] for d in range(len(perm)))}]"  # noqa: E731
    rank, j = len(shape), perm.index(len(perm) - 1)  # output axis j reads x's last axis
    last = rank - 1
    if j == last or min(shape[j], shape[last]) < TRANSPOSE_TILE:
        copy_loops(w, f"{name}_i", shape, lambda i: f"{name}[{', '.join(i)}]", src)
        return
    idx = [f"{name}_i{d}" for d in range(rank)]
    parallel = int(np.prod(shape, dtype=np.int64)) >= PARALLEL_THRESHOLD
    loops = [f"for {idx[d]} in range({shape[d]}):" for d in range(rank) if d not in (j, last)]
    t = TRANSPOSE_TILE  # (prange takes no step: the tile loops count tiles)
    loops += [f"for {name}_t{d} in range({-(-shape[d] // t)}):" for d in (j, last)]
    loops += [f"for {idx[d]} in range({name}_t{d} * {t}, min({name}_t{d} * {t} + {t}, "
              f"{shape[d]})):" for d in (j, last)]
    if parallel:
        loops[0] = loops[0].replace(" in range(", " in prange(", 1)
        w.parallel = True
    for loop in loops:
        w.emit(loop)
        w.depth += 1
    w.emit(f"{name}[{', '.join(idx)}] = {src(idx)}")
    w.depth -= len(loops)


def _transpose(w, eqn, x):
    perm = tuple(eqn.params["permutation"])
    if perm == tuple(range(len(perm))):
        return x
    perm += (len(perm),) if _is_threefry_key(eqn.invars[0].aval.dtype) else ()
    name = w.var(eqn.outvars[0])
    shape, dtype = _data(eqn.outvars[0].aval)
    permuted_copy(w, name, x, shape, dtype, perm, w.text(eqn))
    return None


def _slice(w, eqn, x):
    strides = eqn.params["strides"] or (1,) * len(eqn.params["start_indices"])
    parts = [f"{s}:{e}" + (f":{k}" if k != 1 else "")
             for s, e, k in zip(eqn.params["start_indices"], eqn.params["limit_indices"], strides)]
    return f"{x}[{', '.join(parts)}].copy()"


def _rev(w, eqn, x):
    dims = set(eqn.params["dimensions"])
    parts = ["::-1" if d in dims else ":" for d in range(len(eqn.outvars[0].aval.shape))]
    return f"{x}[{', '.join(parts)}].copy()"


#: primitive name -> lowering(writer, eqn, *operand names) -> expression of the result.
CALL_LOWERINGS = {
    "reshape": _reshape,
    "squeeze": lambda w, eqn, x: _reshape_code(w, x, eqn.invars[0].aval, eqn.outvars[0].aval.shape),
    "transpose": _transpose,
    "slice": _slice,
    "rev": _rev,
}

def _bitcast(w, eqn, x):
    old, new = eqn.invars[0].aval, eqn.outvars[0].aval
    if old.dtype.itemsize != new.dtype.itemsize:
        raise NotImplementedError("bitcast_convert_type between widths")
    if old.dtype == new.dtype:
        return x
    if not old.shape:
        return f"np.full((1,), {x}).view({np_dtype(new.dtype)})[0]"
    return f"{x}.view({np_dtype(new.dtype)})"


def _concatenate(w, eqn, *xs):
    return f"np.concatenate(({''.join(x + ', ' for x in xs)}), axis={eqn.params['dimension']})"


def _pad(w, eqn, x, padding_value):
    """``np.full`` of the padding value, then the operand's elements that survive
    (negative padding crops) written with a stride of ``interior + 1``."""
    out = eqn.outvars[0].aval
    name = w.var(eqn.outvars[0])
    w.emit(f"{name} = np.full({tuple(out.shape)}, {padding_value}, "
           f"dtype={np_dtype(out.dtype)})", w.text(eqn))
    first, counts, dst = [], [], []
    for (lo, _, interior), d, n in zip(eqn.params["padding_config"],
                                       eqn.invars[0].aval.shape, out.shape):
        step = interior + 1  # element j of x lands at lo + j * step; keep 0 <= that < n
        start = max(0, -(lo // step)) if lo < 0 else 0
        last = min(d, (n - 1 - lo) // step + 1) if n - 1 - lo >= 0 else 0
        if last <= start:
            return None  # nothing of x survives
        first.append(start)
        counts.append(last - start)
        dst.append((lo + start * step, step))
    copy_loops(w, f"{name}_i", counts,
               lambda i: f"{name}[{', '.join(f'{a} + {k} * {j}' for (a, k), j in zip(dst, i))}]",
               lambda i: f"{x}[{', '.join(f'{a} + {j}' for a, j in zip(first, i))}]")
    return None


def _cumulative(kind: str):
    """``cumsum``... along ``axis``: loops over the other axes, a running value along it."""
    def lower(w, eqn, x):
        out = eqn.outvars[0]
        dtype, shape = out.aval.dtype, tuple(out.aval.shape)
        if kind == "logsumexp" and dtype.kind != "f":
            raise NotImplementedError(f"cumlogsumexp of {dtype}")
        axis, n = eqn.params["axis"], out.aval.shape[eqn.params["axis"]]
        name = w.var(out)
        w.emit(f"{name} = np.empty({shape}, dtype={np_dtype(dtype)})", w.text(eqn))
        if n == 0 or 0 in shape:
            return None
        idx = [f"i{d}" for d in range(len(shape))]
        for d in range(len(shape)):
            if d != axis:
                w.emit(f"for i{d} in range({shape[d]}):")
                w.depth += 1
        at = lambda k: ", ".join(k if d == axis else i for d, i in enumerate(idx))  # noqa
        acc, k = f"{name}_acc", f"{name}_k"
        first, pos = (f"{n - 1}", f"{n - 1} - {k}") if eqn.params["reverse"] else ("0", k)
        w.emit(f"{acc} = {x}[{at(first)}]")
        w.emit(f"{name}[{at(first)}] = {acc}")
        w.emit(f"for {k} in range(1, {n}):")
        ctx = _Ctx(eqn, w.helpers)
        combine = {"sum": _binop("+"), "prod": _binop("*"), "logsumexp": _logaddexp,
                   "max": _minmax(True), "min": _minmax(False)}[kind]
        w.emit(f"    {acc} = {combine(ctx, acc, f'{x}[{at(pos)}]')}")
        w.emit(f"    {name}[{at(pos)}] = {acc}")
        w.depth -= len(shape) - 1
        return None
    return lower


HELPERS["_logaddexp"] = '''
def _logaddexp(x, y, ln2):
    """log(exp(x) + exp(y)) without overflow, as NumPy's ``logaddexp``."""
    if x == y:  # also two infinities of the same sign
        return x + ln2
    d = x - y
    if d > 0:
        return x + np.log1p(np.exp(-d))
    if d <= 0:
        return y + np.log1p(np.exp(d))
    return d  # NaN
'''


def _logaddexp(ctx, x, y):
    return f"{ctx.helper('_logaddexp')}({x}, {y}, {literal(np.log(2), ctx.out_dtype)})"


def _clamped_starts(w, eqn, shape, sizes, starts) -> list[str]:
    """Start indices clamped into ``[0, dim - size]``, as XLA does."""
    name = w.var(eqn.outvars[0])
    names = []
    for d, (s, dim, size) in enumerate(zip(starts, shape, sizes)):
        w.emit(f"{name}_s{d} = min(max(np.int64({s}), 0), {dim - size})")
        names.append(f"{name}_s{d}")
    return names


def _window(starts, sizes) -> str:
    return ", ".join(f"{s}:{s} + {z}" for s, z in zip(starts, sizes))


def _dynamic_slice(w, eqn, x, *starts):
    sizes = eqn.params["slice_sizes"]
    w.emit(f"# {w.text(eqn)}")
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    return f"{x}[{_window(s, sizes)}].copy()" if sizes else x


def _dynamic_update_slice(w, eqn, x, update, *starts):
    sizes = eqn.invars[1].aval.shape
    name = w.var(eqn.outvars[0])
    w.emit(f"# {w.text(eqn)}")
    if not sizes:
        return update
    s = _clamped_starts(w, eqn, eqn.invars[0].aval.shape, sizes, starts)
    w.emit(f"{name} = {x}.copy()")
    shape, _ = _data(eqn.invars[1].aval)
    copy_loops(w, f"{name}_i", shape,
               lambda i: f"{name}[{', '.join([f'{a} + {j}' for a, j in zip(s, i)] + i[len(s):])}]",
               lambda i: f"{update}[{', '.join(i)}]")
    return None


def _threefry2x32(w, eqn, *words):
    """A loop over the broadcast shape calling the unrolled hash once per element."""
    out1, out2 = (w.var(v) for v in eqn.outvars)
    shape = tuple(eqn.outvars[0].aval.shape)
    idx = [f"i{d}" for d in range(len(shape))]
    w.emit(f"# {w.text(eqn)}")
    hash_fn = w._helper("_threefry2x32")
    if not shape:
        w.emit(f"{out1}, {out2} = {hash_fn}({', '.join(words)})")
        return None
    for out in (out1, out2):
        w.emit(f"{out} = np.empty({shape}, dtype=np.uint32)")
    for d, n in enumerate(shape):
        w.emit(f"for i{d} in range({n}):")
        w.depth += 1
    reads = []
    for a in eqn.invars:  # NumPy broadcasting: trailing dimensions line up
        rank = len(a.aval.shape) if isinstance(a, Var) else 0
        reads.append(w.read(a, idx[len(shape) - rank:], shape[len(shape) - rank:]))
    at = ", ".join(idx)
    w.emit(f"{out1}[{at}], {out2}[{at}] = {hash_fn}({', '.join(reads)})")
    w.depth -= len(shape)
    return None


def _random_bits(w, eqn, keys):
    """Threefry random bits: element ``j`` of each key's block hashes the counter
    ``j`` (as high and low words); the two words are xor-ed (joined for 64 bits)."""
    out = eqn.outvars[0]
    key_shape, shape = tuple(eqn.invars[0].aval.shape), tuple(eqn.params["shape"])
    n_keys, n = int(np.prod(key_shape, dtype=np.int64)), int(np.prod(shape, dtype=np.int64))
    name, dtype, width = w.var(out), out.aval.dtype, eqn.params["bit_width"]
    hash_fn = w._helper("_threefry2x32")
    w.emit(f"# {w.text(eqn)}")
    w.emit(f"{name}_keys = {keys}.reshape(({n_keys}, 2))")
    w.emit(f"{name}_2d = np.empty(({n_keys}, {n}), dtype={np_dtype(dtype)})")
    w.emit(f"for {name}_k in range({n_keys}):")
    w.emit(f"    for {name}_j in range({n}):")
    w.emit(f"        {name}_b1, {name}_b2 = {hash_fn}({name}_keys[{name}_k, 0], "
           f"{name}_keys[{name}_k, 1], np.uint32(np.uint64({name}_j) >> np.uint64(32)), "
           f"np.uint32({name}_j & 0xFFFFFFFF))")
    bits = (f"(np.uint64({name}_b1) << np.uint64(32)) | np.uint64({name}_b2)" if width == 64
            else cast(dtype, f"{name}_b1 ^ {name}_b2"))
    w.emit(f"        {name}_2d[{name}_k, {name}_j] = {bits}")
    out_shape = key_shape + shape
    return f"{name}_2d.reshape({out_shape})" if out_shape else f"{name}_2d[0, 0]"


CALL_LOWERINGS.update({
    "random_bits": _random_bits,
    "bitcast_convert_type": _bitcast, "concatenate": _concatenate, "pad": _pad,
    "cumsum": _cumulative("sum"), "cumprod": _cumulative("prod"),
    "cummax": _cumulative("max"), "cummin": _cumulative("min"),
    "cumlogsumexp": _cumulative("logsumexp"),
    "dynamic_slice": _dynamic_slice, "dynamic_update_slice": _dynamic_update_slice,
    "threefry2x32": _threefry2x32,
})


_SUPPORTED_KINDS = "biufc"  # bool, signed, unsigned, float, complex (not float16)


def _dtype_ok(dtype) -> bool:
    return dtype.kind in _SUPPORTED_KINDS and not (dtype.kind == "f" and dtype.itemsize < 4)


#: What may touch a complex value: Numba computes with complex numbers
#: natively, but most scalar rules are written for real numbers (ordering,
#: rounding, bits), so complex values go only where the rule is right for them.
COMPLEX_OK = frozenset("""
    add add_any sub mul div neg square exp log sqrt sin cos tan sinh cosh
    reduce_sum reduce_prod
    tanh abs eq ne select_n copy stop_gradient real imag complex conj
    broadcast_in_dim iota convert_element_type dot_general
    reshape squeeze transpose slice rev concatenate dynamic_slice dynamic_update_slice
    gather scatter scatter-add scatter-sub scatter-mul cumsum cumprod
    split stack unstack tile cholesky eigh qr svd triangular_solve lu
    """.split())


def _complex_problem(eqn) -> str | None:
    """Why ``eqn`` cannot be lowered with its complex operands (None if it can)."""
    ins = [a.aval.dtype for a in eqn.invars]
    outs = [v.aval.dtype for v in eqn.outvars]
    if not any(isinstance(d, np.dtype) and d.kind == "c" for d in ins + outs):
        return None
    name = eqn.primitive.name
    if name not in COMPLEX_OK:
        return f"{name} on complex numbers"
    if name == "convert_element_type" and outs[0].kind != "c":
        return "complex -> real conversion"
    return None


#: Threefry keys may flow through these: the key primitives, and data movement
#: that leaves the trailing axis of 2 words alone.
KEY_OK = frozenset("""
    random_seed random_split random_fold_in random_bits random_wrap random_unwrap
    reshape squeeze transpose slice rev concatenate dynamic_slice dynamic_update_slice
    gather split unstack stack tile
    """.split())

def _is_threefry_key(dtype) -> bool:
    """A typed PRNG key of chapter 13's threefry (stored as two uint32 words)."""
    return (getattr(dtype, "extended", False)
            and np.dtype(dtype).names == ("threefry2x32",))


def _key_ok(dtype, eqns) -> bool:
    """Threefry keys, as long as only :data:`KEY_OK` primitives touch them: the
    kernel holds their key data, a uint32 array with a trailing axis of 2."""
    return _is_threefry_key(dtype) and all(e.primitive.name in KEY_OK for e in eqns)


def _all_eqns(jaxpr):
    """The equations of ``jaxpr`` and of every body inside it (cond, while, scan)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in fusion.eqn_subjaxprs(eqn):
            yield from _all_eqns(sub.jaxpr)


def make_plan(closed_jaxpr) -> fusion.KernelPlan:
    """The fusion plan for what this backend can lower."""
    plan = fusion.make_plan(closed_jaxpr, elementwise=frozenset(SCALAR_RULES) |
                            {"broadcast_in_dim", "iota"}, calls=frozenset(CALL_LOWERINGS),
                            dtype_ok=_dtype_ok, extended_ok=_key_ok)
    if not plan.supported:
        return plan
    jaxpr = plan.closed_jaxpr.jaxpr
    problems = [p for e in _all_eqns(jaxpr) if (p := _complex_problem(e)) is not None]
    if problems:
        return fusion.KernelPlan(plan.closed_jaxpr, [], list(dict.fromkeys(problems)),
                                 plan.names)
    return plan
