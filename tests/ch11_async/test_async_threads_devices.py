"""Many Python threads, several virtual devices, clean exit, the profiler."""
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
import minijax.runtime as runtime
from minijax import profiler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(code: str, env=None, timeout=120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (device counts are fixed at first use)."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def test_eight_threads_dispatching_at_once():
    f = minijax.jit(lambda a, b: jnp.tanh(a) * b + 1)
    results, errors = {}, []

    def worker(t):
        try:
            out = []
            for i in range(150):
                x = jnp.full((16,), float(t))
                y = f(x, float(i)) if i % 2 else jnp.tanh(x) * i + 1
                out.append(y)
            results[t] = out
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    with runtime.inline_dispatch(False):   # everything through the queues
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
    assert not errors
    for t, outs in results.items():
        for i, y in enumerate(outs):
            np.testing.assert_allclose(y, np.full(16, np.tanh(np.float32(t)) * i + 1),
                                       rtol=1e-6)
    assert len(results) == 8


def test_the_device_count_is_fixed_at_first_use():
    runtime.synchronize()
    minijax.devices()
    try:
        with pytest.raises(RuntimeError, match="before backends are initialized"):
            minijax.config.update("minijax_num_cpu_devices", len(minijax.devices()) + 5)
    finally:
        minijax.config.update("minijax_num_cpu_devices", -1)  # "unset"


VIRTUAL_DEVICES = """
import numpy as np
import minijax, minijax.runtime as runtime, minijax.numpy as jnp
minijax.config.update("minijax_num_cpu_devices", 3)
ds = minijax.devices()
print(ds, minijax.device_count(), ds[1].platform, ds[1].device_kind, ds[1].id)
f = minijax.jit(lambda x: x * 5, device=ds[2])
with runtime.hold(ds[0]):                  # device 0 is stuck...
    a = jnp.arange(3.0) + 1
    b = minijax.device_put(np.ones(3), ds[1])
    c = b + 1                              # follows its input to device 1
    d = f(c)                               # runs on device 2
    d.block_until_ready()                  # ...devices 1 and 2 still work
    print("held", a.is_ready(), b.device, c.device, d.device, d.tolist())
print("released", a.tolist())
"""


def test_virtual_devices_run_side_by_side():
    out = run_python(VIRTUAL_DEVICES)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2)] 3 cpu cpu 1"
    assert lines[1] == "held False cpu:1 cpu:1 cpu:2 [10.0, 10.0, 10.0]"
    assert lines[2] == "released [1.0, 2.0, 3.0]"


def test_device_count_from_the_environment_or_jax_name():
    code = """
import minijax, minijax.runtime
print(minijax.devices())
minijax.config.update("jax_num_cpu_devices", 2)   # the same count: allowed
"""
    out = run_python(code, env={"MINIJAX_NUM_CPU_DEVICES": "2"})
    assert out.stdout.strip() == "[CpuDevice(id=0), CpuDevice(id=1)]", out.stderr
    assert out.returncode == 0


EXIT_WITH_QUEUED_WORK = """
import minijax, minijax.runtime, minijax.numpy as jnp
x = jnp.ones((400, 400))
ys = [jnp.dot(x, x) for _ in range(300)]    # seconds of queued work
print("queued", ys[-1].is_ready(), flush=True)
"""


def test_the_program_exits_cleanly_with_work_still_queued():
    out = run_python(EXIT_WITH_QUEUED_WORK, timeout=60)   # a hang would time out
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "queued False"
    assert out.stderr == ""


def test_profiler_writes_a_chrome_trace(tmp_path):
    path = tmp_path / "run.json"
    f = minijax.jit(lambda a: jnp.sin(a) @ a)
    x = jnp.ones((50, 50))
    with runtime.inline_dispatch(False), profiler.trace(str(path)):
        with profiler.TraceAnnotation("prepare"):
            y = x + 1
        z = f(y)
        z.block_until_ready()
    trace = json.loads(path.read_text())
    lanes = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    assert lanes == {"host: MainThread", "cpu:0"}
    names = [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"]
    assert "prepare" in names and "add" in names and "jit(<lambda>)" in names
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            assert e["dur"] >= 0 and e["ts"] >= 0
    events = profiler.last_trace()
    assert 0 < profiler.busy_fraction(events, "cpu:0") <= 1

    import matplotlib
    matplotlib.use("Agg")
    ax = profiler.plot_timeline(str(path))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["host: MainThread", "cpu:0"]


def test_profiler_directory_form_and_errors(tmp_path):
    with profiler.trace(tmp_path / "logs"):
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path)
    assert (tmp_path / "logs" / "minijax.trace.json").exists()
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()


FORK = """
import os, sys
import minijax, minijax.runtime, minijax.numpy as jnp
x = jnp.ones((200, 200))
(jnp.dot(x, x) + 1).block_until_ready()        # the parent's worker is running
with minijax.runtime.inline_dispatch(False):
    pid = os.fork()
    y = float((jnp.dot(x, x) + 1)[0, 0])       # works in both processes
if pid == 0:
    os._exit(0 if y == 201.0 else 1)
_, status = os.waitpid(pid, 0)
print(y, os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_gets_its_own_streams():
    out = run_python(FORK, timeout=60)
    assert out.stdout.strip() == "201.0 0", out.stderr
