"""Chapter 07 — custom derivative rules: ``custom_jvp`` and ``custom_vjp``.

Automatic differentiation differentiates the *program*, not the mathematical
function. Usually that is what we want; sometimes it is not:

- ``log(1 + exp(x))`` overflows for large ``x``; so does its automatic
  derivative ``exp(x) / (1 + exp(x))``, which gives ``nan`` where the true
  derivative, ``sigmoid(x)``, is 1;
- a solver runs a loop to convergence, but its derivative is better given by
  the implicit function theorem than by differentiating every iteration;
- we want a *different* gradient on purpose: clipped, or straight-through.

``custom_jvp(f)`` attaches a forward-mode rule to ``f``; ``custom_vjp(f)``
attaches a forward pass and a backward pass. How they fit into minijax:

**Lazily, as in JAX.** Calling the decorated function under a transformation
runs nothing at once: the function and its rules go, unrun, to the current
trace, and each kind of trace runs only what it needs (see "Running a custom
function" near the end of this file):

- ``jvp`` and ``grad`` (whose linearize is a JVP) run only the *rule*: the
  function itself is neither called nor traced, so Python control flow on
  values works inside it, and it prints nothing;
- ``vmap`` wraps the function and the rules in ``vmap`` and hands them on;
- ``jit``/``make_jaxpr`` trace the function to a jaxpr and bind a primitive
  that carries the rules, still unrun, for whoever differentiates the
  jaxpr later.

**custom_jvp.** Its primitive, ``custom_jvp_call``, carries the function's
jaxpr (``call_jaxpr``) *and* the user's rule (``jvp_jaxpr_fun``). Every
interpreter has a rule for it: evaluation runs ``call_jaxpr``; ``vmap``
batches both the jaxpr and the rule; the JVP rule *calls the user's rule*
instead of differentiating ``call_jaxpr``. Reverse mode needs nothing more:
``grad = linearize + transpose``, and linearize is the JVP, so the user's rule
(made of ordinary primitives, linear in the tangents) is what gets staged and
transposed.

**custom_vjp.** Its primitive, ``custom_vjp_call``, carries the traced ``f``,
the user's ``fwd`` and the user's ``bwd``. Differentiating it runs ``fwd``
(the primal outputs and the *residuals*) and binds a second primitive,
``custom_lin``, on the residuals and the tangents. ``custom_lin`` is never
evaluated: under ``linearize`` its tangent inputs are unknown, so it is
staged into the linear jaxpr, and its *transpose rule* calls ``bwd``. That is
why a custom_vjp function supports reverse mode but not forward mode: running
``custom_lin`` forwards raises JAX's TypeError.

Outside any transformation neither primitive is bound: the function is just
called, as in JAX.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Sequence

from minijax.abstract_arrays import ShapedArray
from minijax.core import (EvalTrace, Tracer, eval_trace, find_cur_trace, get_aval,
                          set_current_trace)
from minijax.dispatch import to_numpy
from minijax.errors import UnexpectedTracerError
from minijax.interpreters.ad import (JVPTrace, Zero, float0, instantiate_zeros, jvp_rules,
                                     maybe_jvp_tracer, tangent_aval, zeros_like_aval)
from minijax.interpreters.batching import (BatchTrace, BatchTracer, batch_size, batched_aval,
                                           batching_rules, matchaxis, not_mapped)
from minijax.interpreters.linearize import (JaxprTrace, custom_partial_eval_rules, dce_jaxpr,
                                            dce_rules)
from minijax.interpreters.partial_eval import (DebugInfo, compile_time_eval_active,
                                               debug_info, trace_to_jaxpr_dynamic)
from minijax.interpreters.transpose import add_jaxvals, backward_pass, transpose_rules
from minijax.jaxpr import ClosedJaxpr, _pp_eqn, eval_jaxpr, pp_eqn_rules
from minijax.lax import reduce_sum
from minijax.lax.elementwise import stop_gradient_p
from minijax.numpy.util import set_custom_jvp
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules
from minijax.tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_map,
                               tree_unflatten)

__all__ = ["custom_jvp", "custom_vjp", "custom_jvp_call_p", "custom_vjp_call_p",
           "custom_lin_p", "SymbolicZero", "CustomVJPPrimal", "CustomVJPException",
           "vmap_flat"]


# =============================================================================
# Helpers shared by both decorators
# =============================================================================
def _fun_name(fun) -> str:
    """``f`` for ``def f``: the name JAX's messages and printed jaxprs use."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", "<unnamed function>")


class _Rule:
    """A user's rule, wrapped for a primitive's params: callable, printed by its name."""
    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable):
        self.name, self.fn = name, fn

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self):
        return self.name


def _forward_attr(decorated, name: str):
    """Other attributes of a decorated function are the function's own, as in JAX."""
    fun = decorated.__dict__.get("fun")
    if fun is None or (name.startswith("__") and name.endswith("__")):
        raise AttributeError(name)
    return getattr(fun, name)


class SymbolicZero:
    """A zero (co)tangent handed to a rule defined with ``symbolic_zeros=True``.

    It knows its aval (``shape``, ``dtype``) and holds no numbers, so a rule
    can skip work for inputs that are not being differentiated.
    """
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __repr__(self):
        return "SymbolicZero"


def _is_zero(x) -> bool:
    return type(x) in (Zero, SymbolicZero)


def _resolve_kwargs(fun, args, kwargs, kind: str, name: str) -> tuple:
    """Keyword arguments become positional ones: a primitive has only positions."""
    sig_fun = (lambda *a, **k: None) if isinstance(fun, functools.partial) else fun
    try:
        bound = inspect.signature(sig_fun).bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to "
                            f"positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(f"The input arguments to the {kind}-decorated function {name} "
                        "could not be resolved to positional-only arguments. Binding "
                        f"failed with the error:\n{e}") from e
    return bound.args


def _nondiff_argnums(fun, argnums, argnames) -> tuple:
    nums = set(argnums)
    if argnames:
        params = list(inspect.signature(fun).parameters)
        nums.update(params.index(name) for name in argnames)
    return tuple(sorted(nums))


def _split_static(args, static_argnums):
    """``(static_args, dyn_args)``: the arguments at ``static_argnums`` and the others."""
    static = [args[i] for i in static_argnums]
    dyn = tuple(x for i, x in enumerate(args) if i not in static_argnums)
    return static, dyn


