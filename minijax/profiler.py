"""Chapter 11 — the profiler: who ran what, when, on which device.

While a trace is on, every work item a device runs is recorded (its name,
its device, when it was enqueued, started and ended), and so is every
``TraceAnnotation`` block of the host program. ``trace(path)`` writes the
recording as Chrome-trace JSON, which https://ui.perfetto.dev (or
``chrome://tracing``) opens; :func:`plot_timeline` draws it with matplotlib::

    with minijax.profiler.trace("/tmp/run.json"):
        for step in range(5):
            with minijax.profiler.TraceAnnotation("prepare batch"):
                batch = prepare()
            params = update(params, batch)       # queued on cpu:0
        minijax.block_until_ready(params)
    minijax.profiler.plot_timeline("/tmp/run.json")

The picture shows one row per host thread and one per device: host bars
that overlap device bars are the point of asynchronous dispatch.

As in JAX, ``trace(log_dir)`` also accepts a directory; the file is then
``<log_dir>/minijax.trace.json``.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
import time

__all__ = ["trace", "start_trace", "stop_trace", "TraceAnnotation", "annotate_function",
           "is_tracing", "last_trace", "chrome_trace", "plot_timeline", "busy_intervals",
           "busy_fraction"]

#: The events of the trace being recorded (None: not tracing). Each event is a
#: dict: name, lane ("host: <thread>" or the device, "cpu:0"), start, end
#: (seconds since the trace began), args.
_events: list | None = None
_t0 = 0.0
_path: str | None = None
_last: list = []


def is_tracing() -> bool:
    return _events is not None


def _record(name: str, lane: str, t_start: float, t_end: float, args: dict) -> None:
    events = _events
    if events is not None:  # list.append is atomic: workers may record concurrently
        events.append({"name": name, "lane": lane, "start": t_start - _t0,
                       "end": t_end - _t0, "args": args})


def record_device_event(name, device, t_enqueue, t_start, t_end, error=None) -> None:
    """A work item ran on ``device`` (called by the runtime)."""
    args = {"queued_ms": round((t_start - t_enqueue) * 1e3, 4)} if t_enqueue else {}
    if error is not None:
        args["error"] = f"{type(error).__name__}: {error}"
    _record(name, str(device), t_start, t_end, args)


def record_host_event(name: str, t_start: float, t_end: float, **args) -> None:
    _record(name, f"host: {threading.current_thread().name}", t_start, t_end, args)


# --- switching the recording on and off ------------------------------------------------
def start_trace(log_dir, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False, profiler_options=None) -> None:
    """Start recording; :func:`stop_trace` writes the file."""
    global _events, _t0, _path
    if _events is not None:
        raise RuntimeError("Profile has already been started. Only one profile may be run "
                           "at a time.")
    _path = _trace_file(os.fspath(log_dir))
    _t0 = time.perf_counter()
    _events = []


def stop_trace() -> None:
    """Stop recording and write the Chrome-trace JSON file."""
    global _events, _last
    if _events is None:
        raise RuntimeError("No profile started")
    _last, _events = _events, None
    with open(_path, "w") as f:
        json.dump(chrome_trace(_last), f)


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
          profiler_options=None):
    """``with trace(path):`` records everything run inside the block (see the module doc)."""
    start_trace(log_dir)
    try:
        yield
    finally:
        stop_trace()


def _trace_file(path: str) -> str:
    if path.endswith(".json"):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        return path
    os.makedirs(path, exist_ok=True)
    return os.path.join(path, "minijax.trace.json")


def last_trace() -> list[dict]:
    """The events of the last finished trace."""
    return list(_last)


class TraceAnnotation(contextlib.ContextDecorator):
    """``with TraceAnnotation("prepare batch"):`` marks a block of host code in the trace."""

    def __init__(self, name: str, **kwargs):
        self.name = name
        self.kwargs = kwargs

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        record_host_event(self.name, self._start, time.perf_counter(), **self.kwargs)
        return False


def annotate_function(func=None, name: str | None = None, **kwargs):
    """A decorator: every call of ``func`` is a ``TraceAnnotation``."""
    if func is None:
        return functools.partial(annotate_function, name=name, **kwargs)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        with TraceAnnotation(name or getattr(func, "__qualname__", "function"), **kwargs):
            return func(*args, **kw)
    return wrapper


# --- reading a trace --------------------------------------------------------------------
def chrome_trace(events: list[dict]) -> dict:
    """Events as Chrome's trace format: one process per lane, complete ("X") events in µs."""
    lanes = sorted({e["lane"] for e in events}, key=lambda lane: (not lane.startswith("host"),
                                                                  lane))
    pid = {lane: i for i, lane in enumerate(lanes)}
    out = [{"ph": "M", "name": "process_name", "pid": pid[lane], "tid": 0,
            "args": {"name": lane}} for lane in lanes]
    for e in events:
        out.append({"ph": "X", "name": e["name"], "pid": pid[e["lane"]], "tid": 0,
                    "ts": e["start"] * 1e6, "dur": (e["end"] - e["start"]) * 1e6,
                    "args": e["args"]})
    return {"traceEvents": out, "displayTimeUnit": "ms"}


