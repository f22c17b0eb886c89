"""The README's first example prints exactly the jaxpr it shows (and JAX prints)."""
import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def _blocks():
    text = README.read_text()
    return re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S)


def test_readme_make_jaxpr_example_prints_what_it_shows():
    blocks = _blocks()
    i = next(i for i, (lang, code) in enumerate(blocks) if "make_jaxpr" in code and lang == "python")
    code, expected = blocks[i][1], blocks[i + 1][1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue() == expected


def test_readme_python_blocks_run():
    for lang, code in _blocks():
        if code.lstrip().startswith(">>>"):
            continue  # an interactive session, shown for its output
        if lang == "python" and "import minijax" not in code:
            code = "import minijax\nimport minijax.numpy as jnp\n" + code
        if lang == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, "README.md", "exec"), {})
