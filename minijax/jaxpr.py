"""Chapter 05 — the jaxpr: a traced function written down as a small program.

Chapters 01–04 *interpreted* primitives as they were bound. A jaxpr *records*
them instead (chapter 05's :mod:`minijax.interpreters.partial_eval` builds
one), so that the program can be printed, checked, evaluated again, or handed
to ``jit`` (chapter 06), ``grad`` (07) and the compilers (09, 10).

The language is tiny::

    { lambda a:f32[3]; b:f32[]. let            constvars ; invars
        c:f32[3] = mul a b                     one equation per primitive
        d:f32[] = reduce_sum[axes=(0,) out_sharding=None] c
      in (d,) }                                outvars

- a :class:`Var` is a typed variable (its name is chosen when printing);
- a :class:`Literal` is a scalar constant written inline (``2.0:f32[]``);
- a :class:`JaxprEqn` binds output variables to ``primitive[params] inputs``;
- a :class:`Jaxpr` is constvars + invars + equations + outvars;
- a :class:`ClosedJaxpr` is a jaxpr together with the values of its constvars.

Three things operate on jaxprs here: :func:`eval_jaxpr` (an interpreter — it
binds each equation's primitive, so it works under any transformation),
:func:`check_jaxpr` (a type checker) and the printer (``str(jaxpr)``), which
produces exactly what JAX prints, using the document printer of
:mod:`minijax.pretty_printer`.
"""
from __future__ import annotations

import functools
import itertools
import re
import threading
from collections import Counter, defaultdict
from typing import Any, Callable, Sequence

import numpy as np

from minijax import pretty_printer as pp
from minijax.abstract_arrays import ShapedArray
from minijax.core import get_aval
from minijax.errors import JaxprTypeError
from minijax.lax import elementwise as _ew, shapes as _shapes, slicing as _slicing
from minijax.lax.dot import dot_general_p
from minijax.primitives import Primitive, RuleTable, abstract_eval_rules, register_rule_table

__all__ = ["Var", "DropVar", "Literal", "JaxprEqn", "Jaxpr", "ClosedJaxpr",
           "new_jaxpr_eqn", "no_effects", "effect_rules", "eqn_effects", "join_effects",
           "eval_jaxpr", "jaxpr_as_fun",
           "check_jaxpr", "JaxprTypeError", "pp_eqn_rules", "custom_typechecks",
           "jaxprs_in_params", "subjaxprs", "JaxprPpContext", "JaxprPpSettings"]

#: The effects of a pure program: none.
no_effects: frozenset = frozenset()


# =============================================================================
# Effects: what an equation does besides computing its outputs
# =============================================================================
# Every primitive so far is *pure*: its outputs depend only on its inputs, and
# it does nothing else. An equation whose outputs nobody reads can then be
# dropped, and two equations with no data between them may run in any order.
# Chapter 12 adds primitives that are not pure (``debug_callback`` prints,
# ``io_callback`` calls arbitrary Python): they carry *effects*, and a jaxpr
# records them, so that dead-code elimination keeps them and the runtime can
# order them. This chapter only provides the place to put them: a rule table,
# empty until chapter 12 fills it, and the rule for higher-order primitives.
#: primitive -> rule(**params) -> set of effects: the effects of the primitive itself
#: (``debug_callback``'s ``effect`` param, ``io_callback``'s IO effect). A primitive
#: that is not in the table has none of its own.
effect_rules: dict[Primitive, Callable] = register_rule_table("effects", RuleTable())


def join_effects(*effect_sets) -> frozenset:
    """The union of some sets of effects (``no_effects`` when there are none)."""
    effects = [e for e in effect_sets if e]
    if not effects:
        return no_effects
    return frozenset().union(*effects)


def eqn_effects(primitive: Primitive, params: dict) -> frozenset:
    """The effects of an equation ``primitive[params]``.

    Its primitive's own (:data:`effect_rules`), and those of every jaxpr among
    its params: a ``jit``, ``cond``, ``while``, ``scan``, ``remat`` or custom
    derivative call has the effects of the bodies it may run.
    """
    rule = effect_rules.get(primitive)
    effects = frozenset(rule(**params)) if rule is not None else no_effects
    for val in params.values():  # (jaxprs_in_params, inlined: this runs for every eqn)
        if isinstance(val, tuple):
            for v in val:
                if isinstance(v, (Jaxpr, ClosedJaxpr)) and v.effects:
                    effects = effects | v.effects
        elif isinstance(val, (Jaxpr, ClosedJaxpr)) and val.effects:
            effects = effects | val.effects
    return effects