def _events_of(trace_or_path) -> list[dict]:
    """Our event dicts from: None (the last trace), a list of them, or a JSON file."""
    if trace_or_path is None:
        return last_trace()
    if isinstance(trace_or_path, list):
        return trace_or_path
    path = _trace_file(os.fspath(trace_or_path)) if not str(trace_or_path).endswith(
        ".json") else os.fspath(trace_or_path)
    with open(path) as f:
        raw = json.load(f)["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in raw if e["ph"] == "M"}
    return [{"name": e["name"], "lane": names[e["pid"]], "start": e["ts"] / 1e6,
             "end": (e["ts"] + e["dur"]) / 1e6, "args": e.get("args", {})}
            for e in raw if e["ph"] == "X"]


def busy_intervals(events: list[dict], lane: str) -> list[tuple[float, float]]:
    """The merged (start, end) intervals during which ``lane`` was busy."""
    spans = sorted((e["start"], e["end"]) for e in events if e["lane"] == lane)
    merged: list[list[float]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [tuple(m) for m in merged]


def busy_fraction(events: list[dict], lane: str, start: float | None = None,
                  end: float | None = None) -> float:
    """The fraction of [start, end] (default: the whole trace) that ``lane`` was busy."""
    if start is None:
        start = min(e["start"] for e in events)
    if end is None:
        end = max(e["end"] for e in events)
    busy = sum(min(b, end) - max(a, start) for a, b in busy_intervals(events, lane)
               if b > start and a < end)
    return busy / (end - start) if end > start else 0.0


def plot_timeline(trace_or_path=None, ax=None, title: str | None = None):
    """Draw a trace (the last one, an event list or a JSON file): one row per lane."""
    import matplotlib.pyplot as plt  # only needed for pictures
    events = _events_of(trace_or_path)
    lanes = sorted({e["lane"] for e in events}, key=lambda lane: (not lane.startswith("host"),
                                                                  lane))
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 0.6 + 0.5 * len(lanes)))
    names = sorted({e["name"] for e in events})
    colors = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}
    for row, lane in enumerate(lanes):
        for e in events:
            if e["lane"] == lane:
                ax.broken_barh([(e["start"] * 1e3, (e["end"] - e["start"]) * 1e3)],
                               (row - 0.4, 0.8), facecolor=colors[e["name"]],
                               edgecolor="white", linewidth=0.5)
    ax.set_yticks(range(len(lanes)), lanes)
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[n]) for n in names[:10]]
    ax.legend(handles, names[:10], loc="upper right", fontsize="small")
    if title:
        ax.set_title(title)
    return ax
