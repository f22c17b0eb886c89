"""The README's examples: the first prints exactly the jaxpr it shows (and JAX
prints), the kernel excerpt (a ```py block) is part of what ``lower().as_text()``
really prints, and every ```python block runs."""
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


def test_readme_kernel_excerpt_is_what_lower_prints():
    blocks = _blocks()
    i = next(i for i, (lang, code) in enumerate(blocks) if "make_jaxpr" in code and lang == "python")
    excerpt = next(code for lang, code in blocks[i + 1:] if lang == "py")
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(blocks[i][1], "README.md", "exec"), namespace)
    text = namespace["jax"].jit(namespace["f"]).lower(namespace["x"]).as_text()
    assert excerpt in text