def _merge_static(args, static_argnums, dyn):
    """``args`` with its non-static positions replaced by ``dyn``."""
    dyn = iter(dyn)
    return [x if i in static_argnums else next(dyn) for i, x in enumerate(args)]


def _typeof(x) -> ShapedArray:
    if _is_zero(x):
        return x.aval
    if getattr(x, "dtype", None) == float0:
        return ShapedArray(x.shape, float0)
    return get_aval(x)


def _typematch(a: ShapedArray, b: ShapedArray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _type_tree(tree, avals) -> str:
    """``(float32[], int32[3])``: a pytree of types, as JAX's messages print one."""
    return str(tree_unflatten(tree, [a.str_short() for a in avals])).replace("'", "")


def _trace_flat(fun: Callable, leaves: Sequence, dbg: DebugInfo):
    """Trace ``fun(*leaves) -> list`` to a jaxpr: ``(call_jaxpr, consts)``.

    The jaxpr's captured constants (closed-over arrays and tracers) become its
    leading inputs, and ``consts`` are their values: the primitive receives
    them as operands (JAX's ``num_consts``), so an enclosing transformation
    sees them.
    """
    jaxpr, _, consts = trace_to_jaxpr_dynamic(fun, [get_aval(x) for x in leaves], dbg)
    jaxpr = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars],
                          debug_info=DebugInfo(dbg.traced_for, dbg.func_src_info, None))
    return ClosedJaxpr(jaxpr, []), consts


class _OutputTree:
    """The output structure of one call of a custom function.

    Whichever runs first tells it: the function itself (then ``avals`` are
    known too, and the rules' primal outputs are checked against them, as
    JAX checks them when the function was traced before its rule ran), or a
    rule (under ``jvp``/``grad`` the function may never run at all).
    """
    __slots__ = ("tree", "avals")

    def __init__(self):
        self.tree, self.avals = None, None


def _call_flat(fun, args, static_argnums, in_tree, out: _OutputTree, *leaves) -> list:
    """The user's function on flat leaves (its static arguments put back in place)."""
    result = fun(*_merge_static(args, static_argnums, tree_unflatten(in_tree, leaves)))
    out_leaves, out.tree = tree_flatten(result)
    out.avals = [_typeof(x) for x in out_leaves]
    return out_leaves


def _call_jaxpr_name(closed: ClosedJaxpr) -> str:
    dbg = closed.jaxpr.debug_info
    return dbg.func_src_info.split(" ")[0] if dbg is not None else "<unknown>"


def _call_impl(*args, call_jaxpr: ClosedJaxpr, **_):
    """Evaluating either call primitive: run the primal function's jaxpr."""
    return [to_numpy(o) for o in eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)]


def _call_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, **_):
    return list(call_jaxpr.out_avals)


# --- vmap of a rule, on flat lists ------------------------------------------------------
def _unbatched_aval(aval: ShapedArray, dim) -> ShapedArray:
    shape = list(aval.shape)
    del shape[dim]
    return aval.update(shape=tuple(shape))


def vmap_flat(fun: Callable, size: int, in_dims: Sequence, args: Sequence,
              instantiate: bool = True, like: BatchTrace | None = None
              ) -> tuple[list, list[bool]]:
    """Run ``fun(*args) -> list`` batched: ``args[i]`` has its batch axis at ``in_dims[i]``.

    Returns the outputs with their batch axis at 0, and which are batched; with
    ``instantiate`` every output is batched (an unbatched one is broadcast).
    Symbolic zeros pass through (their avals lose or gain the batch axis).
    This is ``vmap`` for code that already works on flat lists: the rules
    here batch the user's rules with it. ``like`` is the trace of the ``vmap``
    this batching is done for: the new trace shares its tag (and axis name),
    so tracers of that ``vmap`` that ``fun`` closes over count as batched.
    """
    trace = _batch_trace_like(like, size)
    ins = [x if d is not_mapped else
           type(x)(_unbatched_aval(x.aval, d)) if _is_zero(x) else BatchTracer(trace, x, d)
           for x, d in zip(args, in_dims)]
    with set_current_trace(trace):
        outs = fun(*ins)
    results, batched = [], []
    with set_current_trace(trace.parent):
        for x in outs:
            if _is_zero(x):
                results.append(type(x)(batched_aval(x.aval, size, 0)) if instantiate else x)
                batched.append(instantiate)
                continue
            val, dim = trace.to_batch_info(x)
            keep = dim is not not_mapped or instantiate
            results.append(matchaxis(size, dim, 0 if keep else not_mapped, val))
            batched.append(keep)
    trace.invalidate()
    return results, batched


def _batch_trace_like(like: BatchTrace | None, size: int) -> BatchTrace:
    """A fresh batching trace on the current trace, for the same ``vmap`` as ``like``."""
    if like is None:
        return BatchTrace(find_cur_trace(), size)
    return BatchTrace(find_cur_trace(), size, like.axis_name, like.spmd_axis_name, tag=like.tag)


def _batch_call_jaxpr(closed: ClosedJaxpr, size: int, dims: Sequence) -> ClosedJaxpr:
    """``closed`` on batched inputs, with every output batched along axis 0."""
    in_avals = [batched_aval(a, size, d) for a, d in zip(closed.in_avals, dims)]
    run = functools.partial(eval_jaxpr, closed.jaxpr, closed.consts)
    jaxpr, _, consts = trace_to_jaxpr_dynamic(
        lambda *xs: vmap_flat(run, size, dims, xs)[0], in_avals, closed.jaxpr.debug_info)
    return ClosedJaxpr(jaxpr, consts)


