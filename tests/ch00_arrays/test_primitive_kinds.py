"""What kind of primitive each one is, stated where it is made, and ``rules_of``.

A primitive's ``kind``, ``moves_data``, ``transcendental``, ``linear_in`` and
``bilinear`` are set by its constructor; the rule tables of later chapters
register themselves, and ``rules_of`` says which have a rule for a primitive
and where that rule is written.
"""
import re
from pathlib import Path

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax import primitives
from minijax.primitives import KINDS, Primitive, all_primitives, primitives_of_kind, rules_of

ROOT = Path(minijax.__file__).resolve().parent.parent


# --- kinds -------------------------------------------------------------------------------------
def test_known_primitives_have_their_kind():
    assert lax.sin_p.kind == "elementwise" and lax.sin_p.transcendental
    assert not lax.sin_p.moves_data and lax.sin_p.linear_in is None
    assert lax.add_p.kind == "elementwise" and not lax.add_p.transcendental
    assert lax.reshape_p.kind == "data_movement" and lax.reshape_p.moves_data
    assert lax.broadcast_in_dim_p.kind == "broadcast" and lax.broadcast_in_dim_p.moves_data
    assert lax.reduce_sum_p.kind == "reduction" and lax.reduce_sum_p.linear_in == (0,)
    assert lax.reduce_max_p.kind == "reduction" and lax.reduce_max_p.linear_in is None
    assert lax.cumsum_p.kind == "cumulative" and lax.sort_p.kind == "sort"
    dot_general_p = minijax.lax.dot_general_p
    assert dot_general_p.kind == "dot" and dot_general_p.bilinear
    assert dot_general_p.linear_in is None
    # elementwise, but no arithmetic: the cost model counts no flops for them
    assert lax.convert_element_type_p.kind == "elementwise"
    assert lax.convert_element_type_p.moves_data
    assert not lax.exp_p.moves_data


def test_kinds_partition_the_primitives():
    everything = set(all_primitives())
    parts = [primitives_of_kind(k) for k in KINDS]
    assert set().union(*parts) == everything
    assert sum(len(p) for p in parts) == len(everything)
    assert primitives_of_kind("reduction", "cumulative") == (
        primitives_of_kind("reduction") | primitives_of_kind("cumulative"))
    with pytest.raises(ValueError, match="unknown primitive kinds"):
        primitives_of_kind("elementwize")


def test_variadic_linear_positions():
    assert lax.concatenate_p.linear_argnums(3) == (0, 1, 2)
    assert lax.select_n_p.linear_argnums(3) == (1, 2)   # ``which`` is not linear
    assert lax.dynamic_slice_p.linear_argnums(3) == (0,)  # nor are start indices
    assert lax.sin_p.linear_argnums(1) == ()


def test_a_bad_declaration_is_refused_and_not_registered():
    before = len(all_primitives())
    with pytest.raises(ValueError, match="kind must be one of"):
        Primitive("bogus", kind="elementwize")
    with pytest.raises(ValueError, match="linear_in"):
        Primitive("bogus", linear_in=(-1,))
    with pytest.raises(ValueError, match="not both"):
        Primitive("bogus", linear_in=(0,), bilinear=True)
    assert len(all_primitives()) == before


def _apply(prim, *args):
    try:
        return np.asarray(prim.bind(*args))
    except (TypeError, ValueError, KeyError):
        return None  # needs parameters, or another dtype: not this test's business


def test_elementwise_primitives_commute_with_a_permutation():
    """``kind="elementwise"``: each output element depends only on the inputs at its
    index, so permuting the inputs permutes the output the same way."""
    x = np.array([0.25, -1.5, 3.0, 0.75, -0.5, 2.0], np.float32)
    y = np.array([1.5, 0.5, -2.0, 4.0, 0.125, -3.0], np.float32)
    i, j = np.array([5, -3, 12, 0, 7, -8], np.int32), np.array([1, 2, 3, 1, 0, 2], np.int32)
    perm = np.array([3, 0, 5, 1, 4, 2])
    checked = []
    for prim in sorted(primitives_of_kind("elementwise"), key=lambda p: p.name):
        for args in ((x,), (x, y), (y, x, y + 1), (i,), (i, j)):
            out = _apply(prim, *args)
            if out is None or out.shape != x.shape:
                continue
            permuted = _apply(prim, *(a[perm] for a in args))
            np.testing.assert_array_equal(permuted, out[perm], err_msg=prim.name)
            checked.append(prim.name)
    assert {"sin", "exp", "neg", "add", "mul", "lt", "atan2", "copy", "clamp", "and",
            "shift_left", "population_count"} <= set(checked)


