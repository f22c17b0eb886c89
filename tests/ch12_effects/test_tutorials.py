"""JAX's tutorials "Introduction to debugging" and "External callbacks", run with minijax.

Every code cell of the two tutorials (``docs/debugging.md`` and
``docs/external-callbacks.md`` of jax-ml/jax) is below as the tutorial writes
it, ``import jax`` and all; :func:`as_minijax` maps the imports to minijax's
(``import jax`` -> ``import minijax as jax``, ``from jax.experimental import
io_callback`` -> ``from minijax.experimental import io_callback``...) and
nothing else. The cells run in order in one namespace, as in a notebook, and
each cell's output is compared with what the same cell printed under JAX
0.10.2 (CPU), recorded by running the tutorial there:

- ``out``: what the cell wrote to stdout, then, as a notebook shows it, the
  ``repr`` of its last expression (unless the cell ends with ``;``);
- ``err``: stderr, where the ``logging`` module writes (a notebook's root
  logger has no handler, so ``logging.warning`` sets up ``basicConfig``'s:
  ``WARNING:root:...``; the harness gives the root logger that handler);
- ``raises``: ``"Type: message"`` of the exception the cell raised.

Addresses (``at 0x7f...``) are normalized. Each cell ends with
``effects_barrier()`` and ``runtime.synchronize()``: JAX's CPU runtime runs a
program that calls back into Python before the call returns, minijax's runs
it on the device's queue (chapter 11), so the harness waits for it where JAX
already has (see the design notes, chapter 12).

Not run: the two cells that reach ``jax.debug.breakpoint`` (an interactive
session; ``skip-execution`` in the tutorial itself, tested with a scripted
session in ``test_breakpoint.py``) and the ``%xmode minimal`` IPython magic.
No cell needs sharding. The ``python`` blocks that are not code cells
(``checkify``, ``jax_debug_nans``, an impure ``pure_callback`` under ``vmap``)
are not part of the tutorials' executed output.
"""
import ast
import contextlib
import dataclasses
import io
import logging
import re

import pytest

import minijax
import minijax.runtime

from tests.conftest import REAL_GPU

# (cell 7 traces a jax.debug.breakpoint, which flattens the locals of every frame,
# pytest's generators too: JAX 0.10.2 warns about generator leaves as well)
pytestmark = pytest.mark.filterwarnings(
    "ignore:Python iterable type 'generator':DeprecationWarning")


@dataclasses.dataclass
class Cell:
    source: str            # the cell, as the tutorial writes it (for JAX)
    out: str = ""          # recorded from JAX 0.10.2: stdout, then the cell's value
    err: str = ""          # recorded from JAX 0.10.2: stderr (logging)
    raises: str | None = None  # recorded from JAX 0.10.2: "Type: message"
    unordered: bool = False    # compare the lines as a multiset (see the cell)


_IMPORTS = [
    (r"^import jax\.numpy as jnp$", "import minijax.numpy as jnp"),
    (r"^import jax$", "import minijax as jax"),
    (r"^from jax\.experimental import ", "from minijax.experimental import "),
    (r"^from jax import ", "from minijax import "),
]


def as_minijax(source: str) -> str:
    """The cell with JAX's imports replaced by minijax's (nothing else changes)."""
    for pattern, replacement in _IMPORTS:
        source = re.sub(pattern, replacement, source, flags=re.M)
    assert not re.search(r"^\s*(import|from) jax\b", source, re.M), source
    return source


def _normalize(text: str) -> str:
    text = re.sub(r"0x[0-9a-fA-F]+", "0x...", text)
    if REAL_GPU:  # a GPU's sin, exp... may differ from the CPU's in the last bit, as JAX's do
        text = re.sub(r"\d+\.\d{7,}", lambda m: f"{float(m.group()):.6g}", text)
    return text


def _execute(source: str, namespace: dict) -> None:
    """Run a cell as IPython does: its last expression's value is shown (``repr``)
    unless the cell ends with ``;``."""
    tree = ast.parse(source)
    value = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        value = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), namespace)
    if value is not None:
        result = eval(compile(value, "<cell>", "eval"), namespace)
        if result is not None:
            print(repr(result))