# =============================================================================
# custom_jvp
# =============================================================================
class custom_jvp:
    """Give ``fun`` a custom forward-mode derivative rule (``jax.custom_jvp``).

    ::

        @custom_jvp
        def log1pexp(x):
            return jnp.log(1. + jnp.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            x, = primals
            t, = tangents
            return log1pexp(x), t * (1. - 1. / (1. + jnp.exp(x)))

    The rule receives a tuple of primal arguments and a tuple of tangents and
    returns ``(primal_out, tangent_out)``; it must be linear in the tangents,
    and then ``grad`` uses it too. Arguments listed in ``nondiff_argnums``
    (e.g. functions) are not differentiated: the rule receives them first,
    ``jvp(*nondiff_args, primals, tangents)``.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None
        self.symbolic_zeros = False

    def __getattr__(self, name):
        return _forward_attr(self, name)

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``; returns it."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument: ``jvps[i](t_i, primal_out, *primals)``, summed (None: zero)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            zeros = tree_map(lambda x: Zero(tangent_aval(get_aval(x))), primal_out)
            terms = [rule(t, primal_out, *primals) if rule else zeros
                     for t, rule in zip(tangents, jvps)]
            return primal_out, tree_map(_sum_tangents, primal_out, *terms)

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        name = _fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_jvp", name)
        if self.nondiff_argnums:  # their tangents are ignored: cut them off
            args = tuple(_stop_gradient(x) if i in self.nondiff_argnums else x
                         for i, x in enumerate(args))
        trace = find_cur_trace()
        if trace is eval_trace:
            return self.fun(*args)  # nothing to differentiate or stage: just run it
        static, dyn = _split_static(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(dyn)
        out = _OutputTree()
        jvp_name = _fun_name(self.jvp)
        call = _CustomCall(
            fun=functools.partial(_call_flat, self.fun, args, self.nondiff_argnums, in_tree, out),
            rules=dict(jvp_jaxpr_fun=_Rule(jvp_name, functools.partial(
                _call_jvp_rule, self.jvp, static, in_tree, out, name, jvp_name))),
            symbolic_zeros=self.symbolic_zeros,
            debug_info=debug_info("custom_jvp fun", self.fun, args, {},
                                  static_argnums=self.nondiff_argnums))
        outs = run_custom_call(custom_jvp_call_p, trace, call, leaves)
        return tree_unflatten(out.tree, outs)


def _stop_gradient(tree):
    return tree_map(lambda x: stop_gradient_p.bind(x) if isinstance(x, Tracer) else x, tree)


def _sum_tangents(_, x, *xs):
    """Add tangent terms with ``add_any``, skipping symbolic zeros."""
    for y in xs:
        x = y if type(x) is Zero else x if type(y) is Zero else add_jaxvals(x, y)
    return x


def _call_jvp_rule(jvp, static, in_tree, out: _OutputTree, name, jvp_name,
                   primals, tangents):
    """The user's rule on flat lists, with JAX's checks of what it returns."""
    pair = jvp(*static, tree_unflatten(in_tree, primals), tree_unflatten(in_tree, tangents))
    where = f"Custom JVP rule {jvp_name} for function {name}"
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"{where} must produce a pair (list or tuple of length two) "
                        f"representing primal and tangent outputs, but got {pair}.")
    primals_out, p_tree = tree_flatten(pair[0])
    tangents_out, t_tree = tree_flatten(pair[1])
    if p_tree != t_tree:
        raise TypeError(f"{where} must produce primal and tangent outputs with equal "
                        f"container (pytree) structures, but got {p_tree} and {t_tree} "
                        "respectively.")
    if out.avals is None:  # the function has not run: its rule says what it returns
        out.tree = p_tree
    else:
        _check_primal_out(where, name, "custom_jvp", out.tree, out.avals, p_tree,
                          [get_aval(x) for x in primals_out])
    _check_tangents_out(primals_out, tangents_out)
    return primals_out, tangents_out


def _check_primal_out(where, name, kind, out_tree, out_avals, tree, avals):
    """The rule's primal output must have the function's structure and types.

    (Checked when the function has run before its rule, e.g. under ``jit``, as in
    JAX; under ``jvp`` and ``grad`` the function does not run at all.)
    """
    if kind == "custom_jvp":
        equal = (f"equal in value to the output of the custom_jvp-decorated function {name}, "
                 "and in particular {}), but instead the JVP rule")
    else:
        equal = (f"equal to the output of the custom_vjp-decorated function {name}) and the "
                 "second element represents residuals (i.e. values stored from the forward "
                 "pass for use on the backward pass), but instead the fwd rule")
    intro = (f"{where} must produce a pair (list or tuple of length two) where the first "
             f"element represents the primal output ({equal} output's first element had ")
    theirs = f"while the {kind}-decorated function {name} had output "
    ours, expected = _type_tree(tree, avals), _type_tree(out_tree, out_avals)
    if tree != out_tree:
        raise TypeError(intro.format("of the same container/pytree structure") +
                        f"container/pytree structure:\n    {ours}\n{theirs}"
                        f"container/pytree structure:\n    {expected}.")
    if not all(map(_typematch, avals, out_avals)):
        raise TypeError(intro.format("with leaves of the same shape/dtype") +
                        f"shapes/dtypes of:\n    {ours}\n{theirs}shapes/dtypes of:\n"
                        f"    {expected}")


def _check_tangents_out(primals_out, tangents_out) -> None:
    """Each tangent must have its primal's shape and tangent dtype."""
    primal = [get_aval(x).strip_weak_type() for x in primals_out]
    expected = [tangent_aval(a).strip_weak_type() for a in primal]
    got = [_typeof(t).strip_weak_type() for t in tangents_out]
    if all(map(_typematch, expected, got)):
        return
    if len(expected) == 1:
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                        "corresponding shapes and dtypes. Expected "
                        f"{expected[0].str_short()} (tangent type of {primal[0].str_short()})"
                        f" but got {got[0].str_short()}.")
    lines = [f"  primal {p.str_short()} with tangent {t.str_short()}, expecting tangent "
             f"{e.str_short()}" for p, e, t in zip(primal, expected, got) if e != t]
    raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                    "corresponding shapes and dtypes, but got:\n" + "\n".join(lines))


# --- the primitive and its rules ---------------------------------------------------------
#: ``outs = custom_jvp_call[call_jaxpr=... jvp_jaxpr_fun=... num_consts symbolic_zeros] *args``
custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True, kind="call")


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp_jaxpr_fun, num_consts,
                         symbolic_zeros):
    """Run the user's rule instead of differentiating ``call_jaxpr``.

    Tangents of the closed-over constants are dropped: the rule only knows
    about the explicit arguments (JAX does the same).
    """
    primals, tangents = list(primals[num_consts:]), tangents[num_consts:]
    if symbolic_zeros:
        tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
    else:
        tangents = [instantiate_zeros(t) for t in tangents]
    primals_out, tangents_out = jvp_jaxpr_fun(primals, tangents)
    return primals_out, [Zero(t.aval) if type(t) is SymbolicZero else t for t in tangents_out]


