"""The training steps bench/train times, as JAX programs (tools/jax_export.py).

Every step is `step(state, *data) -> (state, {"loss": ...})` with the state
donated, so shardc's `run --steps` feeds it back as JAX's loop does. At the
default sizes a step takes 25-60 ms on a 2-vCPU bench host; the sizes in
the example below make it 135-320 ms (bench/README.md).

    mlp_<mesh>:          batch 4096, 512 inputs, 1024 hidden, 32 classes,
                         masked softmax cross-entropy, Adam
    transformer_<mesh>:  pre-LayerNorm block, width 256, MLP 1024, batch 8,
                         sequence 128, 2 heads, causal attention, GELU, Adam
    <mesh>: AxB (data x model, e.g. 1x1, 2x1, 2x2, 1x4) or N (data only)

Other sizes: BENCH_MLP_SIZES / BENCH_TRANSFORMER_SIZES override any of a
model's sizes, e.g. BENCH_MLP_SIZES="batch=8192,hidden=2048" and
BENCH_TRANSFORMER_SIZES="batch=8,seq=256,width=512,mlp=2048,heads=4" (names
as in MLP_SIZES / TRANSFORMER_SIZES below).
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from jax_export import Export

MLP_SIZES = {"batch": 4096, "inputs": 512, "hidden": 1024, "classes": 32}
TRANSFORMER_SIZES = {"batch": 8, "seq": 128, "width": 256, "mlp": 1024, "heads": 2}


def sizes(model, defaults):
    """`defaults` with BENCH_<MODEL>_SIZES's overrides ("name=value,...")."""
    var = "BENCH_%s_SIZES" % model.upper()
    out = dict(defaults)
    for item in filter(None, os.environ.get(var, "").replace(" ", "").split(",")):
        key, _, value = item.partition("=")
        if key not in out or not value.isdigit() or int(value) < 1:
            raise SystemExit("%s: %r is not name=positive integer with a name among %s"
                             % (var, item, ", ".join(out)))
        out[key] = int(value)
    return out


def parse_mesh(text):
    """"AxB" -> data=A, model=B; "N" -> data=N."""
    parts = text.split("x")
    if not all(p.isdigit() and int(p) > 0 for p in parts) or len(parts) > 2:
        raise SystemExit("mesh %r: expected AxB (data x model, e.g. 2x2) or N (data)" % text)
    return dict(zip(("data", "model"), map(int, parts)))


def grid(rng, shape, scale):
    return (np.round(rng.uniform(-scale, scale, size=shape) * 64) / 64).astype(np.float32)


def model_axis(mesh):
    return "model" if "model" in mesh else None


def adam(params, grads, m, v, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    t = t + 1.0
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    params = jax.tree.map(lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps),
                          params, m, v)
    return params, m, v, t


def with_adam(params, specs):
    zeros = jax.tree.map(np.zeros_like, params)
    state = (params, zeros, jax.tree.map(np.zeros_like, params), np.float32(0.0))
    return state, (specs, specs, specs, P())


# --- MLP ---------------------------------------------------------------------

def mlp_loss(p, x, labels):
    h = jax.nn.relu(x @ p["W1"] + p["b1"])
    logp = jax.nn.log_softmax(h @ p["W2"] + p["b2"])
    valid = labels >= 0
    nll = -jnp.take_along_axis(logp, jnp.maximum(labels, 0)[:, None], axis=-1)[:, 0]
    return jnp.sum(jnp.where(valid, nll, 0.0)) / jnp.sum(valid)


def mlp_step(state, x, labels):
    params, m, v, t = state
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, labels)
    return adam(params, grads, m, v, t), {"loss": loss}


