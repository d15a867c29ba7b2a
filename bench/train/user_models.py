"""Training steps as JAX users write them, for bench/train
(BENCH_MODELS=bench/train/user_models.py), unlike the bench's own and
more_models.py's:

    rope_<mesh>:    token + learned position embeddings, RMSNorm, 4-head
                    attention with rotary embeddings and a key padding mask,
                    SwiGLU MLP, masked mean pooling, label-smoothed
                    cross-entropy, Adam with bias correction
    drop_<mesh>:    3-layer MLP with dropout from boolean masks passed as
                    data, one-hot cross-entropy, centered RMSProp with momentum
    eins_<mesh>:    fused QKV projection split in three, reshape/transpose,
                    einsums 'bhqd,bhkd->bhqk', 'bhqk,bhkd->bhqd', 'btd,tdk->bk'
                    (two contracting dims), 'bij,bjk->bik', concatenate, SGD
    regr_<mesh>:    heteroscedastic regression + ordinal head: softplus, abs,
                    clip, maximum, log1p, exp, where, cumsum; argmax accuracy
                    and MAE in the metrics; Adagrad
    loop_<mesh>:    gradient accumulation by lax.scan over 4 microbatches of a
                    reshaped batch; inside, a weight-tied lax.fori_loop
                    refinement with per-iteration biases (dynamic index), a
                    forward and a reverse lax.scan GRU-like cell; SGD Nesterov
    bf16_<mesh>:    mixed precision: f32 master weights, bf16 inputs and
                    activations, f32 layer norm and loss, bf16 momentum state
    half_<mesh>:    bf16_'s model with f32 arguments only (cast inside)
    lion_<mesh>:    MLP with LayerNorm, Lion with a weight-decay mask,
                    gradient clipping by value, int32 step counter in the
                    state driving a warm-up + cosine learning-rate schedule
    moe_<mesh>:     top-2 mixture of 4 experts (weights [E, D, F], experts on
                    "model"), softmax router, dense dispatch by one-hot masks,
                    load-balancing auxiliary loss, Adam
    tied_<mesh>:    next-token LM with embedding rows on "model", logits by
                    the tied embedding, jax.checkpoint'd blocks, an int32
                    "hits" metric, Adam
    misc_<mesh>:    int32 hashing of ids into buckets, roll, pad, a depthwise
                    causal conv1d (feature_group_count), standardize,
                    grouped-query attention with jnp.repeat, triu mask, flip,
                    std, SGD with Nesterov momentum

The steps are small (1-20 ms on two cores): they check that shardc
imports and runs what JAX users write, with the same losses (after 12
steps in bench/train, within 1.7e-6 relative in f32 and 3.8e-4 with bf16
arithmetic; bench/README.md). misc on
2x2 is the exception where JAX is the one that differs: its gradient of the
depthwise conv kernel on that mesh differs from its single-device one,
while shardc's losses are the same on every mesh.

Sizes: BENCH_<MODEL>_SIZES as in bench/train (e.g. BENCH_ROPE_SIZES="batch=12").
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from jax_export import Export
import models as _bench

grid, parse_mesh, model_axis = _bench.grid, _bench.parse_mesh, _bench.model_axis
sizes = _bench.sizes


def zeros_like(tree):
    return jax.tree.map(np.zeros_like, tree)


def adam(params, grads, m, v, t, lr=1e-3):
    """models.py's Adam (bias-corrected) with b2 = 0.98 and eps = 1e-7."""
    return _bench.adam(params, grads, m, v, t, lr=lr, b2=0.98, eps=1e-7)


# --- rope: attention classifier -------------------------------------------

ROPE_SIZES = {"batch": 16, "seq": 32, "vocab": 512, "width": 128, "heads": 4, "mlp": 256,
              "classes": 10}


def rms_norm(x, g, eps=1e-6):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * g