def _batched_jvp_rule(rule, size, dims, primals, tangents, like=None, outs_batched=None):
    """The rule run batched: a tangent has its primal's batch axis.

    Without ``outs_batched`` every output is batched (at axis 0); with it, an
    output is batched where the function's is (a primal and its tangent alike).
    """
    n = len(primals)

    def flat(*xs):
        p, t = rule(list(xs[:n]), list(xs[n:]))
        return [*p, *t]

    outs, batched = vmap_flat(flat, size, [*dims, *dims], [*primals, *tangents],
                              instantiate=outs_batched is None, like=like)
    m = len(outs) // 2
    if outs_batched is not None:
        want = outs_batched.settle([bp or bt for bp, bt in zip(batched[:m], batched[m:])])
        outs = [_match_batched(size, x, b, w) for x, b, w in zip(outs, batched, want * 2)]
    return outs[:m], outs[m:]


class _BatchedOutputs:
    """Which outputs of a lazily batched custom function are batched (at axis 0).

    Whichever runs first says, the function or a rule; the other follows it (an
    output a rule leaves unbatched is broadcast), so a staged call and its rules
    agree on every output's shape.
    """
    __slots__ = ("batched",)

    def __init__(self):
        self.batched = None

    def settle(self, batched: Sequence[bool]) -> list[bool]:
        if self.batched is None:
            self.batched = list(batched)
        return self.batched


def _match_batched(size: int, x, batched: bool, want: bool):
    """``x`` (batched at 0 or not) as ``want`` says; a rule cannot batch what the
    function did not."""
    if batched == want:
        return x
    if batched:
        raise ValueError("a custom rule returned a batched output where the custom "
                         "function's output is not batched under vmap")
    return type(x)(batched_aval(x.aval, size, 0)) if _is_zero(x) else \
        matchaxis(size, not_mapped, 0, x)


def _lazily_batched(fun, size, dims, outs_batched: _BatchedOutputs, like, *xs) -> list:
    """The function run batched; which outputs are batched goes to ``outs_batched``."""
    outs, batched = vmap_flat(fun, size, dims, xs, instantiate=False, like=like)
    want = outs_batched.settle(batched)
    return [_match_batched(size, x, b, w) for x, b, w in zip(outs, batched, want)]


def _custom_jvp_call_batching(args, dims, *, call_jaxpr, jvp_jaxpr_fun, num_consts,
                              symbolic_zeros):
    """Batch the function's jaxpr and the rule alike; every output is batched at 0."""
    size = batch_size(args, dims)
    rule = _Rule(jvp_jaxpr_fun.name, functools.partial(
        _batched_jvp_rule, jvp_jaxpr_fun, size, dims[num_consts:]))
    outs = custom_jvp_call_p.bind(*args, call_jaxpr=_batch_call_jaxpr(call_jaxpr, size, dims),
                                  jvp_jaxpr_fun=rule, num_consts=num_consts,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


def _custom_jvp_call_partial_eval(trace, *args, call_jaxpr, **_):
    """Unknown inputs without a JVP around: only a *linear* use, so inline the function.

    (Partial evaluation with unknowns happens to build linear jaxprs; there the
    custom rule is not needed any more, as in JAX.)
    """
    with set_current_trace(trace):
        return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, **_):
    """A linear custom_jvp function is transposed through its primal jaxpr."""
    return backward_pass(call_jaxpr.jaxpr, call_jaxpr.consts, args, cts)


def _keep(xs, used):
    return [x for x, u in zip(xs, used) if u]


def _dce_call(used_outputs, eqn, **rules):
    """Drop unused outputs of a custom call: from its jaxpr and (via ``rules``) its rules.

    Every input is kept: the rules may read inputs the primal function does not.
    """
    if not any(used_outputs) and not eqn.effects:  # (effects are kept)
        return [False] * len(eqn.invars), None
    call = eqn.params["call_jaxpr"]
    inner, _ = dce_jaxpr(call.jaxpr, list(used_outputs), instantiate=True)
    # Traced again, as JAX retraces a custom call: fresh variables, printed afresh.
    inner, _, consts = trace_to_jaxpr_dynamic(
        functools.partial(eval_jaxpr, inner, call.consts), call.in_avals, inner.debug_info)
    params = dict(eqn.params, call_jaxpr=ClosedJaxpr(inner, consts), **rules)
    return [True] * len(eqn.invars), eqn.replace(outvars=_keep(eqn.outvars, used_outputs),
                                                 params=params)


def _pruned_jvp_rule(rule, used, primals, tangents):
    primals_out, tangents_out = rule(primals, tangents)
    return _keep(primals_out, used), _keep(tangents_out, used)


def _custom_jvp_call_dce(used_outputs, eqn):
    rule = eqn.params["jvp_jaxpr_fun"]
    return _dce_call(used_outputs, eqn, jvp_jaxpr_fun=_Rule(
        rule.name, functools.partial(_pruned_jvp_rule, rule, tuple(used_outputs))))


def _pp_custom_jvp_call(eqn, context, settings):
    """``custom_jvp_call[name=f call_jaxpr={...} jvp=f_jvp symbolic_zeros=False]``."""
    params = dict(eqn.params)
    if not params["num_consts"]:
        del params["num_consts"]
    params["jvp"] = params.pop("jvp_jaxpr_fun").name
    names = sorted(params)
    params["name"] = _call_jaxpr_name(params["call_jaxpr"])
    return _pp_eqn(eqn.replace(params=params), context, settings, params=["name"] + names)


impl_rules[custom_jvp_call_p] = _call_impl
abstract_eval_rules[custom_jvp_call_p] = _call_abstract_eval
jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp
batching_rules[custom_jvp_call_p] = _custom_jvp_call_batching
custom_partial_eval_rules[custom_jvp_call_p] = _custom_jvp_call_partial_eval
transpose_rules[custom_jvp_call_p] = _custom_jvp_call_transpose
dce_rules[custom_jvp_call_p] = _custom_jvp_call_dce
pp_eqn_rules[custom_jvp_call_p] = _pp_custom_jvp_call


