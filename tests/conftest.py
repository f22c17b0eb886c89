"""Shared pytest set-up: one marker per chapter, taken from the test's folder.

A test in ``tests/ch04_vmap/`` is marked ``ch04``, so ``pytest -m ch04`` (or
``make test-ch04``) runs one chapter. Tests outside chapter folders (the
layering and rule-coverage checks) carry no chapter marker.
"""
import re

import pytest

_CHAPTER_DIR = re.compile(r"[/\\]tests[/\\]ch(\d\d)_")


def pytest_collection_modifyitems(config, items):
    for item in items:
        m = _CHAPTER_DIR.search(str(item.path))
        if m:
            item.add_marker(getattr(pytest.mark, f"ch{m.group(1)}"))
