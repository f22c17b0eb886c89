"""Chapter 00 — primitives: the smallest operations minijax knows.

Every computation, however written (``jnp.sum``, ``x @ y``, ``lax.cond``), is
eventually a sequence of *primitive* applications. A primitive is an object
with a name (``sin``, ``reduce_sum``) and one door, :meth:`Primitive.bind`.
What a primitive *means* is kept outside it, in one rule table per
interpretation, each a dict keyed by primitive:

- :data:`impl_rules` — compute it on NumPy arrays (this chapter);
- :data:`abstract_eval_rules` — compute only its output shape, dtype and weak
  type from its inputs' (this chapter), raising JAX's error on bad input;
- later chapters add ``jvp_rules``, ``batching_rules``, ``transpose_rules``
  and one lowering table per backend, each in the module that owns it, and
  each announced with :func:`register_rule_table`.

Adding a primitive means adding one entry to each table; ``tests/test_rules.py``
lists any primitive missing one. :func:`rules_of` shows, for one primitive,
which tables have a rule for it and where each rule is written.

What *kind* of operation a primitive is, on the other hand, is a fact about
the primitive itself, stated once where it is created:
``Primitive("sin", kind="elementwise", transcendental=True)``. Everything that
sorts primitives into families reads these attributes instead of keeping its
own list of names: the cost model (chapter 06) counts no arithmetic for data
movement, the linear JVP rule (chapter 02) is given to every primitive with
``linear_in``, the batching rule of elementwise primitives (chapter 04) and
the fusion planner (chapter 09) need to know which are elementwise.

``bind`` does not know how to evaluate anything. It hands the primitive and
its arguments to the *current dispatcher*: in chapter 00 that is eager
evaluation (:mod:`minijax.dispatch`); chapter 01 installs a dispatcher that
asks the current *trace* instead, which is how tracing works.
"""
from __future__ import annotations

import functools
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["Primitive", "KINDS", "impl_rules", "abstract_eval_rules", "all_primitives",
           "primitives_of_kind", "linear_primitives", "RuleTable", "register_rule_table",
           "rule_tables", "rules_of", "RuleSite", "RulesOf",
           "set_bind_dispatcher", "get_bind_dispatcher"]

#: The kinds of primitive, by how each output element depends on the inputs.
#: See :attr:`Primitive.kind`.
KINDS = ("elementwise", "broadcast", "reduction", "cumulative", "sort", "data_movement",
         "dot", "call", "control_flow", "other")
#: Kinds that only move or relabel data: no arithmetic at all.
_MOVING_KINDS = frozenset({"broadcast", "data_movement"})


