"""Chapter 00's import knot stays untied.

``devices`` is the device model and nothing else: it imports no other minijax
module, not even inside a function. The data-moving API (``device_put``,
``device_get``, ``block_until_ready``) lives in ``transfers``, which comes
after ``array`` and ``dispatch``. So ``devices``, ``buffers``, ``dispatch``
and ``transfers`` sit on no import cycle: the graph below is read from the
source with ``ast`` (top-level *and* function-level imports, plus
``importlib.import_module("minijax....")`` calls with a literal name).
"""
import ast
import importlib
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import minijax
from minijax._chapters import ASSEMBLY, MODULES
from tests.test_layering import _imported_modules

ROOT = pathlib.Path(__file__).resolve().parents[2] / "minijax"
KNOT = ["minijax.devices", "minijax.buffers", "minijax.dispatch", "minijax.transfers"]


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict:
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _imports(path: pathlib.Path, name: str, known) -> set:
    """The minijax modules that the source of ``name`` imports, anywhere in the file:
    its import statements (read as ``tests/test_layering.py`` reads them) and its
    ``importlib.import_module("minijax....")`` calls with a literal name."""
    found = set(_imported_modules(path, name))
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
    out = set()
    for module in found:
        if not (module == "minijax" or module.startswith("minijax.")):
            continue
        while module not in known and "." in module:  # ``minijax.x.attr`` -> ``minijax.x``
            module = module.rpartition(".")[0]
        # importing ``minijax.a.b`` first runs the package ``minijax.a``
        # (the root package is the assembly point: it imports everything, and is left out)
        parts = module.split(".")
        out.update(".".join(parts[:k]) for k in range(2, len(parts) + 1))
    out.discard(name)
    out.discard(ASSEMBLY)
    return out


def _graph() -> dict:
    sources = _sources()
    return {name: _imports(path, name, sources) for name, path in sources.items()}


def _cycle_through(graph: dict, start: str):
    """A shortest import cycle ``start -> ... -> start``, or None."""
    parent = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for succ in sorted(graph.get(node, ())):
                if succ == start:  # walk back from ``node`` to ``start``
                    path = [node]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])
                    return path[::-1] + [start]
                if succ not in parent:
                    parent[succ] = node
                    nxt.append(succ)
        frontier = nxt
    return None


@pytest.mark.parametrize("module", KNOT)
def test_the_modules_are_chapter_00_and_import(module):
    assert MODULES[module] == 0
    importlib.import_module(module)


def test_devices_imports_no_other_minijax_module():
    path = ROOT / "devices.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for node in ast.walk(tree):  # every import, at any depth
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] == "minijax"]
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] == "minijax":
                bad.append("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            bad.append(ast.unparse(node))
    assert not bad, f"minijax/devices.py imports {bad}"
    assert _graph()["minijax.devices"] == set()


def test_devices_loads_on_its_own():
    """Run the file alone: it must leave no minijax module (and at most NumPy) behind."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('devices_alone', {str(ROOT / 'devices.py')!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert [repr(d) for d in m.devices()] == ['CpuDevice(id=0)']\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] == 'minijax'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_graph_sees_function_level_imports():
    """The reader finds imports inside functions (``runtime.streams.hold`` has one)."""
    assert "minijax.devices" in _graph()["minijax.runtime.streams"]


@pytest.mark.parametrize("module", KNOT)
def test_no_import_cycle_passes_through(module):
    cycle = _cycle_through(_graph(), module)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_data_moving_api_lives_in_transfers():
    devices_module = importlib.import_module("minijax.devices")
    transfers = importlib.import_module("minijax.transfers")
    for name in ["device_put", "device_get", "block_until_ready", "set_transfer_hook"]:
        assert not hasattr(devices_module, name), name
        assert getattr(transfers, name) is not None
    for name in ["device_put", "device_get", "block_until_ready"]:
        assert getattr(minijax, name) is getattr(transfers, name)


def test_device_put_and_device_get_behave_as_jax():
    x = minijax.device_put(np.arange(3.0))
    assert isinstance(x, minijax.Array)
    assert x.device == minijax.devices()[0] and x.devices() == {minijax.devices()[0]}
    assert x.dtype == np.float32 and not x.aval.weak_type
    y = minijax.device_put(x, minijax.devices()[0])
    assert y is x  # already there: the same array
    got = minijax.device_get(x)
    assert type(got) is np.ndarray and got.dtype == np.float32
    np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])
    assert minijax.block_until_ready(x) is x
