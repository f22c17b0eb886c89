"""Every chapter notebook runs top to bottom, and prints what it is committed with.

Each notebook ``notebooks/NN_*.ipynb`` is executed with nbclient (the same
code as ``make notebooks``: ``tools/run_notebooks.py``) and carries the marker
of its chapter, so ``pytest -m ch01`` runs chapter 01's notebook along with its
tests. A cell that raises fails the test with the cell's error.

The truth check: after the run, the text outputs of every cell tagged
``deterministic`` (stream text, ``text/plain``, an error's name and message;
addresses and generated module names masked) must equal the committed outputs,
so a notebook cannot show a reader something its code no longer prints.
Untagged cells (timings, pictures, anything that varies) are only run.

The last tests check the comparison itself on small notebooks built in memory
(no kernel).
"""
import copy
import importlib.util
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import run_notebooks  # noqa: E402  (tools/run_notebooks.py: make notebooks)

NOTEBOOKS = run_notebooks.notebook_paths()
REMEDY = "run `make notebooks`, re-read the cell, and commit"


def _param(path):
    chapter = re.match(r"(\d\d)_", path.name).group(1)
    marks = [getattr(pytest.mark, f"ch{chapter}"), pytest.mark.notebook]
    if chapter == "10" and importlib.util.find_spec("numba_cuda") is None:
        marks.append(pytest.mark.skip(reason="chapter 10 needs the cuda extra"))
    return pytest.param(path, id=path.stem, marks=marks)


def truth_failure(name, committed, executed):
    """Why a run of a notebook disagrees with its committed outputs, or None."""
    if not run_notebooks.has_outputs(committed):
        return (f"{name} ran top to bottom, but it is committed without outputs, so its "
                f"cells tagged {run_notebooks.DETERMINISTIC!r} cannot be checked: run "
                f"`make notebooks` (or `python tools/run_notebooks.py {name}`), read the "
                "outputs, and commit the notebook with them")
    problems = run_notebooks.compare(committed, executed, name)
    if problems:
        return "\n\n".join(problems) + f"\n\nA deterministic cell no longer prints what is committed: {REMEDY}."
    return None


@pytest.mark.parametrize("path", [_param(p) for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    committed = nbformat.read(path, as_version=4)
    executed = run_notebooks.execute(copy.deepcopy(committed), cwd=path.parent)
    failure = truth_failure(path.name, committed, executed)
    if failure:
        pytest.fail(failure, pytrace=False)


# --- the comparison, on notebooks built in memory -------------------------------------

def _cell(source, outputs=(), tagged=True):
    from nbformat import v4
    cell = v4.new_code_cell(source, metadata={"tags": ["deterministic"]} if tagged else {})
    cell.outputs = [v4.new_output(**out) for out in outputs]
    return cell


def _notebook(*cells):
    from nbformat import v4
    return v4.new_notebook(cells=[v4.new_markdown_cell("# A chapter"), *cells])


def _stdout(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def _result(text):
    return {"output_type": "execute_result", "data": {"text/plain": text}, "execution_count": 1}


def test_normalize_text_masks_what_varies_from_run_to_run():
    text = ("<function f at 0x7f3a2c>  \n"
            "import minijax_kernel_9f2e01 as k; minijax_helpers_ab12\n"
            "while tracing relu at /some/temp/ipykernel_4140/3515603270.py:3\n\n")
    assert run_notebooks.normalize_text(text) == (
        "<function f at 0x...>\n"
        "import minijax_kernel_... as k; minijax_helpers_...\n"
        "while tracing relu at <ipykernel>/3515603270.py:3")
    # what does not vary is kept
    assert run_notebooks.normalize_text("Array([1., 2.], dtype=float32)") == "Array([1., 2.], dtype=float32)"


def test_committed_outputs_carry_no_machine_paths():
    """The repository's own files relative, the cell's temporary file named
    ``<ipykernel>``, in every text field of every output that is written back."""
    nbformat = pytest.importorskip("nbformat")
    root = str(run_notebooks.ROOT)
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stderr",
                               text=f'  File "{root}/minijax/callback.py", line 3\n'),
        nbformat.v4.new_output("error", ename="TypeError", evalue="at /tmp/ipykernel_7/12.py:3",
                               traceback=[f"{root}/minijax/jit.py", "plain"]),
        nbformat.v4.new_output("execute_result", data={"text/plain": f"'{root}/notebooks'"}),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    out = run_notebooks.normalize(nb).cells[0].outputs
    assert out[0]["text"] == '  File "minijax/callback.py", line 3\n'
    assert out[1]["evalue"] == "at <ipykernel>/12.py:3"
    assert out[1]["traceback"] == ["minijax/jit.py", "plain"]
    assert out[2]["data"]["text/plain"] == "'notebooks'"


def test_cell_text_joins_each_stream_and_keeps_results_in_order():
    pytest.importorskip("nbformat")
    cell = _cell("f()", [_stdout("a\n"), {"output_type": "stream", "name": "stderr", "text": "w\n"},
                         {"output_type": "display_data", "data": {"text/plain": "<Figure>", "image/png": "iVBO"}},
                         _stdout("b\n"), _result("3"),
                         {"output_type": "error", "ename": "TypeError", "evalue": "bad", "traceback": ["/x.py"]}])
    assert run_notebooks.cell_text(cell) == (
        "[stdout]\na\nb\n[stderr]\nw\n[display_data]\n<Figure>\n[execute_result]\n3\n[error]\nTypeError: bad")


def test_same_outputs_up_to_addresses_pass():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("print(f)", [_stdout("<f at 0x7f00>\n")]))
    executed = _notebook(_cell("print(f)", [_stdout("<f at 0x5500>   \n")]))
    assert run_notebooks.compare(committed, executed, "05_x.ipynb") == []
    assert truth_failure("05_x.ipynb", committed, executed) is None


def test_a_changed_output_is_caught_with_notebook_cell_and_first_line():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("x = 1\nprint(x + 1)", [_stdout("2\n")]))
    executed = _notebook(_cell("x = 1\nprint(x + 1)", [_stdout("3\n")]))
    failure = truth_failure("05_x.ipynb", committed, executed)
    assert "05_x.ipynb, cell 1 ('x = 1')" in failure
    assert "-2" in failure.splitlines() and "+3" in failure.splitlines()
    assert REMEDY in failure


