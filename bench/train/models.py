"""The training steps bench/train times, as JAX programs (tools/jax_export.py).

Every step is `step(state, *data) -> (state, {"loss": ...})` with the state
donated, so shardc's `run --steps` feeds it back as JAX's loop does. Sizes
make a step take well over 100 ms on the bench machines.

    mlp_<mesh>:          batch 4096, 512 inputs, 1024 hidden, 32 classes,
                         masked softmax cross-entropy, Adam
    transformer_<mesh>:  pre-LayerNorm block, width 256, MLP 1024, batch 8,
                         sequence 128, 2 heads, causal attention, GELU, Adam
    <mesh>: 1x1, 2x1, 2x2 (data x model) or 4 (data only)
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from jax_export import Export

MESHES = {"1x1": {"data": 1, "model": 1}, "2x1": {"data": 2, "model": 1},
          "2x2": {"data": 2, "model": 2}, "4": {"data": 4}}


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
    n, d_in, hidden, classes = 4096, 512, 1024, 32
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


def transformer_step(state, x, target):
    params, m, v, t = state
    loss, grads = jax.value_and_grad(
        lambda p: jnp.mean((block(p, x, heads=2) - target) ** 2))(params)
    return adam(params, grads, m, v, t), {"loss": loss}


def transformer(mesh):
    rng = np.random.default_rng(11)
    B, S, D, F = 8, 128, 256, 1024
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
    return Export(transformer_step, (state, x, target), mesh,
                  (state_specs, P("data", None, None), P("data", None, None)),
                  donate_argnums=(0,))


EXPORTS = {}
for _name, _mesh in MESHES.items():
    EXPORTS["mlp_" + _name] = (lambda m: lambda: mlp(m))(_mesh)
    EXPORTS["transformer_" + _name] = (lambda m: lambda: transformer(m))(_mesh)
