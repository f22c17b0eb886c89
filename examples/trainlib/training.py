"""The training step, the accuracy, and the loop over epochs.

Everything a training run needs from the library comes from the
:class:`~trainlib.backends.Backend` it is given, so this file is the same
program under minijax and under JAX. The pieces are JAX's usual ones:

- the loss is the mean negative log-likelihood of the right digit;
- ``update`` is one ``jit``-compiled step: ``value_and_grad`` of the loss,
  then the optimizer's ``opt_update`` (Adam by default), all in one program;
- it reports each step's loss to the host with ``io_callback`` *when the
  device runs the step*. Python has long moved on by then (asynchronous
  dispatch): a progress bar moved by the dispatching loop would race to 100%
  while the device is still at the first steps; one moved by the callback
  shows where the computation really is;
- a ``debug.print`` under a ``lax.cond`` reports a non-finite loss from
  inside the compiled step, at the step where it first happens, though the
  loop itself never looks at the loss;
- the loop blocks once per epoch, to read the accuracies it prints.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time

import numpy as np

from .backends import Backend
from .data import NUM_CLASSES, BatchLoader, Digits
from .models import make_model

__all__ = ["EpochResult", "TrainResult", "make_step_functions", "train"]


@dataclasses.dataclass
class EpochResult:
    epoch: int            # counted from 1
    train_accuracy: float
    test_accuracy: float
    seconds: float        # the epoch's training steps, dispatch to the last result ready
    mean_loss: float


@dataclasses.dataclass
class TrainResult:
    backend: str
    model: str
    epochs: list          # of EpochResult
    losses: list          # (step, loss) pairs, in the order the device ran them
    params: object        # the final parameters (a pytree of the backend's arrays)
    apply_fun: object
    accuracy: object      # the jitted accuracy(params, x, y)

    def to_dict(self) -> dict:
        return {"backend": self.backend, "model": self.model,
                "epochs": [dataclasses.asdict(e) for e in self.epochs],
                "losses": [[int(s), float(v)] for s, v in self.losses]}


def make_step_functions(bk: Backend, apply_fun, optimizer, on_step=None, nan_guard=True):
    """The jitted ``update(step, opt_state, batch)`` and ``accuracy(params, x, y)``.

    ``on_step(step, loss)``, if given, is called on the host through
    ``io_callback`` each time the device has run a step.
    """
    jax, jnp = bk.jax, bk.jnp
    opt_init, opt_update, get_params = optimizer

    def loss_fn(params, batch):
        images, labels = batch
        log_probs = apply_fun(params, images)
        return -jnp.mean(jnp.sum(log_probs * jax.nn.one_hot(labels, NUM_CLASSES), axis=-1))

    def update(step, opt_state, batch):
        params = get_params(opt_state)
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        if nan_guard:
            jax.lax.cond(jnp.isfinite(loss), lambda: None,
                         lambda: jax.debug.print("step {}: the loss is {}", step, loss))
        if on_step is not None:
            bk.io_callback(on_step, None, step, loss)
        return opt_update(step, grads, opt_state), loss

    def accuracy(params, images, labels):
        predicted = jnp.argmax(apply_fun(params, images), axis=-1)
        return jnp.mean(predicted == labels)

    return jax.jit(update), jax.jit(accuracy)


def train(bk: Backend, data: Digits, model: str = "mlp", epochs: int = 5,
          batch_size: int = 32, learning_rate: float = 2e-3, seed: int = 0,
          on_step=None, on_epoch=None, epoch_context=None, nan_guard=True) -> TrainResult:
    """Train ``model`` on ``data`` for ``epochs`` epochs with Adam; see the module doc.

    ``on_step(step, loss)`` runs on the host as the device finishes each step;
    ``on_epoch(EpochResult)`` after each epoch; ``epoch_context(epoch)``, if
    given, returns a context manager wrapped around the epoch's steps (a
    profiler trace, say).
    """
    jax = bk.jax
    if model == "cnn":
        data = data.as_images()
    (init_fun, apply_fun), input_shape = make_model(model, bk.stax)
    _, params = init_fun(bk.random.PRNGKey(seed), input_shape)
    optimizer = bk.optimizers.adam(learning_rate)
    opt_init, _, get_params = optimizer

    losses = []

    def record(step, loss):   # runs on the host, when the device has run the step
        losses.append((int(step), float(loss)))
        if on_step is not None:
            on_step(step, loss)

    update, accuracy = make_step_functions(bk, apply_fun, optimizer, record, nan_guard)
    annotate = getattr(getattr(jax, "profiler", None), "TraceAnnotation", None)
    loader = BatchLoader(data.x_train, data.y_train, batch_size, jax.device_put, seed,
                         annotate=annotate)
    x_train, y_train = jax.device_put(data.x_train), jax.device_put(data.y_train)
    x_test, y_test = jax.device_put(data.x_test), jax.device_put(data.y_test)

    opt_state = opt_init(params)
    results, step = [], 0
    for epoch in range(1, epochs + 1):
        context = epoch_context(epoch) if epoch_context else contextlib.nullcontext()
        with context:
            start = time.perf_counter()
            epoch_losses = []
            for batch in loader.epoch(epoch):
                opt_state, loss = update(step, opt_state, batch)   # returns at once
                epoch_losses.append(loss)
                step += 1
            jax.block_until_ready(opt_state)                      # the one wait per epoch
            seconds = time.perf_counter() - start
        params = get_params(opt_state)
        result = EpochResult(epoch, float(accuracy(params, x_train, y_train)),
                             float(accuracy(params, x_test, y_test)), seconds,
                             float(np.mean([float(v) for v in epoch_losses])))
        results.append(result)
        if on_epoch is not None:
            on_epoch(result)
    jax.effects_barrier()   # every io_callback of the run has run
    return TrainResult(bk.name, model, results, sorted(losses), get_params(opt_state),
                       apply_fun, accuracy)