# =============================================================================
# custom_vjp
# =============================================================================
@dataclasses.dataclass
class CustomVJPPrimal:
    """A primal argument of a ``fwd`` rule defined with ``symbolic_zeros=True``."""
    value: Any
    perturbed: bool


class CustomVJPException(Exception):
    def __init__(self):
        super().__init__(
            "Detected differentiation of a custom_vjp function with respect to a "
            "closed-over value. That isn't supported because the custom VJP rule only "
            "specifies how to differentiate the custom_vjp function with respect to "
            "explicit input parameters. Try passing the closed-over value into the "
            "custom_vjp function as an argument, and adapting the custom_vjp fwd and bwd "
            "rules.")


class custom_vjp:
    """Give ``fun`` a custom reverse-mode rule: a forward and a backward pass (``jax.custom_vjp``).

    ::

        @custom_vjp
        def clip_gradient(x):
            return x

        def fwd(x):
            return x, None                      # (output, residuals)

        def bwd(residuals, g):
            return (jnp.clip(g, -1., 1.),)      # one cotangent per argument

        clip_gradient.defvjp(fwd, bwd)

    ``fwd`` takes the function's arguments and returns the output and the
    residuals for ``bwd``; ``bwd(residuals, output_cotangent)`` returns a
    tuple with a cotangent (or None) per argument. Forward mode (``jvp``)
    is not supported.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = self.bwd = None
        self.symbolic_zeros = False
        self.optimize_remat = False

    def __getattr__(self, name):
        return _forward_attr(self, name)

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        """Set the rules. ``optimize_remat`` is accepted and has no effect in minijax."""
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros, self.optimize_remat = symbolic_zeros, optimize_remat
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros")

    def __call__(self, *args, **kwargs):
        name = _fun_name(self.fun)
        if not self.fwd or not self.bwd:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vjp", name)
        for i in self.nondiff_argnums:
            _check_for_tracers(args[i])
        trace = find_cur_trace()
        if trace is eval_trace:
            return self.fun(*args)
        static, dyn = _split_static(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(dyn)
        out = _OutputTree()
        fwd_name, bwd_name = _fun_name(self.fwd), _fun_name(self.bwd)
        fwd = _Rule(fwd_name, functools.partial(
            _call_fwd, self.fwd, self.nondiff_argnums, args, in_tree, out, name, fwd_name,
            self.symbolic_zeros))
        bwd = _Rule(bwd_name, functools.partial(
            _call_bwd, self.bwd, static, in_tree, [get_aval(x) for x in leaves], out))
        call = _CustomCall(
            fun=functools.partial(_call_flat, self.fun, args, self.nondiff_argnums, in_tree, out),
            rules=dict(fwd_jaxpr_thunk=fwd, bwd=bwd), symbolic_zeros=self.symbolic_zeros,
            debug_info=debug_info("custom_vjp fun", self.fun, args, {},
                                  static_argnums=self.nondiff_argnums))
        outs = run_custom_call(custom_vjp_call_p, trace, call, leaves)
        return tree_unflatten(out.tree, outs)


def _check_for_tracers(x) -> None:
    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, Tracer):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in "
                "a position indicated by nondiff_argnums as non-differentiable. Tracers "
                "cannot be passed as non-differentiable arguments to custom_vjp functions; "
                "instead, nondiff_argnums should only be used for arguments that can't be "
                "or contain JAX tracers, e.g. function-valued arguments. In particular, "
                "array-valued arguments should typically not be indicated as "
                "nondiff_argnums.", _suffix=False)


def _call_fwd(fwd, nondiff, args, in_tree, out: _OutputTree, name, fwd_name,
              symbolic_zeros, primals, perturbed):
    """The user's ``fwd`` on flat lists: ``(residuals, residual_tree, primals_out)``.

    The residual tree is passed on, untouched, to ``bwd`` (via ``custom_lin``).
    """
    if symbolic_zeros:
        primals = [CustomVJPPrimal(x, p) for x, p in zip(primals, perturbed)]
    pair = fwd(*_merge_static(args, nondiff, tree_unflatten(in_tree, primals)))
    where = f"Custom VJP fwd rule {fwd_name} for function {name}"
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise TypeError(f"{where} must produce a pair (list or tuple of length two) where "
                        "the first element represents the primal output (equal to those of "
                        f"the custom_vjp-decorated function {name}) and the second element "
                        "represents residuals (i.e. values stored from the forward pass for "
                        "use on the backward pass), but instead of a pair the fwd rule "
                        f"{fwd_name} produced {pair}.")
    primals_out, p_tree = tree_flatten(pair[0])
    if out.avals is None:  # the function has not run: fwd says what it returns
        out.tree = p_tree
    else:
        _check_primal_out(where, name, "custom_vjp", out.tree, out.avals, p_tree,
                          [get_aval(x) for x in primals_out])
    res, res_tree = tree_flatten(pair[1])
    return res, res_tree, primals_out


def _call_bwd(bwd, static, in_tree, in_avals, out: _OutputTree, res_tree, res, cts):
    """The user's ``bwd`` on flat lists: one cotangent per input (a Zero for None)."""
    cts_in = bwd(*static, tree_unflatten(res_tree, res), tree_unflatten(out.tree, cts))
    if isinstance(cts_in, list) and len(cts_in) == len(in_tree.children()):
        cts_in = tuple(cts_in)
    dummy = tree_unflatten(in_tree, [object()] * in_tree.num_leaves)
    flat: list = []

    def append(ct, d):
        n = len(tree_flatten(d)[0])
        flat.extend([Zero if ct is None else ct] * n)

    try:
        if not isinstance(cts_in, tuple):
            raise ValueError
        tree_map(append, cts_in, dummy, is_leaf=lambda x: x is None)
    except ValueError:
        raise TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must "
            "produce a tuple of length equal to the number of arguments to the primal "
            f"function, but got bwd output structure {tree_flatten(cts_in)[1]} for primal "
            f"input structure {in_tree}.") from None
    paths = [p for p, _ in tree_flatten_with_path(dummy)[0]]
    return [_check_ct(path, aval, ct) for path, aval, ct in zip(paths, in_avals, flat)]