def run_tutorial(cells: list[Cell]) -> list[tuple[str, str, str | None]]:
    """Run the cells in order, in one namespace; each cell's (stdout, stderr, error)."""
    namespace = {"__name__": "__main__"}
    root = logging.getLogger()
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
    root.addHandler(handler)
    results = []
    try:
        for cell in cells:
            out, err = io.StringIO(), io.StringIO()
            handler.setStream(err)
            error = None
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    _execute(as_minijax(cell.source), namespace)
                except Exception as e:  # noqa: BLE001 (the cell's exception is its output)
                    error = f"{type(e).__name__}: {e}"
                try:
                    minijax.effects_barrier()
                finally:
                    minijax.runtime.synchronize()
            results.append((out.getvalue(), err.getvalue(), error))
    finally:
        root.removeHandler(handler)
    return results


def check(cells: list[Cell]) -> None:
    for cell, (out, err, error) in zip(cells, run_tutorial(cells), strict=True):
        got, expected = _normalize(out), _normalize(cell.out)
        if cell.unordered:
            got, expected = sorted(got.splitlines()), sorted(expected.splitlines())
        assert (got, _normalize(err), error) == (expected, _normalize(cell.err), cell.raises), \
            cell.source


# =============================================================================
# The cells, and what JAX 0.10.2 printed
# =============================================================================
DEBUGGING = [
    Cell('''\
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  print("print(x) ->", x)
  y = jnp.sin(x)
  print("print(y) ->", y)
  return y

result = f(2.)
''',
         out='''\
print(x) -> JitTracer(~float32[])
print(y) -> JitTracer(~float32[])
'''),
    Cell('''\
@jax.jit
def f(x):
  jax.debug.print("jax.debug.print(x) -> {x}", x=x)
  y = jnp.sin(x)
  jax.debug.print("jax.debug.print(y) -> {y}", y=y)
  return y

result = f(2.)
''',
         out='''\
jax.debug.print(x) -> 2.0
jax.debug.print(y) -> 0.9092974066734314
'''),
    Cell('''\
def f(x):
  jax.debug.print("jax.debug.print(x) -> {}", x)
  y = jnp.sin(x)
  jax.debug.print("jax.debug.print(y) -> {}", y)
  return y

xs = jnp.arange(3.)

result = jax.vmap(f)(xs)
''',
         out='''\
jax.debug.print(x) -> 0.0
jax.debug.print(x) -> 1.0
jax.debug.print(x) -> 2.0
jax.debug.print(y) -> 0.0
jax.debug.print(y) -> 0.8414709568023682
jax.debug.print(y) -> 0.9092974066734314
'''),
    # JAX 0.10.2 prints each iteration's y before its x: the two prints are unordered
    # effects, which XLA's scheduler may reorder (and does here, in a while body);
    # minijax runs them in program order (x, then y). The same lines, in another order.
    Cell('''\
result = jax.lax.map(f, xs)
''',
         out='''\
jax.debug.print(y) -> 0.0
jax.debug.print(x) -> 0.0
jax.debug.print(y) -> 0.8414709568023682
jax.debug.print(x) -> 1.0
jax.debug.print(y) -> 0.9092974066734314
jax.debug.print(x) -> 2.0
''',
         unordered=True),
    Cell('''\
def f(x):
  jax.debug.print("jax.debug.print(x) -> {}", x)
  return x ** 2

result = jax.grad(f)(1.)
''',
         out='''\
jax.debug.print(x) -> 1.0
'''),
    Cell('''\
@jax.jit
def f(x, y):
  jax.debug.print("jax.debug.print(x) -> {}", x, ordered=True)
  jax.debug.print("jax.debug.print(y) -> {}", y, ordered=True)
  return x + y

f(1, 2)
''',
         out='''\
jax.debug.print(x) -> 1
jax.debug.print(y) -> 2
Array(3, dtype=int32, weak_type=True)
'''),
    # (cell 6 not run: jax.debug.breakpoint reached: an interactive session (skip-execution in the tutorial))
    Cell('''\
def breakpoint_if_nonfinite(x):
  is_finite = jnp.isfinite(x).all()
  def true_fn(x):
    pass
  def false_fn(x):
    jax.debug.breakpoint()
  jax.lax.cond(is_finite, true_fn, false_fn, x)

@jax.jit
def f(x, y):
  z = x / y
  breakpoint_if_nonfinite(z)
  return z

f(2., 1.) # ==> No breakpoint
''',
         out='''\
Array(2., dtype=float32, weak_type=True)
'''),
    # (cell 8 not run: jax.debug.breakpoint reached: an interactive session (skip-execution in the tutorial))
    Cell('''\
import logging

def log_value(x):
  logging.warning(f'Logged value: {x}')

@jax.jit
def f(x):
  jax.debug.callback(log_value, x)
  return x

f(1.0);
''',
         err='''\
WARNING:root:Logged value: 1.0
'''),
    Cell('''\
x = jnp.arange(5.0)
jax.vmap(f)(x);
''',
         err='''\
WARNING:root:Logged value: 0.0
WARNING:root:Logged value: 1.0
WARNING:root:Logged value: 2.0
WARNING:root:Logged value: 3.0
WARNING:root:Logged value: 4.0
'''),
    Cell('''\
jax.grad(f)(1.0);
''',
         err='''\
WARNING:root:Logged value: 1.0
'''),
]