def test_data_movement_creates_no_new_values():
    """``moves_data``: the outputs are input values moved around, no arithmetic."""
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3) / 7
    cases = {
        lax.reshape_p: lambda: lax.reshape(x, (3, 2)),
        lax.transpose_p: lambda: lax.transpose(x, (1, 0)),
        lax.rev_p: lambda: lax.rev(x, (0,)),
        lax.slice_p: lambda: lax.slice(x, (0, 1), (2, 3)),
        lax.broadcast_in_dim_p: lambda: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
        lax.concatenate_p: lambda: lax.concatenate([x, x], 1),
        lax.dynamic_slice_p: lambda: lax.dynamic_slice(x, (np.int32(1), np.int32(0)), (1, 2)),
    }
    for prim, fn in cases.items():
        assert prim.moves_data, prim
        assert set(np.asarray(fn()).ravel()) <= set(x.ravel()), prim
    assert not lax.reduce_sum_p.moves_data and not lax.add_p.moves_data


# --- rules_of ----------------------------------------------------------------------------------
def _line(where: str) -> str:
    path, line = where.rsplit(":", 1)
    assert not Path(path).is_absolute(), where
    file = ROOT / path
    assert file.is_file(), where
    return file.read_text().splitlines()[int(line) - 1]


def test_rules_of_lists_every_table_with_a_rule():
    rules = rules_of(lax.sin_p)
    assert rules.tables[:2] == ("impl", "abstract_eval")
    assert {"jvp", "batching"} <= set(rules.tables)  # the tables of chapters 02 and 04
    assert "transpose" not in rules.tables  # sin is not linear
    assert str(rules_of("sin")) == str(rules)
    for site in rules:
        assert site.defined_at is not None, site
        assert re.search(r"\bdef\b|\blambda\b", _line(site.defined_at)), site
    # a rule made by a helper (unop) also says which line made it
    assert "sin_p" in _line(rules["impl"].registered_at)
    assert "sin" in _line(rules["jvp"].defined_at)  # defjvp(lax.sin_p, lambda ...)


def test_rules_of_prints_one_line_per_table():
    text = str(rules_of(lax.reduce_sum_p))
    lines = text.splitlines()
    assert lines[0] == "reduce_sum"
    assert [line.split()[0] for line in lines[1:]] == list(rules_of("reduce_sum").tables)
    assert "transpose" in rules_of("reduce_sum").tables
    assert str(ROOT) not in text and "minijax/" in text
    with pytest.raises(KeyError):
        rules_of("no_such_primitive")
    with pytest.raises(KeyError):
        rules_of(lax.sin_p)["transpose"]


class _Lowering:
    def __init__(self, fn):
        self.fn = fn


class _CallableRule:
    def __call__(self, *args, **params):
        return None


class _Opaque:
    pass


def _lower_sin(ctx, x):
    return x


def test_rules_of_resolves_rule_objects(monkeypatch):
    """A table may hold objects (a lowering with ``.fn``, a callable object): each
    still resolves to where its code is written."""
    for value, expected in [(_Lowering(_lower_sin), "def _lower_sin"),
                            (_CallableRule(), "def __call__"),
                            (_Opaque(), "class _Opaque")]:
        monkeypatch.setitem(primitives._rule_tables, "lowering[test]", {lax.sin_p: value})
        site = rules_of(lax.sin_p)["lowering[test]"]
        assert site.defined_at.startswith("tests/ch00_arrays/test_primitive_kinds.py:")
        assert expected in _line(site.defined_at)


def test_register_rule_table_refuses_a_second_table_of_one_name():
    with pytest.raises(ValueError, match="already registered"):
        primitives.register_rule_table("impl", {})
    assert primitives.register_rule_table("impl", primitives.impl_rules) is primitives.impl_rules
