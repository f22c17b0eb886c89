"""Every exercise's check fails on its stub and passes with its solution.

For each chapter folder ``exercises/chNN/``, its checks run twice in a fresh
Python (the exercises register rules into the interpreter, so each run gets
its own process): on the reader's stubs, where every check file must have a
failing test, and on the solutions (``MINIJAX_EXERCISE_SOLUTIONS=1``), where
every test must pass. A check that passes on a stub checks nothing.
"""
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (ROOT / "exercises").glob("ch[0-9][0-9]") if any(p.glob("test_ex*.py")))


def _run(folder: pathlib.Path, solutions: bool, tmp_path) -> dict:
    """``{check file: [outcome of each test]}`` from one pytest run of ``folder``."""
    report = tmp_path / ("solutions.xml" if solutions else "stubs.xml")
    env = dict(os.environ, MINIJAX_EXERCISE_SOLUTIONS="1" if solutions else "0", MPLBACKEND="Agg")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={report}", str(folder)],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    outcomes: dict = {}
    for case in ET.parse(report).iter("testcase"):
        file = case.get("file") or case.get("classname", "").split(".")[-1] + ".py"
        name = pathlib.Path(file).name
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        outcomes.setdefault(name, []).append("failed" if failed else "skipped" if skipped else "passed")
    return outcomes


@pytest.mark.parametrize("folder", [pytest.param(p, id=p.name, marks=getattr(pytest.mark, p.name))
                                    for p in CHAPTERS])
def test_checks_fail_on_stubs_and_pass_with_solutions(folder, tmp_path):
    checks = sorted(p.name for p in folder.glob("test_ex*.py"))
    with_solutions = _run(folder, True, tmp_path)
    for check in checks:
        assert with_solutions.get(check), f"{check}: no test ran with the solution"
        assert set(with_solutions[check]) == {"passed"}, \
            f"{check} does not pass with its solution: {with_solutions[check]}"
    on_stubs = _run(folder, False, tmp_path)
    for check in checks:
        assert "failed" in on_stubs.get(check, []), \
            f"{check} passes on the unmodified stub: it checks nothing"
