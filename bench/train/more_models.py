"""More training steps for bench/train (BENCH_MODELS=bench/train/more_models.py),
models other than the bench's own, written as a JAX user would:

    deep_<mesh>:   3 dense layers of 512 with layer norm, tanh and x*sigmoid(x),
                   Huber loss, AdamW with global-norm gradient clipping
    embed_<mesh>:  embedding lookup (4096 x 128, 32 tokens a row), mean pooling,
                   GELU, softmax cross-entropy by logsumexp, L2 penalty,
                   SGD with momentum
    cnn_<mesh>:    two 3x3 convolutions (16 and 32 channels, SAME), max pooling,
                   global average pooling, softmax cross-entropy, plain SGD;
                   every parameter replicated (a "model" axis runs replicas)
    rnn_<mesh>:    a tanh RNN cell run by lax.scan over the sequence, the mean
                   squared error of the mean state, plain SGD; the importer
                   unrolls the scan, so its compile time grows with `steps`
    stack_<mesh>:  8 dense tanh layers of 256 whose weights are stacked
                   [layers, 256, 256] and applied by lax.scan (JAX's
                   scan-over-layers idiom), mean squared error, plain SGD;
                   the weights' output dim on "model"

Other sizes: BENCH_DEEP_SIZES, BENCH_EMBED_SIZES, BENCH_CNN_SIZES,
BENCH_RNN_SIZES and BENCH_STACK_SIZES override any of a model's sizes as the
bench's own do (names as in the *_SIZES dicts below), e.g.
BENCH_CNN_SIZES="batch=256,c1=32,c2=64".
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from jax_export import Export
import models as _bench

grid, parse_mesh, model_axis = _bench.grid, _bench.parse_mesh, _bench.model_axis
sizes = _bench.sizes

DEEP_SIZES = {"batch": 2048, "inputs": 256, "hidden": 512, "outputs": 16}
EMBED_SIZES = {"batch": 1024, "tokens": 32, "vocab": 4096, "width": 128, "hidden": 512,
               "classes": 64}
CNN_SIZES = {"batch": 64, "image": 32, "c1": 16, "c2": 32, "classes": 10}


def adamw(params, grads, m, v, t, lr=1e-3, b1=0.9, b2=0.95, eps=1e-8, wd=0.01):
    # global-norm clipping
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    scale = jnp.minimum(1.0, 1.0 / (norm + 1e-6))
    grads = jax.tree.map(lambda g: g * scale, grads)
    t = t + 1.0
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    params = jax.tree.map(lambda p, m, v: p - lr * ((m / c1) / (jnp.sqrt(v / c2) + eps) + wd * p),
                          params, m, v)
    return params, m, v, t


def deep_loss(p, x, y):
    h = x
    for i in range(3):
        h = h @ p["W%d" % i] + p["b%d" % i]
        mu = jnp.mean(h, -1, keepdims=True)
        h = (h - mu) / jnp.sqrt(jnp.var(h, -1, keepdims=True) + 1e-5)
        h = jnp.tanh(h) if i % 2 == 0 else jax.nn.sigmoid(h) * h
    out = h @ p["Wout"]
    return jnp.mean(huber(out - y))


def huber(d, delta=1.0):
    a = jnp.abs(d)
    return jnp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def deep(mesh):
    rng = np.random.default_rng(3)
    z = sizes("deep", DEEP_SIZES)
    n, d, hdim, o = z["batch"], z["inputs"], z["hidden"], z["outputs"]
    ax = model_axis(mesh)
    params, specs = {}, {}
    dims = [d, hdim, hdim, hdim]
    for i in range(3):
        params["W%d" % i] = grid(rng, (dims[i], dims[i + 1]), 0.0625)
        params["b%d" % i] = grid(rng, (dims[i + 1],), 0.0625)
        specs["W%d" % i] = P(None, ax) if i % 2 == 0 else P(ax, None)
        specs["b%d" % i] = P()
    params["Wout"] = grid(rng, (hdim, o), 0.0625)
    specs["Wout"] = P()
    zeros = jax.tree.map(np.zeros_like, params)
    state = (params, zeros, jax.tree.map(np.zeros_like, params), np.float32(0.0))
    sspec = (specs, specs, specs, P())
    x, y = grid(rng, (n, d), 1.0), grid(rng, (n, o), 1.0)

    def step(state, x, y):
        params, m, v, t = state
        loss, g = jax.value_and_grad(deep_loss)(params, x, y)
        return adamw(params, g, m, v, t), {"loss": loss}
    return Export(step, (state, x, y), mesh, (sspec, P("data", None), P("data", None)),
                  donate_argnums=(0,))


def embed_loss(p, tokens, labels):
    e = jnp.take(p["E"], tokens, axis=0)          # [B, L, D]
    h = jnp.mean(e, axis=1)                        # [B, D]
    h = jax.nn.gelu(h @ p["W"])
    logits = h @ p["U"]
    lse = jax.scipy.special.logsumexp(logits, axis=-1)
    picked = jnp.take_along_axis(logits, labels[:, None], axis=-1)[:, 0]
    return jnp.mean(lse - picked) + 1e-4 * jnp.sum(p["W"] ** 2)


def embed(mesh):
    rng = np.random.default_rng(4)
    z = sizes("embed", EMBED_SIZES)
    B, L, V, D, H, C = (z["batch"], z["tokens"], z["vocab"], z["width"], z["hidden"],
                        z["classes"])
    ax = model_axis(mesh)
    params = {"E": grid(rng, (V, D), 0.25), "W": grid(rng, (D, H), 0.0625),
              "U": grid(rng, (H, C), 0.0625)}
    specs = {"E": P(), "W": P(None, ax), "U": P(ax, None)}
    mom = jax.tree.map(np.zeros_like, params)
    tokens = rng.integers(0, V, size=(B, L)).astype(np.int32)
    labels = rng.integers(0, C, size=B).astype(np.int32)

    def step(state, tokens, labels):
        params, mom = state
        loss, g = jax.value_and_grad(embed_loss)(params, tokens, labels)
        mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, g)
        params = jax.tree.map(lambda p, m: p - 0.05 * m, params, mom)
        return (params, mom), {"loss": loss}
    return Export(step, ((params, mom), tokens, labels), mesh,
                  ((specs, specs), P("data", None), P("data")), donate_argnums=(0,))


def cnn_loss(p, x, labels):
    dn = ("NHWC", "HWIO", "NHWC")
    h = jax.lax.conv_general_dilated(x, p["K1"], (1, 1), "SAME", dimension_numbers=dn)
    h = jax.nn.relu(h + p["c1"])
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.lax.conv_general_dilated(h, p["K2"], (1, 1), "SAME", dimension_numbers=dn)
    h = jax.nn.relu(h)
    h = jnp.mean(h, axis=(1, 2))
    logits = h @ p["W"]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], -1))


def cnn(mesh):
    rng = np.random.default_rng(5)
    z = sizes("cnn", CNN_SIZES)
    B, S, C1, C2, K = z["batch"], z["image"], z["c1"], z["c2"], z["classes"]
    params = {"K1": grid(rng, (3, 3, 3, C1), 0.25), "c1": np.zeros(C1, np.float32),
              "K2": grid(rng, (3, 3, C1, C2), 0.125), "W": grid(rng, (C2, K), 0.125)}
    specs = jax.tree.map(lambda _: P(), params)
    x = grid(rng, (B, S, S, 3), 1.0)
    labels = rng.integers(0, K, size=B).astype(np.int32)

    def step(params, x, labels):
        loss, g = jax.value_and_grad(cnn_loss)(params, x, labels)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": loss}
    return Export(step, (params, x, labels), mesh, (specs, P("data", None, None, None), P("data")),
                  donate_argnums=(0,))


RNN_SIZES = {"steps": 128, "batch": 32, "inputs": 64, "hidden": 128}


def rnn_loss(p, xs, y):
    def cell(h, x):
        h = jnp.tanh(x @ p["Wx"] + h @ p["Wh"])
        return h, h
    h0 = jnp.zeros((xs.shape[1], p["Wh"].shape[0]), jnp.float32)
    _, hs = jax.lax.scan(cell, h0, xs)
    return jnp.mean((hs.mean(0) - y) ** 2)


def rnn(mesh):
    rng = np.random.default_rng(6)
    z = sizes("rnn", RNN_SIZES)
    T, B, D, H = z["steps"], z["batch"], z["inputs"], z["hidden"]
    params = {"Wx": grid(rng, (D, H), 0.125), "Wh": grid(rng, (H, H), 0.0625)}
    specs = jax.tree.map(lambda _: P(), params)
    xs, y = grid(rng, (T, B, D), 1.0), grid(rng, (B, H), 0.5)

    def step(params, xs, y):
        loss, g = jax.value_and_grad(rnn_loss)(params, xs, y)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": loss}
    return Export(step, (params, xs, y), mesh, (specs, P(None, "data", None), P("data", None)),
                  donate_argnums=(0,))


STACK_SIZES = {"layers": 8, "batch": 512, "width": 256}


def stack_loss(p, x, y):
    def layer(h, w):
        return jnp.tanh(h @ w["W"] + w["b"]), None
    h, _ = jax.lax.scan(layer, x, p)
    return jnp.mean((h - y) ** 2)


def stack(mesh):
    rng = np.random.default_rng(7)
    z = sizes("stack", STACK_SIZES)
    L, B, D = z["layers"], z["batch"], z["width"]
    ax = model_axis(mesh)
    params = {"W": grid(rng, (L, D, D), 0.0625), "b": grid(rng, (L, D), 0.125)}
    specs = {"W": P(None, None, ax), "b": P(None, ax)}
    x, y = grid(rng, (B, D), 1.0), grid(rng, (B, D), 0.5)

    def step(params, x, y):
        loss, g = jax.value_and_grad(stack_loss)(params, x, y)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": loss}
    return Export(step, (params, x, y), mesh, (specs, P("data", None), P("data", None)),
                  donate_argnums=(0,))


BUILDERS = {"deep": deep, "embed": embed, "cnn": cnn, "rnn": rnn, "stack": stack}


EXPORTS = _bench.Exports(BUILDERS)
