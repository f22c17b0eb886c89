"""Chapter 14 — training a real model end to end: handwritten digits.

    python examples/train_digits.py                  # the MLP, 5 epochs (what `make demo` runs)
    python examples/train_digits.py --model cnn      # the small CNN
    python examples/train_digits.py --backend jax    # the same program under real JAX
    python examples/train_digits.py --compare --model both --jax-python /path/to/python

Every chapter shows up once: ``jnp`` arithmetic (00), pytrees of parameters
(03), ``jit`` (06) of ``value_and_grad`` (07) compiled to fused Numba kernels
(09), asynchronous dispatch (11): the loop never waits for the device, and
the loader prepares the next batch while the device computes; ``io_callback``
and ``debug.print`` from inside the compiled step (12), ``minijax.random``
initialisation (13), and ``minijax.example_libraries``' ``stax`` and
``optimizers`` (14). It prints the train and test accuracy and the time of
every epoch, and writes into ``--out-dir`` (``build/train_digits``):

- ``loss_curve.png``: the loss of every step, and the test accuracy per epoch;
- ``<model>_timeline.json`` / ``.png``: a profiler trace of the last epoch
  (``minijax.profiler``: host rows and device row; the JSON opens in
  https://ui.perfetto.dev). Under JAX: JAX's profiler writes its own trace;
- ``<model>_params.npz``: the trained parameters, saved and read back
  (``trainlib.checkpoint``), which must score the same test accuracy.

``--compare`` runs the script twice, as two processes (minijax, then JAX
with ``--jax-python``'s interpreter), and prints them side by side.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import nullcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # trainlib, beside this file

from trainlib.backends import BACKENDS, BackendUnavailable, load_backend  # noqa: E402
from trainlib.checkpoint import load_pytree, save_pytree  # noqa: E402
from trainlib.data import EXAMPLES_EXTRA_HINT, MissingExtra, load_digits_split  # noqa: E402
from trainlib.models import MODELS  # noqa: E402
from trainlib.training import train  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="\n\n".join(__doc__.split("\n\n")[:2]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=BACKENDS, default="minijax")
    p.add_argument("--model", choices=MODELS + ("both",), default="mlp")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-dir", default=os.path.join("build", "train_digits"))
    p.add_argument("--no-plots", action="store_true", help="write no pictures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--compare", action="store_true",
                   help="run minijax and JAX (two processes) and print them side by side")
    p.add_argument("--jax-python", default=sys.executable,
                   help="the Python with JAX installed, for --compare (default: this one)")
    p.add_argument("--json", help="also write the results to this JSON file")
    return p.parse_args(argv)


def models_of(args):
    return list(MODELS) if args.model == "both" else [args.model]


# --- one backend ------------------------------------------------------------------------
def run(args) -> int:
    try:
        data = load_digits_split()
        bk = load_backend(args.backend)
    except (MissingExtra, BackendUnavailable) as e:
        print(f"train_digits: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out_dir, exist_ok=True)
    print(f"{bk.name} {bk.version}: digits {data.x_train.shape[0]} train / "
          f"{data.x_test.shape[0]} test images, batch {args.batch_size}, "
          f"{args.epochs} epochs, Adam({args.learning_rate})")
    runs = [train_one(bk, data, model, args) for model in models_of(args)]
    if not args.no_plots:
        plot_losses(runs, os.path.join(args.out_dir, "loss_curve.png"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.to_dict() for r in runs], f)
    return 0


def train_one(bk, data, model, args):
    progress = make_progress_bar(args, model, len(data.x_train) // args.batch_size)

    def on_step(step, loss):          # io_callback: the device has run this step
        if progress is not None:
            progress.update(1)
            progress.set_postfix(loss=f"{float(loss):.3f}", refresh=False)

    def on_epoch(e):
        note = "  (includes compiling)" if e.epoch == 1 else ""
        line = (f"[{bk.name}] {model} epoch {e.epoch}/{args.epochs}: loss {e.mean_loss:.4f}  "
                f"train {100 * e.train_accuracy:.1f}%  test {100 * e.test_accuracy:.1f}%  "
                f"{e.seconds:.2f} s{note}")
        (progress.write if progress is not None else print)(line)

    timeline = os.path.join(args.out_dir, f"{model}_timeline")
    result = train(bk, data, model, args.epochs, args.batch_size, args.learning_rate,
                   args.seed, on_step=on_step, on_epoch=on_epoch,
                   epoch_context=lambda epoch: (profile(bk, timeline)
                                                if epoch == args.epochs else nullcontext()))
    if progress is not None:
        progress.close()
    if not args.no_plots:
        draw_timeline(bk, timeline, model)
    check_checkpoint(bk, result, data, model, args.out_dir)
    return result


def make_progress_bar(args, model, steps_per_epoch):
    if args.no_progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        print(f"(no progress bar: tqdm is not installed; {EXAMPLES_EXTRA_HINT})")
        return None
    return tqdm(total=args.epochs * steps_per_epoch, desc=f"{model} steps run", unit="step",
                leave=False)


def profile(bk, path):
    """A profiler trace around the last epoch: minijax's, or JAX's own."""
    if bk.name == "minijax":
        return bk.jax.profiler.trace(path + ".json")
    return bk.jax.profiler.trace(path + "_jax")   # TensorBoard/XProf format: no picture


def draw_timeline(bk, path, model):
    if bk.name != "minijax":
        traces = glob.glob(os.path.join(path + "_jax", "**", "*.trace.json.gz"), recursive=True)
        where = traces[0] if traces else path + "_jax/"
        print(f"  timeline: JAX's profiler wrote {where} (https://ui.perfetto.dev opens it; "
              "XProf reads the whole folder); the picture is drawn for minijax only")
        return
    plt = _pyplot()
    if plt is None:
        return
    ax = bk.jax.profiler.plot_timeline(path + ".json",
                                       title=f"{model}: the last epoch (minijax profiler)")
    ax.figure.tight_layout()
    ax.figure.savefig(path + ".png", dpi=110)
    plt.close(ax.figure)
    print(f"  timeline: {path}.png (and {path}.json for https://ui.perfetto.dev)")


def check_checkpoint(bk, result, data, model, out_dir):
    """Save the trained parameters, read them back, and check they score the same."""
    if model == "cnn":
        data = data.as_images()
    path = save_pytree(os.path.join(out_dir, f"{model}_params.npz"), result.params)
    restored = bk.jax.device_put(load_pytree(path))
    before = float(result.accuracy(result.params, data.x_test, data.y_test))
    after = float(result.accuracy(restored, data.x_test, data.y_test))
    verdict = "the same" if after == before else f"NOT the same as {100 * before:.2f}%"
    print(f"  parameters saved to {path} and read back: test accuracy "
          f"{100 * after:.2f}%, {verdict}")


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print(f"  (no pictures: matplotlib is not installed; {EXAMPLES_EXTRA_HINT})")
        return None


def plot_losses(runs, path):
    plt = _pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, len(runs), figsize=(5.5 * len(runs), 3.6), squeeze=False)
    for ax, r in zip(axes[0], runs):
        steps, losses = zip(*r.losses)
        ax.plot(steps, losses, lw=0.8, label="training loss (each step)")
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        per_epoch = len(steps) // len(r.epochs)
        acc = ax.twinx()
        acc.plot([per_epoch * e.epoch for e in r.epochs],
                 [100 * e.test_accuracy for e in r.epochs], "o-", color="C1",
                 label="test accuracy")
        acc.set_ylabel("test accuracy (%)")
        ax.set_title(f"{r.model} ({r.backend})")
        lines = ax.get_lines() + acc.get_lines()
        ax.legend(lines, [line.get_label() for line in lines], loc="center right",
                  fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"loss curve: {path}")


# --- both backends, side by side ----------------------------------------------------------
def compare(args) -> int:
    results = {}
    for backend in BACKENDS:
        python = sys.executable if backend == "minijax" else args.jax_python
        if backend == "jax" and not _has_jax(python):
            print(f"\n--compare: JAX is not installed for {python}; showing minijax alone. "
                  "Pass --jax-python with a Python that has JAX (pip install jax).")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "results.json")
            cmd = [python, os.path.abspath(__file__), "--backend", backend, "--json", out,
                   "--out-dir", os.path.join(args.out_dir, backend)] + _passed_on(args)
            print(f"\n$ {' '.join(cmd)}", flush=True)
            if subprocess.run(cmd).returncode != 0:
                print(f"--compare: the {backend} run failed")
                continue
            with open(out) as f:
                results[backend] = {r["model"]: r for r in json.load(f)}
    print_side_by_side(results, models_of(args))
    return 0 if "minijax" in results else 1


def _has_jax(python) -> bool:
    return subprocess.run([python, "-c", "import jax"], capture_output=True).returncode == 0


def _passed_on(args):
    return ["--model", args.model, "--epochs", str(args.epochs),
            "--batch-size", str(args.batch_size), "--learning-rate", str(args.learning_rate),
            "--seed", str(args.seed)] + (["--no-plots"] if args.no_plots else []) + (
                ["--no-progress"] if args.no_progress else [])


def print_side_by_side(results, models):
    backends = list(results)
    print("\n" + " " * 13 + "".join(f"{b + ': test acc, time':>28}" for b in backends))
    for model in models:
        for i in range(max(len(results[b][model]["epochs"]) for b in backends)):
            cells = []
            for b in backends:
                e = results[b][model]["epochs"][i]
                cells.append(f"{100 * e['test_accuracy']:>17.1f}% {e['seconds']:>8.3f} s")
            print(f"{model:5} epoch {i + 1:<2}" + "".join(cells))
        steady = {b: statistics.median(e["seconds"] for e in results[b][model]["epochs"][1:])
                  for b in backends if len(results[b][model]["epochs"]) > 1}
        line = ", ".join(f"{b} {1e3 * s:.1f} ms" for b, s in steady.items())
        if len(steady) == 2:
            line += f" (minijax / jax = {steady['minijax'] / steady['jax']:.2f})"
        print(f"{model:5} time per epoch after the first (median): {line}")
    print("(epoch 1 includes compiling; the machine may be shared, so times are noisy)")


def main(argv=None) -> int:
    args = parse_args(argv)
    return compare(args) if args.compare else run(args)


if __name__ == "__main__":
    sys.exit(main())
