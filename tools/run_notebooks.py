"""Execute the chapter notebooks and write them back with their outputs.

``make notebooks`` runs this script: every ``notebooks/NN_*.ipynb`` is executed
top to bottom in a fresh Jupyter kernel (nbclient), with ``notebooks/`` as the
working directory, matplotlib's inline backend (headless: figures become PNG
outputs) and this repository first on the kernel's ``PYTHONPATH`` (so the
kernel imports this tree's ``minijax``), and written back
with its outputs, normalized so that two runs differ only where the outputs
really differ:

- no execution timestamps (``metadata.execution``) and no widget state;
- execution counts 1, 2, 3... in cell order;
- consecutive stream outputs merged, as a reader sees them;
- the kernel's ``language_info`` without the Python version.

A notebook in which a cell raises is left unchanged, the others are written,
and the script exits with status 1 (tag a cell ``raises-exception`` when the
error is what it shows).

Usage::

    python tools/run_notebooks.py                 # every chapter notebook
    python tools/run_notebooks.py 04 09_numba_cpu # some: a chapter number, stem or path
    python tools/run_notebooks.py --clear         # strip every output instead

``tests/test_notebooks.py`` imports ``execute`` from here, and compares the
text of the cells tagged ``deterministic`` (``cell_text``) with the committed
outputs.
"""
from __future__ import annotations

import argparse
import copy
import os
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
DETERMINISTIC = "deterministic"
CELL_TIMEOUT = 600  # seconds per cell: the slowest cells compile kernels on a busy machine


def notebook_paths(names=()):
    """The chapter notebooks in order, or those named (``04``, ``04_vmap``, a path)."""
    every = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
    if not names:
        return every
    chosen = []
    for name in names:
        stem = pathlib.Path(name).name.removesuffix(".ipynb")
        found = [p for p in every if p.stem == stem or p.stem.startswith(stem + "_")]
        if len(found) != 1:
            raise SystemExit(f"no single chapter notebook matches {name!r}")
        chosen += found
    return chosen


# Matplotlib's inline backend: no window (it draws with Agg), and every figure a
# cell shows (``plt.show()``, a Figure as the cell's value) becomes a PNG output.
# Plain "Agg" would draw nothing into the notebook.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def kernel_env():
    """The kernel's environment: inline plots, and this repository's minijax first."""
    env = dict(os.environ, MPLBACKEND=INLINE_BACKEND)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def execute(nb, cwd=NOTEBOOK_DIR, timeout=CELL_TIMEOUT):
    """Run a notebook (an ``nbformat`` node) top to bottom in place; return it.

    Raises ``nbclient.exceptions.CellExecutionError`` on the first cell that
    raises (unless the cell is tagged ``raises-exception``).
    """
    import nbclient

    client = nbclient.NotebookClient(
        nb, timeout=timeout, kernel_name="python3", record_timing=False,
        coalesce_streams=True, resources={"metadata": {"path": str(cwd)}})
    client.execute(env=kernel_env())
    return nb


def normalize(nb):
    """Strip what changes from run to run without being output, and this
    machine's paths from the outputs (:func:`scrub_paths`); return ``nb``."""
    nb.metadata.pop("widgets", None)
    nb.metadata.get("language_info", {}).pop("version", None)
    count = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if out.output_type == "execute_result":
                    out.execution_count = count
                out.get("metadata", {}).pop("application/vnd.jupyter.widget-view+json", None)
                out.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
                _scrub_output(out)
    return nb


def clear(nb):
    """Remove every output and execution count; return ``nb``."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    return nb


# --- the text a deterministic cell must keep ------------------------------------------

#: Paths of the machine that ran the notebook, as a reader's copy shows them:
#: the repository's files relative to it, the home folder as ``~``, and a
#: function defined in a cell ("relu at /some/temp/ipykernel_4140/35152.py:3")
#: in ``<ipykernel>/``. Committed outputs carry no machine's paths.
_PATHS = [
    (re.compile(re.escape(str(ROOT)) + r"[/\\]"), ""),
    *([(re.compile(re.escape(os.path.expanduser("~")) + r"(?=[/\\])"), "~")]
      if os.path.expanduser("~") not in ("", "/", "~") else []),
    (re.compile(r"\S*ipykernel_\d+[/\\]"), "<ipykernel>/"),
]

_VOLATILE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x..."),                       # addresses
    (re.compile(r"minijax_(helpers|kernel)_[0-9a-f]+"), r"minijax_\1_..."),  # module names
    *_PATHS,
]


def scrub_paths(text):
    """``text`` without this machine's paths (see :data:`_PATHS`)."""
    for pattern, repl in _PATHS:
        text = pattern.sub(repl, text)
    return text


