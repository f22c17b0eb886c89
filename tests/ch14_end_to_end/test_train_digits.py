"""Chapter 14's end-to-end example: examples/train_digits.py and its trainlib.

- checkpoints: a pytree of arrays to .npz and back (structure, dtypes, values);
- the batch loader: fixed-size, repeatable, every row at most once an epoch;
- a short training run under minijax: the losses, accuracies and parameters
  that real JAX computes for the same run (recorded below), so the run is
  also repeatable for a fixed key, and reaches a set accuracy;
- the script's messages when scikit-learn or JAX is missing.
"""
import os
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "examples")
sys.path.insert(0, os.path.abspath(EXAMPLES))

from trainlib.checkpoint import load_pytree, save_pytree  # noqa: E402
from trainlib.data import BatchLoader  # noqa: E402

try:
    import sklearn  # noqa: F401
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False
needs_sklearn = pytest.mark.skipif(not HAVE_SKLEARN, reason="scikit-learn (the examples extra)")

try:
    import jax  # noqa: F401
    HAVE_JAX = True
except ImportError:
    HAVE_JAX = False


# --- checkpoints ---------------------------------------------------------------------------
def test_save_restore_round_trips_structure_dtypes_and_values(tmp_path):
    tree = {
        "layers": [(np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros(3, np.float16)),
                   (), (jnp.ones((2, 2), jnp.int32),)],
        "step": np.uint8(7),
        "mask": np.array([True, False]),
        "nothing": None,
        "by_number": {3: np.array(-1.5, np.float64), 1: np.int64(2)},
    }
    path = save_pytree(tmp_path / "ckpt", tree)
    assert path.endswith(".npz")
    back = load_pytree(path)
    assert minijax.tree_util.tree_structure(back) == minijax.tree_util.tree_structure(tree)
    for got, want in zip(minijax.tree_util.tree_leaves(back),
                         minijax.tree_util.tree_leaves(tree)):
        want = np.asarray(want)
        assert isinstance(got, np.ndarray)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_saved_arrays_are_named_by_their_path(tmp_path):
    path = save_pytree(tmp_path / "p.npz", [(np.ones(2), np.zeros(1)), (), {"w": np.ones(3)}])
    with np.load(path) as archive:
        assert sorted(archive.files) == ["0/0", "0/1", "2/w", "__treedef__"]


def test_save_restore_bfloat16(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5, -2.25, 3e38], dtype=ml_dtypes.bfloat16)
    back = load_pytree(save_pytree(tmp_path / "b", {"x": x}))["x"]
    assert back.dtype == x.dtype
    np.testing.assert_array_equal(back.astype(np.float32), x.astype(np.float32))


def test_save_restore_stax_shaped_parameters_onto_the_device(tmp_path):
    # stax.serial(Dense(5), Relu, Dense(2))'s parameters: [(W, b), (), (W, b)]
    rng = np.random.default_rng(0)
    params = [(jnp.asarray(rng.standard_normal((3, 5)), jnp.float32), jnp.zeros(5)), (),
              (jnp.asarray(rng.standard_normal((5, 2)), jnp.float32), jnp.ones(2))]
    back = load_pytree(save_pytree(tmp_path / "params", params))
    assert minijax.tree_util.tree_structure(back) == minijax.tree_util.tree_structure(params)
    on_device = minijax.device_put(back)
    for got, want in zip(minijax.tree_util.tree_leaves(on_device),
                         minijax.tree_util.tree_leaves(params)):
        assert isinstance(got, minijax.Array) and got.dtype == jnp.float32
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_save_refuses_what_it_cannot_describe(tmp_path):
    from collections import namedtuple
    Point = namedtuple("Point", "x y")
    with pytest.raises(TypeError, match="Point at 0 is a container"):
        save_pytree(tmp_path / "a", [Point(np.ones(1), np.ones(1))])
    with pytest.raises(TypeError, match="not an array"):
        save_pytree(tmp_path / "b", {"f": object()})
    with pytest.raises(TypeError, match="dict keys must be str or int"):
        save_pytree(tmp_path / "c", {(1, 2): np.ones(1)})


def test_load_refuses_a_foreign_npz(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.ones(2))
    with pytest.raises(ValueError, match="not written by save_pytree"):
        load_pytree(tmp_path / "plain.npz")


