"""Chapter 05 — the Wadler-style document printer lays out as JAX's does.

Expected layouts were produced by JAX 0.10.2's ``jax._src.pretty_printer`` on
the same documents (``doc.format(width)``).
"""
from minijax import pretty_printer as pp

T = pp.text


def call(name, args):
    """``name(a, b, c)`` on one line, or one argument per line, indented by 2."""
    return pp.group(pp.concat([
        T(name + "("),
        pp.nest(2, pp.concat([pp.brk(""), pp.join(T(",") + pp.brk(), [T(a) for a in args])])),
        pp.brk(""), T(")")]))


LETS = pp.group(pp.concat([
    T("let"), pp.nest(2, pp.concat([pp.brk(), call("g", ["aa", "bb"]), pp.brk("; "),
                                    call("h", ["cc"])])),
    pp.brk(), T("in")]))


# expected values from JAX 0.10.2
def test_group_fits_on_one_line():
    assert call("f", ["x", "y"]).format(80) == "f(x, y)"
    assert str(call("f", ["x", "y"])) == "f(x, y)"  # str() uses width 80


def test_group_fits_exactly_at_the_width():
    doc = call("f", ["alpha", "beta", "gamma"])  # 21 columns flat
    assert doc.format(21) == "f(alpha, beta, gamma)"
    assert doc.format(20) == "f(\n  alpha,\n  beta,\n  gamma\n)"


def test_fit_is_measured_from_the_current_column():
    doc = T("xxxx") + call("f", ["alpha", "beta", "gamma"])
    assert doc.format(25) == "xxxxf(alpha, beta, gamma)"
    assert doc.format(24) == "xxxxf(\n  alpha,\n  beta,\n  gamma\n)"


def test_broken_group_lets_inner_groups_choose_again():
    assert LETS.format(80) == "let g(aa, bb); h(cc) in"
    assert LETS.format(20) == "let\n  g(aa, bb)\n  h(cc)\nin"


def test_text_after_a_group_does_not_count():
    doc = pp.group(T("a") + pp.brk() + T("b")) + T("c" * 100)
    assert doc.format(80) == "a b" + "c" * 100


def test_breaks_outside_any_group_are_newlines_with_nesting():
    assert (T("a") + pp.brk() + T("b")).format(80) == "a\nb"
    assert pp.nest(4, T("x") + pp.brk() + T("y")).format(80) == "x\n    y"


def test_nested_groups_and_indentation():
    inner = pp.group(T("yyy") + pp.brk() + T("z"))
    doc = pp.group(pp.nest(3, pp.concat([T("xxxxx"), pp.brk(), inner, pp.brk(), T("wwww")])))
    assert doc.format(10) == "xxxxx\n   yyy z\n   wwww"


def test_nil_and_empty_join():
    assert pp.join(pp.brk(), []).format(80) == ""
    assert (pp.nil() + T("q")).format(80) == "q"
