"""Regenerates the committed inputs of samples/mlp.mlir and samples/attention.mlir.

    python3 samples/make_sample_inputs.py

Values are multiples of 1/64 from a fixed seed, so every input is exact in
f32 and the files are identical on every machine. Only needed to change the
data; the tests and `shardc run` read the committed .npy files.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def grid(rng, shape, scale):
    """Uniform on [-scale, scale), rounded to multiples of 1/64, as f32."""
    return (np.round(rng.uniform(-scale, scale, size=shape) * 64) / 64).astype(np.float32)


def main():
    rng = np.random.default_rng(20240601)
    mlp = os.path.join(HERE, "mlp")
    os.makedirs(mlp, exist_ok=True)
    np.save(os.path.join(mlp, "X.npy"), grid(rng, (8, 16), 1.0))
    np.save(os.path.join(mlp, "W1.npy"), grid(rng, (16, 32), 0.5))
    np.save(os.path.join(mlp, "b1.npy"), grid(rng, (32,), 0.25))
    np.save(os.path.join(mlp, "W2.npy"), grid(rng, (32, 4), 0.5))
    np.save(os.path.join(mlp, "b2.npy"), grid(rng, (4,), 0.25))
    # Row 5 is ignored (label -1): the loss averages the other 7 rows.
    np.save(os.path.join(mlp, "labels.npy"), np.array([0, 3, 1, 2, 2, -1, 0, 1], dtype=np.int64))

    att = os.path.join(HERE, "attention")
    os.makedirs(att, exist_ok=True)
    np.save(os.path.join(att, "X.npy"), grid(rng, (2, 8, 16), 1.0))
    for name in ("Wq", "Wk", "Wv", "Wo"):
        np.save(os.path.join(att, name + ".npy"), grid(rng, (16, 16), 0.5))


if __name__ == "__main__":
    main()