def _check_ct(path, aval: ShapedArray, ct):
    """A cotangent from ``bwd``: None or integer inputs give Zero; shapes must match."""
    ct_aval = tangent_aval(aval)
    if ct is Zero or ct_aval.dtype == float0:
        return Zero(ct_aval)
    if type(ct) is SymbolicZero:
        return Zero(ct.aval)
    got = get_aval(ct)
    if got.shape != aval.shape:  # (a dtype may differ for a float input, as in JAX)
        extra = ", so the shapes do not match"
        if got.dtype != aval.dtype:
            extra = ", so the dtypes do not match, and the shapes do not match"
        raise ValueError("Custom VJP bwd rule must produce an output with the same type as "
                         "the args tuple of the primal function, but at "
                         f"output{keystr(path)} the bwd rule produced an output of type "
                         f"{got.str_short()} corresponding to an input of type "
                         f"{aval.str_short()}{extra}")
    return ct


# --- the primitives and their rules --------------------------------------------------------
#: ``outs = custom_vjp_call[call_jaxpr fwd_jaxpr_thunk bwd num_consts symbolic_zeros] *args``
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True, kind="call")
#: ``tangents_out = custom_lin[num_res bwd out_avals symbolic_zeros in_zeros] *res *tangents``:
#: the linear map whose transpose is ``bwd``. It only ever appears in linear jaxprs.
#: It is linear in its operands after the ``num_res`` residuals, a count given by a
#: parameter, so it declares no ``linear_in``: its transpose rule is its own.
custom_lin_p = Primitive("custom_lin", multiple_results=True)


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd_jaxpr_thunk, bwd,
                         num_consts, symbolic_zeros):
    """Run ``fwd`` now; stand for the tangent map by a ``custom_lin`` on the residuals."""
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise CustomVJPException()
    primals, tangents = list(primals[num_consts:]), tangents[num_consts:]
    in_zeros = tuple(type(t) is Zero for t in tangents)
    res, res_tree, primals_out = fwd_jaxpr_thunk(primals, [not z for z in in_zeros])
    lin_bwd = _Rule(bwd.name, functools.partial(bwd, res_tree))
    tangents_out = custom_lin_p.bind(
        *res, *[t for t in tangents if type(t) is not Zero], num_res=len(res), bwd=lin_bwd,
        out_avals=tuple(tangent_aval(get_aval(p)) for p in primals_out),
        symbolic_zeros=symbolic_zeros, in_zeros=in_zeros)
    return primals_out, tangents_out


def _batched_fwd(fwd, size, dims, primals, perturbed, like=None, outs_batched=None):
    """``fwd`` batched. The primal outputs are batched at 0 (as the batched call's are;
    with ``outs_batched``, where the function's are); a residual stays unbatched when
    it can, and the residual info tells ``bwd`` which."""
    found = []

    def flat(*xs):
        res, res_info, outs = fwd(list(xs), perturbed)
        found.append((res_info, len(res)))
        return [*res, *outs]

    outs, batched = vmap_flat(flat, size, dims, primals, instantiate=False, like=like)
    (res_info, n), = found
    want = [True] * (len(outs) - n) if outs_batched is None else \
        outs_batched.settle(batched[n:])
    primals_out = [_match_batched(size, x, b, w)
                   for x, b, w in zip(outs[n:], batched[n:], want)]
    return outs[:n], (res_info, batched[:n]), primals_out


def _batched_bwd(bwd, size, in_dims, in_avals, res_info, res, cts, like=None,
                 outs_batched=None):
    """``bwd`` batched: the cotangents are batched at 0 where the outputs are (all of
    them, without ``outs_batched``); each input cotangent goes where its input's batch
    axis is, and is summed over the batch when the input is not batched (every example
    used the same value)."""
    res_info, res_batched = res_info
    trace = _batch_trace_like(like, size)
    res = [BatchTracer(trace, x, 0) if b else x for x, b in zip(res, res_batched)]
    cts_batched = [True] * len(cts) if outs_batched is None else outs_batched.batched
    cts = [BatchTracer(trace, x, 0) if b else x for x, b in zip(cts, cts_batched)]
    with set_current_trace(trace):
        cts_in = bwd(res_info, res, cts)
    out = []
    with set_current_trace(trace.parent):
        for ct, dim, aval in zip(cts_in, in_dims, in_avals):
            if type(ct) is Zero:
                out.append(Zero(tangent_aval(aval)))
                continue
            val, ct_dim = trace.to_batch_info(ct)
            if dim is not_mapped and ct_dim is not not_mapped:
                out.append(reduce_sum(val, (ct_dim,)))
            else:
                out.append(matchaxis(size, ct_dim, dim, val))
    trace.invalidate()
    return out


