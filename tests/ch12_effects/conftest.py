"""Chapter 12 test helpers.

``printed()`` returns the lines the program wrote to stdout, read *after*
``effects_barrier()``: a jitted ``debug.print`` runs on a device queue, so its
line appears when the dispatch runs, not when it returns.
"""
import pytest

import minijax


@pytest.fixture
def printed(capsys):
    """``printed()``: the lines written to stdout since the last call (after a barrier)."""
    def read() -> list[str]:
        minijax.effects_barrier()
        return capsys.readouterr().out.splitlines()
    return read
