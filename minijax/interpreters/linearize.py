"""Chapter 07 — partial evaluation, and ``linearize = jvp + partial evaluation``.

Reverse mode needs the derivative of ``f`` at a point as a *program* that can
be run backwards. Chapter 02's ``jvp`` computes ``(f(x), J t)`` in one go;
``linearize`` splits that computation in two:

- everything that depends only on ``x`` (the primal values, and the
  coefficients of the derivative: ``cos x`` for ``sin``) is **known**: it is
  computed now;
- everything that depends on the tangent ``t`` is **unknown**: it is not
  computed but *staged* into a jaxpr, the **linear jaxpr** ``t -> J t``.
  The known values it reads (``cos x``) become its constants: the
  *residuals*.

This split is **partial evaluation**. Its interpreter is :class:`JaxprTrace`:
a value is a :class:`PartialVal`, known (a value) or unknown (an abstract
value). A primitive whose inputs are all known is evaluated by the parent
trace; one with an unknown input is recorded, with chapter 05's
:class:`~minijax.interpreters.partial_eval.JaxprBuilder` machinery, and its
outputs are unknown. ``linearize`` is just ``jvp`` run on top of it, with the
tangent inputs unknown::

    JVPTrace  ->  JaxprTrace  ->  (whatever trace was current: eval, jit...)
    (pairs)       (known: evaluate / unknown: stage)

Because the known operations are evaluated in the order the JVP rules run
them, ``make_jaxpr(grad(f))`` lists them in the same order JAX does.

Also here: :func:`partial_eval_jaxpr_nounits` (split a jaxpr into known and
unknown jaxprs), :func:`dce_jaxpr` (dead-code elimination), and the two
extension tables higher-order primitives fill: :data:`custom_partial_eval_rules`
and :data:`dce_rules`.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, Sequence

from minijax import tree_util
from minijax.abstract_arrays import ShapedArray
from minijax.core import Trace, Tracer, find_cur_trace, get_aval, set_current_trace
from minijax.interpreters.ad import (JVPTrace, JVPTracer, Zero, float0, maybe_jvp_tracer,
                                     tangent_aval, zeros_like_aval, _check_callable, _typeof)
from minijax.interpreters.partial_eval import (DebugInfo, DynamicJaxprTrace,
                                               DynamicJaxprTracer, trace_to_jaxpr_dynamic)
from minijax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr
from minijax.jit import bind_jit, jit_p, jit_params
from minijax.primitives import Primitive, RuleTable, register_rule_table

__all__ = ["PartialVal", "JaxprTrace", "JaxprTracer", "custom_partial_eval_rules",
           "dce_rules", "partial_eval_jaxpr_nounits", "dce_jaxpr", "linearize",
           "linearize_flat", "LinearizedJaxpr"]


# =============================================================================
# Partial values
# =============================================================================
class PartialVal:
    """A value that is either *known* (``const`` holds it) or *unknown* (only ``aval``)."""
    __slots__ = ("aval", "const")

    def __init__(self, aval: ShapedArray | None, const: Any = None):
        self.aval, self.const = aval, const

    @classmethod
    def known(cls, const) -> "PartialVal":
        return cls(None, const)

    @classmethod
    def unknown(cls, aval: ShapedArray) -> "PartialVal":
        return cls(aval, None)

    def is_known(self) -> bool:
        return self.aval is None

    def get_known(self):
        """The value, or ``None`` when it is unknown."""
        return self.const if self.is_known() else None

    def get_aval(self) -> ShapedArray:
        return get_aval(self.const) if self.is_known() else self.aval

    def __repr__(self):
        return f"PartialVal.known({self.const!r})" if self.is_known() else \
            f"PartialVal.unknown({self.aval})"


# =============================================================================
# The partial-evaluation trace
# =============================================================================
class JaxprTracer(Tracer):
    """An *unknown* value: a variable of the jaxpr being staged (``staged``).

    Known values need no tracer at all: they are the parent trace's values
    (arrays, or the tracers of an outer transformation).
    """
    __slots__ = ("staged",)

    def __init__(self, trace: "JaxprTrace", staged: DynamicJaxprTracer):
        super().__init__(trace)
        self.staged = staged

    @property
    def aval(self) -> ShapedArray:
        return self.staged.aval

    @property
    def pval(self) -> PartialVal:
        return PartialVal.unknown(self.aval)

    def to_concrete_value(self):
        return None  # unknown, by definition

    def _short_repr(self) -> str:
        return f"JaxprTracer({self.aval.str_short()})"

    __repr__ = _short_repr


#: primitive -> rule(trace, *args, **params) -> output(s), for primitives that
#: partially evaluate *inside* themselves (``jit`` splits its jaxpr into a known
#: and an unknown call). ``args`` mix known values and the trace's
#: :class:`JaxprTracer` s; a rule stages its unknown part with
#: ``trace.default_process_primitive`` and evaluates its known part by binding
#: under ``trace.parent``.
custom_partial_eval_rules: dict[Primitive, Callable] = register_rule_table(
    "partial_eval", RuleTable())


class JaxprTrace(Trace):
    """Evaluate what is known, stage what is not.

    ``staging`` is a chapter-05 :class:`DynamicJaxprTrace` used only as a
    recorder: it holds the jaxpr of the unknown part. Known values that an
    unknown equation reads become its constvars (scalars become literals):
    those are the residuals.
    """

    def __init__(self, parent: Trace | None = None, debug_info: DebugInfo | None = None):
        self.parent = find_cur_trace() if parent is None else parent
        self.staging = DynamicJaxprTrace(debug_info, parent=self.parent)

    def new_arg(self, pval: PartialVal):
        """An input: the value itself if known, a new jaxpr input if not."""
        if pval.is_known():
            return pval.get_known()
        return JaxprTracer(self, self.staging.new_arg(pval.aval))

    def is_unknown(self, x) -> bool:
        return isinstance(x, JaxprTracer) and x._trace is self

    def instantiate_const(self, x) -> JaxprTracer:
        """Make a known value unknown: stage it as a constant (a residual) of the jaxpr."""
        if self.is_unknown(x):
            return x
        return JaxprTracer(self, self.staging.new_const(x))

    def process_primitive(self, primitive, args, params):
        if not any(map(self.is_unknown, args)):
            with set_current_trace(self.parent):
                return primitive.bind(*args, **params)
        rule = custom_partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, *args, **params)
        return self.default_process_primitive(primitive, args, params)

    def default_process_primitive(self, primitive, args, params):
        """Stage ``primitive`` as one equation; all its outputs are unknown."""
        staged = [self.instantiate_const(x).staged for x in args]
        outs = self.staging.process_primitive(primitive, staged, params)
        if primitive.multiple_results:
            return [JaxprTracer(self, o) for o in outs]
        return JaxprTracer(self, outs)

    def to_jaxpr(self, out_tracers: Sequence[JaxprTracer]) -> tuple[Jaxpr, list]:
        """The staged jaxpr computing ``out_tracers``, and the values of its constvars."""
        return self.staging.builder.to_jaxpr([t.staged for t in out_tracers])


# =============================================================================
# Dead-code elimination
# =============================================================================
#: primitive -> rule(used_outputs, eqn) -> (used_inputs, new_eqn or None), for
#: primitives that can drop some of their own outputs (``jit``: DCE inside).
dce_rules: dict[Primitive, Callable] = register_rule_table("dce", RuleTable())


def _default_dce_rule(used_outputs, eqn: JaxprEqn):
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    return [True] * len(eqn.invars), eqn


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: bool | Sequence[bool],
              instantiate: bool | Sequence[bool] = False) -> tuple[Jaxpr, list[bool]]:
    """Remove the equations whose outputs are never used.

    ``used_outputs[i]`` says whether output ``i`` is kept; ``instantiate``
    keeps inputs even when unused. Returns the new jaxpr and, per input,
    whether it is still used (unused inputs are dropped; constvars stay).
    One backward sweep: an equation is kept if one of its outputs is used,
    and then its inputs are used.
    """
    if isinstance(used_outputs, bool):
        used_outputs = [used_outputs] * len(jaxpr.outvars)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.invars)
    used: set[Var] = {v for v, u in zip(jaxpr.outvars, used_outputs)
                      if u and isinstance(v, Var)}
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        rule = dce_rules.get(eqn.primitive, _default_dce_rule)
        used_ins, new_eqn = rule([v in used for v in eqn.outvars], eqn)
        if new_eqn is not None:
            new_eqns.append(new_eqn)
            used.update(v for v, u in zip(eqn.invars, used_ins) if u and isinstance(v, Var))
    used_inputs = [v in used or inst for v, inst in zip(jaxpr.invars, instantiate)]
    new_jaxpr = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
        outvars=[v for v, u in zip(jaxpr.outvars, used_outputs) if u],
        eqns=new_eqns[::-1])
    return new_jaxpr, used_inputs


def _dce_consts(jaxpr: Jaxpr, consts: list) -> tuple[Jaxpr, list]:
    """Drop the constvars (and their values) that no equation or output reads."""
    read = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    read.update(v for v in jaxpr.outvars if isinstance(v, Var))
    keep = [v in read for v in jaxpr.constvars]
    return (jaxpr.replace(constvars=[v for v, k in zip(jaxpr.constvars, keep) if k]),
            [c for c, k in zip(consts, keep) if k])


# =============================================================================
# Splitting a jaxpr into its known and unknown parts
# =============================================================================
def partial_eval_jaxpr_nounits(jaxpr: ClosedJaxpr, unknowns: Sequence[bool],
                               instantiate: bool | Sequence[bool]
                               ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list]:
    """Unzip ``jaxpr`` by data dependence into a *known* and an *unknown* jaxpr.

    ``unknowns[i]`` says whether input ``i`` is unknown. Returns
    ``(jaxpr_known, jaxpr_unknown, out_unknowns, res_avals)``:

    - ``jaxpr_known`` takes the known inputs and returns the known outputs
      followed by the residuals;
    - ``jaxpr_unknown`` takes the residuals followed by the unknown inputs and
      returns the unknown outputs;
    - ``out_unknowns[i]`` says which outputs are unknown (those that depend
      on an unknown input, and those that ``instantiate`` asks for).

    It works by *running* the jaxpr under a :class:`JaxprTrace` whose parent
    records a jaxpr: the known part is what the parent records.
    """
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.outvars)
    known_avals = [a for a, uk in zip(jaxpr.in_avals, unknowns) if not uk]
    found: dict[str, Any] = {}

    def known_part(*known_vals):
        trace = JaxprTrace()
        vals = iter(known_vals)
        args = [trace.new_arg(PartialVal.unknown(a) if uk else PartialVal.known(next(vals)))
                for a, uk in zip(jaxpr.in_avals, unknowns)]
        with set_current_trace(trace):
            outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
        out_unknowns = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
        unknown_outs = [trace.instantiate_const(o) for o, uk in zip(outs, out_unknowns) if uk]
        jaxpr_unknown, residuals = trace.to_jaxpr(unknown_outs)
        found.update(jaxpr_unknown=jaxpr_unknown, out_unknowns=out_unknowns)
        return [o for o, uk in zip(outs, out_unknowns) if not uk] + residuals

    jaxpr_known, _, known_consts = trace_to_jaxpr_dynamic(known_part, known_avals)
    staged = found["jaxpr_unknown"]
    res_avals = [v.aval for v in staged.constvars]
    jaxpr_unknown = staged.replace(constvars=[], invars=staged.constvars + staged.invars)
    return (ClosedJaxpr(jaxpr_known, known_consts), ClosedJaxpr(jaxpr_unknown, []),
            found["out_unknowns"], res_avals)


# =============================================================================
# linearize
# =============================================================================
class LinearizedJaxpr:
    """The linear part of a function at a point: ``tangents -> J tangents``.

    ``jaxpr`` takes the *nonzero* tangent inputs (``in_nonzero``; an integer
    input has a float0, always-zero tangent) and returns the nonzero tangent
    outputs (``out_nonzero``; an output that does not depend on the inputs
    has a symbolic Zero tangent). ``consts`` are the residuals.
    """
    __slots__ = ("jaxpr", "consts", "in_avals", "out_avals", "in_nonzero", "out_nonzero")

    def __init__(self, jaxpr, consts, in_avals, out_avals, in_nonzero, out_nonzero):
        self.jaxpr, self.consts = jaxpr, consts
        self.in_avals, self.out_avals = in_avals, out_avals  # tangent avals
        self.in_nonzero, self.out_nonzero = in_nonzero, out_nonzero

    def replace_consts(self, consts) -> "LinearizedJaxpr":
        """The same linear map on other residuals (``None``: none kept, for a static part)."""
        return LinearizedJaxpr(self.jaxpr, consts, self.in_avals, self.out_avals,
                               self.in_nonzero, self.out_nonzero)

    def __call__(self, *tangents) -> list:
        """Evaluate the linear jaxpr; Zero outputs stay symbolic."""
        nonzero = [t for t, nz in zip(tangents, self.in_nonzero) if nz]
        outs = iter(eval_jaxpr(self.jaxpr, self.consts, *nonzero))
        return [next(outs) if nz else Zero(a)
                for a, nz in zip(self.out_avals, self.out_nonzero)]


class GradTracer(JVPTracer):
    """A value being linearized (``grad``, ``vjp``, ``linearize``). It prints as JAX's
    does, with its primal and the type of its (staged) tangent:
    ``GradTracer(primal=1.0, typeof(tangent)=f32[])``."""
    __slots__ = ()

    def _short_repr(self) -> str:
        primal = self.primal._short_repr() if isinstance(self.primal, Tracer) else str(self.primal)
        tangent = get_aval(self.tangent).str_short(short_dtypes=True)
        return f"GradTracer(primal={primal}, typeof(tangent)={tangent})"

    __repr__ = _short_repr


class LinearizeTrace(JVPTrace):
    """Chapter 02's JVP trace over a partial-evaluation trace; its tracers are
    :class:`GradTracer` s."""
    tracer_class = GradTracer


def linearize_flat(fun: Callable, primals: Sequence) -> tuple[list, LinearizedJaxpr, Any]:
    """Linearize ``fun(*primals) -> list`` (flat lists) at ``primals``.

    Returns ``(primals_out, linearized, extra)`` where ``extra`` is whatever
    ``fun`` stored as its attribute ``aux`` (for ``has_aux``). The tangent
    inputs are unknown: running ``fun`` under a JVP trace whose parent is a
    :class:`JaxprTrace` computes every primal (known) and stages every
    tangent operation (unknown) into the linear jaxpr.
    """
    pe_trace = JaxprTrace()
    jvp_trace = LinearizeTrace(pe_trace)
    in_avals = [tangent_aval(_typeof(p)) for p in primals]
    in_nonzero = [a.dtype != float0 for a in in_avals]
    tangents = [pe_trace.new_arg(PartialVal.unknown(a)) if nz else Zero(a)
                for a, nz in zip(in_avals, in_nonzero)]
    in_tracers = [maybe_jvp_tracer(jvp_trace, p, t) for p, t in zip(primals, tangents)]
    with set_current_trace(jvp_trace):
        outs, extra = fun(*in_tracers)
    pairs = [jvp_trace.to_primal_tangent_pair(x) for x in outs]
    out_primals = [p for p, _ in pairs]
    if any(pe_trace.is_unknown(p) for p in out_primals):
        raise ValueError("Linearization failed to produce known values for all output "
                         "primals. This is typically caused by attempting to differentiate "
                         "a function uses an operation that does not support reverse-mode "
                         "autodiff.")
    out_avals = [tangent_aval(_typeof(p)) for p in out_primals]
    out_nonzero = [type(t) is not Zero and not _is_float0(t) for _, t in pairs]
    out_tangents = [pe_trace.instantiate_const(t) for (_, t), nz in zip(pairs, out_nonzero)
                    if nz]
    jaxpr, consts = pe_trace.to_jaxpr(out_tangents)
    jaxpr, _ = dce_jaxpr(jaxpr, [True] * len(jaxpr.outvars), True)
    jaxpr, consts = _dce_consts(jaxpr, consts)
    extra = _strip_tracers(jvp_trace, extra)
    jvp_trace.invalidate()
    pe_trace.invalidate()
    return out_primals, LinearizedJaxpr(jaxpr, consts, in_avals, out_avals,
                                        in_nonzero, out_nonzero), extra


def _is_float0(t) -> bool:
    return getattr(t, "dtype", None) == float0


def _strip_tracers(jvp_trace: JVPTrace, tree):
    """Auxiliary outputs are not differentiated: keep only the primal of our tracers."""
    leaves, treedef = tree_util.tree_flatten(tree)
    leaves = [x.primal if isinstance(x, JVPTracer) and x._trace is jvp_trace else x
              for x in leaves]
    return tree_util.tree_unflatten(treedef, leaves)


def flatten_fun(fun: Callable, in_tree, has_aux: bool) -> tuple[Callable, list]:
    """``fun`` on flat inputs, returning ``(flat outputs, aux)``; the output tree goes in a list."""
    store: list = []

    def flat_fun(*leaves):
        ans = fun(*tree_util.tree_unflatten(in_tree, leaves))
        aux = None
        if has_aux:
            if not isinstance(ans, (list, tuple)) or len(ans) != 2:
                raise TypeError("expected function with aux output to return a two-element "
                                f"tuple, but got type {type(ans)} with value {ans!r}")
            ans, aux = ans
        out, out_tree = tree_util.tree_flatten(ans)
        store.append(out_tree)
        return out, aux
    return flat_fun, store


def _aval_str(aval: ShapedArray) -> str:
    return ("~" if aval.weak_type else "") + aval.str_short()


def _check_tangent(primal_aval: ShapedArray, expected: ShapedArray, t) -> None:
    got = ShapedArray(t.shape, float0) if _is_float0(t) else _typeof(t)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        raise ValueError(
            "linearized function called on tangent values inconsistent with the original "
            f"primal values:\nGot tangent aval {_aval_str(got)} for primal aval "
            f"{_aval_str(primal_aval)} but expected {_aval_str(expected)}.")


def linearize(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), f_jvp)``: the value, and the linear map ``t -> J t`` as a function.

    ``f_jvp(*tangents)`` gives what ``jvp(fun, primals, tangents)[1]`` gives,
    but ``fun`` is not traced again: each call evaluates the linear jaxpr
    (see :attr:`f_jvp.jaxpr`), which reads the saved residuals. With
    ``has_aux``, ``fun`` returns ``(output, aux)`` and the result is
    ``(primals_out, f_jvp, aux)``.

    >>> y, f_jvp = linearize(lambda x: 3. * jnp.sin(x) + jnp.cos(x / 2.), 2.)  # doctest: +SKIP
    >>> print(y, f_jvp(3.))  # doctest: +SKIP
    3.2681944 -5.007528
    """
    _check_callable(fun)
    leaves, in_tree = tree_util.tree_flatten(primals)
    flat_fun, out_tree = flatten_fun(fun, in_tree, has_aux)
    out_primals, lin, aux = linearize_flat(flat_fun, leaves)
    f_jvp = tree_util.Partial(functools.partial(
        _apply_linearized, lin.replace_consts(None), in_tree, out_tree[0],
        [_typeof(x) for x in leaves]), list(lin.consts))
    f_jvp.jaxpr, f_jvp.consts = lin.jaxpr, lin.consts
    primals_out = tree_util.tree_unflatten(out_tree[0], out_primals)
    return (primals_out, f_jvp, aux) if has_aux else (primals_out, f_jvp)