# =============================================================================
# The IR
# =============================================================================
class Var:
    """A variable of a jaxpr: an abstract value and an identity, nothing else.

    Two ``Var`` objects are different variables even with the same aval. The
    name (``a``, ``b``, ... ``z``, ``ba``...) is not stored: the printer gives
    names in the order it meets the variables.
    """
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """A binder whose value is never read; it prints as ``_``."""
    __slots__ = ()

    def __repr__(self):
        return "_"


class Literal:
    """A constant written inline in an equation, with its type: ``2.0:f32[]``.

    Only scalars become literals; array constants become constvars.
    """
    __slots__ = ("val", "aval")
    __hash__ = None  # compared by identity, never used as a dict key

    def __init__(self, val, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"


class JaxprEqn:
    """``outvars = primitive[params] invars``: one primitive application.

    ``effects`` is the set of its side effects (:func:`eqn_effects`; empty for a
    pure equation). ``source_info`` is where the user's code bound it
    (``"f.py:3:8 (f)"``), if known.
    """
    __slots__ = ("invars", "outvars", "primitive", "params", "effects", "source_info")

    def __init__(self, invars, outvars, primitive: Primitive, params: dict,
                 effects=no_effects, source_info=None):
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = dict(params)
        self.effects = effects
        self.source_info = source_info

    def replace(self, **changes) -> "JaxprEqn":
        fields = {k: getattr(self, k) for k in self.__slots__}
        fields.update(changes)
        return JaxprEqn(**fields)

    def __repr__(self):
        return str(pp_eqn(self, JaxprPpContext(), JaxprPpSettings())).rstrip()


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=no_effects,
                  source_info=None) -> JaxprEqn:
    return JaxprEqn(invars, outvars, primitive, params, effects, source_info)


class Jaxpr:
    """A closed-form program: ``{ lambda constvars ; invars . let eqns in outvars }``.

    ``effects`` is the set of side effects running it may have: unless given,
    the union of its equations' effects (so a jaxpr rebuilt from equations,
    anywhere, keeps them).
    """
    __slots__ = ("_constvars", "_invars", "_outvars", "_eqns", "_effects",
                 "_debug_info", "__weakref__")

    def __init__(self, constvars: Sequence[Var], invars: Sequence[Var],
                 outvars: Sequence, eqns: Sequence[JaxprEqn],
                 effects=None, debug_info=None):
        self._constvars = list(constvars)
        self._invars = list(invars)
        self._outvars = list(outvars)
        self._eqns = list(eqns)
        if effects is None:
            effects = join_effects(*(e.effects for e in self._eqns))
        self._effects = effects
        self._debug_info = debug_info

    constvars = property(lambda self: self._constvars)
    invars = property(lambda self: self._invars)
    outvars = property(lambda self: self._outvars)
    eqns = property(lambda self: self._eqns)
    effects = property(lambda self: self._effects)
    debug_info = property(lambda self: self._debug_info)
    in_avals = property(lambda self: [v.aval for v in self._invars])
    out_avals = property(lambda self: [v.aval for v in self._outvars])

    def replace(self, **changes) -> "Jaxpr":
        fields = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                      eqns=self.eqns, effects=self.effects, debug_info=self.debug_info)
        unknown = set(changes) - set(fields)
        if unknown:
            raise ValueError(f"Unknown keyword arguments: {changes}")
        if "eqns" in changes and "effects" not in changes:
            fields["effects"] = None  # the new equations' effects
        fields.update(changes)
        return Jaxpr(**fields)

    def pretty_print(self, *, print_shapes: bool = True, custom_pp_eqn_rules: bool = True,
                     width: int = 80, **_ignored) -> str:
        """The text JAX prints. Keyword options as JAX's (``source_info``... are ignored)."""
        settings = JaxprPpSettings(print_shapes, custom_pp_eqn_rules)
        return pp_toplevel_jaxpr(self, settings).format(width)

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__