def _custom_vjp_call_batching(args, dims, *, call_jaxpr, fwd_jaxpr_thunk, bwd, num_consts,
                              symbolic_zeros):
    """Batch the function, ``fwd`` and ``bwd``; every output is batched at axis 0."""
    size = batch_size(args, dims)
    in_dims = dims[num_consts:]
    in_avals = [get_aval(x) for x in args[num_consts:]]
    fwd = _Rule(fwd_jaxpr_thunk.name,
                functools.partial(_batched_fwd, fwd_jaxpr_thunk, size, in_dims))
    bwd = _Rule(bwd.name, functools.partial(_batched_bwd, bwd, size, in_dims, in_avals))
    outs = custom_vjp_call_p.bind(*args, call_jaxpr=_batch_call_jaxpr(call_jaxpr, size, dims),
                                  fwd_jaxpr_thunk=fwd, bwd=bwd, num_consts=num_consts,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


def _pruned_fwd(fwd, used, primals, perturbed):
    res, res_info, primals_out = fwd(primals, perturbed)
    return res, res_info, _keep(primals_out, used)


def _padded_bwd(bwd, used, out_avals, symbolic_zeros, res_info, res, cts):
    """``bwd`` of a call whose unused outputs were dropped: their cotangents are zeros."""
    cts = iter(cts)
    zero = SymbolicZero if symbolic_zeros else zeros_like_aval
    return bwd(res_info, res, [next(cts) if u else zero(tangent_aval(a))
                               for u, a in zip(used, out_avals)])


def _custom_vjp_call_dce(used_outputs, eqn):
    fwd, bwd, used = eqn.params["fwd_jaxpr_thunk"], eqn.params["bwd"], tuple(used_outputs)
    out_avals = eqn.params["call_jaxpr"].out_avals
    return _dce_call(used_outputs, eqn, fwd_jaxpr_thunk=_Rule(
        fwd.name, functools.partial(_pruned_fwd, fwd, used)), bwd=_Rule(
        bwd.name, functools.partial(_padded_bwd, bwd, used, out_avals,
                                    eqn.params["symbolic_zeros"])))


def _pp_custom_vjp_call(eqn, context, settings):
    """``custom_vjp_call[name=f bwd=f_bwd call_jaxpr={...} fwd=f_fwd symbolic_zeros=False]``."""
    params = dict(eqn.params)
    if not params["num_consts"]:
        del params["num_consts"]
    params["fwd"] = params.pop("fwd_jaxpr_thunk").name
    params["bwd"] = params["bwd"].name
    names = sorted(params)
    params["name"] = _call_jaxpr_name(params["call_jaxpr"])
    return _pp_eqn(eqn.replace(params=params), context, settings, params=["name"] + names)


def _raise_custom_vjp_error_on_jvp(*_, **__):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    """The transpose of the tangent map of a custom_vjp function: call ``bwd``."""
    if symbolic_zeros:
        cts = [SymbolicZero(ct.aval) if type(ct) is Zero else ct for ct in cts]
    else:
        cts = [instantiate_zeros(ct) for ct in cts]
    cts_in = bwd(list(args[:num_res]), cts)
    return [None] * num_res + [ct for ct, z in zip(cts_in, in_zeros) if not z]


def _pp_custom_lin(eqn, context, settings):
    params = {k: v for k, v in eqn.params.items() if k != "out_avals"}
    params["bwd"] = params["bwd"].name
    return _pp_eqn(eqn.replace(params=params), context, settings)


impl_rules[custom_vjp_call_p] = _call_impl
abstract_eval_rules[custom_vjp_call_p] = _call_abstract_eval
jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp
batching_rules[custom_vjp_call_p] = _custom_vjp_call_batching
pp_eqn_rules[custom_vjp_call_p] = _pp_custom_vjp_call
dce_rules[custom_vjp_call_p] = _custom_vjp_call_dce

impl_rules[custom_lin_p] = _raise_custom_vjp_error_on_jvp
abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)
jvp_rules[custom_lin_p] = _raise_custom_vjp_error_on_jvp
batching_rules[custom_lin_p] = _raise_custom_vjp_error_on_jvp
transpose_rules[custom_lin_p] = _custom_lin_transpose
pp_eqn_rules[custom_lin_p] = _pp_custom_lin

# =============================================================================
# Running a custom function: lazily, one handler per kind of trace
# =============================================================================
# Calling a custom function under a transformation does not trace it at once.
# The call goes, as a bundle of *unrun* functions (the function, its rules), to
# the current trace, which decides what to run:
#
# - the JVP trace (``jvp``, and ``grad``'s linearize) runs only the rule: the
#   function itself never runs, so Python control flow on values works in it
#   and its prints do not appear, exactly as in JAX;
# - the batching trace runs nothing: it wraps the function and the rules in
#   ``vmap`` and hands the bundle on to its parent trace;
# - the eval trace just calls the function;
# - a staging trace (``jit``, ``make_jaxpr``) traces the function to a jaxpr
#   and binds the primitive, whose params carry the rules, still unrun: they
#   run if the jaxpr is differentiated later.
#
# The handlers are looked up by the trace's class (along its MRO); a trace
# with none (the printing trace of chapter 01...) stages, the safe default.
class _CustomCall:
    """One call of a custom function, not yet run: flat ``fun``, its ``rules`` (the
    primitive's params that hold them), and what staging it needs."""
    __slots__ = ("fun", "rules", "symbolic_zeros", "debug_info")

    def __init__(self, fun: Callable, rules: dict, symbolic_zeros: bool, debug_info):
        self.fun, self.rules = fun, rules
        self.symbolic_zeros, self.debug_info = symbolic_zeros, debug_info

    def replace(self, fun: Callable, **rules) -> "_CustomCall":
        return _CustomCall(fun, dict(self.rules, **rules), self.symbolic_zeros,
                           self.debug_info)


#: primitive -> {trace class -> handler(primitive, trace, call, args) -> flat outputs}
custom_call_handlers: dict[Primitive, dict[type, Callable]] = {
    custom_jvp_call_p: {}, custom_vjp_call_p: {}}


def run_custom_call(primitive: Primitive, trace, call: _CustomCall, args: Sequence) -> list:
    """Run ``call`` on ``args`` (flat) the way ``trace`` runs it; ``trace`` is current."""
    table = custom_call_handlers[primitive]
    for cls in type(trace).__mro__:
        handler = table.get(cls)
        if handler is not None:
            return handler(primitive, trace, call, list(args))
    return _stage_custom_call(primitive, trace, call, list(args))


def _run_at_parent(primitive, trace, call, args) -> list:
    with set_current_trace(trace.parent):
        return run_custom_call(primitive, trace.parent, call, args)


def _eval_custom_call(primitive, trace, call, args):
    """No transformation: call the function."""
    return call.fun(*args)


def _stage_custom_call(primitive, trace, call, args):
    """Trace the function now; bind the primitive with the rules in its params."""
    if compile_time_eval_active() and not any(isinstance(x, Tracer) for x in args):
        with set_current_trace(eval_trace):  # (inside ensure_compile_time_eval)
            return call.fun(*args)
    call_jaxpr, consts = _trace_flat(call.fun, args, call.debug_info)
    rules = dict(call.rules)
    if primitive is custom_jvp_call_p:
        rules["jvp_jaxpr_fun"] = _Rule(rules["jvp_jaxpr_fun"].name, _TracedOnce(
            rules["jvp_jaxpr_fun"], _trace_jvp_rule))
    else:
        rules["fwd_jaxpr_thunk"] = _Rule(rules["fwd_jaxpr_thunk"].name, _TracedOnce(
            rules["fwd_jaxpr_thunk"], _trace_fwd_rule))
    return primitive.bind(*consts, *args, call_jaxpr=call_jaxpr, num_consts=len(consts),
                          symbolic_zeros=call.symbolic_zeros, **rules)


