"""Staging is a property of the code: chapter k never imports chapter k+1.

Reads the chapter map (``minijax/_chapters.py``) and every module's imports
(top-level and inside functions, found with ``ast``), and fails when a module
imports a module of a later chapter, imports the top-level ``minijax``
package (which assembles every chapter), or is missing from the map.
"""
import ast
import pathlib

import pytest

from minijax._chapters import ASSEMBLY, MODULES

ROOT = pathlib.Path(__file__).resolve().parents[1] / "minijax"


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _all_modules():
    return sorted(_module_name(p) for p in ROOT.rglob("*.py"))


def _imported_modules(path: pathlib.Path, name: str):
    """Every minijax module that ``path`` imports, resolved to names in the map."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield candidate if candidate in MODULES else base


def _chapter_of(module: str):
    if module == ASSEMBLY:
        return None
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return MODULES.get(module)


def test_every_module_is_in_the_chapter_map():
    missing = [m for m in _all_modules() if m != ASSEMBLY and m not in MODULES]
    assert not missing, f"modules missing from minijax/_chapters.py: {missing}"


def test_the_map_lists_no_ghost_modules():
    ghosts = sorted(set(MODULES) - set(_all_modules()))
    assert not ghosts, f"minijax/_chapters.py lists modules that do not exist: {ghosts}"


@pytest.mark.parametrize("module", [m for m in _all_modules() if m != ASSEMBLY])
def test_no_module_imports_a_later_chapter(module):
    path = ROOT.parent / (module.replace(".", "/"))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    own = MODULES[module]
    bad = []
    for imported in _imported_modules(path, module):
        if not imported.startswith("minijax"):
            continue
        if imported == ASSEMBLY:
            bad.append(f"{imported} (the assembly point; import the chapter module instead)")
            continue
        ch = _chapter_of(imported)
        if ch is None or ch > own:
            bad.append(f"{imported} (chapter {ch})")
    assert not bad, f"{module} (chapter {own}) imports later chapters: {bad}"