class ClosedJaxpr:
    """A :class:`Jaxpr` with the values of its constvars (``consts``)."""
    __slots__ = ("_jaxpr", "_consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence):
        if len(consts) != len(jaxpr.constvars):
            raise ValueError(f"ClosedJaxpr: {len(jaxpr.constvars)} constvars "
                             f"but {len(consts)} consts")
        self._jaxpr = jaxpr
        self._consts = list(consts)

    jaxpr = property(lambda self: self._jaxpr)
    consts = property(lambda self: self._consts)
    literals = consts  # JAX's alias
    constvars = property(lambda self: self._jaxpr.constvars)
    invars = property(lambda self: self._jaxpr.invars)
    outvars = property(lambda self: self._jaxpr.outvars)
    eqns = property(lambda self: self._jaxpr.eqns)
    effects = property(lambda self: self._jaxpr.effects)
    debug_info = property(lambda self: self._jaxpr.debug_info)
    in_avals = property(lambda self: self._jaxpr.in_avals)
    out_avals = property(lambda self: self._jaxpr.out_avals)

    def replace(self, *, jaxpr=None, consts=None) -> "ClosedJaxpr":
        return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                           self.consts if consts is None else consts)

    def pretty_print(self, **kwargs) -> str:
        return self.jaxpr.pretty_print(**kwargs)

    def __str__(self):
        return str(self.jaxpr)

    def __repr__(self):
        return repr(self.jaxpr)


def jaxprs_in_params(params: dict):
    """The jaxprs among an equation's params (``jit``'s ``jaxpr``, ``cond``'s ``branches``)."""
    for val in params.values():
        for v in (val if isinstance(val, tuple) else (val,)):
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def subjaxprs(jaxpr: Jaxpr):
    """The jaxprs directly inside ``jaxpr``'s equations (not recursively)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


# =============================================================================
# Evaluation: a jaxpr interpreter
# =============================================================================
class _SourceInfoContext(threading.local):
    #: The source info of the equation being evaluated, if any (see :func:`eval_jaxpr`).
    current: str | None = None


source_info_ctx = _SourceInfoContext()


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence, *args, propagate_source_info=True) -> list:
    """Run ``jaxpr`` on ``consts`` and ``args``; return the list of its outputs.

    An environment maps each variable to its value. Each equation reads its
    inputs, *binds* its primitive and writes its outputs. Because it binds,
    the current trace decides what that means: eagerly it computes, under
    ``jvp`` it differentiates, under ``make_jaxpr`` it records again. When it
    records again, the new equations keep the source line of the equation they
    come from (``source_info_ctx``), as JAX's do, unless
    ``propagate_source_info=False``.
    """
    if not propagate_source_info:
        return _eval_eqns(jaxpr, consts, args)
    prev = source_info_ctx.current
    try:
        return _eval_eqns(jaxpr, consts, args, prev)
    finally:
        source_info_ctx.current = prev


def _eval_eqns(jaxpr: Jaxpr, consts: Sequence, args: Sequence, outer_info=False) -> list:
    if len(consts) != len(jaxpr.constvars) or len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.constvars)} consts and "
                        f"{len(jaxpr.invars)} args, got {len(consts)} and {len(args)}")
    env: dict[Var, Any] = {}

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        if outer_info is not False:  # (False: do not propagate)
            source_info_ctx.current = eqn.source_info or outer_info
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


def _eval_closed_jaxpr(closed_jaxpr: ClosedJaxpr, *args) -> list:
    return eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr, *args) -> Callable:
    """The Python function a closed jaxpr stands for: ``jaxpr_as_fun(cj)(*args) -> list``."""
    return functools.partial(_eval_closed_jaxpr, closed_jaxpr, *args)


# =============================================================================
# Type checking
# =============================================================================
#: primitive -> rule(*in_avals, **params) -> out avals, for primitives whose
#: check needs more than their abstract eval rule (later chapters register).
custom_typechecks: dict[Primitive, Callable] = {}


def _typematch(t1: ShapedArray, t2: ShapedArray) -> bool:
    """Same shape and dtype (weak types are ignored, as in JAX)."""
    return t1.shape == t2.shape and t1.dtype == t2.dtype


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Check that ``jaxpr`` is well formed and well typed; raise ``JaxprTypeError`` if not.

    - every variable is bound (as a constvar, invar or equation output) before
      it is read, and bound only once;
    - every literal's value matches its type annotation;
    - every equation's output binders have the types its primitive's abstract
      evaluation rule computes from the input types (and jaxprs inside params
      are checked too).

    The message says what is wrong, prints the offending equation, then the
    jaxpr around it, in JAX's format.
    """
    if isinstance(jaxpr, ClosedJaxpr):
        jaxpr = jaxpr.jaxpr

    @functools.cache
    def names() -> "JaxprPpContext":
        ctx = JaxprPpContext(_dropvars(jaxpr))
        try:
            pp_jaxpr(jaxpr, ctx, JaxprPpSettings())  # names every variable, in print order
        except Exception:  # an ill-formed jaxpr may not even print
            pass
        return ctx

    try:
        _check_jaxpr(jaxpr, names)
    except JaxprTypeError as e:
        msg, *eqn_idx = e.args
        lo, hi = (eqn_idx[0] - 10, eqn_idx[0] + 10) if eqn_idx else (0, 20)
        text = str(pp_jaxpr_eqn_range(jaxpr, lo, hi, names(), JaxprPpSettings()))
        raise JaxprTypeError("\n\n".join([msg, "while checking jaxpr:", text])) from None


