"""NumPy reference for samples/mlp_train.mlir: the loss of each Adam step.

    python3 samples/mlp_train_reference.py [STEPS]

The MLP of mlp_reference.py with a hand-written backward pass (independent of
shardc's autodiff) and Adam (lr 0.01, betas 0.9/0.999, eps 1e-8, bias
correction), in float64 from the f32 inputs in samples/mlp/*.npy, moments
starting at zero and t at 1. relu's kink gets half the gradient (JAX's tie
rule for max), and the row max of the log-softmax passes its tie rule
through too, though neither is hit by these inputs.
"""
import os
import sys

import numpy as np


def loss_and_grads(X, W1, b1, W2, b2, labels):
    pre = X @ W1 + b1
    h = np.maximum(pre, 0.0)
    logits = h @ W2 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    logp = np.log(p)
    valid = (labels != -1).astype(np.float64)
    onehot = np.zeros_like(logits)
    onehot[np.arange(len(labels)), np.where(labels >= 0, labels, 0)] = 1.0
    n = valid.sum()
    loss = -(logp * onehot).sum(axis=1) @ valid / n
    dlogits = (p - onehot) * valid[:, None] / n
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dh = dlogits @ W2.T
    dpre = dh * np.where(pre > 0, 1.0, np.where(pre == 0, 0.5, 0.0))
    dW1 = X.T @ dpre
    db1 = dpre.sum(axis=0)
    return loss, [dW1, db1, dW2, db2]


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp")
    load = lambda n: np.load(os.path.join(d, n + ".npy"))
    X = load("X").astype(np.float64)
    labels = load("labels")
    params = [load(n).astype(np.float64) for n in ("W1", "b1", "W2", "b2")]
    mu = [np.zeros_like(p) for p in params]
    nu = [np.zeros_like(p) for p in params]
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        loss, grads = loss_and_grads(X, *params, labels)
        print("step %d: loss = %.7g" % (t, loss))
        for i, g in enumerate(grads):
            mu[i] = b1 * mu[i] + (1 - b1) * g
            nu[i] = b2 * nu[i] + (1 - b2) * g * g
            mhat = mu[i] / (1 - b1 ** t)
            vhat = nu[i] / (1 - b2 ** t)
            params[i] = params[i] - lr * mhat / (np.sqrt(vhat) + eps)
    np.set_printoptions(precision=7, suppress=True)
    print("b2 =", params[3].astype(np.float32))


if __name__ == "__main__":
    main()