# --- the batch loader ---------------------------------------------------------------------
def test_batch_loader_batches_are_fixed_size_repeatable_and_distinct():
    images = np.arange(50, dtype=np.float32).reshape(25, 2)
    labels = np.arange(25, dtype=np.int32)
    loader = BatchLoader(images, labels, 4, minijax.device_put, seed=3)
    assert len(loader) == 6                         # 25 // 4: the incomplete batch is dropped
    epoch1 = [(np.asarray(x), np.asarray(y)) for x, y in loader.epoch(1)]
    assert all(x.shape == (4, 2) and y.shape == (4,) for x, y in epoch1)
    seen = np.concatenate([y for _, y in epoch1])
    assert len(set(seen.tolist())) == 24            # no row twice in an epoch
    for x, y in epoch1:                             # images and labels stay paired
        np.testing.assert_array_equal(x, images[y])
    again = [np.asarray(y) for _, y in loader.epoch(1)]
    np.testing.assert_array_equal(np.concatenate(again), seen)
    other = np.concatenate([np.asarray(y) for _, y in loader.epoch(2)])
    assert not np.array_equal(other, seen)


# --- a short training run -----------------------------------------------------------------
# One epoch of the demo's MLP (64-256-256-10, batch 32, Adam(2e-3), PRNGKey(0)), from JAX 0.10.2
JAX_LOSSES = {0: 2.4186017513275146, 1: 2.1027092933654785, 10: 0.880959153175354,
              43: 0.1619340479373932}
JAX_CORRECT = {"train": 1415, "test": 343}        # of 1437 and 360 images
JAX_PARAM_ABS_SUMS = [1141.5655517578125, 6.016234397888184, 3575.89111328125,
                      4.650612831115723, 209.30963134765625, 0.055621251463890076]


def _check_one_epoch(backend_name):
    from trainlib.backends import load_backend
    from trainlib.data import load_digits_split
    from trainlib.training import train
    bk = load_backend(backend_name)
    steps = []
    result = train(bk, load_digits_split(), "mlp", epochs=1, batch_size=32,
                   learning_rate=2e-3, seed=0, on_step=lambda s, loss: steps.append(int(s)))
    assert sorted(steps) == list(range(44))         # io_callback: every step, once
    losses = dict(result.losses)
    for step, want in JAX_LOSSES.items():
        np.testing.assert_allclose(losses[step], want, rtol=2e-5)
    epoch = result.epochs[0]
    assert round(epoch.train_accuracy * 1437) == JAX_CORRECT["train"]
    assert round(epoch.test_accuracy * 360) == JAX_CORRECT["test"]
    assert epoch.test_accuracy > 0.94               # one epoch is enough for 94%
    sums = [float(np.sum(np.abs(np.asarray(p))))
            for p in bk.jax.tree_util.tree_leaves(result.params)]
    np.testing.assert_allclose(sums, JAX_PARAM_ABS_SUMS, rtol=2e-5)


@needs_sklearn
@pytest.mark.slow  # compiles the training step (several seconds with a cold cache)
def test_one_epoch_under_minijax_matches_jax():
    _check_one_epoch("minijax")


@needs_sklearn
@pytest.mark.skipif(not HAVE_JAX, reason="JAX is not installed (an oracle only)")
def test_one_epoch_under_jax():
    _check_one_epoch("jax")


# --- the script's messages ----------------------------------------------------------------
def test_script_says_which_extra_to_install_without_sklearn(monkeypatch, capsys, tmp_path):
    import train_digits
    for name in ("sklearn", "sklearn.datasets", "sklearn.model_selection"):
        monkeypatch.setitem(sys.modules, name, None)   # "import sklearn" now fails
    assert train_digits.main(["--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "scikit-learn" in err and 'pip install -e ".[examples]"' in err


@needs_sklearn
@pytest.mark.skipif(HAVE_JAX, reason="checks the message shown when JAX is absent")
def test_backend_jax_without_jax_says_so(capsys, tmp_path):
    import train_digits
    assert train_digits.main(["--backend", "jax", "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "needs JAX, which is not installed" in err and "pip install jax" in err


def test_unknown_backend_and_model_are_value_errors():
    from trainlib.backends import load_backend
    from trainlib.models import make_model
    with pytest.raises(ValueError, match="unknown backend 'torch'"):
        load_backend("torch")
    with pytest.raises(ValueError, match="unknown model 'resnet'"):
        make_model("resnet", None)


@needs_sklearn
@pytest.mark.slow  # compiles a training step
def test_async_vs_sync_runs_both_modes(capsys):
    import async_vs_sync
    assert async_vs_sync.main(["--steps", "3", "--repeats", "1", "--hidden", "32",
                               "--batch-size", "32", "--prep-ms", "1", "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "sync :" in out and "async:" in out and "faster" in out