class Primitive:
    """A named primitive operation. ``multiple_results`` primitives return a list.

    The keyword arguments state, once, what kind of operation it is (each is
    an attribute of the same name; see their descriptions below)::

        sin_p = Primitive("sin", kind="elementwise", transcendental=True)
        reduce_sum_p = Primitive("reduce_sum", kind="reduction", linear_in=(0,))
        concatenate_p = Primitive("concatenate", kind="data_movement", linear_in=(0, ...))
    """
    multiple_results = False
    #: May eager dispatch memoize this primitive's abstract eval, keyed by the
    #: input avals and params? True only for a *pure* rule (its result depends
    #: on nothing else); :func:`minijax.lax.base.standard_primitive` sets it.
    cache_abstract_eval = False

    #: How each output element depends on the inputs (one of :data:`KINDS`):
    #:
    #: - ``"elementwise"``: from the input elements at the *same index* only
    #:   (arithmetic, comparisons, ``select_n``, ``clamp``, ``convert_element_type``,
    #:   ``copy``, ``stop_gradient``, ``add_any``...). A compiler can compute a
    #:   chain of them in one loop, element by element (chapter 09's fusion);
    #: - ``"broadcast"``: elementwise with a remapped index (``broadcast_in_dim``
    #:   reads ``x[i, k]`` for ``out[i, j, k]``; ``iota`` is the index itself);
    #: - ``"reduction"``: one output element from many along ``axes``
    #:   (``reduce_sum``... ``argmax``, ``argmin``);
    #: - ``"cumulative"``: running reductions along one axis (``cumsum``...);
    #: - ``"sort"``: ``sort`` and ``top_k``;
    #: - ``"data_movement"``: outputs are input elements moved around, no
    #:   arithmetic (``reshape``, ``transpose``, ``slice``, ``gather``, ``concatenate``,
    #:   plain ``scatter``...);
    #: - ``"dot"``: ``dot_general``, the contraction a backend hands to BLAS;
    #: - ``"call"``: runs a jaxpr of its params as a function body, which a
    #:   compiler may inline (``jit``, ``remat2``, ``custom_jvp_call``...; also
    #:   ``name``, an identity);
    #: - ``"control_flow"``: ``cond``, ``while``, ``scan``;
    #: - ``"other"``: everything else (linear algebra, random bits, ``scatter-add``...).
    kind: str = "other"
    #: Does it only move or relabel data, with no arithmetic (the cost model
    #: counts no flops for it)? Derived from :attr:`kind` (``broadcast`` and
    #: ``data_movement``) unless the constructor says otherwise: a few elementwise
    #: primitives are data movement too (``convert_element_type``, ``copy``...).
    moves_data: bool = False
    #: Is it what XLA counts as a *transcendental* (``exp``, ``sin``, ``erf``...)?
    transcendental: bool = False
    #: The operand positions in which it is *linear* when the other operands
    #: are held fixed (``None``: not linear). ``reduce_sum`` is ``(0,)``,
    #: ``add`` ``(0, 1)``, ``div`` ``(0,)`` (linear in the numerator),
    #: ``dynamic_slice`` ``(0,)`` (its start indices are integers). A trailing
    #: ``...`` means "and every later operand" for primitives with any number of
    #: operands: ``concatenate`` is ``(0, ...)``, ``select_n`` ``(1, ...)``.
    #: Linear primitives get chapter 02's linear JVP rule (unless they define
    #: their own) and are the ones chapter 07 may give a linear transpose rule.
    linear_in: tuple | None = None
    #: Linear in each of its two operands, the other held fixed, but not in
    #: both together (``mul``, ``dot_general``): ``d(xy) = dx y + x dy``.
    bilinear: bool = False

    def __init__(self, name: str, *, multiple_results: bool = False, kind: str = "other",
                 moves_data: bool | None = None, transcendental: bool = False,
                 linear_in: tuple | None = None, bilinear: bool = False):
        if kind not in KINDS:
            raise ValueError(f"primitive {name}: kind must be one of {KINDS}, got {kind!r}")
        if linear_in is not None:
            linear_in = tuple(linear_in)
            fixed = linear_in[:-1] if linear_in and linear_in[-1] is Ellipsis else linear_in
            if not fixed or not all(isinstance(i, int) and i >= 0 for i in fixed):
                raise ValueError(f"primitive {name}: linear_in must be operand positions "
                                 f"(optionally ending in ...), got {linear_in!r}")
            if bilinear:
                raise ValueError(f"primitive {name}: bilinear primitives are not linear; "
                                 "give linear_in or bilinear, not both")
        self.name = name
        self.multiple_results = multiple_results
        self.kind = kind
        self.moves_data = kind in _MOVING_KINDS if moves_data is None else bool(moves_data)
        self.transcendental = transcendental
        self.linear_in = linear_in
        self.bilinear = bilinear
        _registry.append(self)

    def linear_argnums(self, num_operands: int) -> tuple[int, ...]:
        """The positions of :attr:`linear_in` for an application to ``num_operands`` operands
        (a trailing ``...`` expanded); ``()`` for a primitive that is not linear."""
        spec = self.linear_in
        if spec is None:
            return ()
        if spec[-1] is Ellipsis:
            fixed = spec[:-1]
            return fixed + tuple(range(fixed[-1] + 1, num_operands))
        return spec

    def bind(self, *args, **params):
        """Apply the primitive to ``args`` under the current interpretation."""
        return _dispatcher(self, args, params)

    def __repr__(self):
        return self.name


_registry: list[Primitive] = []



def all_primitives() -> list[Primitive]:
    """Every primitive created so far, in creation order."""
    return list(_registry)


