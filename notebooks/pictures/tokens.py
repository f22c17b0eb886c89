"""Chapter 12's picture: runtime tokens threading through real dispatches.

Two pieces, both working on a real run:

- :func:`record_tokens` (a context manager) wraps the effects hook that
  chapter 12 installs in chapter 11's executor. It lets every call through
  to ``runtime_tokens`` and writes down, for each effectful dispatch, its
  device, its effects, the tokens it was given to wait for (``token_inputs``)
  and its completion, which becomes the new token of each of its ordered
  effects (``set_token_results``).
- :func:`draw_tokens` draws those dispatches as bars on one lane per device,
  at the times the profiler recorded them running, and one arrow per token:
  from the dispatch that made it to the dispatch that took it. A solid
  arrow is a token the dispatch had to wait for; a dotted one a token that
  was already done when the dispatch was queued (nothing to wait for). The
  last effectful dispatch of each device is its *output token*, which
  ``effects_barrier()`` waits for (a diamond).
"""
from __future__ import annotations

import contextlib

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from minijax.effects import ordered_effects_of
from minijax.runtime import executor

__all__ = ["record_tokens", "TokenRecorder", "token_flows", "draw_tokens"]


class TokenRecorder:
    """An effects hook that records what the real one (``inner``) is asked and answers."""

    def __init__(self, inner):
        self.inner = inner
        self.dispatches: list[dict] = []
        self._waits: list = []

    def token_inputs(self, effects):
        tokens = self.inner.token_inputs(effects)
        self._waits = list(tokens)
        return tokens

    def set_token_results(self, effects, device, completion):
        self.dispatches.append({
            "device": str(device),
            "effects": sorted(str(e) for e in effects),
            "ordered": [str(e) for e in ordered_effects_of(effects)],
            "waits": self._waits, "completion": completion})
        self._waits = []
        self.inner.set_token_results(effects, device, completion)

    def wait_in_order(self, effects):
        self.inner.wait_in_order(effects)


@contextlib.contextmanager
def record_tokens():
    """``with record_tokens() as rec:`` records every effectful dispatch in ``rec.dispatches``."""
    inner = executor._effects_hook
    if inner is None:
        raise RuntimeError("no effects hook: import minijax.runtime.tokens (chapter 12)")
    recorder = TokenRecorder(inner)
    executor.set_effects_hook(recorder)
    try:
        yield recorder
    finally:
        executor.set_effects_hook(inner)


def token_flows(dispatches):
    """``[(maker, taker, effect, waited)]``: dispatch ``taker`` took the token of ``effect``
    that dispatch ``maker`` (the last before it with that effect) made; ``waited``: it
    was still pending, so ``taker`` had to wait for it."""
    flows, last = [], {}
    for i, d in enumerate(dispatches):
        for eff in d["ordered"]:
            if eff in last:
                maker = last[eff]
                waited = any(w is dispatches[maker]["completion"] for w in d["waits"])
                flows.append((maker, i, eff, waited))
            last[eff] = i
    return flows


def _times(dispatches, events):
    """Each dispatch's (start, end) from the profiler: per device, the effectful jitted
    calls run in the order they were queued."""
    per_lane: dict = {}
    for e in events:
        if e["name"].startswith("jit("):
            per_lane.setdefault(e["lane"], []).append(e)
    seen: dict = {}
    out = []
    for d in dispatches:
        k = seen.get(d["device"], 0)
        seen[d["device"]] = k + 1
        lane = per_lane.get(d["device"], [])
        if k >= len(lane):
            raise ValueError("the trace and the recorded dispatches do not match: trace only "
                             "effectful jitted calls, and record them all")
        out.append((lane[k]["start"], lane[k]["end"], lane[k]["name"]))
    return out


def draw_tokens(dispatches, events, title: str | None = None, ax=None):
    """Dispatches on device lanes at their real times, with their token arrows."""
    times = _times(dispatches, events)
    lanes = sorted({d["device"] for d in dispatches})
    y = {lane: -i for i, lane in enumerate(lanes)}
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 1.4 + 1.1 * len(lanes)))
    effects = sorted({e for d in dispatches for e in d["effects"]})
    colors = {e: plt.cm.Set1(i % 9) for i, e in enumerate(effects)}
    ms = 1e3
    flows = token_flows(dispatches)
    for i, (d, (t0, t1, name)) in enumerate(zip(dispatches, times)):
        takes = ", ".join(f"#{m}" for m, t, _, _ in flows if t == i) or "none"
        gives = ", ".join(d["ordered"]) or "output token only"
        kind = d["ordered"][0] if d["ordered"] else d["effects"][0]
        ax.barh(y[d["device"]], (t1 - t0) * ms, left=t0 * ms, height=0.5,
                color=colors[kind], alpha=0.35, edgecolor=colors[kind])
        ax.text((t0 + t1) / 2 * ms, y[d["device"]], f"#{i} {name}\ntakes: {takes}\ngives: {gives}",
                ha="center", va="center", fontsize=6)
    for maker, taker, eff, waited in flows:
        (_, m_end, _), (t_start, _, _) = times[maker], times[taker]
        ym, yt = y[dispatches[maker]["device"]], y[dispatches[taker]["device"]]
        bend = 0.0 if ym != yt else -0.5
        ax.annotate("", xy=(t_start * ms, yt + (0.26 if ym < yt else -0.26) * (ym != yt)),
                    xytext=(m_end * ms, ym + (-0.26 if ym > yt else 0.26) * (ym != yt)),
                    arrowprops=dict(arrowstyle="-|>", color=colors[eff], lw=1.4,
                                    linestyle="-" if waited else ":",
                                    connectionstyle=f"arc3,rad={bend}"))
    for lane in lanes:                                          # output tokens
        last = max(i for i, d in enumerate(dispatches) if d["device"] == lane)
        ax.plot([times[last][1] * ms], [y[lane]], marker="D", color="k", ms=5)
    ax.set_yticks(list(y.values()), list(y))
    ax.set_ylim(-len(lanes) + 0.3, 0.7)
    ax.set_xlabel("time (ms)")
    handles = [Line2D([], [], color=colors[e], lw=6, alpha=0.5, label=f"effect {e}")
               for e in effects]
    handles += [Line2D([], [], color="0.3", lw=1.4, label="token: waited for"),
                Line2D([], [], color="0.3", lw=1.4, ls=":", label="token: already done"),
                Line2D([], [], color="k", marker="D", lw=0, label="output token")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
              frameon=False)
    if title:
        ax.set_title(title)
    ax.figure.tight_layout()
    return ax.figure