EXTERNAL_CALLBACKS = [
    # (cell 0 not run: IPython magic (%xmode minimal, a remove-cell))
    Cell('''\
import jax

@jax.jit
def f(x):
  y = x + 1
  print("intermediate value: {}".format(y))
  return y * 2

result = f(2)
''',
         out='''\
intermediate value: JitTracer(~int32[])
'''),
    Cell('''\
@jax.jit
def f(x):
  y = x + 1
  jax.debug.print("intermediate value: {}", y)
  return y * 2

result = f(2)
''',
         out='''\
intermediate value: 3
'''),
    Cell('''\
import jax
import jax.numpy as jnp
import numpy as np

def f_host(x):
  # call a numpy (not jax.numpy) operation:
  return np.sin(x).astype(x.dtype)

def f(x):
  result_shape = jax.ShapeDtypeStruct.like(x)
  return jax.pure_callback(f_host, result_shape, x, vmap_method='sequential')

x = jnp.arange(5.0)
f(x)
''',
         out='''\
Array([ 0.       ,  0.841471 ,  0.9092974,  0.14112  , -0.7568025],      dtype=float32)
'''),
    Cell('''\
jax.jit(f)(x)
''',
         out='''\
Array([ 0.       ,  0.841471 ,  0.9092974,  0.14112  , -0.7568025],      dtype=float32)
'''),
    Cell('''\
def body_fun(_, x):
  return _, f(x)
jax.lax.scan(body_fun, None, jnp.arange(5.0))[1]
''',
         out='''\
Array([ 0.       ,  0.841471 ,  0.9092974,  0.14112  , -0.7568025],      dtype=float32)
'''),
    Cell('''\
jax.vmap(f)(x)
''',
         out='''\
Array([ 0.       ,  0.841471 ,  0.9092974,  0.14112  , -0.7568025],      dtype=float32)
'''),
    Cell('''\
jax.grad(f)(x)
''',
         raises='ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.'),
    Cell('''\
def print_something():
  print('printing something')
  return np.int32(0)

@jax.jit
def f1():
  return jax.pure_callback(print_something, np.int32(0))
f1();
''',
         out='''\
printing something
'''),
    Cell('''\
@jax.jit
def f2():
  jax.pure_callback(print_something, np.int32(0))
  return 1.0
f2();
'''),
    Cell('''\
from jax.experimental import io_callback
from functools import partial

global_rng = np.random.default_rng(0)

def host_side_random_like(x):
  """Generate a random array like x using the global_rng state"""
  # We have two side-effects here:
  # - printing the shape and dtype
  # - calling global_rng, thus updating its state
  print(f'generating {x.dtype}{list(x.shape)}')
  return global_rng.uniform(size=x.shape).astype(x.dtype)

@jax.jit
def numpy_random_like(x):
  return io_callback(host_side_random_like, x, x)

x = jnp.zeros(5)
numpy_random_like(x)
''',
         out='''\
generating float32[5]
Array([0.6369617 , 0.26978672, 0.04097353, 0.01652764, 0.8132702 ],      dtype=float32)
'''),
    Cell('''\
jax.vmap(numpy_random_like)(x)
''',
         out='''\
generating float32[]
generating float32[]
generating float32[]
generating float32[]
generating float32[]
Array([0.91275555, 0.60663575, 0.72949654, 0.543625  , 0.9350724 ],      dtype=float32)
'''),
    Cell('''\
@jax.jit
def numpy_random_like_ordered(x):
  return io_callback(host_side_random_like, x, x, ordered=True)

jax.vmap(numpy_random_like_ordered)(x)
''',
         raises='ValueError: Cannot `vmap` ordered IO callback.'),
    Cell('''\
def body_fun(_, x):
  return _, numpy_random_like_ordered(x)
jax.lax.scan(body_fun, None, jnp.arange(5.0))[1]
''',
         out='''\
generating float32[]
generating float32[]
generating float32[]
generating float32[]
generating float32[]
Array([0.81585354, 0.0027385 , 0.8574043 , 0.03358557, 0.72965544],      dtype=float32)
'''),
    Cell('''\
jax.grad(numpy_random_like)(x)
''',
         raises='ValueError: IO callbacks do not support JVP.'),
    Cell('''\
@jax.jit
def f(x):
  io_callback(lambda: print('hello'), None)
  return x

jax.grad(f)(1.0);
''',
         out='''\
hello
'''),
    Cell('''\
from jax import debug

def log_value(x):
  # This could be an actual logging call; we'll use
  # print() for demonstration
  print("log:", x)

@jax.jit
def f(x):
  debug.callback(log_value, x)
  return x

f(1.0);
''',
         out='''\
log: 1.0
'''),
    Cell('''\
x = jnp.arange(5.0)
jax.vmap(f)(x);
''',
         out='''\
log: 0.0
log: 1.0
log: 2.0
log: 3.0
log: 4.0
'''),
    Cell('''\
jax.grad(f)(1.0);
''',
         out='''\
log: 1.0
'''),
    Cell('''\
import jax
import jax.numpy as jnp
import scipy.special

def jv(v, z):
  v, z = jnp.asarray(v), jnp.asarray(z)

  # Require the order v to be integer type: this simplifies
  # the JVP rule below.
  assert jnp.issubdtype(v.dtype, jnp.integer)

  # Promote the input to inexact (float/complex).
  # Note that jnp.result_type() accounts for the enable_x64 flag.
  z = z.astype(jnp.result_type(float, z.dtype))

  # Wrap scipy function to return the expected dtype.
  _scipy_jv = lambda v, z: scipy.special.jv(v, z).astype(z.dtype)

  # Define the expected shape & dtype of output.
  result_shape_dtype = jax.ShapeDtypeStruct(
      shape=jnp.broadcast_shapes(v.shape, z.shape),
      dtype=z.dtype)

  # Use vmap_method="broadcast_all" because scipy.special.jv handles broadcasted inputs.
  return jax.pure_callback(_scipy_jv, result_shape_dtype, v, z, vmap_method="broadcast_all")
'''),
    Cell('''\
from functools import partial
j1 = partial(jv, 1)
z = jnp.arange(5.0)
'''),
    Cell('''\
print(j1(z))
''',
         out='''\
[ 0.          0.44005057  0.5767248   0.33905897 -0.06604332]
'''),
    Cell('''\
print(jax.jit(j1)(z))
''',
         out='''\
[ 0.          0.44005057  0.5767248   0.33905897 -0.06604332]
'''),
    Cell('''\
print(jax.vmap(j1)(z))
''',
         out='''\
[ 0.          0.44005057  0.5767248   0.33905897 -0.06604332]
'''),
    Cell('''\
jax.grad(j1)(z)
''',
         raises='ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.'),
    Cell('''\
jv = jax.custom_jvp(jv)

@jv.defjvp
def _jv_jvp(primals, tangents):
  v, z = primals
  _, z_dot = tangents  # Note: v_dot is always 0 because v is integer.
  jv_minus_1, jv_plus_1 = jv(v - 1, z), jv(v + 1, z)
  djv_dz = jnp.where(v == 0, -jv_plus_1, 0.5 * (jv_minus_1 - jv_plus_1))
  return jv(v, z), z_dot * djv_dz
'''),
    Cell('''\
j1 = partial(jv, 1)
print(jax.grad(j1)(2.0))
''',
         out='''\
-0.06447162
'''),
    Cell('''\
jax.hessian(j1)(2.0)
''',
         out='''\
Array(-0.4003078, dtype=float32, weak_type=True)
'''),
]

# =============================================================================
# The tests
# =============================================================================
def test_introduction_to_debugging(jit_backend):
    check(DEBUGGING)


def test_external_callbacks(jit_backend):
    check(EXTERNAL_CALLBACKS)
