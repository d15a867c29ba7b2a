"""NumPy reference for samples/mlp.mlir: prints loss and logits.

    python3 samples/mlp_reference.py [samples/mlp]

Computes in float64 from the f32 inputs in samples/mlp/*.npy (the same
inputs `shardc run` reads), with a max-subtracted log_softmax and label -1
as an ignore index.
"""
import os
import sys

import numpy as np


def mlp(X, W1, b1, W2, b2, labels):
    X, W1, b1, W2, b2 = (a.astype(np.float64) for a in (X, W1, b1, W2, b2))
    h = np.maximum(X @ W1 + b1, 0.0)
    logits = h @ W2 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    valid = labels != -1
    picked = logp[np.arange(len(labels)), np.where(valid, labels, 0)]
    loss = -(picked * valid).sum() / valid.sum()
    return loss, logits


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp")
    load = lambda n: np.load(os.path.join(d, n + ".npy"))
    loss, logits = mlp(*(load(n) for n in ("X", "W1", "b1", "W2", "b2", "labels")))
    np.set_printoptions(precision=6, suppress=True)
    print("loss =", np.float32(loss))
    print("logits =")
    print(logits.astype(np.float32))


if __name__ == "__main__":
    main()