def _check_jaxpr(jaxpr: Jaxpr, names: Callable[[], "JaxprPpContext"]) -> None:
    env: set[Var] = set()

    def name(v) -> str:
        return _pp_atom(v, names())

    def read(x) -> ShapedArray:
        if isinstance(x, Literal):
            if not _literal_typechecks(x):
                raise JaxprTypeError(f"Literal value {x.val} does not match its type "
                                     f"annotation {x.aval.str_short(short_dtypes=True)}")
            return x.aval
        if x not in env:
            raise JaxprTypeError(f"Variable '{name(x)}' not defined")
        return x.aval

    def write(v: Var, aval: ShapedArray) -> None:
        if v in env:
            raise JaxprTypeError(f"Variable '{name(v)}' already bound")
        if not _typematch(v.aval, aval):
            raise JaxprTypeError(
                f"Value for variable '{name(v)}' inconsistently typed as "
                f"{aval.str_short(short_dtypes=True)} for let-binder of type "
                f"{v.aval.str_short(short_dtypes=True)}")
        if not isinstance(v, DropVar):
            env.add(v)

    for v in itertools.chain(jaxpr.constvars, jaxpr.invars):
        write(v, v.aval)
    for i, eqn in enumerate(jaxpr.eqns):
        try:
            in_avals = [read(x) for x in eqn.invars]
            out_avals = _check_eqn(eqn, in_avals)
            if len(out_avals) != len(eqn.outvars):
                raise JaxprTypeError(
                    f"Primitive {eqn.primitive} produces {len(out_avals)} outputs but "
                    f"the equation has {len(eqn.outvars)} binders")
            for v, aval in zip(eqn.outvars, out_avals):
                write(v, aval)
        except JaxprTypeError as e:
            eqn_text = str(pp.nest(2, pp_eqn(eqn, names(), JaxprPpSettings())))
            msg = "\n\n".join([e.args[0], "in equation:", eqn_text,
                                 f"from source: {eqn.source_info or ''}"])
            raise JaxprTypeError(msg, i) from None
    for v in jaxpr.outvars:
        read(v)


def _literal_typechecks(lit: Literal) -> bool:
    try:
        return _typematch(lit.aval, get_aval(lit.val))
    except TypeError:
        return False


def _check_eqn(eqn: JaxprEqn, in_avals) -> list[ShapedArray]:
    """Recompute the equation's output types with its primitive's rule."""
    prim = eqn.primitive
    for sub in jaxprs_in_params(eqn.params):
        check_jaxpr(sub)
    rule = custom_typechecks.get(prim) or abstract_eval_rules.get(prim)
    if rule is None:
        raise JaxprTypeError(f"Primitive {prim} has no abstract evaluation rule")
    out = rule(*in_avals, **eqn.params)
    return list(out) if prim.multiple_results else [out]


# =============================================================================
# Printing
# =============================================================================
class JaxprPpSettings:
    """Printing options: ``print_shapes`` (types on binders) and per-primitive rules."""
    __slots__ = ("print_shapes", "custom_pp_eqn_rules")

    def __init__(self, print_shapes: bool = True, custom_pp_eqn_rules: bool = True):
        self.print_shapes = print_shapes
        self.custom_pp_eqn_rules = custom_pp_eqn_rules