def primitives_of_kind(*kinds: str) -> frozenset[Primitive]:
    """The primitives created so far whose :attr:`~Primitive.kind` is one of ``kinds``."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown primitive kinds {sorted(unknown)}; kinds are {KINDS}")
    return frozenset(p for p in _registry if p.kind in kinds)


def linear_primitives() -> frozenset[Primitive]:
    """The primitives created so far that are declared linear (``linear_in`` set)."""
    return frozenset(p for p in _registry if p.linear_in is not None)


# =============================================================================
# Rule tables, and where each rule is written
# =============================================================================
#: The package's parent directory: file names are shown relative to it.
_ROOT = Path(__file__).resolve().parent.parent


class RuleTable(dict):
    """A rule table: a plain dict ``primitive -> rule`` that also remembers,
    for each entry, *where it was registered* (for :func:`rules_of`).

    A rule made by a helper (``defjvp(sin_p, ...)``, ``unop("sin", ...)``) is a
    function defined inside the helper; the place that called the helper is
    the more useful answer to "where is sin's rule?". So each assignment
    records the nearest *module-level* statement among its few innermost
    callers (the ``sin_p = unop(...)`` line), or else its direct caller (a
    rule registered inside a function). This costs a few microseconds per
    registration, at import time; lookups are the dict's own.
    """

    def __init__(self, *args, **kwargs):
        super().__init__()
        #: primitive -> "file:line" of the statement that registered its rule
        self.registered_at: dict = {}
        self.update(*args, **kwargs)

    def __setitem__(self, key, value):
        self.registered_at[key] = _registration_site(sys._getframe(1))
        super().__setitem__(key, value)

    def update(self, *args, **kwargs):
        frame = sys._getframe(1)
        for key, value in dict(*args, **kwargs).items():
            self.registered_at[key] = _registration_site(frame)
            super().__setitem__(key, value)

    def setdefault(self, key, default=None):
        if key not in self:
            self.registered_at[key] = _registration_site(sys._getframe(1))
        return super().setdefault(key, default)

    def __delitem__(self, key):
        super().__delitem__(key)
        self.registered_at.pop(key, None)

    def pop(self, key, *default):
        self.registered_at.pop(key, None)
        return super().pop(key, *default)


def _registration_site(frame) -> str | None:
    """The nearest module-level frame from ``frame`` outwards (a few levels at most),
    else ``frame`` itself, as ``file:line``."""
    probe = frame
    for _ in range(6):
        if probe is None:
            break
        if probe.f_code.co_name == "<module>":
            return f"{_show_path(probe.f_code.co_filename)}:{probe.f_lineno}"
        probe = probe.f_back
    return f"{_show_path(frame.f_code.co_filename)}:{frame.f_lineno}"


#: primitive -> function(*numpy_arrays, **params) -> numpy array (or list of them)
impl_rules: dict[Primitive, Callable] = RuleTable()
#: primitive -> function(*ShapedArrays, **params) -> ShapedArray (or list of them)
abstract_eval_rules: dict[Primitive, Callable] = RuleTable()

#: table name -> rule table, in registration order (chapter order).
_rule_tables: dict[str, dict] = {}


def register_rule_table(name: str, table: dict) -> dict:
    """Make ``table`` (a dict keyed by :class:`Primitive`) known to :func:`rules_of` as ``name``.

    Every module that owns a rule table calls this once, next to the table:
    ``jvp_rules = register_rule_table("jvp", RuleTable())``. A :class:`RuleTable`
    also tells where each rule was registered; a plain dict works too. The
    values may be functions or objects (a lowering with a ``.fn``, a callable
    object). Returns ``table``.
    """
    old = _rule_tables.get(name)
    if old is not None and old is not table:
        raise ValueError(f"a different rule table is already registered as {name!r}")
    _rule_tables[name] = table
    return table


def rule_tables() -> dict[str, dict]:
    """The registered rule tables, ``{name: table}``, in registration order."""
    return dict(_rule_tables)


register_rule_table("impl", impl_rules)
register_rule_table("abstract_eval", abstract_eval_rules)


@dataclass(frozen=True)
class RuleSite:
    """Where one table's rule for a primitive is written.

    ``defined_at``: ``file:line`` of the ``def`` or ``lambda`` of the rule
    function (``None`` when it has no Python source, like a NumPy ufunc);
    ``registered_at``: ``file:line`` of the statement that put it in the
    table, when the table records it (a :class:`RuleTable`). Files are
    relative to the directory holding the ``minijax`` package.
    """
    table: str
    defined_at: str | None
    registered_at: str | None = None
    function: str = ""

    def __str__(self):
        where = self.defined_at or f"(no Python source: {self.function})"
        line = f"{self.table:<16}{where}"
        if self.registered_at and self.registered_at != self.defined_at:
            line += f"  (registered at {self.registered_at})"
        return line


class RulesOf(tuple):
    """The :class:`RuleSite` s of one primitive, one per table that has a rule for it.

    Prints as a readable list; ``rules["jvp"]`` is the site of the jvp rule.
    """

    def __new__(cls, primitive: Primitive, sites):
        self = super().__new__(cls, sites)
        self.primitive = primitive
        return self

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(site.table for site in self)

    def __getitem__(self, key):
        if isinstance(key, str):
            for site in self:
                if site.table == key:
                    return site
            raise KeyError(f"{self.primitive.name} has no {key} rule; it has {list(self.tables)}")
        return super().__getitem__(key)

    def __str__(self):
        return "\n".join([self.primitive.name, *(f"  {site}" for site in self)])

    __repr__ = __str__


def rules_of(p: Primitive | str) -> RulesOf:
    """Every registered rule table's rule for ``p`` (a primitive or its name), and where it is.

    For each table of :func:`rule_tables` that has an entry for ``p``: the
    table's name, where the rule *function* is defined and, for a
    :class:`RuleTable`, where it was registered::

        >>> print(rules_of("sin"))               # doctest: +SKIP
        sin
          impl            minijax/lax/base.py:186  (registered at minijax/lax/elementwise.py:457)
          abstract_eval   minijax/lax/base.py:65  (registered at minijax/lax/elementwise.py:457)
          jvp             minijax/interpreters/jvp_rules.py:190
          ...

    How a rule value is traced back to a function: a ``functools.partial``
    built by a helper (``defjvp``, ``deflinear2``) points at the function it
    wraps (the first one among its arguments, else the helper's); an object
    at its ``.fn``, else its ``__call__``, else its class. A closure returned
    by a helper points at the helper's inner function: the registration
    site then says which call made it.
    """
    prim = _find_primitive(p)
    sites = []
    for name, table in _rule_tables.items():
        if prim not in table:
            continue
        fn = _rule_function(table[prim])
        registered = getattr(table, "registered_at", {}).get(prim)
        sites.append(RuleSite(name, _defined_at(fn), registered, _describe(fn)))
    return RulesOf(prim, sites)


def _find_primitive(p) -> Primitive:
    if isinstance(p, Primitive):
        return p
    matches = [q for q in _registry if q.name == p]
    if not matches:
        raise KeyError(f"no primitive named {p!r}")
    return matches[0]


def _rule_function(value, depth: int = 0):
    """The Python function (or class) whose source is the rule ``value``."""
    if depth > 8:
        return value
    if isinstance(value, functools.partial):
        for arg in (*value.args, *value.keywords.values()):
            for item in (arg if isinstance(arg, (tuple, list)) else (arg,)):
                if inspect.isfunction(item) or isinstance(item, functools.partial):
                    return _rule_function(item, depth + 1)
        return _rule_function(value.func, depth + 1)
    if inspect.ismethod(value):
        return value.__func__
    if inspect.isfunction(value) or inspect.isbuiltin(value) or inspect.isclass(value):
        return inspect.unwrap(value) if inspect.isfunction(value) else value
    fn = getattr(value, "fn", None)
    if fn is not None:
        return _rule_function(fn, depth + 1)
    call = getattr(type(value), "__call__", None)
    if inspect.isfunction(call):
        return call
    return type(value)


def _defined_at(fn) -> str | None:
    """``file:line`` of ``fn``'s ``def``/``lambda``/``class`` line (past any decorators)."""
    try:
        lines, start = inspect.getsourcelines(fn)
        path = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        return None
    if path is None:
        return None
    for offset, text in enumerate(lines):
        if not text.lstrip().startswith("@"):
            break
    else:
        offset = 0
    return f"{_show_path(path)}:{max(start, 1) + offset}"


def _describe(fn) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name or type(fn).__name__


def _show_path(path: str) -> str:
    """``path`` relative to the package's parent directory (or to its ``sys.path`` entry,
    for an installed library): never an absolute path of this machine."""
    try:
        resolved = Path(path).resolve()
    except (OSError, ValueError):
        return Path(path).name
    try:
        return resolved.relative_to(_ROOT).as_posix()
    except ValueError:
        pass
    for entry in sorted((e for e in sys.path if e), key=len, reverse=True):
        try:
            return resolved.relative_to(Path(entry).resolve()).as_posix()
        except (ValueError, OSError):
            continue
    return resolved.name


def _no_dispatcher(prim, args, params):
    raise RuntimeError("no evaluator installed; import minijax first")


_dispatcher: Callable = _no_dispatcher


def set_bind_dispatcher(fn: Callable) -> Callable:
    """Install ``fn(prim, args, params)`` as what ``bind`` calls; return the old one."""
    global _dispatcher
    old, _dispatcher = _dispatcher, fn
    return old


def get_bind_dispatcher() -> Callable:
    return _dispatcher
