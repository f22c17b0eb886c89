"""Workload 4: one SGD training step of a 784-512-512-10 tanh MLP (issue 7).

Softmax cross-entropy on a batch of 128, ``value_and_grad`` and the SGD
update all inside one ``jit``: three matrix products forward, five backward,
fused elementwise work (tanh and its derivative, log-softmax) between them.
NumPy column: the same step with a hand-written backward pass.
"""
import numpy as np

from harness import compare, library_of

SIZES, BATCH, LR = (784, 512, 512, 10), 128, 0.01


def program(jnp):
    lib = library_of(jnp)

    def loss_fn(params, x, labels):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        logits = h @ w + b
        logp = lib.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.sum(logp * labels, axis=-1))

    def step(w1, b1, w2, b2, w3, b3, x, labels):
        params = [(w1, b1), (w2, b2), (w3, b3)]
        loss, grads = lib.value_and_grad(loss_fn)(params, x, labels)
        new = [(w - LR * gw, b - LR * gb) for (w, b), (gw, gb) in zip(params, grads)]
        return loss, new
    return step


def step_numpy(w1, b1, w2, b2, w3, b3, x, labels):
    ws, bs = [w1, w2, w3], [b1, b2, b3]
    hs = [x]
    for w, b in zip(ws[:-1], bs[:-1]):
        hs.append(np.tanh(hs[-1] @ w + b))
    logits = hs[-1] @ ws[-1] + bs[-1]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    loss = -np.mean(np.sum(logp * labels, axis=-1))
    g = (np.exp(logp) * labels.sum(-1, keepdims=True) - labels) / x.shape[0]
    new = []
    for i in (2, 1, 0):
        gw, gb = hs[i].T @ g, g.sum(0)
        new.append((ws[i] - LR * gw, bs[i] - LR * gb))
        if i:
            g = (g @ ws[i].T) * (1 - hs[i] * hs[i])
    return loss, new[::-1]


def inputs():
    rng = np.random.default_rng(0)
    args = []
    for m, n in zip(SIZES[:-1], SIZES[1:]):
        args += [(rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
                 np.zeros(n, np.float32)]
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    return (*args, x, labels)


def main():
    return compare("workload 4: MLP 784-512-512-10 SGD step, batch 128", program, inputs(),
                   step_numpy)


if __name__ == "__main__":
    main()