def _apply_linearized(lin: LinearizedJaxpr, in_tree, out_tree, primal_avals, consts,
                      *tangents):
    """``f_jvp(*tangents)`` of :func:`linearize`: the linear jaxpr on ``consts``.

    ``linearize`` returns it as a :class:`~minijax.tree_util.Partial` whose
    leaves are the residuals, so ``f_jvp`` is a pytree, as JAX's is.
    """
    t_leaves, t_tree = tree_util.tree_flatten(tangents)
    if t_tree != in_tree:
        raise TypeError(f"expected {in_tree}, got {t_tree}")
    for p_aval, expected, t in zip(primal_avals, lin.in_avals, t_leaves):
        _check_tangent(p_aval, expected, t)
    outs = [zeros_like_aval(t.aval) if type(t) is Zero else t
            for t in lin.replace_consts(consts)(*t_leaves)]
    return tree_util.tree_unflatten(out_tree, outs)


# =============================================================================
# jit: partial evaluation and DCE inside the call
# =============================================================================
# Under ``linearize``, chapter 06's JVP rule turns ``jit[f]`` into
# ``jit[jvp f](primals, tangents)``: some inputs known, some unknown. Staging
# the whole call would stage the primal computation too (it would be done in
# the backward pass!). Instead the call is split as any jaxpr is: a known
# ``jit`` runs now and returns the primal outputs and the residuals, an
# unknown ``jit`` taking the residuals and the tangents is staged.
_split_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jit_params_like(params: dict, closed: ClosedJaxpr) -> dict:
    """``params`` of a ``jit`` for another jaxpr with the same name and options."""
    return jit_params(closed, params["name"], keep_unused=params["keep_unused"],
                      inline=params["inline"],
                      compiler_options_kvs=params["compiler_options_kvs"])


