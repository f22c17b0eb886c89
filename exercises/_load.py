"""How a check finds the module it checks: the reader's, or the solution.

Each exercise is one module the reader edits, ``exercises/chNN/exK_name.py``,
which starts as a stub (its functions raise ``NotImplementedError``), and one
check beside it, ``exercises/chNN/test_exK_name.py``, which loads that module
with :func:`load` and tests what it adds to the interpreter. The solution is a
module of the same name under ``exercises/solutions/chNN/``.

``make exercise-ch04`` runs chapter 04's checks on the reader's modules; with
``MINIJAX_EXERCISE_SOLUTIONS=1`` in the environment the same checks run on the
solutions (CI does both: every check fails on its stub and passes with its
solution, see ``tests/test_exercises.py``).
"""
import importlib.util
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent

#: Set to 1 to load the solutions instead of the reader's modules.
SOLUTIONS_VARIABLE = "MINIJAX_EXERCISE_SOLUTIONS"


def using_solutions() -> bool:
    return os.environ.get(SOLUTIONS_VARIABLE, "0") not in ("", "0")


def load(check_file: str, name: str):
    """The module ``name`` of the chapter whose check is ``check_file``.

    ``load(__file__, "ex1_cube")`` in ``exercises/ch00/test_ex1_cube.py``
    imports ``exercises/ch00/ex1_cube.py`` (or, with solutions switched on,
    ``exercises/solutions/ch00/ex1_cube.py``) once per process.
    """
    chapter = pathlib.Path(check_file).resolve().parent.name
    folder = HERE / "solutions" / chapter if using_solutions() else HERE / chapter
    path = folder / f"{name}.py"
    key = f"minijax_exercise_{chapter}_{name}" + ("_solution" if using_solutions() else "")
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module
