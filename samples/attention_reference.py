"""NumPy reference for samples/attention.mlir: prints y.

    python3 samples/attention_reference.py [samples/attention]

Single-head causal self-attention in float64 from the f32 inputs in
samples/attention/*.npy, with a max-subtracted softmax and the same finite
mask value (-1e9) as the model.
"""
import os
import sys

import numpy as np


def attention(X, Wq, Wk, Wv, Wo):
    X, Wq, Wk, Wv, Wo = (a.astype(np.float64) for a in (X, Wq, Wk, Wv, Wo))
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    s = np.einsum("btd,bsd->bts", q, k) / np.sqrt(q.shape[-1])
    t = X.shape[1]
    causal = np.arange(t)[:, None] >= np.arange(t)[None, :]
    s = np.where(causal[None], s, -1e9)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return np.einsum("bts,bsd->btd", p, v) @ Wo


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention")
    load = lambda n: np.load(os.path.join(d, n + ".npy"))
    y = attention(*(load(n) for n in ("X", "Wq", "Wk", "Wv", "Wo")))
    np.set_printoptions(precision=6, suppress=True, linewidth=120)
    print("y =")
    print(y.astype(np.float32))


if __name__ == "__main__":
    main()