def split_jit_jaxpr(closed: ClosedJaxpr, unknowns: tuple):
    """``partial_eval_jaxpr_nounits`` for a call, with residual forwarding (cached).

    A residual that is just a known *input* is not returned by the known jaxpr:
    the caller passes that input on itself. Returns ``(known, unknown,
    out_unknowns, in_fwd)`` where ``in_fwd[i]`` is the index (among the known
    inputs) that residual ``i`` forwards, or None.
    """
    per_jaxpr = _split_jaxprs.setdefault(closed, {})
    if unknowns not in per_jaxpr:
        known, unknown, out_unknowns, _ = partial_eval_jaxpr_nounits(closed, unknowns, False)
        n_known_outs = len(out_unknowns) - sum(out_unknowns)
        invars = known.jaxpr.invars
        res_vars = known.jaxpr.outvars[n_known_outs:]
        in_fwd = [invars.index(v) if isinstance(v, Var) and v in invars else None
                  for v in res_vars]
        outvars = known.jaxpr.outvars[:n_known_outs] + [
            v for v, f in zip(res_vars, in_fwd) if f is None]
        known = ClosedJaxpr(known.jaxpr.replace(outvars=outvars), known.consts)
        per_jaxpr[unknowns] = known, unknown, out_unknowns, in_fwd
    return per_jaxpr[unknowns]