def mlp(mesh):
    rng = np.random.default_rng(10)
    z = sizes("mlp", MLP_SIZES)
    n, d_in, hidden, classes = z["batch"], z["inputs"], z["hidden"], z["classes"]
    params = {"W1": grid(rng, (d_in, hidden), 0.0625), "b1": np.zeros(hidden, np.float32),
              "W2": grid(rng, (hidden, classes), 0.0625), "b2": np.zeros(classes, np.float32)}
    ax = model_axis(mesh)
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "b2": P()}
    state, state_specs = with_adam(params, specs)
    x = grid(rng, (n, d_in), 1.0)
    labels = rng.integers(0, classes, size=n).astype(np.int32)
    labels[::17] = -1  # masked rows
    return Export(mlp_step, (state, x, labels), mesh, (state_specs, P("data", None), P("data")),
                  donate_argnums=(0,))


# --- transformer block -------------------------------------------------------

def layer_norm(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) * (x - mu), axis=-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def block(p, x, heads):
    B, S, D = x.shape
    h = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q = (h @ p["Wq"]).reshape(B, S, heads, D // heads)
    k = (h @ p["Wk"]).reshape(B, S, heads, D // heads)
    v = (h @ p["Wv"]).reshape(B, S, heads, D // heads)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(D // heads))
    scores = jnp.where(jnp.tril(jnp.ones((S, S), bool)), scores, -1e9)
    o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v).reshape(B, S, D)
    x = x + o @ p["Wo"]
    h = layer_norm(x, p["ln2_g"], p["ln2_b"])
    return x + jax.nn.gelu(h @ p["W1"], approximate=True) @ p["W2"]


def transformer_step(heads):
    def step(state, x, target):
        params, m, v, t = state
        loss, grads = jax.value_and_grad(
            lambda p: jnp.mean((block(p, x, heads=heads) - target) ** 2))(params)
        return adam(params, grads, m, v, t), {"loss": loss}
    return step


def transformer(mesh):
    rng = np.random.default_rng(11)
    z = sizes("transformer", TRANSFORMER_SIZES)
    B, S, D, F, heads = z["batch"], z["seq"], z["width"], z["mlp"], z["heads"]
    params = {"ln1_g": np.ones(D, np.float32), "ln1_b": np.zeros(D, np.float32),
              "Wq": grid(rng, (D, D), 0.0625), "Wk": grid(rng, (D, D), 0.0625),
              "Wv": grid(rng, (D, D), 0.0625), "Wo": grid(rng, (D, D), 0.0625),
              "ln2_g": np.ones(D, np.float32), "ln2_b": np.zeros(D, np.float32),
              "W1": grid(rng, (D, F), 0.0625), "W2": grid(rng, (F, D), 0.0625)}
    ax = model_axis(mesh)
    specs = {"ln1_g": P(), "ln1_b": P(), "Wq": P(None, ax), "Wk": P(None, ax),
             "Wv": P(None, ax), "Wo": P(ax, None), "ln2_g": P(), "ln2_b": P(),
             "W1": P(None, ax), "W2": P(ax, None)}
    state, state_specs = with_adam(params, specs)
    x, target = grid(rng, (B, S, D), 1.0), grid(rng, (B, S, D), 1.0)
    return Export(transformer_step(heads), (state, x, target), mesh,
                  (state_specs, P("data", None, None), P("data", None, None)),
                  donate_argnums=(0,))


BUILDERS = {"mlp": mlp, "transformer": transformer}


class Exports(dict):
    """EXPORTS: "<model>_<mesh>" for any model of `builders` and any mesh
    parse_mesh reads; listing it gives the default meshes. Other models
    files build theirs the same way (more_models.py)."""

    def __init__(self, builders, meshes=("1x1", "2x1", "2x2", "4")):
        super().__init__()
        self.builders = builders
        for model in builders:
            for mesh in meshes:
                self[model + "_" + mesh] = self.__missing__(model + "_" + mesh)

    def __missing__(self, name):
        model, _, mesh = name.rpartition("_")
        if model not in self.builders:
            raise KeyError(name)
        return lambda: self.builders[model](parse_mesh(mesh))


EXPORTS = Exports(BUILDERS)