class _TracedOnce:
    """A staged call's rule, traced to a jaxpr the first time it is asked for, per
    input types, and evaluated from then on (JAX memoizes its ``jvp_jaxpr_thunk``
    and ``fwd_jaxpr_thunk`` alike).

    A transformation of a staged jaxpr may ask for the rule more than once (the
    JVP of ``cond`` differentiates each branch twice: once to learn which
    outputs have tangents, once to build them); the user's Python rule still
    runs once, as in JAX. A rule whose jaxpr captured a tracer (it closes over
    a value of a transformation still running) is not kept.
    """

    def __init__(self, rule: Callable, trace_rule: Callable):
        self.rule, self.trace_rule = rule, trace_rule
        self.cache: dict = {}

    def __call__(self, *args):
        key, in_vals, run = self.trace_rule(self.rule, *args)
        entry = self.cache.get(key)
        if entry is None:
            entry = run()
            if not any(isinstance(c, Tracer) for c in entry[1]):
                self.cache[key] = entry
        jaxpr, consts, rebuild = entry
        return rebuild(args, eval_jaxpr(jaxpr, consts, *in_vals))


def _trace_jvp_rule(rule, primals, tangents):
    """How :class:`_TracedOnce` traces a jvp rule: ``(key, jaxpr inputs, trace)``."""
    zeros = tuple(_is_zero(t) for t in tangents)
    key = ("jvp", tuple(map(_typeof, primals)), tuple(map(_typeof, tangents)), zeros)
    in_vals = [*primals, *[t for t, z in zip(tangents, zeros) if not z]]
    n = len(primals)

    def run():
        found = []

        def flat(*xs):
            nonzero = iter(xs[n:])
            ts = [t if z else next(nonzero) for t, z in zip(tangents, zeros)]
            p_out, t_out = rule(list(xs[:n]), ts)
            found.append([t if _is_zero(t) else None for t in t_out])
            return [*p_out, *[t for t in t_out if not _is_zero(t)]]

        jaxpr, _, consts = trace_to_jaxpr_dynamic(flat, [_typeof(x) for x in in_vals])
        out_zeros, = found

        def rebuild(_, outs):
            p_out, nonzero = outs[:len(out_zeros)], iter(outs[len(out_zeros):])
            return p_out, [z if z is not None else next(nonzero) for z in out_zeros]
        return jaxpr, consts, rebuild
    return key, in_vals, run


def _trace_fwd_rule(fwd, primals, perturbed):
    """How :class:`_TracedOnce` traces a custom_vjp ``fwd`` rule."""
    key = ("fwd", tuple(map(_typeof, primals)), tuple(perturbed))

    def run():
        found = []

        def flat(*xs):
            res, res_info, primals_out = fwd(list(xs), perturbed)
            found.append((res_info, len(res)))
            return [*res, *primals_out]

        jaxpr, _, consts = trace_to_jaxpr_dynamic(flat, [_typeof(x) for x in primals])
        (res_info, n_res), = found

        def rebuild(_, outs):
            return outs[:n_res], res_info, outs[n_res:]
        return jaxpr, consts, rebuild
    return key, list(primals), run


def _jvp_custom_call(primitive, trace, call, args):
    """Differentiate: run the rule (custom_jvp) or ``fwd`` (custom_vjp) on the primals,
    never the function. With no tangent to push, the parent trace runs the call."""
    pairs = [trace.to_primal_tangent_pair(x) for x in args]
    primals = [p for p, _ in pairs]
    tangents = [t for _, t in pairs]
    if all(type(t) is Zero for t in tangents):
        return _run_at_parent(primitive, trace, call, primals)
    rule = jvp_rules[primitive]
    with set_current_trace(trace.parent):
        primals_out, tangents_out = rule(primals, tangents, call_jaxpr=None, num_consts=0,
                                         symbolic_zeros=call.symbolic_zeros, **call.rules)
    return [maybe_jvp_tracer(trace, p, t) for p, t in zip(primals_out, tangents_out)]


def _batch_custom_call(primitive, trace, call, args):
    """Batch lazily: wrap the function and the rules in ``vmap``, run at the parent.
    Every output is batched along axis 0. (Even with no batched argument: the
    function may close over a batched value of this ``vmap``.)"""
    vals, dims = zip(*map(trace.to_batch_info, args)) if args else ((), ())
    size, store = trace.axis_size, _BatchedOutputs()
    fun = functools.partial(_lazily_batched, call.fun, size, dims, store, trace)
    batched = dict(like=trace, outs_batched=store)
    if primitive is custom_jvp_call_p:
        rule = call.rules["jvp_jaxpr_fun"]
        rules = dict(jvp_jaxpr_fun=_Rule(rule.name, functools.partial(
            _batched_jvp_rule, rule, size, dims, **batched)))
    else:
        fwd, bwd = call.rules["fwd_jaxpr_thunk"], call.rules["bwd"]
        in_avals = [get_aval(x) for x in vals]
        rules = dict(fwd_jaxpr_thunk=_Rule(fwd.name, functools.partial(
            _batched_fwd, fwd, size, dims, **batched)), bwd=_Rule(bwd.name, functools.partial(
                _batched_bwd, bwd, size, dims, in_avals, **batched)))
    outs = _run_at_parent(primitive, trace, call.replace(fun, **rules), list(vals))
    return [trace.wrap(o, 0 if b else not_mapped) for o, b in zip(outs, store.batched)]


def _partial_eval_custom_call(primitive, trace, call, args):
    """Partial evaluation: a call on known values only is the parent's to run."""
    if not any(map(trace.is_unknown, args)):
        return _run_at_parent(primitive, trace, call, args)
    return _stage_custom_call(primitive, trace, call, args)


for _table in custom_call_handlers.values():
    _table[EvalTrace] = _eval_custom_call
    _table[JVPTrace] = _jvp_custom_call
    _table[BatchTrace] = _batch_custom_call
    _table[JaxprTrace] = _partial_eval_custom_call


# The jnp functions whose derivative JAX states with custom_jvp (relu, logaddexp,
# sinc...) are written in chapter 00 with a hook; from here on they use the real one.
set_custom_jvp(lambda fun, nondiff_argnums: custom_jvp(fun, nondiff_argnums=nondiff_argnums))
