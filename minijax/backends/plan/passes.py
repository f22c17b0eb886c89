"""Chapter 09 — rewriting a jaxpr before it is planned: the passes every target shares.

Before the equations are grouped into loop nests (:mod:`.kernel_plan`), the
jaxpr is simplified, as XLA simplifies HLO before fusing it:

1. :func:`inline_calls` — nested calls (``jit``, ``checkpoint``, custom
   derivatives: every primitive of kind ``"call"``) are replaced by their
   bodies, also inside control flow;
2. :func:`dead_code_elimination` — equations nobody reads are dropped
   (equations with effects are kept);
3. :func:`fold_constants` — conversions and copies of literals become
   literals (``convert_element_type 0.0`` is the constant ``0.0:f32[]``);
4. :func:`split_transposing_reshapes` — ``reshape`` with ``dimensions``
   (transpose, then reshape: ``vmap`` of a convolution makes them) becomes
   a ``transpose`` and a plain ``reshape``, which every target lowers;
   :func:`divide_by_reciprocal` — ``x / c`` where ``c`` is a constant or is
   broadcast becomes ``x * (1 / c)``, as XLA's algebraic simplifier writes
   it (the one pass that changes bits: to JAX's);
   :func:`compose_broadcasts` — a broadcast read by a bigger elementwise
   equation is replaced by one broadcast straight to that shape, so the loop
   nest reads the original value by index arithmetic instead of a copy;
   :func:`~minijax.backends.plan.windows.fold_pads_into_window_sums` — a zero
   ``pad`` read by a window sum (average pooling's transpose) becomes that
   sum's padding and base dilation;
5. :func:`fold_transposed_products` and :func:`fold_transposed_operands` —
   a transpose next to a matrix product becomes a flag of the product;
6. :func:`hoist_consts` — constants of nested jaxprs become constants of the
   kernel (a nested body is written inside the one entry function).

Each pass returns its input unchanged when it has nothing to do, and, but for
:func:`divide_by_reciprocal`, never changes a result: the kernel computes the
same bits as the equations one by one.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from minijax.backends.plan.windows import fold_pads_into_window_sums
from minijax.interpreters.partial_eval import trace_to_jaxpr_dynamic
from minijax.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var
from minijax.lax.compiler_hints import optimization_barrier_p
from minijax.lax.elementwise import RECIPROCAL_DTYPES, div_p, mul_p
from minijax.lax.shapes import reshape_p, transpose_p
from minijax.primitives import impl_rules

__all__ = ["prepare", "inline_calls", "hoist_consts", "dead_code_elimination",
           "fold_transposed_products", "fold_transposed_operands", "fold_constants",
           "compose_broadcasts", "split_transposing_reshapes", "divide_by_reciprocal", "map_subjaxprs",
           "eqn_subjaxprs", "closed_subjaxprs", "closed_jaxprs_in", "all_eqns", "is_inline_call",
           "LOWER_FUNS", "register_lower_fun", "lower_fun_body"]


def prepare(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """Every pass, in order: the jaxpr a kernel plan is made of."""
    closed_jaxpr = dead_code_elimination(inline_calls(closed_jaxpr))
    closed_jaxpr = split_transposing_reshapes(closed_jaxpr)
    closed_jaxpr = divide_by_reciprocal(fold_constants(closed_jaxpr))
    closed_jaxpr = fold_pads_into_window_sums(closed_jaxpr)  # (plan/windows.py)
    closed_jaxpr = dead_code_elimination(compose_broadcasts(closed_jaxpr))
    return hoist_consts(fold_transposed_operands(fold_transposed_products(closed_jaxpr)))


def is_inline_call(primitive) -> bool:
    """A call whose body a compiler inlines (its kind, stated where it is made, is
    ``"call"``), or a primitive lowered as the jaxpr of a Python function
    (:func:`register_lower_fun`)."""
    return primitive.kind == "call" or primitive in LOWER_FUNS


def _call_body(eqn) -> ClosedJaxpr | None:
    """The jaxpr an inlined call runs (``None`` for ``name``, an identity)."""
    params = eqn.params
    if eqn.primitive in LOWER_FUNS:
        return lower_fun_body(eqn)
    if eqn.primitive.name == "name":
        return None
    if "call_jaxpr" in params:  # custom_jvp_call / custom_vjp_call
        return params["call_jaxpr"]
    body = params["jaxpr"]
    return body if isinstance(body, ClosedJaxpr) else ClosedJaxpr(body, [])


def map_subjaxprs(eqn, fn):
    """``eqn`` with ``fn`` applied to each ClosedJaxpr among its params
    (``cond``'s branches, ``scan``'s body...) and to each plain Jaxpr (as a
    ClosedJaxpr with no constants: ``reduce_window``'s computation, kept as it
    was if the pass gave it constants); ``eqn`` itself if none changed."""
    def visit(val):
        if isinstance(val, ClosedJaxpr):
            return fn(val)
        if isinstance(val, Jaxpr):  # a body without constants (``reduce_window``'s)
            out = fn(ClosedJaxpr(val, []))
            return val if out.consts else out.jaxpr
        if isinstance(val, tuple) and any(isinstance(v, ClosedJaxpr) for v in val):
            return tuple(visit(v) for v in val)
        return val
    params = {k: visit(v) for k, v in eqn.params.items()}
    if all(params[k] is eqn.params[k] for k in params):
        return eqn
    return eqn.replace(params=params)


def closed_jaxprs_in(val) -> list:
    return [v for v in (val if isinstance(val, tuple) else (val,)) if isinstance(v, ClosedJaxpr)]


def eqn_subjaxprs(eqn):
    """The ClosedJaxprs among ``eqn``'s params."""
    for val in eqn.params.values():
        yield from closed_jaxprs_in(val)


