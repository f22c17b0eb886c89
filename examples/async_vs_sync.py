"""Chapter 14 — the same training loop, synchronous and asynchronous, measured.

    python examples/async_vs_sync.py            # minijax; writes build/async_vs_sync/timeline.png
    python examples/async_vs_sync.py --backend jax

The experiment of the PJRT vignette on asynchronous dispatch (and of chapter
11's notebook), on a real training step. Each step the host *prepares* a
batch: it gathers shuffled rows of the digits and waits ``--prep-ms``
milliseconds, standing in for reading files or decoding images (a sleep: it
uses no CPU, as a disk or network wait does not). Then it dispatches the
jitted training step (a wide MLP, so that a step takes a few milliseconds).

- **sync** blocks on the result after every step (``block_until_ready``),
  the "bad pattern": the device waits while the host prepares, then the host
  waits while the device computes; the times add up.
- **async** blocks once, at the end. ``update`` returns at once, so the host
  prepares batch n+1 while the device runs step n; the times overlap, and the
  run takes about the larger of the two instead of their sum.

Each mode is warmed up (compiled, and run once), then timed as the best of
``--repeats`` runs. Under minijax a profiler trace of one run of each mode
is drawn: in the sync picture the host and device rows take turns; in the
async one the "prepare batch" bars sit above the device's ``jit(update)``
bars. On a CPU the "device" is a worker thread on the same cores: the
overlap is real because the sleep and the Numba kernels (compiled
``nogil``) both let go of Python's global lock.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # trainlib, beside this file

from trainlib.backends import BACKENDS, BackendUnavailable, load_backend  # noqa: E402
from trainlib.data import BatchLoader, MissingExtra, load_digits_split  # noqa: E402
from trainlib.models import mlp  # noqa: E402
from trainlib.training import make_step_functions  # noqa: E402

MODES = ("sync", "async")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=BACKENDS, default="minijax")
    p.add_argument("--steps", type=int, default=20, help="training steps per run")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per mode (best kept)")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--hidden", type=int, default=512, help="width of the MLP's two layers")
    p.add_argument("--prep-ms", type=float, default=None,
                   help="host preparation per batch (default: one device step's time)")
    p.add_argument("--out-dir", default=os.path.join("build", "async_vs_sync"))
    p.add_argument("--no-plots", action="store_true")
    return p.parse_args(argv)


class Experiment:
    """The model, the data and the jitted step, shared by both modes."""

    def __init__(self, bk, args):
        self.bk, self.jax = bk, bk.jax
        data = load_digits_split()
        (init_fun, apply_fun), input_shape = mlp(bk.stax, hidden=(args.hidden, args.hidden))
        _, self.params = init_fun(bk.random.PRNGKey(0), input_shape)
        self.optimizer = bk.optimizers.adam(1e-3)
        self.update, _ = make_step_functions(bk, apply_fun, self.optimizer, nan_guard=False)
        self.prep_seconds = 0.0
        annotate = getattr(self.jax.profiler, "TraceAnnotation", None)
        self.loader = BatchLoader(data.x_train, data.y_train, args.batch_size,
                                  self.jax.device_put, annotate=annotate, prepare=self._load)

    def _load(self, images):
        time.sleep(self.prep_seconds)   # reading the batch from disk, say
        return images

    def batches(self):
        return itertools.chain.from_iterable(self.loader.epoch(e) for e in itertools.count())

    def run(self, mode: str, steps: int):
        """One training run of ``steps`` steps; returns the final optimizer state."""
        opt_state = self.optimizer[0](self.params)
        for step, batch in zip(range(steps), self.batches()):
            opt_state, _ = self.update(step, opt_state, batch)
            if mode == "sync":
                self.jax.block_until_ready(opt_state)   # wait for the device every step
        return self.jax.block_until_ready(opt_state)    # async: the one wait

    def device_step_seconds(self) -> float:
        """The time of one step on the device alone (the batch is ready beforehand)."""
        batch = next(iter(self.loader.epoch(0)))
        opt_state = self.optimizer[0](self.params)
        best = float("inf")
        for step in range(5):
            start = time.perf_counter()
            opt_state, _ = self.update(step, opt_state, batch)
            self.jax.block_until_ready(opt_state)
            best = min(best, time.perf_counter() - start)
        return best


def best_time(experiment, mode, steps, repeats) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        experiment.run(mode, steps)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        bk = load_backend(args.backend)
        experiment = Experiment(bk, args)
    except (MissingExtra, BackendUnavailable) as e:
        print(f"async_vs_sync: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    experiment.run("sync", 2)                    # warm-up: compiles the step
    print(f"{bk.name} {bk.version}: compiled and warmed up in "
          f"{time.perf_counter() - start:.1f} s")
    device = experiment.device_step_seconds()
    experiment.prep_seconds = (args.prep_ms / 1e3 if args.prep_ms is not None
                               else min(max(device, 0.002), 0.1))
    print(f"MLP 64-{args.hidden}-{args.hidden}-10, batch {args.batch_size}: one step on the "
          f"device {1e3 * device:.1f} ms; host preparation {1e3 * experiment.prep_seconds:.1f} "
          f"ms per batch; {args.steps} steps per run, best of {args.repeats}")
    for mode in MODES:                           # warm-up: one untimed run of each mode
        experiment.run(mode, args.steps)
    seconds = {mode: best_time(experiment, mode, args.steps, args.repeats) for mode in MODES}
    serial = args.steps * (device + experiment.prep_seconds)
    overlapped = args.steps * max(device, experiment.prep_seconds)
    for mode in MODES:
        print(f"  {mode:5}: {1e3 * seconds[mode]:8.1f} ms  "
              f"({1e3 * seconds[mode] / args.steps:.2f} ms per step)")
    print(f"  async is {seconds['sync'] / seconds['async']:.2f}x faster; if host and device "
          f"took turns exactly: {1e3 * serial:.0f} ms, if they overlapped perfectly: "
          f"{1e3 * overlapped:.0f} ms")
    print("  (a shared machine makes these times noisy: compare them within one run)")
    if bk.name == "minijax" and not args.no_plots:
        draw_timelines(experiment, args)
    elif bk.name != "minijax":
        print("  (timeline pictures are drawn with minijax.profiler, for --backend minijax)")
    return 0


def draw_timelines(experiment, args):
    """A profiler trace of one run of each mode, drawn one above the other."""
    profiler = experiment.jax.profiler
    os.makedirs(args.out_dir, exist_ok=True)
    traces = {}
    for mode in MODES:
        with profiler.trace(os.path.join(args.out_dir, f"{mode}.json")):
            experiment.run(mode, min(args.steps, 10))
        traces[mode] = profiler.last_trace()
        idle = 1 - profiler.busy_fraction(traces[mode], "cpu:0")
        print(f"  {mode:5} trace: the device is idle {idle:.0%} of the run")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (no picture: matplotlib is not installed; pip install -e \".[examples]\")")
        return
    fig, axes = plt.subplots(2, 1, figsize=(11, 3.6), sharex=True)
    for ax, mode in zip(axes, MODES):
        draw_rows(ax, traces[mode], plt)
        ax.set_title(f"{mode}: {'block every step' if mode == 'sync' else 'block at the end'}")
    axes[-1].set_xlabel("time (ms)")
    fig.tight_layout()
    path = os.path.join(args.out_dir, "timeline.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"  timeline: {path}")


#: One colour per kind of work, the same in both pictures.
COLORS = {"prepare batch": "C1", "jit(update)": "C0"}


def draw_rows(ax, events, plt):
    """The host's row and the device's row of a trace (the profiler's events)."""
    lanes = ["host: MainThread", "cpu:0"]
    for row, lane in enumerate(lanes):
        for e in events:
            if e["lane"] == lane:
                ax.broken_barh([(1e3 * e["start"], 1e3 * (e["end"] - e["start"]))],
                               (row - 0.4, 0.8), facecolor=COLORS.get(e["name"], "0.7"),
                               edgecolor="white", linewidth=0.5)
    ax.set_yticks(range(len(lanes)), ["host", "device (cpu:0)"])
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    ax.legend(handles + [plt.Rectangle((0, 0), 1, 1, color="0.7")],
              list(COLORS) + ["other (device_put...)"], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize="small")


if __name__ == "__main__":
    sys.exit(main())