def test_a_changed_result_or_error_is_caught():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("y", [_result("Array(1., dtype=float32)")]))
    executed = _notebook(_cell("y", [_result("Array(1., dtype=float64)")]))
    assert len(run_notebooks.compare(committed, executed, "nb")) == 1
    err = {"output_type": "error", "ename": "TypeError", "evalue": "bad", "traceback": []}
    committed = _notebook(_cell("g()", [err]))
    executed = _notebook(_cell("g()", [dict(err, evalue="worse")]))
    assert len(run_notebooks.compare(committed, executed, "nb")) == 1


def test_an_untagged_cell_is_ignored():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("t()", [_stdout("1.5 ms\n")], tagged=False),
                          _cell("print(2)", [_stdout("2\n")]))
    executed = _notebook(_cell("t()", [_stdout("0.9 ms\n")], tagged=False),
                         _cell("print(2)", [_stdout("2\n")]))
    assert run_notebooks.compare(committed, executed, "nb") == []


def test_a_tagged_cell_without_committed_outputs_fails():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("print(1)", [_stdout("1\n")]), _cell("print(2)"))
    executed = _notebook(_cell("print(1)", [_stdout("1\n")]), _cell("print(2)", [_stdout("2\n")]))
    (problem,) = run_notebooks.compare(committed, executed, "nb")
    assert "cell 2 ('print(2)')" in problem and "no committed outputs" in problem
    # a tagged cell that prints nothing is pointless: it is reported too
    committed = _notebook(_cell("print(1)", [_stdout("1\n")]), _cell("x = 2"))
    executed = _notebook(_cell("print(1)", [_stdout("1\n")]), _cell("x = 2"))
    (problem,) = run_notebooks.compare(committed, executed, "nb")
    assert "prints nothing" in problem


def test_a_notebook_committed_without_any_output_asks_for_make_notebooks():
    pytest.importorskip("nbformat")
    committed = _notebook(_cell("print(1)"), _cell("print(2)", tagged=False))
    executed = _notebook(_cell("print(1)", [_stdout("1\n")]), _cell("print(2)", [_stdout("2\n")]))
    failure = truth_failure("13_random.ipynb", committed, executed)
    assert "committed without outputs" in failure and "`make notebooks`" in failure
    assert "cell 1" not in failure  # one message for the notebook, not one per cell


def test_normalize_numbers_cells_and_drops_run_metadata():
    pytest.importorskip("nbformat")
    nb = _notebook(_cell("a", [_result("1")]), _cell("b", tagged=False), _cell("c", [_result("3")]))
    for count, cell in zip((5, 9, 12), nb.cells[1:]):
        cell.execution_count = count
        cell.metadata["execution"] = {"iopub.execute_input": "2026-01-01T00:00:00"}
    nb.metadata["widgets"] = {"state": {}}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    run_notebooks.normalize(nb)
    assert [c.execution_count for c in nb.cells[1:]] == [1, 2, 3]
    assert [c.outputs[0].execution_count for c in nb.cells[1:] if c.outputs] == [1, 3]
    assert all("execution" not in c.metadata for c in nb.cells)
    assert "widgets" not in nb.metadata and nb.metadata["language_info"] == {"name": "python"}
    run_notebooks.clear(nb)
    assert not run_notebooks.has_outputs(nb)
    assert all(c.execution_count is None for c in nb.cells[1:])


def test_notebook_paths_by_number_stem_or_path():
    names = [p.name for p in NOTEBOOKS]
    assert names == sorted(names) and len(names) == len(set(n[:2] for n in names))
    assert run_notebooks.notebook_paths(["04"]) == [p for p in NOTEBOOKS if p.name.startswith("04_")]
    first = NOTEBOOKS[0]
    assert run_notebooks.notebook_paths([f"notebooks/{first.name}"]) == [first]
    assert run_notebooks.notebook_paths([first.stem]) == [first]
    with pytest.raises(SystemExit):
        run_notebooks.notebook_paths(["99"])