def _encode_digits_alphabetic(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, 27 -> bb: base 26 written with letters, as JAX does."""
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(ord("a") + i) + s
    return s


class JaxprPpContext:
    """Names for variables, given in the order the printer first meets them.

    One context is shared by a jaxpr and the jaxprs nested in its params, so
    names are unique across all of them. ``var_names`` may be pre-seeded
    (with ``_`` for outputs nobody reads).
    """

    def __init__(self, var_names: dict | None = None):
        self.shared_jaxprs: dict[Jaxpr, str] = {}
        self.shared_jaxpr_names: set[str] = set()
        fresh = (name for i in itertools.count()
                 if (name := _encode_digits_alphabetic(i)) not in self.shared_jaxpr_names)
        self.var_names: defaultdict = defaultdict(fresh.__next__, var_names or {})

    def suggest_same_var_names(self, for_vars: Sequence, like_vars: Sequence) -> None:
        """Name the inner jaxpr's ``for_vars`` like the outer ``like_vars`` (for ``jit``)."""
        if len(for_vars) != len(like_vars):
            return
        used = set()
        for for_v, like_v in zip(for_vars, like_vars):
            if (isinstance(like_v, Var) and like_v not in used and isinstance(for_v, Var)
                    and for_v not in self.var_names):
                used.add(like_v)
                self.var_names[for_v] = _pp_atom(like_v, self)


def _dropvars(jaxpr: Jaxpr) -> dict[Var, str]:
    """Equation outputs that are never read print as ``_`` (top-level jaxpr only)."""
    names: dict[Var, str] = {}
    used = {v for v in jaxpr.outvars if isinstance(v, Var)}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                names[v] = "_"
        used.update(v for v in eqn.invars if isinstance(v, Var))
    return names


def _pp_atom(v, context: JaxprPpContext, print_dtype: bool = True) -> str:
    """A variable's name, ``_``, or a literal with its type (``2.0:f32[]``)."""
    if isinstance(v, Literal):
        val = str(np.asarray(v.val).item()) if not np.shape(v.val) else "[...]"
        return f"{val}:{v.aval.str_short(short_dtypes=True)}" if print_dtype else val
    if isinstance(v, DropVar):
        return "_"
    return context.var_names[v]


def pp_vars(vs: Sequence, context: JaxprPpContext, *, separator: str = "",
            print_shapes: bool = False) -> pp.Doc:
    """``a:f32[] b:i32[3]`` (binders, with types) or ``a b 2.0:f32[]`` (operands)."""
    def one(v):
        name = _pp_atom(v, context)
        return pp.text(f"{name}:{v.aval.str_short(short_dtypes=True)}" if print_shapes
                       else name)
    return pp.nest(2, pp.group(pp.join(pp.text(separator) + pp.group(pp.brk()),
                                       [one(v) for v in vs])))


def pp_kv_pair(k: str, v: Any, context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    """``name=value``: nested jaxprs are printed as jaxprs, anything else with ``str``."""
    if type(v) is tuple and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        doc = pp_jaxprs(v, context, settings)
    elif isinstance(v, (Jaxpr, ClosedJaxpr)):
        doc = pp_jaxpr(v.jaxpr if isinstance(v, ClosedJaxpr) else v, context, settings)
    elif isinstance(v, frozenset):
        doc = pp.text(f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})")
    else:
        s = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)),
                   str(v))
        doc = pp.text(s)
    return pp.text(f"{k}=") + doc


def pp_kv_pairs(kv_pairs, context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    """``[k1=v1 k2=v2]`` on one line, or one parameter per line when too long."""
    if not kv_pairs:
        return pp.nil()
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([
            pp.text("["), pp.brk(""),
            pp.join(pp.brk(), [pp_kv_pair(k, v, context, settings) for k, v in kv_pairs])])),
        pp.brk(""), pp.text("]")]))


#: primitive -> rule(eqn, context, settings) -> Doc, for primitives that print
#: differently from the default (most hide parameters implied by the types).
pp_eqn_rules: dict[Primitive, Callable] = {}


