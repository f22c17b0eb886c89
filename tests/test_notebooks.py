"""Every chapter notebook runs top to bottom in a real Jupyter kernel.

Each notebook ``notebooks/NN_*.ipynb`` is executed with nbclient and carries
the marker of its chapter, so ``pytest -m ch01`` runs chapter 01's notebook
along with its tests. A cell that raises fails the test with the cell's error.
"""
import importlib.util
import pathlib
import re

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _param(path):
    chapter = re.match(r"(\d\d)_", path.name).group(1)
    marks = [getattr(pytest.mark, f"ch{chapter}"), pytest.mark.notebook]
    if chapter == "10" and importlib.util.find_spec("numba_cuda") is None:
        marks.append(pytest.mark.skip(reason="chapter 10 needs the cuda extra"))
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
