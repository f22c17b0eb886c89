"""Rule coverage: every primitive has an entry in every rule table that applies.

Each transformation owns one table keyed by primitive. This test lists, for
every primitive, the tables that lack it, and fails unless the absence is
listed below *with a reason* (as ``floor`` has no transpose rule: it is not
linear). Later chapters add their tables to ``TABLES``.
"""
import pytest

import minijax  # noqa: F401  (registers every primitive)
from minijax.interpreters.ad import jvp_rules
from minijax.interpreters.batching import batching_rules
from minijax.primitives import abstract_eval_rules, all_primitives, impl_rules

#: table name -> (table, {primitive name: reason it has no rule})
TABLES = {
    "impl": (impl_rules, {}),
    "abstract_eval": (abstract_eval_rules, {}),
    "jvp": (jvp_rules, {
        "nextafter": "not differentiable in JAX either (JAX 0.10.2 raises NotImplementedError)",
    }),
    "batching": (batching_rules, {}),
}


def _primitive_ids():
    return [p.name for p in all_primitives()]


def test_primitive_names_are_unique():
    names = _primitive_ids()
    dups = sorted({n for n in names if names.count(n) > 1})
    assert not dups, f"two primitives share a name: {dups}"


@pytest.mark.parametrize("table_name", list(TABLES))
def test_every_primitive_has_a_rule(table_name):
    table, exempt = TABLES[table_name]
    missing = [p.name for p in all_primitives() if p not in table and p.name not in exempt]
    assert not missing, f"primitives without a {table_name} rule: {missing}"


@pytest.mark.parametrize("table_name", list(TABLES))
def test_exemptions_name_real_primitives(table_name):
    _, exempt = TABLES[table_name]
    unknown = sorted(set(exempt) - set(_primitive_ids()))
    assert not unknown, f"{table_name} exempts unknown primitives: {unknown}"
    assert all(reason.strip() for reason in exempt.values())