def pp_eqn(eqn: JaxprEqn, context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    rule = pp_eqn_rules.get(eqn.primitive) if settings.custom_pp_eqn_rules else None
    return (rule or _pp_eqn)(eqn, context, settings)


def _pp_eqn(eqn: JaxprEqn, context: JaxprPpContext, settings: JaxprPpSettings,
            params: Sequence[str] | None = None) -> pp.Doc:
    """The default: ``outs = name[sorted params] ins``."""
    if params is None:
        params = sorted(eqn.params)
    lhs = pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes)
    rhs = [pp.text(eqn.primitive.name),
           pp_kv_pairs([(p, eqn.params[p]) for p in params], context, settings),
           pp.text(" ") + pp_vars(eqn.invars, context)]
    if eqn.outvars:
        return pp.concat([lhs, pp.text(" = "), *rhs])
    return pp.concat(rhs)


def pp_eqns(eqns: Sequence[JaxprEqn], context, settings) -> pp.Doc:
    return pp.join(pp.brk("; "), [pp_eqn(e, context, settings) for e in eqns])


def pp_jaxpr_skeleton(jaxpr: Jaxpr, eqns_fn: Callable[[], pp.Doc],
                      context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    """``{ lambda consts; ins. let eqns in (outs,) }``, broken as JAX breaks it.

    The constvars and invars are named first (so they get ``a``, ``b``, ...),
    then the equations in order, then the outputs.
    """
    constvars = pp_vars(jaxpr.constvars, context, print_shapes=settings.print_shapes)
    invars = pp_vars(jaxpr.invars, context, print_shapes=settings.print_shapes)
    eqns = eqns_fn()
    outvars = pp.concat([pp.text("("), pp_vars(jaxpr.outvars, context, separator=","),
                         pp.text(")" if len(jaxpr.outvars) != 1 else ",)")])
    return pp.group(pp.nest(2, pp.concat([
        pp.text("{ "), pp.text("lambda "), constvars, pp.text("; "), invars,
        pp.text(". "), pp.text("let"),
        pp.nest(2, pp.brk() + eqns), pp.brk(),
        pp.text("in "), outvars])) + pp.text(" }"))


def pp_jaxpr(jaxpr: Jaxpr, context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    if name := context.shared_jaxprs.get(jaxpr):
        return pp.text(name)
    return pp_jaxpr_skeleton(jaxpr, lambda: pp_eqns(jaxpr.eqns, context, settings),
                             context, settings)


def pp_jaxprs(jaxprs, context: JaxprPpContext, settings: JaxprPpSettings) -> pp.Doc:
    """A tuple of jaxprs (``cond``'s branches): ``( {...} {...} )``."""
    jaxprs = [j.jaxpr if isinstance(j, ClosedJaxpr) else j for j in jaxprs]
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([pp.text("("), pp.brk(""),
                              pp.join(pp.brk(), [pp_jaxpr(j, context, settings)
                                                 for j in jaxprs])])),
        pp.brk(""), pp.text(")")]))


def pp_jaxpr_eqn_range(jaxpr: Jaxpr, lo: int, hi: int, context: JaxprPpContext,
                       settings: JaxprPpSettings) -> pp.Doc:
    """The jaxpr with only equations ``lo:hi`` shown (``...`` for the rest)."""
    lo = max(lo, 0)
    hi = max(lo, min(hi, len(jaxpr.eqns)))

    def eqns_fn():
        shown = jaxpr.eqns[lo:hi]
        if not shown and jaxpr.eqns:
            return pp.text("...")
        docs = [pp.text("...")] if lo != 0 else []
        docs += [pp_eqn(e, context, settings) for e in shown]
        if hi != len(jaxpr.eqns):
            docs.append(pp.text("..."))
        return pp.join(pp.brk("; "), docs)

    return pp_jaxpr_skeleton(jaxpr, eqns_fn, context, settings)


