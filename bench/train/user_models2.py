"""More training steps as JAX users write them, with features that
user_models.py does not exercise (BENCH_MODELS=bench/train/user_models2.py):

    bn_<mesh>:      CNN: conv2d stride 1 and stride 2 with SAME padding
                    (asymmetric pads), BatchNorm over (N, H, W) with the batch
                    on "data" (global mean/var), running mean/var in the state
                    updated with momentum (unbiased var), max_pool and a
                    count-excluding SAME avg_pool by lax.reduce_window, global
                    average pool; channels on "model"; SGD momentum + wd
    rng_<mesh>:     dropout generated inside the step: a PRNGKey (uint32[2])
                    carried in the state, jax.random.split / fold_in(step),
                    bernoulli and uniform masks, gaussian input noise
                    (random.normal), mixup with jax.random.permutation of the
                    data-sharded batch; Adam
    dpsgd_<mesh>:   DP-SGD: per-example gradients by jax.vmap(jax.grad),
                    per-example clipping by global norm, sum, gaussian noise
                    from a carried key, mean; SGD
    clip_<mesh>:    CLIP-like contrastive loss: two towers (MLP and
                    mean-pooled token embeddings), L2-normalized embeddings,
                    logits = a @ b.T * exp(learned temperature, clipped),
                    cross-entropy along both axes (logsumexp over axis 0 =
                    the sharded batch and axis 1), jnp.diagonal, accuracy
                    both ways; AdamW
    gnn_<mesh>:     message passing over data-sharded edges: gather h[src],
                    jax.ops.segment_sum into nodes, jnp.bincount(length=N)
                    degrees, segment_max + segment_sum graph pooling, an
                    embedding bag by zeros().at[bag].add(E[tok]); Adam
    rank_<mesh>:    lax.top_k top-5 accuracy, jnp.argsort + take_along_axis
                    ListMLE with lax.cumlogsumexp(reverse=True), discrete-time
                    survival with jnp.cumprod, loss trimming at
                    jnp.quantile(0.9) of the per-example losses (sharded
                    batch), jnp.median and jnp.sort metrics; SGD
    adafac_<mesh>:  Adafactor: factored second moments (row/column means),
                    decay 1 - t^-0.8, rsqrt, update clipping by RMS, relative
                    step size max(1e-3, rms(p)) * min(1e-2, 1/sqrt(t))
    lamb_<mesh>:    LAMB: Adam moments + weight decay, per-parameter trust
                    ratio ||w|| / ||u|| guarded by where(> 0)
    alibi_<mesh>:   bf16 attention with ALiBi slopes and a causal sliding
                    window mask from iota comparisons, softmax in f32, heads
                    on "model" (einsum weights [D, H, Dh]), a second block by
                    jax.nn.dot_product_attention(bias=, mask=); f32 master
                    weights, SGD momentum
    guard_<mesh>:   dynamic loss scaling: an f16 MLP (f32 master weights),
                    loss scale starting at 2**24 (capped there) so that the
                    f16 backward overflows in the first steps, jnp.isfinite over all grads,
                    lax.cond skipping the update, scale halved / doubled
                    every 3 good steps (int32 %, //), lr decayed by
                    step // 4, nan_to_num'd metrics, skipped counter
    strided_<mesh>: x[:, ::2], x[:, 1::2], x[:, ::-2], take_along_axis on
                    dim 1 with batched indices, einsum 'bkd,hde->bhke' and
                    '...d,d->...', reshape merging the sharded batch with the
                    sequence (and splitting it back), space-to-depth; SGD
    vq_<mesh>:      VQ-VAE bottleneck: squared distances to a codebook,
                    argmin, codebook lookup, straight-through estimator
                    (stop_gradient), commitment loss, codebook EMA update by
                    one_hot counts and segment_sum, perplexity metric
    nanreg_<mesh>:  uint8 pixel inputs, NaN (missing) regression targets with
                    ~jnp.isnan masks, jnp.mean(where=), jnp.nanmean /
                    jnp.nanmax metrics, online hard example mining by
                    lax.top_k over the data-sharded per-example losses; Adam
    ens_<mesh>:     a 4-member ensemble by jax.vmap over stacked params (members
                    on "model"), reflect/edge jnp.pad, dilated conv1d
                    (rhs_dilation), SAM (a second gradient at the perturbed
                    point), int // % lax.div lax.rem on negative operands,
                    jnp.round, argmin over members
    qat_<mesh>:     int8 fake quantization with a straight-through estimator,
                    per-tensor scale from max|x| over the sharded batch,
                    per-channel weight scales, an int8 x int8 -> int32
                    lax.dot_general inference path in the metrics
    seqpar_<mesh>:  with_sharding_constraint resharding activations (sequence
                    on "model", then width on "model"), token mixing einsum,
                    gradient accumulation by lax.fori_loop over microbatches
                    cut by lax.dynamic_slice_in_dim from the data-sharded batch
    assoc_<mesh>:   a linear recurrence by lax.associative_scan, jnp.diff,
                    bilinear jax.image.resize of an image input
    smap_<mesh>:    explicit data parallelism with jax.shard_map: sync
                    BatchNorm by lax.pmean, contrastive loss over
                    lax.all_gather'd embeddings with lax.axis_index labels,
                    pmean'd gradients, psum'd int metric (meshes with >1 device)
    adv_<mesh>:     FGSM adversarial training (grad w.r.t. the input,
                    argnums=(0, 1)), lax.switch(step % 3) augmentations,
                    jnp.searchsorted / jnp.digitize bucketing, EMA weights with
                    a bool flag in the state, a wrapping uint8 counter
    switch_<mesh>:  Switch-Transformer top-1 routing with capacity: jnp.cumsum
                    over the data-sharded tokens, dispatch/combine [S, E, C]
                    einsums, experts on "model", z-loss, load balancing
    gan_<mesh>:     generator + discriminator updated in one step, spectral
                    norm by power iteration (u in the state), R1 gradient
                    penalty (double backprop), latents from a carried key
    crf_<mesh>:     linear-chain CRF: forward algorithm by lax.scan with
                    logsumexp, gold path score by take_along_axis and a
                    flattened transition index, Viterbi decode (scan + reverse
                    scan backtracking) for a token accuracy

Meshes as in models.py: "<data>x<model>" or "<data>". Sizes: BENCH_<MODEL>_SIZES.
Some steps use a second way of writing a thing (einsum('ii->i') for
jnp.diagonal, take_along_axis for a vmapped `v[label]`, indices broadcast
before take_along_axis, one_hot under a vmap, a shard_map over every
axis); the first ways import too, and tests/import/jax/models.py
(`gathers`, `shardmap_unit`, `shardmap_one`) checks them against JAX.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

from jax_export import Export
import models as _bench

grid, parse_mesh, model_axis = _bench.grid, _bench.parse_mesh, _bench.model_axis
sizes = _bench.sizes


def zeros_like(tree):
    return jax.tree.map(np.zeros_like, tree)


def ce(logits, labels):
    return jnp.mean(jax.nn.logsumexp(logits, -1)
                    - jnp.take_along_axis(logits, labels[:, None], -1)[:, 0])


# --- bn: conv stride 2, BatchNorm with running stats, pooling ---------------

BN_SIZES = {"batch": 16, "image": 16, "c1": 8, "c2": 16, "classes": 10}


def conv(x, w, stride):
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, g, b, rm, rv, mom=0.9, eps=1e-5):
    mean = jnp.mean(x, axis=(0, 1, 2))
    var = jnp.var(x, axis=(0, 1, 2))
    n = x.shape[0] * x.shape[1] * x.shape[2]
    y = (x - mean) * lax.rsqrt(var + eps) * g + b
    rm = mom * rm + (1 - mom) * lax.stop_gradient(mean)
    rv = mom * rv + (1 - mom) * lax.stop_gradient(var) * (n / (n - 1))
    return y, rm, rv


def max_pool(x, k, s):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, k, k, 1), (1, s, s, 1), "SAME")


def avg_pool_same(x, k):
    # flax's avg_pool(count_include_pad=False)
    tot = lax.reduce_window(x, 0.0, lax.add, (1, k, k, 1), (1, 1, 1, 1), "SAME")
    cnt = lax.reduce_window(jnp.ones(x.shape[1:3], x.dtype), 0.0, lax.add, (k, k), (1, 1), "SAME")
    return tot / cnt[None, :, :, None]


def bn_loss(p, stats, x, labels):
    h = conv(x, p["K1"], 1)
    h, m1, v1 = batch_norm(h, p["g1"], p["b1"], stats["m1"], stats["v1"])
    h = max_pool(jax.nn.relu(h), 3, 2)                        # [B, 8, 8, c1]
    h = conv(h, p["K2"], 2)                                   # [B, 4, 4, c2] stride 2
    h, m2, v2 = batch_norm(h, p["g2"], p["b2"], stats["m2"], stats["v2"])
    h = avg_pool_same(jax.nn.relu(h), 3)
    h = jnp.mean(h, axis=(1, 2))                              # global average pool
    logits = h @ p["Wc"] + p["bc"]
    acc = jnp.mean((jnp.argmax(logits, -1) == labels).astype(jnp.float32))
    return ce(logits, labels), ({"m1": m1, "v1": v1, "m2": m2, "v2": v2}, acc)


def bn(mesh):
    rng = np.random.default_rng(41)
    z = sizes("bn", BN_SIZES)
    B, S, C1, C2, K = z["batch"], z["image"], z["c1"], z["c2"], z["classes"]
    ax = model_axis(mesh)
    params = {"K1": grid(rng, (3, 3, 3, C1), 0.5), "g1": np.ones(C1, np.float32),
              "b1": np.zeros(C1, np.float32), "K2": grid(rng, (3, 3, C1, C2), 0.25),
              "g2": np.ones(C2, np.float32), "b2": np.zeros(C2, np.float32),
              "Wc": grid(rng, (C2, K), 0.25), "bc": np.zeros(K, np.float32)}
    specs = {"K1": P(None, None, None, ax), "g1": P(ax), "b1": P(ax),
             "K2": P(None, None, ax, None), "g2": P(), "b2": P(), "Wc": P(), "bc": P()}
    stats = {"m1": np.zeros(C1, np.float32), "v1": np.ones(C1, np.float32),
             "m2": np.zeros(C2, np.float32), "v2": np.ones(C2, np.float32)}
    sspecs = {"m1": P(ax), "v1": P(ax), "m2": P(), "v2": P()}
    x = grid(rng, (B, S, S, 3), 1.0) + 0.5
    labels = rng.integers(0, K, size=B).astype(np.int32)

    def step(state, x, labels, lr=0.05, mu=0.9, wd=1e-4):
        params, mom, stats = state
        (loss, (stats, acc)), g = jax.value_and_grad(bn_loss, has_aux=True)(params, stats, x,
                                                                             labels)
        mom = jax.tree.map(lambda m, g, p: mu * m + g + wd * p, mom, g, params)
        params = jax.tree.map(lambda p, m: p - lr * m, params, mom)
        return (params, mom, stats), {"loss": loss, "acc": acc}
    return Export(step, ((params, zeros_like(params), stats), x, labels), mesh,
                  ((specs, specs, sspecs), P("data", None, None, None), P("data")),
                  donate_argnums=(0,))


# --- rng: dropout from jax.random inside the step, mixup --------------------

RNG_SIZES = {"batch": 64, "inputs": 32, "hidden": 64, "classes": 8}


def rng_loss(p, x, labels, key, rate=0.2):
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    B = x.shape[0]
    C = p["W3"].shape[1]
    # mixup with a shuffled batch
    perm = jax.random.permutation(k4, B)
    lam = 0.5 + 0.5 * jax.random.uniform(k5, ())
    y = jax.nn.one_hot(labels, C)
    x = lam * x + (1 - lam) * x[perm]
    y = lam * y + (1 - lam) * y[perm]
    x = x + 0.05 * jax.random.normal(k3, x.shape)
    h = jax.nn.relu(x @ p["W1"] + p["b1"])
    keep = jax.random.bernoulli(k1, 1 - rate, h.shape)
    h = jnp.where(keep, h / (1 - rate), 0.0)
    h = jax.nn.gelu(h @ p["W2"])
    u = jax.random.uniform(k2, h.shape)
    h = jnp.where(u >= rate, h / (1 - rate), 0.0)
    logits = h @ p["W3"]
    return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), -1))


def rng(mesh):
    r = np.random.default_rng(42)
    z = sizes("rng", RNG_SIZES)
    B, D, H, C = z["batch"], z["inputs"], z["hidden"], z["classes"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "b1": grid(r, (H,), 0.125),
              "W2": grid(r, (H, H), 0.125), "W3": grid(r, (H, C), 0.25)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "W3": P()}
    key = np.asarray(jax.random.PRNGKey(7))
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0), key, np.int32(0))
    sspec = (specs, specs, specs, P(), P(), P())
    x = grid(r, (B, D), 1.0)
    labels = r.integers(0, C, size=B).astype(np.int32)

    def step(state, x, labels):
        params, m, v, t, key, i = state
        key, sub = jax.random.split(key)
        sub = jax.random.fold_in(sub, i)
        loss, g = jax.value_and_grad(rng_loss)(params, x, labels, sub)
        params, m, v, t = _bench.adam(params, g, m, v, t, lr=3e-3)
        return (params, m, v, t, key, i + 1), {"loss": loss}
    return Export(step, (state, x, labels), mesh, (sspec, P("data", None), P("data")),
                  donate_argnums=(0,))


# --- dpsgd: per-example gradients, clipping, noise --------------------------

DPSGD_SIZES = {"batch": 32, "inputs": 32, "hidden": 64, "classes": 8}


def dp_example_loss(p, x, label):
    h = jnp.tanh(x @ p["W1"] + p["b1"])
    logits = h @ p["W2"] + p["b2"]
    # `logits[label]` under vmap imports too (tests/import/jax: gathers)
    return jax.nn.logsumexp(logits) - jnp.take_along_axis(logits, label[None], 0)[0]


def dpsgd(mesh):
    r = np.random.default_rng(43)
    z = sizes("dpsgd", DPSGD_SIZES)
    B, D, H, C = z["batch"], z["inputs"], z["hidden"], z["classes"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "b1": np.zeros(H, np.float32),
              "W2": grid(r, (H, C), 0.25), "b2": np.zeros(C, np.float32)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "b2": P()}
    key = np.asarray(jax.random.PRNGKey(3))
    x = grid(r, (B, D), 1.0)
    labels = r.integers(0, C, size=B).astype(np.int32)

    def step(state, x, labels, clip=1.0, sigma=0.5, lr=0.5):
        params, key = state
        key, nk = jax.random.split(key)
        losses, g = jax.vmap(jax.value_and_grad(dp_example_loss), in_axes=(None, 0, 0))(
            params, x, labels)
        sq = sum(jnp.sum(l.reshape(l.shape[0], -1) ** 2, axis=1) for l in jax.tree.leaves(g))
        norms = jnp.sqrt(sq)
        factor = jnp.minimum(1.0, clip / (norms + 1e-6))
        g = jax.tree.map(lambda l: jnp.einsum("b,b...->...", factor, l), g)
        leaves, tdef = jax.tree.flatten(g)
        keys = jax.random.split(nk, len(leaves))
        leaves = [(l + sigma * clip * jax.random.normal(k, l.shape)) / x.shape[0]
                  for l, k in zip(leaves, keys)]
        g = jax.tree.unflatten(tdef, leaves)
        params = jax.tree.map(lambda p, g: p - lr * g, params, g)
        return (params, key), {"loss": jnp.mean(losses), "clipped": jnp.mean(factor < 1.0),
                               "max_norm": jnp.max(norms)}
    return Export(step, ((params, key), x, labels), mesh, ((specs, P()), P("data", None),
                                                           P("data")), donate_argnums=(0,))


# --- clip: contrastive image/text loss ---------------------------------------

CLIP_SIZES = {"batch": 32, "inputs": 48, "tokens": 8, "vocab": 256, "width": 64, "embed": 32}


def l2n(x):
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)


def clip_loss(p, img, txt):
    a = jax.nn.gelu(img @ p["Wi1"]) @ p["Wi2"]
    e = jnp.take(p["E"], txt, axis=0)                    # [B, T, W]
    b = jnp.mean(e, axis=1) @ p["Wt"]
    a, b = l2n(a), l2n(b)
    scale = jnp.minimum(jnp.exp(p["t"]), 100.0)
    logits = a @ b.T * scale                             # [B, B]
    diag = jnp.einsum("ii->i", logits)       # as jnp.diagonal(logits)
    l_img = jnp.mean(jax.nn.logsumexp(logits, axis=1) - diag)
    l_txt = jnp.mean(jax.nn.logsumexp(logits, axis=0) - diag)
    n = logits.shape[0]
    acc_i = jnp.mean(jnp.argmax(logits, 1) == jnp.arange(n))
    acc_t = jnp.mean(jnp.argmax(logits, 0) == jnp.arange(n))
    return 0.5 * (l_img + l_txt), (acc_i, acc_t)


def clip(mesh):
    r = np.random.default_rng(44)
    z = sizes("clip", CLIP_SIZES)
    B, D, T, V, W, E = z["batch"], z["inputs"], z["tokens"], z["vocab"], z["width"], z["embed"]
    ax = model_axis(mesh)
    params = {"Wi1": grid(r, (D, W), 0.25), "Wi2": grid(r, (W, E), 0.25),
              "E": grid(r, (V, W), 0.5), "Wt": grid(r, (W, E), 0.25),
              "t": np.float32(math.log(1 / 0.07))}
    specs = {"Wi1": P(None, ax), "Wi2": P(ax, None), "E": P(None, ax), "Wt": P(ax, None),
             "t": P()}
    img = grid(r, (B, D), 1.0)
    txt = r.integers(0, V, size=(B, T)).astype(np.int32)
    txt[:, 0] = (np.abs(img[:, :4]).sum(1) * 40).astype(np.int32) % V   # some signal

    def step(state, img, txt):
        params, m, v, t = state
        (loss, (ai, at)), g = jax.value_and_grad(clip_loss, has_aux=True)(params, img, txt)
        params = jax.tree.map(lambda p: p * (1 - 1e-3 * 0.1), params)     # decoupled wd
        params, m, v, t = _bench.adam(params, g, m, v, t, lr=1e-3)
        return (params, m, v, t), {"loss": loss, "acc_img": ai, "acc_txt": at,
                                   "temp": params["t"]}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, img, txt), mesh,
                  ((specs, specs, specs, P()), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- gnn: segment_sum message passing, bincount, embedding bag --------------

GNN_SIZES = {"nodes": 64, "edges": 256, "graphs": 4, "feat": 16, "hidden": 32, "vocab": 128,
             "bagtok": 128}


def gnn_loss(p, xn, src, dst, ew, graph, bag_tok, bag_id, y):
    N, G = xn.shape[0], y.shape[0]
    h = jnp.tanh(xn @ p["W0"])                                        # [N, H]
    msg = h[src] * ew[:, None]                                        # [E, H]
    agg = jax.ops.segment_sum(msg, dst, num_segments=N)
    deg = jnp.bincount(dst, length=N).astype(jnp.float32)
    h = jax.nn.relu((agg / jnp.maximum(deg, 1.0)[:, None]) @ p["W1"] + h @ p["Ws"])
    cnt = jax.ops.segment_sum(jnp.ones((N,), jnp.float32), graph, num_segments=G)
    mean_pool = jax.ops.segment_sum(h, graph, num_segments=G) / cnt[:, None]
    max_pool = jax.ops.segment_max(h, graph, num_segments=G)
    bag = jnp.zeros((G, p["E"].shape[1]), jnp.float32).at[bag_id].add(p["E"][bag_tok])
    feat = jnp.concatenate([mean_pool, max_pool, bag], -1)
    pred = feat @ p["Wo"]
    return jnp.mean((pred - y) ** 2)


def gnn(mesh):
    r = np.random.default_rng(45)
    z = sizes("gnn", GNN_SIZES)
    N, Ed, G, F, H, V, BT = (z["nodes"], z["edges"], z["graphs"], z["feat"], z["hidden"],
                             z["vocab"], z["bagtok"])
    ax = model_axis(mesh)
    params = {"W0": grid(r, (F, H), 0.25), "W1": grid(r, (H, H), 0.125),
              "Ws": grid(r, (H, H), 0.125), "E": grid(r, (V, H), 0.25),
              "Wo": grid(r, (3 * H, 2), 0.125)}
    specs = {"W0": P(None, ax), "W1": P(ax, None), "Ws": P(ax, None), "E": P(None, ax),
             "Wo": P()}
    xn = grid(r, (N, F), 1.0)
    graph = np.sort(r.integers(0, G, size=N)).astype(np.int32)
    graph[:G] = np.arange(G)
    graph = np.sort(graph)
    src = r.integers(0, N, size=Ed).astype(np.int32)
    dst = r.integers(0, N, size=Ed).astype(np.int32)
    ew = grid(r, (Ed,), 1.0)
    bag_tok = r.integers(0, V, size=BT).astype(np.int32)
    bag_id = r.integers(0, G, size=BT).astype(np.int32)
    y = grid(r, (G, 2), 1.0)

    def step(state, xn, src, dst, ew, graph, bag_tok, bag_id, y):
        params, m, v, t = state
        loss, g = jax.value_and_grad(gnn_loss)(params, xn, src, dst, ew, graph, bag_tok,
                                               bag_id, y)
        return _bench.adam(params, g, m, v, t, lr=3e-3), {"loss": loss}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, xn, src, dst, ew, graph, bag_tok, bag_id, y), mesh,
                  ((specs, specs, specs, P()), P(), P("data"), P("data"), P("data"), P(),
                   P("data"), P("data"), P()), donate_argnums=(0,))


# --- rank: top_k, argsort, cumlogsumexp, cumprod, quantile, median ----------

RANK_SIZES = {"batch": 32, "inputs": 32, "hidden": 64, "classes": 16, "list": 8, "times": 6}


def rank_loss(p, x, labels, rel, event_t):
    h = jax.nn.relu(x @ p["W1"])
    logits = h @ p["Wc"]                                              # [B, C]
    scores = h @ p["Wr"]                                              # [B, L]
    hz = jax.nn.sigmoid(h @ p["Wh"])                                  # [B, T]
    # classification: per-example CE, trimmed at the 90% quantile
    per = jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, labels[:, None], -1)[:, 0]
    thr = lax.stop_gradient(jnp.quantile(per, 0.9))
    cls = jnp.sum(jnp.where(per <= thr, per, 0.0)) / jnp.maximum(jnp.sum(per <= thr), 1)
    # ListMLE: sort by relevance, reverse cumulative logsumexp
    order = jnp.argsort(-rel, axis=-1)
    s = jnp.take_along_axis(scores, order, axis=-1)
    listmle = jnp.mean(jnp.sum(lax.cumlogsumexp(s, axis=1, reverse=True) - s, -1))
    # discrete-time survival
    surv = jnp.cumprod(1.0 - hz, axis=-1)                             # [B, T]
    T = hz.shape[1]
    t_idx = jnp.arange(T)[None, :]
    prev = jnp.concatenate([jnp.ones_like(surv[:, :1]), surv[:, :-1]], -1)
    pdf = prev * hz
    lik = jnp.sum(jnp.where(t_idx == event_t[:, None], pdf, 0.0), -1)
    surv_nll = -jnp.mean(jnp.log(lik + 1e-6))
    top_v, top_i = lax.top_k(logits, 5)
    top5 = jnp.mean(jnp.any(top_i == labels[:, None], -1))
    med = jnp.median(per)
    srt = jnp.sort(per)
    spread = srt[-1] - srt[0]
    return cls + 0.5 * listmle + surv_nll, (top5, med, spread, thr, top_v[:, 0].mean())


def rank(mesh):
    r = np.random.default_rng(46)
    z = sizes("rank", RANK_SIZES)
    B, D, H, C, L, T = z["batch"], z["inputs"], z["hidden"], z["classes"], z["list"], z["times"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "Wc": grid(r, (H, C), 0.25),
              "Wr": grid(r, (H, L), 0.25), "Wh": grid(r, (H, T), 0.125)}
    specs = {"W1": P(None, ax), "Wc": P(ax, None), "Wr": P(ax, None), "Wh": P(ax, None)}
    x = grid(r, (B, D), 1.0)
    labels = r.integers(0, C, size=B).astype(np.int32)
    rel = np.stack([r.permutation(L) for _ in range(B)]).astype(np.float32)
    event_t = r.integers(0, T, size=B).astype(np.int32)

    def step(params, x, labels, rel, event_t):
        (loss, (top5, med, spread, thr, tv)), g = jax.value_and_grad(rank_loss, has_aux=True)(
            params, x, labels, rel, event_t)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
        return params, {"loss": loss, "top5": top5, "median": med, "spread": spread,
                        "thr": thr, "top1v": tv}
    return Export(step, (params, x, labels, rel, event_t), mesh,
                  (specs, P("data", None), P("data"), P("data", None), P("data")),
                  donate_argnums=(0,))


# --- adafac: Adafactor ------------------------------------------------------

ADAFAC_SIZES = {"batch": 64, "inputs": 48, "hidden": 96, "outputs": 8}


def mlp3_loss(p, x, y):
    h = jax.nn.gelu(x @ p["W1"] + p["b1"])
    h = jax.nn.gelu(h @ p["W2"] + p["b2"])
    return jnp.mean((h @ p["W3"] - y) ** 2)


def mlp3(mesh, seed):
    r = np.random.default_rng(seed)
    z = sizes("adafac", ADAFAC_SIZES)
    B, D, H, O = z["batch"], z["inputs"], z["hidden"], z["outputs"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "b1": grid(r, (H,), 0.125),
              "W2": grid(r, (H, H), 0.125), "b2": np.zeros(H, np.float32),
              "W3": grid(r, (H, O), 0.125)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None), "b2": P(), "W3": P()}
    x = grid(r, (B, D), 1.0)
    y = np.sin(x[:, :O] * 2).astype(np.float32)
    return params, specs, x, y


def adafac(mesh):
    params, specs, x, y = mlp3(mesh, 47)
    fac = {k: (np.zeros(v.shape[0], np.float32), np.zeros(v.shape[1], np.float32))
           if v.ndim == 2 else np.zeros_like(v) for k, v in params.items()}
    pad = lambda s: tuple(s) + (None,) * (2 - len(s))  # noqa: E731
    fspec = {k: (P(pad(s)[0]), P(pad(s)[1])) if params[k].ndim == 2 else s
             for k, s in specs.items()}

    def step(state, x, y, eps1=1e-30, eps2=1e-3, d=1.0):
        params, fac, t = state
        loss, g = jax.value_and_grad(mlp3_loss)(params, x, y)
        t = t + 1
        tf = t.astype(jnp.float32)
        b2 = 1.0 - tf ** -0.8
        rel = jnp.minimum(1e-2, lax.rsqrt(tf))
        new_p, new_f = {}, {}
        for k in params:
            gk, pk = g[k], params[k]
            g2 = gk * gk + eps1
            if pk.ndim == 2:
                vr, vc = fac[k]
                vr = b2 * vr + (1 - b2) * jnp.mean(g2, axis=1)
                vc = b2 * vc + (1 - b2) * jnp.mean(g2, axis=0)
                v = vr[:, None] * vc[None, :] / jnp.mean(vr)
                new_f[k] = (vr, vc)
            else:
                v = b2 * fac[k] + (1 - b2) * g2
                new_f[k] = v
            u = gk * lax.rsqrt(v)
            u = u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(u * u)) / d)
            lr = rel * jnp.maximum(eps2, jnp.sqrt(jnp.mean(pk * pk)))
            new_p[k] = pk - lr * u
        return (new_p, new_f, t), {"loss": loss}
    return Export(step, ((params, fac, np.int32(0)), x, y), mesh,
                  ((specs, fspec, P()), P("data", None), P("data", None)), donate_argnums=(0,))


def lamb(mesh):
    params, specs, x, y = mlp3(mesh, 48)

    def step(state, x, y, lr=1e-2, b1=0.9, b2=0.999, eps=1e-6, wd=0.01):
        params, m, v, t = state
        loss, g = jax.value_and_grad(mlp3_loss)(params, x, y)
        t = t + 1.0
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)

        def upd(p, m, v):
            u = (m / (1 - b1 ** t)) / (jnp.sqrt(v / (1 - b2 ** t)) + eps) + wd * p
            wn, un = jnp.linalg.norm(p), jnp.linalg.norm(u)
            trust = jnp.where((wn > 0) & (un > 0), wn / un, 1.0)
            return p - lr * trust * u
        params = jax.tree.map(upd, params, m, v)
        return (params, m, v, t), {"loss": loss}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, x, y), mesh,
                  ((specs, specs, specs, P()), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- alibi: bf16 attention, ALiBi, sliding window ---------------------------

ALIBI_SIZES = {"batch": 8, "seq": 32, "width": 64, "heads": 4, "window": 8}


def alibi_slopes(h):
    return np.array([2.0 ** (-8.0 * (i + 1) / h) for i in range(h)], np.float32)


def alibi_loss(p, x, y, window):
    bf = jnp.bfloat16
    B, S, D = x.shape
    H = p["Wq"].shape[1]
    i = lax.broadcasted_iota(jnp.int32, (S, S), 0)
    j = lax.broadcasted_iota(jnp.int32, (S, S), 1)
    mask = (j <= i) & (i - j < window)
    dist = (j - i).astype(jnp.float32)
    bias = jnp.asarray(alibi_slopes(H))[:, None, None] * dist[None]   # [H, S, S]
    h = x.astype(bf)
    q = jnp.einsum("bsd,dhk->bhsk", h, p["Wq"].astype(bf))
    k = jnp.einsum("bsd,dhk->bhsk", h, p["Wk"].astype(bf))
    v = jnp.einsum("bsd,dhk->bhsk", h, p["Wv"].astype(bf))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k).astype(jnp.float32) / math.sqrt(q.shape[-1])
    s = jnp.where(mask, s + bias[None], -1e30)
    a = jax.nn.softmax(s, axis=-1).astype(bf)
    o = jnp.einsum("bhqk,bhkd->bqhd", a, v)
    x1 = x + jnp.einsum("bqhd,hdo->bqo", o, p["Wo"].astype(bf)).astype(jnp.float32)
    # second block through jax.nn.dot_product_attention (f32)
    q2 = jnp.einsum("bsd,dhk->bshk", x1, p["Wq2"])
    k2 = jnp.einsum("bsd,dhk->bshk", x1, p["Wk2"])
    o2 = jax.nn.dot_product_attention(q2, k2, k2, bias=bias[None], mask=mask[None, None],
                                      implementation="xla")
    x2 = x1 + o2.reshape(B, S, -1) @ p["Wo2"]
    return jnp.mean((x2 - y) ** 2)


def alibi(mesh):
    r = np.random.default_rng(49)
    z = sizes("alibi", ALIBI_SIZES)
    B, S, D, H, W = z["batch"], z["seq"], z["width"], z["heads"], z["window"]
    Dh = D // H
    ax = model_axis(mesh)
    params = {"Wq": grid(r, (D, H, Dh), 0.25), "Wk": grid(r, (D, H, Dh), 0.25),
              "Wv": grid(r, (D, H, Dh), 0.25), "Wo": grid(r, (H, Dh, D), 0.125),
              "Wq2": grid(r, (D, H, Dh), 0.125), "Wk2": grid(r, (D, H, Dh), 0.125),
              "Wo2": grid(r, (D, D), 0.125)}
    specs = {"Wq": P(None, ax, None), "Wk": P(None, ax, None), "Wv": P(None, ax, None),
             "Wo": P(ax, None, None), "Wq2": P(None, ax, None), "Wk2": P(None, ax, None),
             "Wo2": P(ax, None)}
    x = grid(r, (B, S, D), 1.0)
    y = np.roll(x, 1, axis=1) * 0.5

    def step(state, x, y, lr=0.05, mu=0.9):
        params, mom = state
        loss, g = jax.value_and_grad(alibi_loss)(params, x, y, W)
        mom = jax.tree.map(lambda m, g: mu * m + g, mom, g)
        params = jax.tree.map(lambda p, m: p - lr * m, params, mom)
        return (params, mom), {"loss": loss}
    return Export(step, ((params, zeros_like(params)), x.astype(jnp.bfloat16), y), mesh,
                  ((specs, specs), P("data", None, None), P("data", None, None)),
                  donate_argnums=(0,))


# --- guard: dynamic loss scaling, cond-skipped updates ----------------------

def guard_loss16(p, x, y):
    # float16 compute (as with dynamic loss scaling on GPUs), f32 loss
    h = jnp.asarray(x, jnp.float16)
    p = jax.tree.map(lambda a: a.astype(jnp.float16), p)
    h = jax.nn.gelu(h @ p["W1"] + p["b1"])
    h = jax.nn.gelu(h @ p["W2"] + p["b2"])
    out = (h @ p["W3"]).astype(jnp.float32)
    return jnp.mean((out - y) ** 2)


def guard(mesh):
    params, specs, x, y = mlp3(mesh, 50)

    def step(state, x, y, base_lr=0.05, period=3, max_scale=2.0 ** 24):
        params, mom, scale, good, i, skipped = state
        loss, g = jax.value_and_grad(lambda p: guard_loss16(p, x, y) * scale)(params)
        loss = loss / scale
        g = jax.tree.map(lambda g: g / scale, g)
        finite = jnp.all(jnp.array([jnp.all(jnp.isfinite(l)) for l in jax.tree.leaves(g)]))
        lr = base_lr * 0.5 ** (i // 4).astype(jnp.float32)

        def apply(args):
            params, mom, g = args
            mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, g)
            return jax.tree.map(lambda p, m: p - lr * m, params, mom), mom

        def skip(args):
            params, mom, g = args
            return params, mom
        params, mom = lax.cond(finite, apply, skip, (params, mom, g))
        good_next = good + 1
        scale = jnp.where(finite, jnp.where(good_next % period == 0,
                                            jnp.minimum(scale * 2.0, max_scale), scale),
                          scale * 0.5)
        good = jnp.where(finite, good_next, 0)
        gnorm = jnp.sqrt(sum(jnp.sum(jnp.nan_to_num(l, nan=0.0, posinf=1e6, neginf=-1e6) ** 2)
                             for l in jax.tree.leaves(g)))
        return ((params, mom, scale, good, i + 1, skipped + (~finite).astype(jnp.int32)),
                {"loss": jnp.nan_to_num(loss), "gnorm": gnorm, "finite": finite,
                 "phase": i % 4, "scale": scale})
    state = (params, zeros_like(params), np.float32(2.0 ** 24), np.int32(0), np.int32(0),
             np.int32(0))
    return Export(step, (state, x, y), mesh,
                  ((specs, specs, P(), P(), P(), P()), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- strided: strided slices, take_along_axis, einsum broadcasting ----------

STRIDED_SIZES = {"batch": 16, "seq": 16, "width": 32, "heads": 4, "pick": 4}


def strided_loss(p, x, idx, y):
    B, T, D = x.shape
    even, odd = x[:, ::2], x[:, 1::2]                              # [B, T/2, D]
    rev = x[:, ::-2]
    h = jnp.tanh(even @ p["Wa"] + odd @ p["Wb"] + rev @ p["Wc"])  # [B, T/2, D]
    flat = h.reshape(B * (T // 2), D)                             # merge sharded batch
    flat = flat - flat.mean(-1, keepdims=True)
    flat = flat * p["g"] + p["bias"]
    h = flat.reshape(B, T // 2, D)
    s2d = h.reshape(B, T // 4, 2 * D)                             # space-to-depth
    # the same as take_along_axis(s2d, idx[:, :, None], axis=1)
    full = jnp.broadcast_to(idx[:, :, None], idx.shape + (s2d.shape[2],))
    picked = jnp.take_along_axis(s2d, full, axis=1)               # [B, K, 2D]
    e = jnp.einsum("bkd,hde->bhke", picked, p["Wh"])              # [B, H, K, E]
    score = jnp.einsum("...d,d->...", e, p["v"])                  # [B, H, K]
    out = jnp.einsum("bhk,hko->bo", score, p["Wout"])
    return jnp.mean((out - y) ** 2)


def strided(mesh):
    r = np.random.default_rng(51)
    z = sizes("strided", STRIDED_SIZES)
    B, T, D, H, K = z["batch"], z["seq"], z["width"], z["heads"], z["pick"]
    ax = model_axis(mesh)
    E = 16
    params = {"Wa": grid(r, (D, D), 0.25), "Wb": grid(r, (D, D), 0.25),
              "Wc": grid(r, (D, D), 0.25), "g": np.ones(D, np.float32),
              "bias": np.zeros(D, np.float32), "Wh": grid(r, (H, 2 * D, E), 0.125),
              "v": grid(r, (E,), 0.5), "Wout": grid(r, (H, K, 4), 0.25)}
    specs = {"Wa": P(None, ax), "Wb": P(None, ax), "Wc": P(None, ax), "g": P(), "bias": P(),
             "Wh": P(ax, None, None), "v": P(), "Wout": P(ax, None, None)}
    x = grid(r, (B, T, D), 1.0)
    idx = r.integers(0, T // 4, size=(B, K)).astype(np.int32)
    y = grid(r, (B, 4), 1.0)

    def step(params, x, idx, y):
        loss, g = jax.value_and_grad(strided_loss)(params, x, idx, y)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": loss}
    return Export(step, (params, x, idx, y), mesh,
                  (specs, P("data", None, None), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- vq: vector quantization with EMA codebook ------------------------------

VQ_SIZES = {"batch": 64, "inputs": 32, "code": 16, "codes": 32}


def vq(mesh):
    r = np.random.default_rng(52)
    z = sizes("vq", VQ_SIZES)
    B, D, Cd, K = z["batch"], z["inputs"], z["code"], z["codes"]
    ax = model_axis(mesh)
    params = {"We": grid(r, (D, Cd), 0.25), "Wd": grid(r, (Cd, D), 0.25)}
    specs = {"We": P(None, None), "Wd": P(None, ax)}
    book = grid(r, (K, Cd), 1.0)
    ema = {"count": np.ones(K, np.float32), "sum": book.copy()}
    x = grid(r, (B, D), 1.0)

    def loss_fn(p, book, x):
        ze = jnp.tanh(x @ p["We"]) * 2                                # [B, Cd]
        d = (jnp.sum(ze ** 2, -1, keepdims=True) - 2 * ze @ book.T
             + jnp.sum(book ** 2, -1)[None, :])
        code = jnp.argmin(d, axis=-1)
        zq = book[code]
        st = ze + lax.stop_gradient(zq - ze)
        rec = st @ p["Wd"]
        loss = jnp.mean((rec - x) ** 2) + 0.25 * jnp.mean((ze - lax.stop_gradient(zq)) ** 2)
        return loss, (ze, code)

    def step(state, x, decay=0.9, eps=1e-5):
        params, ema, book = state
        (loss, (ze, code)), g = jax.value_and_grad(loss_fn, has_aux=True)(params, book, x)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
        oh = jax.nn.one_hot(code, K)
        cnt = decay * ema["count"] + (1 - decay) * oh.sum(0)
        sm = decay * ema["sum"] + (1 - decay) * jax.ops.segment_sum(ze, code, num_segments=K)
        n = cnt.sum()
        cnt_s = (cnt + eps) / (n + K * eps) * n
        book = sm / cnt_s[:, None]
        probs = oh.mean(0)
        perp = jnp.exp(-jnp.sum(probs * jnp.log(probs + 1e-10)))
        return (params, {"count": cnt, "sum": sm}, book), {"loss": loss, "perplexity": perp}
    return Export(step, ((params, ema, book), x), mesh,
                  ((specs, {"count": P(), "sum": P()}, P()), P("data", None)),
                  donate_argnums=(0,))



# --- nanreg: NaN targets, nan-aware reductions, OHEM by top_k over the batch -

NANREG_SIZES = {"batch": 64, "inputs": 48, "hidden": 64, "outputs": 4, "hard": 16}


def nanreg_loss(p, img, y, hard):
    x = img.astype(jnp.float32) / 255.0 - 0.5                         # uint8 pixels
    h = jax.nn.silu(x @ p["W1"] + p["b1"])
    pred = h @ p["W2"]                                                 # [B, O]
    have = ~jnp.isnan(y)
    err = jnp.where(have, pred - jnp.where(have, y, 0.0), 0.0)
    per = jnp.sum(err ** 2, -1) / jnp.maximum(jnp.sum(have, -1), 1)   # [B]
    # online hard example mining: the `hard` largest per-example losses
    top, _ = lax.top_k(per, hard)
    loss = jnp.mean(per, where=jnp.any(have, -1)) + jnp.mean(top)
    nan_mae = jnp.nanmean(jnp.abs(pred - y))
    nan_max = jnp.nanmax(y - pred)
    frac = jnp.mean(have)
    return loss, (nan_mae, nan_max, frac)


def nanreg(mesh):
    r = np.random.default_rng(53)
    z = sizes("nanreg", NANREG_SIZES)
    B, D, H, O, K = z["batch"], z["inputs"], z["hidden"], z["outputs"], z["hard"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "b1": np.zeros(H, np.float32),
              "W2": grid(r, (H, O), 0.25)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None)}
    img = r.integers(0, 256, size=(B, D)).astype(np.uint8)
    y = np.tanh((img[:, :O].astype(np.float32) - 128) / 64).astype(np.float32)
    y[r.random((B, O)) < 0.3] = np.nan
    y[3] = np.nan                                                     # a row with no target

    def step(state, img, y):
        params, m, v, t = state
        (loss, (mae, mx, frac)), g = jax.value_and_grad(nanreg_loss, has_aux=True)(
            params, img, y, K)
        params, m, v, t = _bench.adam(params, g, m, v, t, lr=3e-3)
        return (params, m, v, t), {"loss": loss, "nan_mae": mae, "nan_max": mx, "frac": frac}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, img, y), mesh,
                  ((specs, specs, specs, P()), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- ens: vmapped ensemble on "model", SAM, reflect pad, dilated conv, int ops

ENS_SIZES = {"batch": 32, "seq": 16, "chan": 8, "members": 4, "classes": 5}


def ens_member_loss(p, x, labels):
    # x: [B, T, C]; dilated causal-ish conv1d with reflect padding
    h = jnp.pad(x, ((0, 0), (2, 2), (0, 0)), mode="reflect")
    h = lax.conv_general_dilated(h, p["K"], (1,), "VALID", rhs_dilation=(2,),
                                 dimension_numbers=("NWC", "WIO", "NWC"))     # [B, T, C]
    h = jax.nn.relu(h)
    h = jnp.pad(h, ((0, 0), (1, 1), (0, 0)), mode="edge")
    h = jnp.mean(h, axis=1)
    logits = h @ p["Wc"]
    # as ce() (take_along_axis), written with one_hot
    return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, logits.shape[-1])
                             * jax.nn.log_softmax(logits), -1))


def ens(mesh):
    r = np.random.default_rng(54)
    z = sizes("ens", ENS_SIZES)
    B, T, C, E, K = z["batch"], z["seq"], z["chan"], z["members"], z["classes"]
    ax = model_axis(mesh)
    params = {"K": grid(r, (E, 3, C, C), 0.25), "Wc": grid(r, (E, C, K), 0.5)}
    specs = {"K": P(ax, None, None, None), "Wc": P(ax, None, None)}
    x = grid(r, (B, T, C), 1.0)
    labels = r.integers(0, K, size=B).astype(np.int32)

    def ens_loss(p, x, labels):
        losses = jax.vmap(ens_member_loss, in_axes=(0, None, None))(p, x, labels)
        return jnp.sum(losses), losses

    def step(state, x, labels, rho=0.05, lr=0.1):
        params, i = state
        # SAM: ascend to the worst nearby point, take its gradient
        (_, losses), g = jax.value_and_grad(ens_loss, has_aux=True)(params, x, labels)
        gn = jnp.sqrt(sum(jnp.sum(l * l) for l in jax.tree.leaves(g)))
        adv = jax.tree.map(lambda p, g: p + rho * g / (gn + 1e-12), params, g)
        g2 = jax.grad(lambda p: ens_loss(p, x, labels)[0])(adv)
        params = jax.tree.map(lambda p, g: p - lr * g, params, g2)
        # integer bookkeeping with negative operands (Python floor semantics)
        k = i - 5
        fd, md = k // 3, k % 3
        tq, tr = lax.div(k, 3), lax.rem(k, 3)
        best = jnp.argmin(losses)
        return (params, i + 1), {"loss": jnp.mean(losses), "members": losses, "best": best,
                                 "floordiv": fd, "mod": md, "tdiv": tq, "trem": tr,
                                 "rounded": jnp.round(jnp.mean(losses) * 8 + 0.5) / 8}
    return Export(step, ((params, np.int32(0)), x, labels), mesh,
                  ((specs, P()), P("data", None, None), P("data")), donate_argnums=(0,))


# --- qat: int8 fake quantization, int8 x int8 -> int32 dot -------------------

QAT_SIZES = {"batch": 64, "inputs": 32, "hidden": 64, "classes": 8}


def fake_quant(x, scale):
    q = jnp.clip(jnp.round(x / scale), -127, 127)
    return x + lax.stop_gradient(q * scale - x)                       # straight-through


def qat_loss(p, x, labels):
    # per-tensor activation scale from the (data-sharded) batch's max |x|
    sx = lax.stop_gradient(jnp.max(jnp.abs(x)) / 127.0)
    sw = lax.stop_gradient(jnp.max(jnp.abs(p["W1"]), axis=0) / 127.0)  # per output channel
    h = fake_quant(x, sx) @ fake_quant(p["W1"], sw)
    h = jax.nn.relu(h + p["b1"])
    logits = h @ p["W2"]
    # true int8 inference path as a metric: int8 x int8 -> int32
    xq = jnp.clip(jnp.round(x / sx), -127, 127).astype(jnp.int8)
    wq = jnp.clip(jnp.round(p["W1"] / sw), -127, 127).astype(jnp.int8)
    acc = lax.dot_general(xq, wq, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32)
    hq = jax.nn.relu(acc.astype(jnp.float32) * sx * sw + p["b1"])
    agree = jnp.mean(jnp.argmax(hq @ p["W2"], -1) == jnp.argmax(logits, -1))
    return ce(logits, labels), (agree, jnp.sum(acc[:, 0]), jnp.max(jnp.abs(acc)))


def qat(mesh):
    r = np.random.default_rng(55)
    z = sizes("qat", QAT_SIZES)
    B, D, H, C = z["batch"], z["inputs"], z["hidden"], z["classes"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "b1": np.zeros(H, np.float32),
              "W2": grid(r, (H, C), 0.25)}
    specs = {"W1": P(None, ax), "b1": P(ax), "W2": P(ax, None)}
    x = grid(r, (B, D), 2.0)
    labels = (np.argmax(x[:, :C], -1)).astype(np.int32)

    def step(params, x, labels):
        (loss, (agree, s0, mx)), g = jax.value_and_grad(qat_loss, has_aux=True)(params, x,
                                                                                 labels)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
        return params, {"loss": loss, "agree": agree, "acc_col0": s0, "acc_max": mx}
    return Export(step, (params, x, labels), mesh, (specs, P("data", None), P("data")),
                  donate_argnums=(0,))


# --- seqpar: resharding constraints, microbatches by dynamic_slice ----------

SEQPAR_SIZES = {"batch": 32, "seq": 16, "width": 32, "mlp": 64, "micro": 4}


def seqpar(mesh):
    r = np.random.default_rng(56)
    z = sizes("seqpar", SEQPAR_SIZES)
    B, S, D, F, M = z["batch"], z["seq"], z["width"], z["mlp"], z["micro"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, F), 0.25), "W2": grid(r, (F, D), 0.125),
              "g": np.ones(D, np.float32), "Wt": grid(r, (S, S), 0.125)}
    specs = {"W1": P(None, ax), "W2": P(ax, None), "g": P(), "Wt": P()}
    x = grid(r, (B, S, D), 1.0)
    y = np.roll(x, 2, axis=1)
    jmesh = jax.make_mesh(tuple(mesh.values()), tuple(mesh),
                          axis_types=(jax.sharding.AxisType.Auto,) * len(mesh),
                          devices=jax.devices()[:int(np.prod(list(mesh.values())))])

    def wsc(x, spec):
        return lax.with_sharding_constraint(x, jax.sharding.NamedSharding(jmesh, spec))

    def loss_fn(p, x, y):
        # sequence parallel: norm with the sequence on "model"
        x = wsc(x, P("data", ax, None))
        h = x * lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * p["g"]
        h = wsc(h, P("data", None, None))
        h = jax.nn.gelu(h @ p["W1"]) @ p["W2"]                    # tensor parallel MLP
        h = wsc(h, P("data", None, ax))                          # width on "model"
        h = jnp.einsum("bsd,st->btd", h, p["Wt"])                # token mixing
        return jnp.mean((x + h - y) ** 2)

    def step(params, x, y):
        mb = B // M

        def body(i, carry):
            lsum, gsum = carry
            xs = lax.dynamic_slice_in_dim(x, i * mb, mb, axis=0)
            ys = lax.dynamic_slice_in_dim(y, i * mb, mb, axis=0)
            l, g = jax.value_and_grad(loss_fn)(params, xs, ys)
            return lsum + l, jax.tree.map(jnp.add, gsum, g)
        lsum, gsum = lax.fori_loop(0, M, body, (jnp.float32(0), jax.tree.map(jnp.zeros_like,
                                                                             params)))
        params = jax.tree.map(lambda p, g: p - 0.1 * g / M, params, gsum)
        return params, {"loss": lsum / M}
    return Export(step, (params, x, y), mesh,
                  (specs, P("data", None, None), P("data", None, None)), donate_argnums=(0,))


# --- assoc: linear recurrence by associative_scan, diff, image resize -------

ASSOC_SIZES = {"batch": 16, "seq": 16, "width": 16, "image": 8}


def assoc_loss(p, x, img, y):
    # x: [B, T, D]; h_t = a_t * h_{t-1} + b_t with a_t = sigmoid(x W_a)
    a = jax.nn.sigmoid(x @ p["Wa"])
    b = x @ p["Wb"]

    def comb(l, r):
        return r[0] * l[0], r[0] * l[1] + r[1]
    _, h = lax.associative_scan(comb, (a, b), axis=1)
    d = jnp.diff(h, axis=1)                                          # [B, T-1, D]
    feat = jnp.concatenate([h[:, -1], jnp.mean(jnp.abs(d), 1)], -1)
    up = jax.image.resize(img, (img.shape[0], 2 * img.shape[1], 2 * img.shape[2],
                                img.shape[3]), "bilinear")
    feat = jnp.concatenate([feat, jnp.mean(up * p["gi"], (1, 2))], -1)
    return jnp.mean((feat @ p["Wo"] - y) ** 2)


def assoc(mesh):
    r = np.random.default_rng(57)
    z = sizes("assoc", ASSOC_SIZES)
    B, T, D, I = z["batch"], z["seq"], z["width"], z["image"]
    ax = model_axis(mesh)
    params = {"Wa": grid(r, (D, D), 0.25), "Wb": grid(r, (D, D), 0.25),
              "gi": grid(r, (2 * I, 2 * I, 3), 1.0), "Wo": grid(r, (2 * D + 3, 4), 0.25)}
    specs = {"Wa": P(None, ax), "Wb": P(None, ax), "gi": P(), "Wo": P()}
    x = grid(r, (B, T, D), 1.0)
    img = grid(r, (B, I, I, 3), 1.0)
    y = grid(r, (B, 4), 1.0)

    def step(params, x, img, y):
        loss, g = jax.value_and_grad(assoc_loss)(params, x, img, y)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": loss}
    return Export(step, (params, x, img, y), mesh,
                  (specs, P("data", None, None), P("data", None, None, None), P("data", None)),
                  donate_argnums=(0,))


BUILDERS = {"bn": bn, "rng": rng, "dpsgd": dpsgd, "clip": clip, "gnn": gnn, "rank": rank,
            "adafac": adafac, "lamb": lamb, "alibi": alibi, "guard": guard,
            "strided": strided, "vq": vq, "nanreg": nanreg, "ens": ens, "qat": qat,
            "seqpar": seqpar, "assoc": assoc}
# --- smap: explicit data parallelism with shard_map --------------------------

SMAP_SIZES = {"batch": 32, "inputs": 24, "hidden": 32, "embed": 16}


def smap(mesh):
    """A hand-written data-parallel step (pmap style, with jax.shard_map):
    sync BatchNorm by lax.pmean over "data", a contrastive loss whose
    negatives come from every device (lax.all_gather, axis_index picks the
    local block of labels), gradients lax.pmean'd, an int psum'd counter.
    Manual over every mesh axis (the "model" axis, if any, holds replicas).
    On a 1-device mesh JAX inlines the body, and its collectives are over
    one device."""
    r = np.random.default_rng(58)
    z = sizes("smap", SMAP_SIZES)
    B, D, H, E = z["batch"], z["inputs"], z["hidden"], z["embed"]
    params = {"W1": grid(r, (D, H), 0.25), "g": np.ones(H, np.float32),
              "b": np.zeros(H, np.float32), "Wa": grid(r, (H, E), 0.25),
              "Wb": grid(r, (D, E), 0.25)}
    specs = jax.tree.map(lambda _: P(), params)
    x = grid(r, (B, D), 1.0)
    x2 = (x + 0.1 * grid(r, (B, D), 1.0)).astype(np.float32)
    jmesh = jax.make_mesh(tuple(mesh.values()), tuple(mesh),
                          axis_types=(jax.sharding.AxisType.Auto,) * len(mesh),
                          devices=jax.devices()[:int(np.prod(list(mesh.values())))])

    def local_loss(p, x, x2):
        h = x @ p["W1"]
        mean = lax.pmean(jnp.mean(h, 0), "data")
        var = lax.pmean(jnp.mean((h - mean) ** 2, 0), "data")
        h = jax.nn.relu((h - mean) * lax.rsqrt(var + 1e-5) * p["g"] + p["b"])
        a = l2n(h @ p["Wa"])
        b = l2n(jnp.tanh(x2 @ p["Wb"]))
        b_all = lax.all_gather(b, "data", tiled=True)                  # [B, E]
        logits = a @ b_all.T * 10.0                                     # [b_local, B]
        n = a.shape[0]
        labels = lax.axis_index("data") * n + jnp.arange(n)
        loss = jnp.mean(jax.nn.logsumexp(logits, -1)
                        - jnp.take_along_axis(logits, labels[:, None], -1)[:, 0])
        return loss, jnp.sum(jnp.argmax(logits, -1) == labels)

    def local_step(p, x, x2):
        (loss, hits), g = jax.value_and_grad(local_loss, has_aux=True)(p, x, x2)
        g = lax.pmean(g, "data")
        loss = lax.pmean(loss, "data")
        hits = lax.psum(hits, "data")
        p = jax.tree.map(lambda p, g: p - 0.2 * g, p, g)
        return p, loss, hits

    sm = jax.shard_map(local_step, mesh=jmesh, in_specs=(specs, P("data"), P("data")),
                       out_specs=(specs, P(), P()), check_vma=False)
    # axis_names={"data"} (manual over "data" only) imports too
    # (tests/import/jax: shardmap_partial, shardmap_unit)

    def step(params, x, x2):
        params, loss, hits = sm(params, x, x2)
        return params, {"loss": loss, "hits": hits}
    return Export(step, (params, x, x2), mesh, (specs, P("data", None), P("data", None)),
                  donate_argnums=(0,))


BUILDERS["smap"] = smap


# --- adv: FGSM adversarial training, lax.switch, EMA weights, bool/uint8 state

ADV_SIZES = {"batch": 64, "inputs": 32, "hidden": 64, "classes": 6, "buckets": 8}


def adv(mesh):
    """FGSM adversarial training (grad w.r.t. the input, argnums=(0, 1)),
    an augmentation picked by lax.switch(step % 3), a continuous feature
    bucketed by jnp.searchsorted / jnp.digitize into an embedding, Polyak
    (EMA) weights with a bool "initialized" flag, a uint8 wrapping counter
    and a bool output."""
    r = np.random.default_rng(59)
    z = sizes("adv", ADV_SIZES)
    B, D, H, C, NB = z["batch"], z["inputs"], z["hidden"], z["classes"], z["buckets"]
    ax = model_axis(mesh)
    params = {"W1": grid(r, (D, H), 0.25), "Eb": grid(r, (NB + 1, H), 0.25),
              "W2": grid(r, (H, C), 0.25)}
    specs = {"W1": P(None, ax), "Eb": P(None, ax), "W2": P(ax, None)}
    edges = np.linspace(-1, 1, NB).astype(np.float32)
    x = grid(r, (B, D), 1.0)
    feat = grid(r, (B,), 1.5)
    labels = (np.argmax(x[:, :C], -1)).astype(np.int32)

    def loss_fn(p, x, feat, labels):
        bucket = jnp.searchsorted(jnp.asarray(edges), feat)            # [B] in [0, NB]
        bucket2 = jnp.digitize(feat, jnp.asarray(edges))
        h = jax.nn.relu(x @ p["W1"] + p["Eb"][bucket] + 0.5 * p["Eb"][bucket2])
        logits = h @ p["W2"]
        return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, C) * jax.nn.log_softmax(logits), -1))

    def step(state, x, feat, labels, eps=0.05, lr=0.1, decay=0.9):
        params, ema, inited, count, i = state
        aug = lax.switch(i % 3, [lambda x: x, lambda x: -x[:, ::-1], lambda x: x * 0.5 + 0.1], x)
        gx = jax.grad(loss_fn, argnums=1)(params, aug, feat, labels)
        x_adv = aug + eps * jnp.sign(gx)
        loss, (g, gx2) = jax.value_and_grad(
            lambda p, xa: 0.5 * (loss_fn(p, aug, feat, labels) + loss_fn(p, xa, feat, labels)),
            argnums=(0, 1))(params, x_adv)
        params = jax.tree.map(lambda p, g: p - lr * g, params, g)
        ema = jax.tree.map(lambda e, p: jnp.where(inited, decay * e + (1 - decay) * p, p),
                           ema, params)
        count = count + jnp.uint8(100)                                  # wraps at 256
        return ((params, ema, jnp.bool_(True), count, i + 1),
                {"loss": loss, "adv_gap": jnp.mean(jnp.abs(gx2)), "wrapped": count < 100,
                 "count": count})
    state = (params, zeros_like(params), np.bool_(False), np.uint8(0), np.int32(0))
    return Export(step, (state, x, feat, labels), mesh,
                  ((specs, specs, P(), P(), P()), P("data", None), P("data"), P("data")),
                  donate_argnums=(0,))


BUILDERS["adv"] = adv


# --- switch: capacity-limited top-1 MoE dispatch (GShard / Switch) ----------

SWITCH_SIZES = {"tokens": 128, "width": 32, "mlp": 64, "experts": 4, "capacity": 40}


def switch(mesh):
    """Switch-Transformer routing: top-1 expert per token, the token's
    position in its expert's buffer by jnp.cumsum over the data-sharded token
    dim, a capacity mask, dispatch / combine tensors [S, E, C] and einsums
    'sec,sd->ecd' / 'sec,ecd->sd', experts [E, D, F] on "model", z-loss and
    load-balancing loss."""
    r = np.random.default_rng(60)
    z = sizes("switch", SWITCH_SIZES)
    S, D, F, E, Cap = z["tokens"], z["width"], z["mlp"], z["experts"], z["capacity"]
    ax = model_axis(mesh)
    params = {"router": grid(r, (D, E), 0.5), "Wi": grid(r, (E, D, F), 0.25),
              "Wo": grid(r, (E, F, D), 0.125)}
    specs = {"router": P(), "Wi": P(ax, None, None), "Wo": P(ax, None, None)}
    x = grid(r, (S, D), 1.0)
    y = np.roll(x, 1, axis=1) * 0.5

    def loss_fn(p, x, y):
        logits = x @ p["router"]                                          # [S, E]
        probs = jax.nn.softmax(logits, -1)
        idx = jnp.argmax(probs, -1)
        mask = jax.nn.one_hot(idx, E)                                     # [S, E]
        pos = jnp.cumsum(mask, axis=0) * mask - 1.0                       # position in buffer
        keep = (pos < Cap) & (mask > 0)
        pos_oh = jax.nn.one_hot(jnp.where(keep, pos, -1).astype(jnp.int32), Cap)  # [S, E, C]
        dispatch = pos_oh * keep[..., None]
        gate = jnp.sum(probs * mask, -1)                                  # [S]
        combine = dispatch * gate[:, None, None]
        xe = jnp.einsum("sec,sd->ecd", dispatch, x)
        he = jax.nn.gelu(jnp.einsum("ecd,edf->ecf", xe, p["Wi"]))
        oe = jnp.einsum("ecf,efd->ecd", he, p["Wo"])
        out = x + jnp.einsum("sec,ecd->sd", combine, oe)
        frac = jnp.mean(mask, 0)
        lb = E * jnp.sum(frac * jnp.mean(probs, 0))
        zl = jnp.mean(jax.nn.logsumexp(logits, -1) ** 2)
        dropped = jnp.sum(mask) - jnp.sum(dispatch)
        return jnp.mean((out - y) ** 2) + 0.01 * lb + 1e-3 * zl, dropped

    def step(state, x, y):
        params, m, v, t = state
        (loss, dropped), g = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        return _bench.adam(params, g, m, v, t, lr=3e-3), {"loss": loss, "dropped": dropped}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, x, y), mesh,
                  ((specs, specs, specs, P()), P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- gan: two players, spectral norm by power iteration, R1 penalty ---------

GAN_SIZES = {"batch": 32, "latent": 8, "data": 16, "hidden": 32}


def gan(mesh):
    """A GAN step: generator and discriminator updated in one step (two
    gradients), the discriminator's weights spectrally normalized by one
    power iteration per step (u vectors carried in the state, stop_gradient),
    non-saturating losses with softplus, an R1 gradient penalty (the gradient
    of D w.r.t. the real input, differentiated again), latents from a key."""
    r = np.random.default_rng(61)
    z = sizes("gan", GAN_SIZES)
    B, L, Dd, H = z["batch"], z["latent"], z["data"], z["hidden"]
    ax = model_axis(mesh)
    G = {"W1": grid(r, (L, H), 0.5), "W2": grid(r, (H, Dd), 0.25)}
    Dp = {"W1": grid(r, (Dd, H), 0.25), "W2": grid(r, (H, 1), 0.25)}
    gspec = {"W1": P(None, ax), "W2": P(ax, None)}
    dspec = {"W1": P(None, ax), "W2": P(ax, None)}
    u = {"W1": (np.ones(H) / np.sqrt(H)).astype(np.float32), "W2": np.ones(1, np.float32)}
    uspec = {"W1": P(ax), "W2": P()}
    real = (np.sin(grid(r, (B, Dd), 3.0)) * 0.8).astype(np.float32)
    key = np.asarray(jax.random.PRNGKey(5))

    def sn(w, u):
        v = l2n(w @ u)
        u = l2n(w.T @ v)
        sigma = v @ w @ u
        return w / lax.stop_gradient(sigma), lax.stop_gradient(u)

    def disc(dp, u, x):
        w1, u1 = sn(dp["W1"], u["W1"])
        w2, u2 = sn(dp["W2"], u["W2"])
        return (jax.nn.leaky_relu(x @ w1, 0.2) @ w2)[:, 0], {"W1": u1, "W2": u2}

    def gen(gp, zs):
        return jnp.tanh(jax.nn.relu(zs @ gp["W1"]) @ gp["W2"])

    def d_loss(dp, gp, u, zs, real, gamma=1.0):
        fake = lax.stop_gradient(gen(gp, zs))
        lr_, u2 = disc(dp, u, real)
        lf, _ = disc(dp, u, fake)
        r1 = jax.grad(lambda x: jnp.sum(disc(dp, u, x)[0]))(real)
        pen = 0.5 * gamma * jnp.mean(jnp.sum(r1 ** 2, -1))
        return jnp.mean(jax.nn.softplus(-lr_)) + jnp.mean(jax.nn.softplus(lf)) + pen, u2

    def g_loss(gp, dp, u, zs):
        lf, _ = disc(dp, u, gen(gp, zs))
        return jnp.mean(jax.nn.softplus(-lf))

    def step(state, real, lr=0.05):
        gp, dp, u, key = state
        key, k1, k2 = jax.random.split(key, 3)
        z1 = jax.random.normal(k1, (real.shape[0], L))
        z2 = jax.random.normal(k2, (real.shape[0], L))
        (dl, u), gd = jax.value_and_grad(d_loss, has_aux=True)(dp, gp, u, z1, real)
        dp = jax.tree.map(lambda p, g: p - lr * g, dp, gd)
        gl, gg = jax.value_and_grad(g_loss)(gp, dp, u, z2)
        gp = jax.tree.map(lambda p, g: p - lr * g, gp, gg)
        return (gp, dp, u, key), {"loss": dl + gl, "d_loss": dl, "g_loss": gl}
    return Export(step, ((G, Dp, u, key), real), mesh,
                  ((gspec, dspec, uspec, P()), P("data", None)), donate_argnums=(0,))


# --- crf: linear-chain CRF negative log-likelihood --------------------------

CRF_SIZES = {"batch": 16, "seq": 12, "inputs": 16, "tags": 5}


def crf(mesh):
    """A BiLSTM-CRF-style tagger head: emissions from a dense layer, the
    forward algorithm by lax.scan with logsumexp over [B, K, K], the gold
    path's score with take_along_axis and transition scores indexed by
    consecutive tags (flattened index), a length mask; Viterbi decoding
    (scan of max/argmax, reverse scan backtracking with take_along_axis) for
    a token accuracy metric."""
    r = np.random.default_rng(62)
    z = sizes("crf", CRF_SIZES)
    B, T, D, K = z["batch"], z["seq"], z["inputs"], z["tags"]
    ax = model_axis(mesh)
    params = {"W": grid(r, (D, K), 0.25), "trans": grid(r, (K, K), 0.25),
              "start": np.zeros(K, np.float32)}
    specs = {"W": P(), "trans": P(), "start": P()}
    x = grid(r, (B, T, D), 1.0)
    tags = (np.argmax(x[..., :K], -1)).astype(np.int32)
    lengths = r.integers(T // 2, T + 1, size=B).astype(np.int32)

    def nll(p, x, tags, lengths):
        em = x @ p["W"]                                              # [B, T, K]
        mask = jnp.arange(T)[None, :] < lengths[:, None]              # [B, T]
        # gold score
        e_gold = jnp.take_along_axis(em, tags[..., None], -1)[..., 0]
        flat = p["trans"].reshape(-1)
        t_gold = flat[tags[:, :-1] * K + tags[:, 1:]]                 # [B, T-1]
        gold = p["start"][tags[:, 0]] + jnp.sum(e_gold * mask, 1) + jnp.sum(t_gold * mask[:, 1:], 1)
        # partition function
        alpha0 = p["start"][None] + em[:, 0]

        def fwd(alpha, inp):
            e, m = inp
            nxt = jax.nn.logsumexp(alpha[:, :, None] + p["trans"][None], axis=1) + e
            return jnp.where(m[:, None], nxt, alpha), None
        alpha, _ = lax.scan(fwd, alpha0, (jnp.swapaxes(em[:, 1:], 0, 1), mask[:, 1:].T))
        logz = jax.nn.logsumexp(alpha, -1)
        # Viterbi
        def vit(score, inp):
            e, m = inp
            cand = score[:, :, None] + p["trans"][None]
            best = jnp.max(cand, 1) + e
            arg = jnp.argmax(cand, 1)
            return jnp.where(m[:, None], best, score), jnp.where(m[:, None], arg,
                                                                jnp.arange(K)[None])
        score, bps = lax.scan(vit, alpha0, (jnp.swapaxes(em[:, 1:], 0, 1), mask[:, 1:].T))
        last = jnp.argmax(score, -1)

        def back(tag, bp):
            prev = jnp.take_along_axis(bp, tag[:, None], -1)[:, 0]
            return prev, tag
        first, path = lax.scan(back, last, bps, reverse=True)
        path = jnp.concatenate([first[None], path], 0).T              # [B, T]
        acc = jnp.sum((path == tags) * mask) / jnp.sum(mask)
        return jnp.mean(logz - gold), acc

    def step(state, x, tags, lengths):
        params, m, v, t = state
        (loss, acc), g = jax.value_and_grad(nll, has_aux=True)(params, x, tags, lengths)
        return _bench.adam(params, g, m, v, t, lr=1e-2), {"loss": loss, "acc": acc}
    state = (params, zeros_like(params), zeros_like(params), np.float32(0.0))
    return Export(step, (state, x, tags, lengths), mesh,
                  ((specs, specs, specs, P()), P("data", None, None), P("data", None),
                   P("data")), donate_argnums=(0,))


BUILDERS["switch"] = switch
BUILDERS["gan"] = gan
BUILDERS["crf"] = crf


EXPORTS = _bench.Exports(BUILDERS)