def _scrub_output(out):
    """An output's text fields, list or string, with :func:`scrub_paths` applied."""
    def scrub(value):
        if isinstance(value, list):
            return [scrub_paths(v) if isinstance(v, str) else v for v in value]
        return scrub_paths(value) if isinstance(value, str) else value
    if "text" in out:
        out["text"] = scrub(out["text"])
    for key in ("evalue",):
        if key in out:
            out[key] = scrub(out[key])
    if "traceback" in out:
        out["traceback"] = scrub(out["traceback"])
    for mime, value in out.get("data", {}).items():
        if mime.startswith("text/"):
            out["data"][mime] = scrub(value)


def normalize_text(text):
    """Text with addresses, generated module names and the kernel's temporary
    folder masked, lines right-stripped."""
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n")


def _joined(value):
    return "".join(value) if isinstance(value, list) else (value or "")


def cell_text(cell):
    """A code cell's outputs as the text a truth check compares.

    Stream text joined per stream (``stdout``, ``stderr``), then the
    ``text/plain`` of each result or display in order, then any error's name
    and message (not its traceback, which holds file paths). Images are not
    compared. Normalized by ``normalize_text``.
    """
    streams, rest = {}, []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            streams[out.get("name", "stdout")] = streams.get(out.get("name", "stdout"), "") + _joined(out.get("text"))
        elif kind in ("execute_result", "display_data"):
            plain = out.get("data", {}).get("text/plain")
            if plain is not None:
                rest.append(f"[{kind}]\n{_joined(plain)}")
        elif kind == "error":
            rest.append(f"[error]\n{out.get('ename')}: {out.get('evalue')}")
    parts = [f"[{name}]\n{text}" for name, text in streams.items()] + rest
    return normalize_text("\n".join(part.rstrip("\n") for part in parts))


def is_deterministic(cell):
    return cell.cell_type == "code" and DETERMINISTIC in cell.get("metadata", {}).get("tags", [])


def has_outputs(nb):
    """Whether any code cell of the notebook carries outputs."""
    return any(c.cell_type == "code" and c.get("outputs") for c in nb.cells)


def compare(committed, executed, name="notebook"):
    """Differences between the deterministic cells of two runs of one notebook.

    ``committed`` is the notebook as committed, ``executed`` the same notebook
    after a fresh run. Returns a list of readable messages, one per cell that
    differs (empty when every deterministic cell prints what is committed).
    Untagged cells are ignored. A tagged cell with no committed outputs is
    reported too, so a tagged cell cannot pass by never having been recorded.
    """
    import difflib

    problems = []
    if len(committed.cells) != len(executed.cells):
        return [f"{name}: {len(committed.cells)} cells committed, {len(executed.cells)} executed"]
    for index, (old, new) in enumerate(zip(committed.cells, executed.cells)):
        if not is_deterministic(old):
            continue
        first = _joined(old.source).strip().splitlines()[:1] or [""]
        where = f"{name}, cell {index} ({first[0]!r})"
        want, got = cell_text(old), cell_text(new)
        if not old.get("outputs"):
            if got:
                problems.append(f"{where}: tagged {DETERMINISTIC!r} but has no committed outputs")
            else:
                problems.append(f"{where}: tagged {DETERMINISTIC!r} but prints nothing; untag it")
        elif want != got:
            diff = difflib.unified_diff(want.splitlines(), got.splitlines(),
                                        "committed", "this run", lineterm="")
            problems.append(f"{where}: the output changed\n" + "\n".join(diff))
    return problems


def run(path):
    """Execute one notebook file and write it back with normalized outputs."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    executed = normalize(execute(copy.deepcopy(nb), cwd=path.parent))
    nbformat.write(executed, path)


def main(argv=None):
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks: chapter number, stem or path (default: all)")
    parser.add_argument("--clear", action="store_true", help="strip the outputs instead of running")
    args = parser.parse_args(argv)
    failed = []
    for path in notebook_paths(args.names):
        if args.clear:
            nbformat.write(clear(nbformat.read(path, as_version=4)), path)
            print(f"cleared {path.relative_to(ROOT)}")
            continue
        start = time.perf_counter()
        print(f"running {path.relative_to(ROOT)} ...", end=" ", flush=True)
        try:
            run(path)
        except Exception as err:  # a cell raised: report it, keep the file, go on
            print(f"FAILED\n{err}", flush=True)
            failed.append(path.name)
            continue
        print(f"{time.perf_counter() - start:.0f} s", flush=True)
    if failed:
        print("not written (a cell raised): " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