def pp_toplevel_jaxpr(jaxpr: Jaxpr, settings: JaxprPpSettings) -> pp.Doc:
    """The whole document for ``str(jaxpr)``.

    A nested jaxpr used more than once (or a big one, over 10 equations, used
    once) is printed first, as ``let name = { ... } in``, and referred to by
    name, exactly as JAX does; ``name`` comes from the equation's ``name``
    param (``jit``'s function name), with a counter added to keep it unique.
    """
    context = JaxprPpContext(_dropvars(jaxpr))
    names: dict[Jaxpr, str] = defaultdict(lambda: "jaxpr")
    counts: Counter = Counter()
    queue = [jaxpr]
    while queue:
        j = queue.pop(0)
        counts[j] += 1 + (j is not jaxpr and len(j.eqns) > 10)
        for eqn in j.eqns:
            name = eqn.params.get("name")
            for sub in jaxprs_in_params(eqn.params):
                queue.append(sub)
                if name is not None:
                    names.setdefault(sub, name.strip("<>"))
    name_counts: Counter = Counter()
    shared = []
    for j, c in counts.items():
        if c == 1:
            continue
        name = names[j]
        if (n := name_counts[name]) > 0:
            name_counts[name] += 1
            name += str(n)
        name_counts[name] += 1
        context.shared_jaxpr_names.add(name)
        context.shared_jaxprs[j] = name
        shared.append((name, j))
    docs = []  # every name is known before any body is printed: bodies refer to each other
    for name, j in shared:
        body = pp_jaxpr_skeleton(j, lambda j=j: pp_eqns(j.eqns, context, settings),
                                 context, settings)
        docs.append(pp.concat([pp.text(f"let {name} = "), body, pp.text(" in"), pp.brk()]))
    docs.append(pp_jaxpr(jaxpr, context, settings))
    return pp.concat(docs)


# =============================================================================
# Per-primitive printing rules: JAX hides parameters implied by the types
# =============================================================================
def _pp_without(*names: str, if_none: Sequence[str] = ()) -> Callable:
    """A rule printing the equation without params ``names`` (always) and
    ``if_none`` (when they are ``None``): what the binder's type already says."""
    def rule(eqn, context, settings):
        params = {k: v for k, v in eqn.params.items()
                  if k not in names and not (k in if_none and v is None)}
        return _pp_eqn(eqn.replace(params=params), context, settings)
    return rule


def _pp_broadcast_in_dim(eqn, context, settings):
    """``shape`` is the binder's type; empty ``broadcast_dimensions`` are not shown."""
    params = {k: v for k, v in eqn.params.items() if k not in ("shape", "sharding")}
    if not params.get("broadcast_dimensions"):
        params.pop("broadcast_dimensions", None)
    return _pp_eqn(eqn.replace(params=params), context, settings)


def _pp_dot_general(eqn, context, settings):
    """``None`` params hidden; dimension numbers printed as lists, which are shorter."""
    params = {k: v for k, v in eqn.params.items() if v is not None and k != "out_sharding"}
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return _pp_eqn(eqn.replace(params=params), context, settings)


def _pp_scatter_combiner(combiner: Primitive) -> Callable:
    """Show ``update_jaxpr`` as JAX stores it: the combiner on two scalars.

    JAX's ``scatter-add`` carries ``update_jaxpr={ lambda ; d:f32[] e:f32[].
    let f:f32[] = add d e in (f,) }``. minijax's chapter-00 scatters know their
    combiner from the primitive and store ``None``; the printer writes the
    jaxpr JAX would store, so that both print the same.
    """
    def rule(eqn, context, settings):
        params = dict(eqn.params)
        if params.get("update_jaxpr") is None:
            scalar = ShapedArray((), eqn.invars[0].aval.dtype)
            x, y, out = Var(scalar), Var(scalar), Var(scalar)
            params["update_jaxpr"] = Jaxpr([], [x, y], [out],
                                           [JaxprEqn([x, y], [out], combiner, {})])
        return _pp_eqn(eqn.replace(params=params), context, settings)
    return rule


def _register_pp_rules() -> None:
    for name in ("exp", "exp2", "log", "expm1", "log1p", "tanh", "logistic", "sin",
                 "cos", "tan", "sqrt", "rsqrt", "cbrt"):
        pp_eqn_rules[getattr(_ew, f"{name}_p")] = _pp_without(if_none=("accuracy",))
    pp_eqn_rules[_ew.mul_p] = _pp_without(if_none=("out_dtype",))
    pp_eqn_rules[_ew.convert_element_type_p] = _pp_without("sharding")
    pp_eqn_rules[_shapes.broadcast_in_dim_p] = _pp_broadcast_in_dim
    pp_eqn_rules[dot_general_p] = _pp_dot_general
    for kind, combiner in [("add", _ew.add_p), ("sub", _ew.sub_p), ("mul", _ew.mul_p),
                           ("min", _ew.min_p), ("max", _ew.max_p)]:
        pp_eqn_rules[getattr(_slicing, f"scatter_{kind}_p")] = _pp_scatter_combiner(combiner)


_register_pp_rules()