def rotary(x):
    # x: [B, S, H, Dh]
    S, dh = x.shape[1], x.shape[3]
    inv = 1.0 / (10000.0 ** (jnp.arange(0, dh, 2, dtype=jnp.float32) / dh))
    ang = jnp.arange(S, dtype=jnp.float32)[:, None] * inv[None, :]   # [S, Dh/2]
    cos, sin = jnp.cos(ang)[None, :, None, :], jnp.sin(ang)[None, :, None, :]
    x1, x2 = jnp.split(x, 2, axis=-1)
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def rope_loss(p, tokens, labels, heads, smooth=0.1):
    B, S = tokens.shape
    x = jnp.take(p["E"], tokens, axis=0) + p["pos"][None]
    D = x.shape[-1]
    keep = tokens != 0                                            # padding = token 0
    h = rms_norm(x, p["g1"])
    q = rotary((h @ p["Wq"]).reshape(B, S, heads, D // heads))
    k = rotary((h @ p["Wk"]).reshape(B, S, heads, D // heads))
    v = (h @ p["Wv"]).reshape(B, S, heads, D // heads)
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * (1.0 / math.sqrt(D // heads))
    s = jnp.where(keep[:, None, None, :], s, jnp.finfo(jnp.float32).min)
    a = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(B, S, D)
    x = x + o @ p["Wo"]
    h = rms_norm(x, p["g2"])
    x = x + (jax.nn.silu(h @ p["Wg"]) * (h @ p["Wu"])) @ p["Wd"]
    x = rms_norm(x, p["gf"])
    w = keep.astype(jnp.float32)[..., None]
    pooled = jnp.sum(x * w, axis=1) / jnp.maximum(jnp.sum(w, axis=1), 1.0)
    logits = pooled @ p["Wc"]
    C = logits.shape[-1]
    target = jax.nn.one_hot(labels, C) * (1 - smooth) + smooth / C
    return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits), axis=-1))


def rope(mesh):
    rng = np.random.default_rng(21)
    z = sizes("rope", ROPE_SIZES)
    B, S, V, D, H, F, C = (z["batch"], z["seq"], z["vocab"], z["width"], z["heads"], z["mlp"],
                           z["classes"])
    ax = model_axis(mesh)
    params = {"E": grid(rng, (V, D), 0.5), "pos": grid(rng, (S, D), 0.125),
              "g1": np.ones(D, np.float32), "g2": np.ones(D, np.float32),
              "gf": np.ones(D, np.float32),
              "Wq": grid(rng, (D, D), 0.125), "Wk": grid(rng, (D, D), 0.125),
              "Wv": grid(rng, (D, D), 0.125), "Wo": grid(rng, (D, D), 0.0625),
              "Wg": grid(rng, (D, F), 0.125), "Wu": grid(rng, (D, F), 0.125),
              "Wd": grid(rng, (F, D), 0.0625), "Wc": grid(rng, (D, C), 0.125)}
    specs = {"E": P(None, ax), "pos": P(), "g1": P(), "g2": P(), "gf": P(),
             "Wq": P(None, ax), "Wk": P(None, ax), "Wv": P(None, ax), "Wo": P(ax, None),
             "Wg": P(None, ax), "Wu": P(None, ax), "Wd": P(ax, None), "Wc": P()}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    sspec = (specs, specs, specs, P())
    tokens = rng.integers(1, V, size=(B, S)).astype(np.int32)
    lengths = rng.integers(S // 4, S + 1, size=B)
    tokens[np.arange(S)[None, :] >= lengths[:, None]] = 0
    labels = rng.integers(0, C, size=B).astype(np.int32)

    def step(state, tokens, labels):
        params, m, v, t = state
        loss, g = jax.value_and_grad(rope_loss)(params, tokens, labels, H)
        return adam(params, g, m, v, t), {"loss": loss}
    return Export(step, (state, tokens, labels), mesh, (sspec, P("data", None), P("data")),
                  donate_argnums=(0,))


# --- drop: dropout from masks, centered RMSProp ---------------------------

DROP_SIZES = {"batch": 512, "inputs": 128, "hidden": 256, "classes": 16}


def drop_loss(p, x, m1, m2, labels, rate=0.25):
    h = jax.nn.relu(x @ p["W1"] + p["b1"])
    h = jnp.where(m1, h / (1 - rate), 0.0)
    h = jax.nn.elu(h @ p["W2"] + p["b2"])
    h = jnp.where(m2, h / (1 - rate), 0.0)
    logits = h @ p["W3"]
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=jnp.float32)
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), -1))


def drop(mesh):
    rng = np.random.default_rng(22)
    z = sizes("drop", DROP_SIZES)
    B, D, H, C = z["batch"], z["inputs"], z["hidden"], z["classes"]
    ax = model_axis(mesh)
    params = {"W1": grid(rng, (D, H), 0.125), "b1": grid(rng, (H,), 0.0625),
              "W2": grid(rng, (H, H), 0.0625), "b2": np.zeros(H, np.float32),
              "W3": grid(rng, (H, C), 0.125)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "b2": P(), "W3": P()}
    state = (params, zeros_like(params), zeros_like(params), zeros_like(params))
    sspec = (specs,) * 4
    x = grid(rng, (B, D), 1.0)
    m1 = rng.random((B, H)) >= 0.25
    m2 = rng.random((B, H)) >= 0.25
    labels = rng.integers(0, C, size=B).astype(np.int32)

    def step(state, x, m1, m2, labels, lr=1e-3, rho=0.9, mom=0.9, eps=1e-6):
        params, sq, avg, buf = state
        loss, g = jax.value_and_grad(drop_loss)(params, x, m1, m2, labels)
        sq = jax.tree.map(lambda s, g: rho * s + (1 - rho) * g * g, sq, g)
        avg = jax.tree.map(lambda a, g: rho * a + (1 - rho) * g, avg, g)
        buf = jax.tree.map(lambda b, g, s, a: mom * b + g / jnp.sqrt(s - a * a + eps),
                           buf, g, sq, avg)
        params = jax.tree.map(lambda p, b: p - lr * b, params, buf)
        return (params, sq, avg, buf), {"loss": loss}
    return Export(step, (state, x, m1, m2, labels), mesh,
                  (sspec, P("data", None), P("data", None), P("data", None), P("data")),
                  donate_argnums=(0,))


# --- eins: einsum / split / concatenate / transpose -----------------------

EINS_SIZES = {"batch": 32, "seq": 16, "width": 64, "heads": 4, "out": 8}


def eins_loss(p, x, y, heads):
    B, T, D = x.shape
    qkv = jnp.einsum("btd,df->btf", x, p["Wqkv"])                 # [B, T, 3D]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    split = lambda a: a.reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(q), split(k), split(v)                         # [B, H, T, Dh]
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.float32(math.sqrt(D // heads))
    o = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)
    o = o.transpose(0, 2, 1, 3).reshape(B, T, D)
    h = jnp.concatenate([x, o], axis=-1)                           # [B, T, 2D]
    h = jnp.tanh(jnp.einsum("btf,fo->bto", h, p["Wmix"]))          # [B, T, D]
    g = jnp.einsum("bij,bjk->bik", h, jnp.swapaxes(h, 1, 2)) / D   # [B, T, T]
    h = h + jnp.einsum("bij,bjd->bid", jax.nn.softmax(g, -1), h)
    out = jnp.einsum("btd,tdk->bk", h, p["Wout"])                  # contract t and d
    return jnp.mean((out - y) ** 2)


def eins(mesh):
    rng = np.random.default_rng(23)
    z = sizes("eins", EINS_SIZES)
    B, T, D, H, K = z["batch"], z["seq"], z["width"], z["heads"], z["out"]
    ax = model_axis(mesh)
    params = {"Wqkv": grid(rng, (D, 3 * D), 0.125), "Wmix": grid(rng, (2 * D, D), 0.125),
              "Wout": grid(rng, (T, D, K), 0.03125)}
    specs = {"Wqkv": P(None, ax), "Wmix": P(ax, None), "Wout": P(None, ax, None)}
    x, y = grid(rng, (B, T, D), 1.0), grid(rng, (B, K), 1.0)

    def step(params, x, y):
        loss, g = jax.value_and_grad(eins_loss)(params, x, y, H)
        return jax.tree.map(lambda p, g: p - 0.05 * g, params, g), {"loss": loss}
    return Export(step, (params, x, y), mesh, (specs, P("data", None, None), P("data", None)),
                  donate_argnums=(0,))


# --- regr: elementwise zoo, accuracy metric --------------------------------

REGR_SIZES = {"batch": 1024, "inputs": 64, "hidden": 256, "levels": 6}


def regr_parts(p, x, y, level):
    h = jax.nn.softplus(x @ p["W1"] + p["b1"])
    h = jnp.maximum(h, 0.1 * h) - 0.5
    out = h @ p["W2"]                                   # [B, 2 + L]
    mu, raw_s, logits = out[:, 0], out[:, 1], out[:, 2:]
    sigma = jax.nn.softplus(raw_s) + 1e-3
    err = y - mu
    nll = jnp.log(sigma) + 0.5 * jnp.square(err / sigma)
    robust = jnp.clip(jnp.abs(err), 0.0, 2.0)
    # ordinal head: cumulative thresholds from positive increments
    thr = jnp.cumsum(jnp.exp(p["inc"]))                  # [L - 1] increasing
    z = logits[:, :1] - thr[None, :]                     # [B, L - 1]
    above = (level[:, None] > jnp.arange(thr.shape[0])[None, :])
    ord_nll = jnp.where(above, jnp.log1p(jnp.exp(-z)), jnp.log1p(jnp.exp(z)))
    loss = jnp.mean(nll) + 0.1 * jnp.mean(robust) + jnp.mean(jnp.sum(ord_nll, -1)) \
        + 0.01 * jnp.mean(jax.nn.log_sigmoid(logits[:, 1:]) ** 2)
    pred_level = jnp.argmax(jnp.concatenate([jnp.zeros_like(z[:, :1]), z], -1) *
                            jnp.concatenate([jnp.ones_like(z[:, :1]), (z > 0)], -1) +
                            jnp.arange(z.shape[1] + 1) * 1e-3, axis=-1)
    acc = jnp.mean((pred_level == level).astype(jnp.float32))
    mae = jnp.mean(jnp.abs(err))
    return loss, (acc, mae)


def regr(mesh):
    rng = np.random.default_rng(24)
    z = sizes("regr", REGR_SIZES)
    B, D, H, L = z["batch"], z["inputs"], z["hidden"], z["levels"]
    ax = model_axis(mesh)
    params = {"W1": grid(rng, (D, H), 0.125), "b1": grid(rng, (H,), 0.125),
              "W2": grid(rng, (H, 2 + L), 0.0625), "inc": grid(rng, (L - 1,), 0.5)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "inc": P()}
    accum = jax.tree.map(lambda a: np.full_like(a, 0.1), params)
    x = grid(rng, (B, D), 1.0)
    y = (x[:, :4].sum(-1) + 0.25 * grid(rng, (B,), 1.0)).astype(np.float32)
    level = np.clip(np.round(y + 3), 0, L - 1).astype(np.int32)

    def step(state, x, y, level):
        params, acc2 = state
        (loss, (acc, mae)), g = jax.value_and_grad(regr_parts, has_aux=True)(params, x, y, level)
        acc2 = jax.tree.map(lambda a, g: a + g * g, acc2, g)
        params = jax.tree.map(lambda p, g, a: p - 0.05 * g / jnp.sqrt(a), params, g, acc2)
        return (params, acc2), {"loss": loss, "acc": acc, "mae": mae}
    return Export(step, ((params, accum), x, y, level), mesh,
                  ((specs, specs), P("data", None), P("data"), P("data")), donate_argnums=(0,))


# --- loop: grad accumulation scan, fori_loop, fwd/rev scans ----------------

LOOP_SIZES = {"batch": 64, "micro": 4, "seq": 8, "inputs": 32, "hidden": 64, "iters": 3}


def loop_loss(p, xs, y, iters):
    # xs: [B, T, D]
    B, T, D = xs.shape

    def cell(W, U, c, h, x):
        zr = jax.nn.sigmoid(x @ W[:, :2 * c] + h @ U[:, :2 * c])
        zg, rg = zr[:, :c], zr[:, c:]
        cand = jnp.tanh(x @ W[:, 2 * c:] + (rg * h) @ U[:, 2 * c:])
        return (1 - zg) * h + zg * cand

    Hh = p["Uf"].shape[0]
    h0 = jnp.zeros((B, Hh), jnp.float32)
    xt = jnp.swapaxes(xs, 0, 1)                                      # [T, B, D]
    hf, _ = jax.lax.scan(lambda h, x: (cell(p["Wf"], p["Uf"], Hh, h, x), None), h0, xt)
    hb, ys = jax.lax.scan(lambda h, x: (cell(p["Wb"], p["Ub"], Hh, h, x),) * 2, h0, xt,
                          reverse=True)
    h = jnp.concatenate([hf, hb, ys.mean(0)], -1) @ p["Wc"]          # [B, Hh]

    def refine(i, h):
        return h + 0.5 * jnp.tanh(h @ p["R"] + p["rb"][i])
    h = jax.lax.fori_loop(0, iters, refine, h)
    return jnp.mean((h @ p["Wo"] - y) ** 2)


def loop(mesh):
    rng = np.random.default_rng(25)
    z = sizes("loop", LOOP_SIZES)
    B, M, T, D, H, I = z["batch"], z["micro"], z["seq"], z["inputs"], z["hidden"], z["iters"]
    params = {"Wf": grid(rng, (D, 3 * H), 0.125), "Uf": grid(rng, (H, 3 * H), 0.125),
              "Wb": grid(rng, (D, 3 * H), 0.125), "Ub": grid(rng, (H, 3 * H), 0.125),
              "Wc": grid(rng, (3 * H, H), 0.125), "R": grid(rng, (H, H), 0.125),
              "rb": grid(rng, (I, H), 0.25), "Wo": grid(rng, (H, 4), 0.125)}
    specs = jax.tree.map(lambda _: P(), params)
    xs, y = grid(rng, (B, T, D), 1.0), grid(rng, (B, 4), 1.0)

    def step(state, xs, y, lr=0.05, mu=0.9):
        params, mom = state
        xm = xs.reshape(M, B // M, T, D)
        ym = y.reshape(M, B // M, 4)

        def micro(carry, batch):
            lsum, gsum = carry
            l, g = jax.value_and_grad(loop_loss)(params, batch[0], batch[1], I)
            return (lsum + l, jax.tree.map(jnp.add, gsum, g)), l
        (lsum, gsum), ls = jax.lax.scan(micro, (jnp.float32(0), jax.tree.map(jnp.zeros_like, params)),
                                           (xm, ym))
        g = jax.tree.map(lambda g: g / M, gsum)
        mom = jax.tree.map(lambda m, g: mu * m + g, mom, g)
        params = jax.tree.map(lambda p, m, g: p - lr * (g + mu * m), params, mom, g)
        return (params, mom), {"loss": lsum / M, "last_micro": ls[-1]}
    return Export(step, ((params, zeros_like(params)), xs, y), mesh,
                  ((specs, specs), P("data", None, None), P("data", None)), donate_argnums=(0,))


# --- bf16: mixed precision ------------------------------------------------

BF16_SIZES = {"batch": 256, "inputs": 128, "hidden": 256, "classes": 16}


def bf16_loss(p, x, labels):
    bf = jnp.bfloat16
    h = x @ p["W1"].astype(bf)                                     # bf16 activations
    hf = h.astype(jnp.float32)
    mu = hf.mean(-1, keepdims=True)
    hf = (hf - mu) * jax.lax.rsqrt(((hf - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    h = jax.nn.gelu((hf * p["g"]).astype(bf))
    h = jnp.dot(h, p["W2"].astype(bf), preferred_element_type=jnp.float32)
    h = jax.nn.relu(h).astype(bf)
    logits = (h @ p["W3"].astype(bf)).astype(jnp.float32)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], -1))


def bf16(mesh):
    rng = np.random.default_rng(26)
    z = sizes("bf16", BF16_SIZES)
    B, D, H, C = z["batch"], z["inputs"], z["hidden"], z["classes"]
    ax = model_axis(mesh)
    params = {"W1": grid(rng, (D, H), 0.125), "g": np.ones(H, np.float32),
              "W2": grid(rng, (H, H), 0.0625), "W3": grid(rng, (H, C), 0.125)}
    specs = {"W1": P(None, ax), "g": P(ax), "W2": P(ax, None), "W3": P()}
    mom = jax.tree.map(lambda a: np.zeros(a.shape, jnp.bfloat16), params)
    x = grid(rng, (B, D), 1.0).astype(jnp.bfloat16)
    labels = rng.integers(0, C, size=B).astype(np.int32)

    def step(state, x, labels):
        params, mom = state
        loss, g = jax.value_and_grad(bf16_loss)(params, x, labels)
        mom = jax.tree.map(lambda m, g: (0.9 * m.astype(jnp.float32) + g).astype(jnp.bfloat16),
                           mom, g)
        params = jax.tree.map(lambda p, m: p - 0.1 * m.astype(jnp.float32), params, mom)
        return (params, mom), {"loss": loss}
    return Export(step, ((params, mom), x, labels), mesh,
                  ((specs, specs), P("data", None), P("data")), donate_argnums=(0,))


# --- lion: Lion, weight-decay mask, clip by value, int step counter --------

LION_SIZES = {"batch": 512, "inputs": 96, "hidden": 384, "outputs": 8, "total": 100}


def lion_loss(p, x, y):
    h = x @ p["W1"] + p["b1"]
    mu = h.mean(-1, keepdims=True)
    h = (h - mu) / jnp.sqrt(h.var(-1, keepdims=True) + 1e-5) * p["ln_g"] + p["ln_b"]
    h = jax.nn.swish(h)
    h = jax.nn.relu6(h @ p["W2"] + p["b2"] * 3)
    out = h @ p["W3"]
    return jnp.mean(jnp.abs(out - y)) + 0.5 * jnp.mean(jnp.square(out - y))


def lion(mesh):
    rng = np.random.default_rng(27)
    z = sizes("lion", LION_SIZES)
    B, D, H, O, total = z["batch"], z["inputs"], z["hidden"], z["outputs"], z["total"]
    ax = model_axis(mesh)
    params = {"W1": grid(rng, (D, H), 0.125), "b1": grid(rng, (H,), 0.125),
              "ln_g": np.ones(H, np.float32), "ln_b": np.zeros(H, np.float32),
              "W2": grid(rng, (H, H), 0.0625), "b2": grid(rng, (H,), 0.125),
              "W3": grid(rng, (H, O), 0.125)}
    specs = {"W1": P(None, ax), "b1": P(ax), "ln_g": P(ax), "ln_b": P(ax),
             "W2": P(ax, None), "b2": P(), "W3": P()}
    decay = {k: k.startswith("W") for k in params}
    x = grid(rng, (B, D), 1.0)
    y = np.tanh(x[:, :O] * 2).astype(np.float32)

    def step(state, x, y, b1=0.9, b2=0.99, wd=0.1, peak=3e-3, warm=4):
        params, m, t = state
        loss, g = jax.value_and_grad(lion_loss)(params, x, y)
        g = jax.tree.map(lambda g: jnp.clip(g, -0.05, 0.05), g)
        t = t + 1
        tf = t.astype(jnp.float32)
        lr = peak * jnp.minimum(1.0, tf / warm) * 0.5 * (1 + jnp.cos(jnp.pi * tf / total))
        upd = jax.tree.map(lambda m, g: jnp.sign(b1 * m + (1 - b1) * g), m, g)
        params = {k: params[k] - lr * (upd[k] + (wd * params[k] if decay[k] else 0.0))
                  for k in params}
        m = jax.tree.map(lambda m, g: b2 * m + (1 - b2) * g, m, g)
        return (params, m, t), {"loss": loss, "lr": lr}
    return Export(step, ((params, zeros_like(params), np.int32(0)), x, y), mesh,
                  ((specs, specs, P()), P("data", None), P("data", None)), donate_argnums=(0,))


# --- moe: top-2 mixture of experts, experts on "model" ---------------------

MOE_SIZES = {"batch": 256, "width": 64, "mlp": 128, "experts": 4, "outputs": 8}


def moe_loss(p, x, y):
    E = p["W_in"].shape[0]
    gate = jax.nn.softmax(x @ p["router"], -1)                      # [B, E]
    top_v, top_i = jax.lax.top_k(gate, 2)                           # [B, 2]
    top_v = top_v / jnp.sum(top_v, -1, keepdims=True)
    disp = jnp.sum(jax.nn.one_hot(top_i, E) * top_v[..., None], 1)  # [B, E] combine weights
    h = jax.nn.gelu(jnp.einsum("bd,edf->ebf", x, p["W_in"]))        # every expert, dense
    out = jnp.einsum("ebf,efd->ebd", h, p["W_out"])                 # [E, B, D]
    out = jnp.einsum("ebd,be->bd", out, disp)
    pred = (x + out) @ p["head"]
    frac = jnp.mean(jax.nn.one_hot(top_i[:, 0], E), 0)
    aux = E * jnp.sum(frac * jnp.mean(gate, 0))
    return jnp.mean((pred - y) ** 2) + 0.01 * aux


def moe(mesh):
    rng = np.random.default_rng(28)
    z = sizes("moe", MOE_SIZES)
    B, D, F, E, O = z["batch"], z["width"], z["mlp"], z["experts"], z["outputs"]
    ax = model_axis(mesh)
    params = {"router": grid(rng, (D, E), 0.5), "W_in": grid(rng, (E, D, F), 0.125),
              "W_out": grid(rng, (E, F, D), 0.0625), "head": grid(rng, (D, O), 0.125)}
    specs = {"router": P(), "W_in": P(ax, None, None), "W_out": P(ax, None, None),
             "head": P()}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    sspec = (specs, specs, specs, P())
    x, y = grid(rng, (B, D), 1.0), grid(rng, (B, O), 1.0)

    def step(state, x, y):
        params, m, v, t = state
        loss, g = jax.value_and_grad(moe_loss)(params, x, y)
        return adam(params, g, m, v, t, lr=3e-3), {"loss": loss}
    return Export(step, (state, x, y), mesh, (sspec, P("data", None), P("data", None)),
                  donate_argnums=(0,))


def half(mesh):
    """bf16 with f32 arguments only: x cast to bf16 inside, the momentum kept
    in f32 but rounded to bf16 each step (bf16's own arguments: bf16_<mesh>)."""
    e = bf16(mesh)
    (params, mom), x, labels = e.args
    mom = jax.tree.map(lambda m: np.asarray(m, np.float32), mom)
    x = np.asarray(x, np.float32)

    def step(state, x, labels):
        params, mom = state
        loss, g = jax.value_and_grad(bf16_loss)(params, x.astype(jnp.bfloat16), labels)
        mom = jax.tree.map(lambda m, g: (0.9 * m + g).astype(jnp.bfloat16).astype(jnp.float32),
                           mom, g)
        params = jax.tree.map(lambda p, m: p - 0.1 * m, params, mom)
        return (params, mom), {"loss": loss}
    return Export(step, ((params, mom), x, labels), mesh, e.in_specs, donate_argnums=(0,))




# --- tied: vocab-parallel tied embeddings, remat, int metric --------------

TIED_SIZES = {"batch": 32, "seq": 16, "vocab": 1024, "width": 64}


def tied_loss(p, tokens):
    # next-token LM: rows of E on "model", logits by the tied E.T, remat'd block
    x = jnp.take(p["E"], tokens[:, :-1], axis=0)                    # [B, T-1, D]

    @jax.checkpoint
    def block(x):
        h = rms_norm(x, p["g"])
        return x + jax.nn.gelu(h @ p["W1"]) @ p["W2"]
    x = block(block(x))
    logits = jnp.einsum("btd,vd->btv", rms_norm(x, p["gf"]), p["E"])
    tgt = tokens[:, 1:]
    nll = jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, tgt[..., None], -1)[..., 0]
    hits = jnp.sum((jnp.argmax(logits, -1) == tgt).astype(jnp.int32))
    return jnp.mean(nll), hits


def tied(mesh):
    rng = np.random.default_rng(30)
    z = sizes("tied", TIED_SIZES)
    B, T, V, D = z["batch"], z["seq"], z["vocab"], z["width"]
    ax = model_axis(mesh)
    params = {"E": grid(rng, (V, D), 0.5), "g": np.ones(D, np.float32),
              "gf": np.ones(D, np.float32),
              "W1": grid(rng, (D, 4 * D), 0.125), "W2": grid(rng, (4 * D, D), 0.0625)}
    specs = {"E": P(ax, None), "g": P(), "gf": P(), "W1": P(None, ax), "W2": P(ax, None)}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    sspec = (specs, specs, specs, P())
    tokens = rng.integers(0, V, size=(B, T)).astype(np.int32)
    tokens[:, 1::2] = (tokens[:, 0::2] * 7 + 3) % V          # learnable structure

    def step(state, tokens):
        params, m, v, t = state
        (loss, hits), g = jax.value_and_grad(tied_loss, has_aux=True)(params, tokens)
        return adam(params, g, m, v, t, lr=3e-3), {"loss": loss, "hits": hits}
    return Export(step, (state, tokens), mesh, (sspec, P("data", None)), donate_argnums=(0,))



# --- misc: hashed features, GQA with repeat, depthwise causal conv1d -------

MISC_SIZES = {"batch": 16, "seq": 32, "buckets": 512, "width": 64, "heads": 4, "kv_heads": 2,
              "classes": 8}


def misc_loss(p, ids, labels, heads, kvh):
    B, S = ids.shape
    # multiplicative hashing of raw ids into buckets (int32 wraparound, shifts, masks)
    hsh = (ids * jnp.int32(-1640531535)) ^ (ids >> 7)
    bucket = (hsh & 0x7FFFFFFF) % p["E"].shape[0]
    x = p["E"][bucket]                                              # [B, S, D]
    x = x + jnp.roll(x, 1, axis=1) * 0.5                            # previous token mix
    # depthwise causal conv1d (kernel 4) with feature_group_count
    D = x.shape[-1]
    xp = jnp.pad(x, ((0, 0), (3, 0), (0, 0)))
    x = x + jax.lax.conv_general_dilated(xp, p["K"], (1,), "VALID",
                                         dimension_numbers=("NWC", "WIO", "NWC"),
                                         feature_group_count=D)
    x = jax.nn.standardize(x, axis=-1) * p["g"]
    dh = D // heads
    q = (x @ p["Wq"]).reshape(B, S, heads, dh)
    k = (x @ p["Wk"]).reshape(B, S, kvh, dh)
    v = (x @ p["Wv"]).reshape(B, S, kvh, dh)
    k, v = jnp.repeat(k, heads // kvh, axis=2), jnp.repeat(v, heads // kvh, axis=2)
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(dh))
    mask = jnp.triu(jnp.ones((S, S), bool), k=1)
    s = jnp.where(mask, -jnp.inf, s)
    o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v).reshape(B, S, D)
    x = x + o @ p["Wo"]
    feat = jnp.concatenate([x[:, -1], jnp.flip(x, 1)[:, -1], jnp.std(x, axis=1)], -1)
    logits = feat @ p["Wc"]
    return jnp.mean(optax_like_softmax_ce(logits, labels))


def optax_like_softmax_ce(logits, labels):
    return -jnp.sum(jax.nn.one_hot(labels, logits.shape[-1]) * jax.nn.log_softmax(logits), -1)


def misc(mesh):
    rng = np.random.default_rng(31)
    z = sizes("misc", MISC_SIZES)
    B, S, NB, D, H, KV, C = (z["batch"], z["seq"], z["buckets"], z["width"], z["heads"],
                             z["kv_heads"], z["classes"])
    ax = model_axis(mesh)
    params = {"E": grid(rng, (NB, D), 0.5), "K": grid(rng, (4, 1, D), 0.25),
              "g": np.ones(D, np.float32),
              "Wq": grid(rng, (D, D), 0.125), "Wk": grid(rng, (D, D // H * KV), 0.125),
              "Wv": grid(rng, (D, D // H * KV), 0.125), "Wo": grid(rng, (D, D), 0.125),
              "Wc": grid(rng, (3 * D, C), 0.125)}
    specs = {"E": P(), "K": P(), "g": P(), "Wq": P(None, ax), "Wk": P(None, ax),
             "Wv": P(None, ax), "Wo": P(ax, None), "Wc": P()}
    ids = rng.integers(0, 2 ** 31 - 1, size=(B, S)).astype(np.int32)
    labels = (ids[:, 0] % C).astype(np.int32)

    def step(state, ids, labels):
        params, mom = state
        loss, g = jax.value_and_grad(misc_loss)(params, ids, labels, H, KV)
        mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, g)
        params = jax.tree.map(lambda p, m, g: p - 0.05 * (g + 0.9 * m), params, mom, g)
        return (params, mom), {"loss": loss}
    return Export(step, ((params, zeros_like(params)), ids, labels), mesh,
                  ((specs, specs), P("data", None), P("data")), donate_argnums=(0,))


BUILDERS = {"rope": rope, "drop": drop, "eins": eins, "regr": regr, "loop": loop, "bf16": bf16,
            "half": half, "lion": lion, "moe": moe, "tied": tied, "misc": misc}
EXPORTS = _bench.Exports(BUILDERS)