def closed_subjaxprs(jaxpr: Jaxpr):
    """The ClosedJaxprs directly inside ``jaxpr``'s equations' params."""
    for eqn in jaxpr.eqns:
        yield from eqn_subjaxprs(eqn)


def inline_calls(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """The same program with every nested call (primitives of kind ``"call"``)
    replaced by its body, also inside the bodies of control flow.

    Inner variables get fresh ``Var`` s at each call site (a jaxpr called
    twice must not define the same variable twice); inner constants become
    constants of the result.
    """
    jaxpr = closed_jaxpr.jaxpr
    constvars, consts = list(jaxpr.constvars), list(closed_jaxpr.consts)
    eqns: list = []

    def inline(inner: Jaxpr, inner_consts, args):
        env = {}
        for v, c in zip(inner.constvars, inner_consts):
            env[v] = Var(v.aval)
            constvars.append(env[v])
            consts.append(c)
        env.update(zip(inner.invars, args))
        read = lambda a: a if isinstance(a, Literal) else env[a]  # noqa: E731
        for eqn in inner.eqns:
            outs = [v if isinstance(v, DropVar) else Var(v.aval) for v in eqn.outvars]
            env.update(zip(eqn.outvars, visit(eqn, [read(a) for a in eqn.invars], outs)))
        return [read(a) for a in inner.outvars]

    def visit(eqn, ins, outs):
        """Append ``eqn`` (or its inlined body) reading ``ins``; return its results."""
        if not is_inline_call(eqn.primitive):
            eqns.append(map_subjaxprs(eqn, inline_calls).replace(invars=ins, outvars=outs))
            return outs
        body = _call_body(eqn)
        return ins if body is None else inline(body.jaxpr, body.consts, ins)

    top = {}
    for eqn in jaxpr.eqns:
        ins = [a if isinstance(a, Literal) else top.get(a, a) for a in eqn.invars]
        top.update(zip(eqn.outvars, visit(eqn, ins, list(eqn.outvars))))
    outvars = [a if isinstance(a, Literal) else top.get(a, a) for a in jaxpr.outvars]
    return ClosedJaxpr(Jaxpr(constvars, jaxpr.invars, outvars, eqns), consts)


def hoist_consts(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """Make the constants of every nested jaxpr constants of the top level too.

    A kernel gets its constants as arguments of its one entry function, and a
    nested body is written *inside* that function: its constant variables are
    the same ``Var`` s, now bound once, at the top.
    """
    constvars, consts = list(closed_jaxpr.jaxpr.constvars), list(closed_jaxpr.consts)
    seen = set(constvars)

    def collect(jaxpr: Jaxpr) -> None:
        for sub in closed_subjaxprs(jaxpr):
            for v, c in zip(sub.jaxpr.constvars, sub.consts):
                if v not in seen:
                    seen.add(v)
                    constvars.append(v)
                    consts.append(c)
            collect(sub.jaxpr)

    collect(closed_jaxpr.jaxpr)
    if len(constvars) == len(closed_jaxpr.jaxpr.constvars):
        return closed_jaxpr
    return ClosedJaxpr(closed_jaxpr.jaxpr.replace(constvars=constvars), consts)




def fold_transposed_products(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``c = dot_general a b; d = transpose[(1, 0)] c`` becomes ``d = dot_general b a``.

    Reverse-mode AD writes this pair for every matrix product (the transpose
    rule of ``dot_general`` puts the product's dimensions back in order), and
    the copy costs a full pass over the result. A product of matrices with one
    free dimension on each side, transposed, is the product with the operands
    swapped (``(A B)^T = B^T A^T``); BLAS reads the operands' transposes for
    free. Done when the transpose is the product's only reader (top level only).
    """
    jaxpr = closed_jaxpr.jaxpr
    uses = Counter(a for e in jaxpr.eqns for a in e.invars if isinstance(a, Var))
    uses.update(v for v in jaxpr.outvars if isinstance(v, Var))
    products = {e.outvars[0]: e for e in jaxpr.eqns if _swappable_product(e)}
    folded, eqns = set(), []
    for eqn in jaxpr.eqns:
        src = eqn.invars[0] if eqn.invars else None
        if (eqn.primitive.name == "transpose" and tuple(eqn.params["permutation"]) == (1, 0)
                and src in products and uses[src] == 1):
            dot = products[src]
            (lc, rc), batch = dot.params["dimension_numbers"]
            params = {**dot.params, "dimension_numbers": ((rc, lc), batch)}
            eqns.append(dot.replace(invars=dot.invars[::-1], outvars=eqn.outvars,
                                    params=params))
            folded.add(id(dot))
        else:
            eqns.append(eqn)
    if not folded:
        return closed_jaxpr
    eqns = [e for e in eqns if id(e) not in folded]
    return ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts)


def fold_transposed_operands(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``t = transpose[(1, 0)] y; c = dot_general t b`` becomes a product of ``y``
    itself, contracted on its other dimension.

    ``x.T @ b`` traces as a transpose and then a product; BLAS reads a
    transposed operand for free (a flag), so the copy the transpose would make
    is dropped. The transpose stays if something else reads it (top level only).
    """
    jaxpr = closed_jaxpr.jaxpr
    transposes = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
                  if e.primitive.name == "transpose" and tuple(e.params["permutation"]) == (1, 0)}
    changed, eqns = False, []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general" and not eqn.params["dimension_numbers"][1][0]:
            (lc, rc), batch = eqn.params["dimension_numbers"]
            invars, dims = list(eqn.invars), [list(lc), list(rc)]
            for side in (0, 1):
                src = transposes.get(invars[side]) if isinstance(invars[side], Var) else None
                if src is not None and len(dims[side]) == 1:
                    invars[side], dims[side] = src, [1 - dims[side][0]]
            if invars != list(eqn.invars):
                params = {**eqn.params, "dimension_numbers": ((tuple(dims[0]), tuple(dims[1])),
                                                               batch)}
                eqn = eqn.replace(invars=invars, params=params)
                changed = True
        eqns.append(eqn)
    if not changed:
        return closed_jaxpr
    return dead_code_elimination(ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts))


def _swappable_product(eqn) -> bool:
    """A ``dot_general`` without batch dimensions and one free dimension per side."""
    if eqn.primitive.name != "dot_general":
        return False
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    return (not lb and not rb and len(lhs.aval.shape) - len(lc) == 1
            and len(rhs.aval.shape) - len(rc) == 1)


def dead_code_elimination(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations none of whose results is used (every primitive here is pure),
    also inside nested jaxprs (whose inputs and outputs stay as they are)."""
    jaxpr = closed_jaxpr.jaxpr
    live = {v for v in jaxpr.outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in live for v in eqn.outvars):
            kept.append(map_subjaxprs(eqn, dead_code_elimination))
            live.update(v for v in eqn.invars if isinstance(v, Var))
    if len(kept) == len(jaxpr.eqns) and all(a is b for a, b in zip(kept[::-1], jaxpr.eqns)):
        return closed_jaxpr
    return ClosedJaxpr(jaxpr.replace(eqns=kept[::-1]), closed_jaxpr.consts)




def all_eqns(jaxpr):
    """The equations of ``jaxpr`` and of every body inside it (cond, while, scan)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in eqn_subjaxprs(eqn):
            yield from all_eqns(sub.jaxpr)


def _rewrite_bodies(closed_jaxpr: ClosedJaxpr, pass_, eqns) -> ClosedJaxpr:
    """``closed_jaxpr`` with the equations ``eqns`` (the pass's result at this level),
    and ``pass_`` applied to every nested body too."""
    jaxpr = closed_jaxpr.jaxpr
    eqns = [map_subjaxprs(e, pass_) for e in eqns]
    if len(eqns) == len(jaxpr.eqns) and all(a is b for a, b in zip(eqns, jaxpr.eqns)):
        return closed_jaxpr
    return ClosedJaxpr(jaxpr.replace(eqns=eqns), closed_jaxpr.consts)


def _is_foldable(eqn) -> bool:
    """A scalar conversion, copy, broadcast or reshape of literals: no arithmetic, so
    computing it now (by its impl rule) gives the kernel's bits exactly."""
    prim = eqn.primitive
    scalar_move = prim.kind in ("elementwise", "broadcast") or prim is reshape_p
    return (prim.moves_data and scalar_move
            and not prim.multiple_results and eqn.invars
            and all(isinstance(a, Literal) for a in eqn.invars)
            and not eqn.outvars[0].aval.shape and not eqn.effects)


def fold_constants(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``c = convert_element_type[float32] 0.0`` becomes the literal ``0.0:f32[]``
    wherever ``c`` is read (see :func:`_is_foldable` for what is folded)."""
    jaxpr = closed_jaxpr.jaxpr
    env: dict = {}
    sub = lambda a: env.get(a, a) if isinstance(a, Var) else a  # noqa: E731
    eqns = []
    for eqn in jaxpr.eqns:
        eqn = eqn.replace(invars=[sub(a) for a in eqn.invars]) if any(
            isinstance(a, Var) and a in env for a in eqn.invars) else eqn
        if _is_foldable(eqn):
            out = eqn.outvars[0]
            args = [np.asarray(a.val, a.aval.dtype) for a in eqn.invars]
            value = np.asarray(impl_rules[eqn.primitive](*args, **eqn.params), out.aval.dtype)
            env[out] = Literal(value[()], out.aval)
            continue
        eqns.append(eqn)
    folded = _rewrite_bodies(closed_jaxpr, fold_constants, eqns)
    if not env:
        return folded
    outvars = [sub(a) for a in jaxpr.outvars]
    return ClosedJaxpr(folded.jaxpr.replace(outvars=outvars), closed_jaxpr.consts)


def split_transposing_reshapes(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``b = reshape[dimensions=(1, 0, 2) new_sizes=s] a`` becomes
    ``t = transpose[permutation=(1, 0, 2)] a; b = reshape[dimensions=None new_sizes=s] t``:
    what ``dimensions`` means, spelled with the two primitives the targets lower."""
    eqns, changed = [], False
    for eqn in closed_jaxpr.jaxpr.eqns:
        dims = eqn.params.get("dimensions") if eqn.primitive is reshape_p else None
        if dims is None:
            eqns.append(eqn)
            continue
        x = eqn.invars[0]
        t = Var(x.aval.update(shape=tuple(x.aval.shape[d] for d in dims)))
        eqns.append(eqn.replace(primitive=transpose_p, outvars=[t],
                                params={"permutation": tuple(dims)}))
        eqns.append(eqn.replace(invars=[t], params={**eqn.params, "dimensions": None}))
        changed = True
    if not changed:
        eqns = closed_jaxpr.jaxpr.eqns
    return _rewrite_bodies(closed_jaxpr, split_transposing_reshapes, eqns)


def _broadcasts_by_output(jaxpr: Jaxpr) -> dict:
    """``{c: eqn}`` for each ``c = broadcast_in_dim[...] b`` at the top level of ``jaxpr``."""
    return {e.outvars[0]: e for e in jaxpr.eqns
            if e.primitive.kind == "broadcast" and "broadcast_dimensions" in e.params}


def compose_broadcasts(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``c = broadcast_in_dim[(1,)] b`` (to ``[1, 4]``) read by ``d = add a c``
    (over ``[3, 4]``, ``c``'s size-1 axis broadcast) becomes
    ``c2 = broadcast_in_dim[(1,)] b`` (to ``[3, 4]``), read by ``d``.

    The broadcast then fuses into ``d``'s loop nest as index arithmetic (``b[i1]``)
    instead of being written to memory by a loop nest of its own, and read
    back (``c[0, i1]``). Operand axis ``k`` of ``b`` keeps its position: it is
    1 or equal to ``c``'s axis, which is 1 or equal to ``d``'s.
    """
    jaxpr = closed_jaxpr.jaxpr
    broadcasts = _broadcasts_by_output(jaxpr)
    made: dict = {}  # (c, shape) -> the broadcast straight to that shape
    eqns = []
    for eqn in jaxpr.eqns:
        shape = eqn.outvars[0].aval.shape if eqn.outvars else None
        if eqn.primitive.kind == "elementwise" and not eqn.primitive.multiple_results:
            invars = list(eqn.invars)
            for k, a in enumerate(invars):
                src = broadcasts.get(a) if isinstance(a, Var) else None
                if src is None or a.aval.shape == shape or len(a.aval.shape) != len(shape):
                    continue
                if (a, shape) not in made:
                    v = Var(a.aval.update(shape=tuple(shape)))
                    eqns.append(src.replace(outvars=[v], params={**src.params,
                                                                 "shape": tuple(shape)}))
                    made[a, shape] = v
                invars[k] = made[a, shape]
            if invars != list(eqn.invars):
                eqn = eqn.replace(invars=invars)
        eqns.append(eqn)
    return _rewrite_bodies(closed_jaxpr, compose_broadcasts, eqns)


def divide_by_reciprocal(closed_jaxpr: ClosedJaxpr) -> ClosedJaxpr:
    """``d = div x c`` becomes ``r = div 1.0 c; d = mul x r`` when ``c`` is a
    constant or a broadcast value (a real floating-point division).

    XLA's algebraic simplifier does this before it fuses (``A / Const`` and
    ``A / Broadcast(B)`` become ``A * (1/Const)`` and ``A * Broadcast(1/B)``):
    one division per element of ``c`` instead of per element of ``x``. The
    product is not always the correctly rounded quotient (``x * 180 / pi``
    gives ``119.99999`` where IEEE division gives ``120.``), so JAX prints
    those digits, and so do we: ``jnp.mean``, ``softmax``, ``x / norm`` and
    ``x / 2.5`` compute JAX's bits. Which divisors count:

    - a literal (``div f 12.0:f32[]``) or a constant of the jaxpr: ``1 / c``
      is computed now, once;
    - a smaller operand (``div a d`` with ``d:f32[1,3]`` and ``a:f32[4,3]``:
      JAX's jaxprs broadcast size-1 and rank-0 operands implicitly);
    - the result of a ``broadcast_in_dim``: the reciprocal is taken of the
      broadcast's operand, then broadcast.

    A division of two arrays of the same shape stays a division, as in XLA.
    bfloat16 and the float8 types stay divisions too: XLA computes them in
    float32 before it simplifies, and rounds once (float16's reciprocal is
    rounded to float16, as here).
    """
    jaxpr = closed_jaxpr.jaxpr
    broadcasts = _broadcasts_by_output(jaxpr)
    constvars = set(jaxpr.constvars)
    reciprocals: dict = {}  # divisor -> its reciprocal (a Literal or a Var)
    eqns = []

    def reciprocal(c, div_eqn):
        """``1 / c``: a literal now, or equations appended to ``eqns``."""
        if isinstance(c, Literal):
            return Literal((np.ones((), c.aval.dtype) / np.asarray(c.val, c.aval.dtype))[()],
                           c.aval)
        src = broadcasts.get(c)
        if src is not None:  # the reciprocal of the operand, broadcast
            out = Var(c.aval)
            eqns.append(src.replace(invars=[reciprocal(src.invars[0], div_eqn)], outvars=[out]))
            return out
        one = Literal(np.ones((), c.aval.dtype)[()], c.aval.update(shape=()))
        out = Var(c.aval)
        eqns.append(div_eqn.replace(invars=[one, c], outvars=[out]))
        return out

    for eqn in jaxpr.eqns:
        if eqn.primitive is div_p:
            x, c = eqn.invars
            out_aval = eqn.outvars[0].aval
            broadcast = (isinstance(c, Literal) or c in constvars or c in broadcasts
                         or tuple(c.aval.shape) != tuple(out_aval.shape))
            if broadcast and np.dtype(out_aval.dtype) in RECIPROCAL_DTYPES:
                if isinstance(c, Literal):
                    inverse = reciprocal(c, eqn)
                elif c in reciprocals:
                    inverse = reciprocals[c]
                else:
                    inverse = reciprocals[c] = reciprocal(c, eqn)
                eqns.append(eqn.replace(primitive=mul_p, invars=[x, inverse]))
                continue
        eqns.append(eqn)
    return _rewrite_bodies(closed_jaxpr, divide_by_reciprocal, eqns)


# =============================================================================
# Primitives lowered as the jaxpr of a Python function (JAX's ``mlir.lower_fun``)
# =============================================================================
#: primitive -> ``fn(*operands, **params)``: the function whose jaxpr *is* the
#: primitive's lowering, for every target. A primitive whose computation is a
#: program of other primitives (``random_gamma``: a rejection-sampling loop)
#: registers here instead of writing a rule per target; :func:`inline_calls`
#: traces ``fn`` on the equation's avals and inlines the result, as for a ``jit``.
LOWER_FUNS: dict = {}


def register_lower_fun(primitive, fn) -> None:
    """Lower ``primitive`` as the jaxpr of ``fn`` (one function, never replaced)."""
    if primitive in LOWER_FUNS:
        raise ValueError(f"{primitive} already has a lowering function")
    LOWER_FUNS[primitive] = fn


def lower_fun_body(eqn) -> ClosedJaxpr:
    """The jaxpr of ``eqn``'s lowering function, traced on ``eqn``'s operand avals."""
    fn, multiple = LOWER_FUNS[eqn.primitive], eqn.primitive.multiple_results

    def flat(*operands):
        out = fn(*operands, **eqn.params)
        return list(out) if multiple else [out]
    jaxpr, _, consts = trace_to_jaxpr_dynamic(flat, [a.aval for a in eqn.invars])
    return ClosedJaxpr(jaxpr, list(consts))


# ``optimization_barrier`` (chapter 00) is the identity: no target reorders work
# across equations, so it lowers to nothing at all.
register_lower_fun(optimization_barrier_p, lambda *xs: list(xs))