def _jit_partial_eval(trace: JaxprTrace, *args, jaxpr: ClosedJaxpr, **params):
    unknowns = tuple(map(trace.is_unknown, args))
    known, unknown, out_unknowns, in_fwd = split_jit_jaxpr(jaxpr, unknowns)
    known_args = [x for x, uk in zip(args, unknowns) if not uk]
    with set_current_trace(trace.parent):
        known_outs = bind_jit(*known_args, **jit_params_like(params, known))
    n_known_outs = len(out_unknowns) - sum(out_unknowns)
    computed = iter(known_outs[n_known_outs:])
    residuals = [next(computed) if f is None else known_args[f] for f in in_fwd]
    unknown_args = [x for x, uk in zip(args, unknowns) if uk]
    unknown_outs = trace.default_process_primitive(
        jit_p, [*residuals, *unknown_args], jit_params_like(params, unknown))
    known_it, unknown_it = iter(known_outs[:n_known_outs]), iter(unknown_outs)
    return [next(unknown_it) if uk else next(known_it) for uk in out_unknowns]


def _jit_dce_rule(used_outputs, eqn: JaxprEqn):
    """Drop the unused outputs of a ``jit``, what computed them inside, and unused inputs
    (unless ``keep_unused``)."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    closed = eqn.params["jaxpr"]
    inner, used_inputs = dce_jaxpr(closed.jaxpr, list(used_outputs),
                                   instantiate=eqn.params["keep_unused"])
    new_params = jit_params_like(eqn.params, ClosedJaxpr(inner, closed.consts))
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                          params=new_params)
    return used_inputs, new_eqn


custom_partial_eval_rules[jit_p] = _jit_partial_eval
dce_rules[jit_p] = _jit_dce_rule
