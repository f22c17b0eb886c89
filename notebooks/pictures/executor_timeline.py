"""Chapter 11's picture: the executor's queues and timeline, drawn from a profiler trace.

``draw_executor_timeline(events)`` takes the events of a real trace
(``minijax.profiler.last_trace()`` after a ``with profiler.trace(...)``
block) and draws, on one time axis:

- the host thread: its ``TraceAnnotation`` blocks as bars, and a tick at
  each moment it put work on a device's queue (the profiler records, for
  every work item, how long it waited in the queue: its enqueue time is its
  start minus that wait);
- for each device, its queue: how many items were waiting at each moment
  (enqueued, not started yet), as a filled step curve;
- for each device, its worker: one bar per work item, from its start to its
  end. A line joins each tick on the host row to the start of the item it
  queued: the longer its slant, the longer the item waited in the queue.
  Items run inline, on the calling thread (chapter 11, section 4), never
  queued: they are hatched and have no line.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

__all__ = ["draw_executor_timeline", "queue_depth"]


def _enqueue_time(event):
    """When the host queued ``event`` (None for an inline run, which was never queued)."""
    queued_ms = event["args"].get("queued_ms")
    return None if queued_ms is None else event["start"] - queued_ms / 1e3


def queue_depth(events, lane):
    """The queue of ``lane`` over time: ``[(time, items waiting from then on), ...]``."""
    changes = []
    for e in events:
        if e["lane"] == lane:
            t = _enqueue_time(e)
            if t is not None:
                changes += [(t, 1), (e["start"], -1)]
    depth, steps = 0, []
    for t, d in sorted(changes):
        depth += d
        steps.append((t, depth))
    return steps


def draw_executor_timeline(events, title: str | None = None, ax=None, skip=("hold",)):
    """Draw a profiler trace as host, queue and device rows (see the module doc)."""
    events = [e for e in events if e["name"] not in skip]
    if not events:
        raise ValueError("the trace has no events: was anything run inside profiler.trace?")
    hosts = sorted({e["lane"] for e in events if e["lane"].startswith("host")})
    devices = sorted({e["lane"] for e in events if not e["lane"].startswith("host")})
    host_lane = hosts[0] if hosts else "host"
    rows = [host_lane] + hosts[1:]
    for d in devices:
        rows += [f"queue of {d}", d]
    y = {lane: -i for i, lane in enumerate(rows)}
    labels = dict(zip(rows, rows))
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 0.9 + 0.62 * len(rows)))
    names = sorted({e["name"] for e in events if e["lane"] in devices})
    colors = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}
    ms = 1e3
    span = max(e["end"] for e in events) - min(e["start"] for e in events)

    for e in events:                                          # host blocks
        if e["lane"] in hosts:
            ax.barh(y[e["lane"]], (e["end"] - e["start"]) * ms, left=e["start"] * ms,
                    height=0.5, color="0.75", edgecolor="0.4", linewidth=0.5)
            if e["end"] - e["start"] > 0.005 * len(e["name"]) * span:   # a label where it fits
                ax.text((e["start"] + e["end"]) / 2 * ms, y[e["lane"]], e["name"],
                        ha="center", va="center", fontsize=7, clip_on=True)
    for d in devices:
        steps = queue_depth(events, d)                        # the queue, as a step curve
        if steps:
            top = max(depth for _, depth in steps) or 1
            ts = [t * ms for t, _ in steps]
            hs = [y[f"queue of {d}"] - 0.35 + 0.7 * depth / top for _, depth in steps]
            ax.fill_between(ts, y[f"queue of {d}"] - 0.35, hs, step="post", color="tab:orange",
                            alpha=0.45, linewidth=0)
            labels[f"queue of {d}"] = f"queue of {d}\n(height: up to {top} waiting)"
        for e in events:                                      # the work items
            if e["lane"] != d:
                continue
            t_in = _enqueue_time(e)
            ax.barh(y[d], max(e["end"] - e["start"], 1e-5) * ms, left=e["start"] * ms,
                    height=0.6, color=colors[e["name"]], edgecolor="white", linewidth=0.5,
                    hatch=None if t_in is not None else "////")
            if t_in is not None:
                ax.plot([t_in * ms], [y[host_lane] - 0.32], marker="v", color="k", ms=3)
                ax.plot([t_in * ms, e["start"] * ms], [y[host_lane] - 0.32, y[d] + 0.3],
                        color=colors[e["name"]], lw=0.6, alpha=0.7)
    ax.set_yticks(list(y.values()), [labels[lane] for lane in y], fontsize=8)
    ax.set_ylim(-len(rows) + 0.4, 0.6)
    ax.set_xlabel("time since the trace began (ms)")
    handles = [Patch(color=colors[n], label=n) for n in names[:8]]
    host_names = sorted({e["name"] for e in events if e["lane"] in hosts})
    handles += [Patch(facecolor="0.75", edgecolor="0.4", label=f"{n} (host)")
                for n in host_names[:3]]
    handles.append(Patch(facecolor="white", edgecolor="0.3", hatch="////", label="run inline"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
              frameon=False)
    if title:
        ax.set_title(title)
    ax.figure.tight_layout()
    return ax.figure
