"""The JAX programs the importer tests run (tests/import/ImportJaxTest.cpp).

Regenerate the checked-in exports next to this file with

    tools/jax_env.sh tools/jax_export.py tests/import/jax/models.py --out tests/import/jax

Inputs are multiples of 1/64 from fixed seeds, exact in f32, so every
machine writes the same files. Sizes are small: the tests run each program
on several meshes in CI.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

import jax_export  # noqa: F401  (tools/ is on the path when run by jax_export.py)
from jax_export import Export


def grid(rng, shape, scale):
    return (np.round(rng.uniform(-scale, scale, size=shape) * 64) / 64).astype(np.float32)


# --- the seed: one step of linear regression ---------------------------------

def linreg_step(X, y, w):
    def loss(w):
        r = X @ w - y
        return jnp.mean(r * r)
    l, g = jax.value_and_grad(loss)(w)
    return {"loss": l, "grad": g, "w": w - 0.1 * g}


def linreg():
    rng = np.random.default_rng(1)
    return Export(linreg_step, (grid(rng, (8, 2), 1.0), grid(rng, (8,), 1.0),
                                grid(rng, (2,), 0.5)),
                  {"data": 4}, (P("data", None), P("data"), P()))


# --- a 2-layer MLP, masked softmax cross-entropy, Adam ---------------------------

def mlp_loss(params, x, labels):
    h = jax.nn.relu(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    logp = jax.nn.log_softmax(logits)
    valid = labels >= 0
    nll = -jnp.take_along_axis(logp, jnp.maximum(labels, 0)[:, None], axis=-1)[:, 0]
    return jnp.sum(jnp.where(valid, nll, 0.0)) / jnp.sum(valid)


def adam(params, grads, m, v, t, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    t = t + 1.0
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    mhat = jax.tree.map(lambda m: m / (1 - b1 ** t), m)
    vhat = jax.tree.map(lambda v: v / (1 - b2 ** t), v)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mhat, vhat)
    return params, m, v, t


def mlp_step(state, x, labels):
    params, m, v, t = state
    loss, grads = jax.value_and_grad(mlp_loss)(params, x, labels)
    params, m, v, t = adam(params, grads, m, v, t)
    return (params, m, v, t), {"loss": loss, "pred": jnp.argmax(x @ params["W1"], axis=-1)}


def mlp_state(rng, n_in, hidden, classes):
    params = {"W1": grid(rng, (n_in, hidden), 0.5), "b1": grid(rng, (hidden,), 0.25),
              "W2": grid(rng, (hidden, classes), 0.5), "b2": grid(rng, (classes,), 0.25)}
    zeros = jax.tree.map(np.zeros_like, params)
    return (params, zeros, jax.tree.map(np.zeros_like, params), np.float32(0.0))


def mlp(mesh, param_specs):
    rng = np.random.default_rng(2)
    state = mlp_state(rng, 16, 32, 4)
    x = grid(rng, (16, 16), 1.0)
    labels = rng.integers(0, 4, size=16).astype(np.int32)
    labels[5] = -1  # ignored: the mean divides by 15 valid rows
    state_specs = (param_specs, param_specs, param_specs, P())
    return Export(mlp_step, (state, x, labels), mesh,
                  (state_specs, P("data", None), P("data")), donate_argnums=(0,))


def mlp_2x2():
    return mlp({"data": 2, "model": 2},
               {"W1": P(None, "model"), "b1": P("model"), "W2": P("model", None), "b2": P()})


def mlp_1d():
    return mlp({"data": 4}, {"W1": P(), "b1": P(), "W2": P(), "b2": P()})


# --- a pre-LayerNorm transformer block, training step ----------------------------

def layer_norm(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def block(p, x, heads):
    B, S, D = x.shape
    h = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q = (h @ p["Wq"]).reshape(B, S, heads, D // heads)
    k = (h @ p["Wk"]).reshape(B, S, heads, D // heads)
    v = (h @ p["Wv"]).reshape(B, S, heads, D // heads)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D // heads).astype(np.float32)
    causal = jnp.tril(jnp.ones((S, S), bool))
    scores = jnp.where(causal, scores, -1e9)
    att = jax.nn.softmax(scores, axis=-1)
    o = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(B, S, D)
    x = x + o @ p["Wo"]
    h = layer_norm(x, p["ln2_g"], p["ln2_b"])
    x = x + jax.nn.gelu(h @ p["W1"], approximate=True) @ p["W2"]
    return x


def transformer_step(params, x, target):
    def loss(p):
        y = block(p, x, heads=2)
        return jnp.mean((y - target) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.05 * g, params, g), l


def transformer():
    rng = np.random.default_rng(3)
    D, F = 16, 32
    params = {"ln1_g": 1 + grid(rng, (D,), 0.1), "ln1_b": grid(rng, (D,), 0.1),
              "Wq": grid(rng, (D, D), 0.25), "Wk": grid(rng, (D, D), 0.25),
              "Wv": grid(rng, (D, D), 0.25), "Wo": grid(rng, (D, D), 0.25),
              "ln2_g": 1 + grid(rng, (D,), 0.1), "ln2_b": grid(rng, (D,), 0.1),
              "W1": grid(rng, (D, F), 0.25), "W2": grid(rng, (F, D), 0.25)}
    specs = {"ln1_g": P(), "ln1_b": P(), "Wq": P(None, "model"), "Wk": P(None, "model"),
             "Wv": P(None, "model"), "Wo": P("model", None), "ln2_g": P(), "ln2_b": P(),
             "W1": P(None, "model"), "W2": P("model", None)}
    x = grid(rng, (4, 8, D), 1.0)
    target = grid(rng, (4, 8, D), 1.0)
    return Export(transformer_step, (params, x, target), {"data": 2, "model": 2},
                  (specs, P("data", None, None), P("data", None, None)), donate_argnums=(0,))


# --- an embedding lookup with a token-level cross-entropy ------------------------

def embedding_step(params, tokens, labels):
    def loss(p):
        e = p["emb"][tokens]                       # (B, S, D) gather of rows
        logits = e @ p["out"]                      # (B, S, V)
        logp = jax.nn.log_softmax(logits)
        nll = -jnp.take_along_axis(logp, labels[..., None], axis=-1)[..., 0]
        return jnp.mean(nll)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.5 * g, params, g), l


def embedding():
    rng = np.random.default_rng(4)
    V, D = 12, 8
    params = {"emb": grid(rng, (V, D), 0.5), "out": grid(rng, (D, V), 0.5)}
    tokens = rng.integers(0, V, size=(4, 6)).astype(np.int32)
    labels = rng.integers(0, V, size=(4, 6)).astype(np.int32)
    return Export(embedding_step, (params, tokens, labels), {"data": 2},
                  ({"emb": P(), "out": P()}, P("data", None), P("data", None)),
                  donate_argnums=(0,))


# --- activations JAX builds from several HLO ops, a logsumexp loss, a guarded
# sign (Lion-like) update: chlo.erf/erfc (exact GELU), is_finite ------------

def activations_step(state, x, y):
    params, m = state

    def loss(p):
        h = x @ p["W1"]
        a = (jax.nn.gelu(h, approximate=False) + jax.nn.softplus(h) + jax.nn.elu(h)
             + jax.nn.silu(h) + jax.scipy.special.erf(h) + jax.scipy.special.erfc(2.0 * h))
        out = a @ p["W2"]
        return jnp.mean(jax.nn.logsumexp(out, axis=-1)) + jnp.mean(jnp.abs(out - y))
    l, g = jax.value_and_grad(loss)(params)
    finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(a)) for a in jax.tree.leaves(g)]))
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    params = jax.tree.map(lambda p, m: jnp.where(finite, p - 0.01 * jnp.sign(m), p), params, m)
    return (params, m), {"loss": l, "finite": finite}


def activations():
    rng = np.random.default_rng(5)
    params = {"W1": grid(rng, (8, 12), 0.5), "W2": grid(rng, (12, 5), 0.5)}
    specs = {"W1": P(None, "model"), "W2": P("model", None)}
    state = (params, jax.tree.map(np.zeros_like, params))
    x, y = grid(rng, (24, 8), 2.0), grid(rng, (24, 5), 1.0)
    return Export(activations_step, (state, x, y), {"data": 2, "model": 2},
                  ((specs, specs), P("data", None), P("data", None)), donate_argnums=(0,))


# --- a small CNN: convolutions strided, dilated, depthwise (feature groups;
# its kernel gradient has batch groups), VALID and SAME, NHWC and NCHW ------

def cnn_step(state, x, labels):
    params, m = state

    def loss(p):
        dn = ("NHWC", "HWIO", "NHWC")
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, p["K1"], (1, 1), "SAME",
                                                     dimension_numbers=dn))
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, p["K2"], (2, 2), "SAME",
                                                     dimension_numbers=dn))
        h = jax.lax.conv_general_dilated(h, p["Kd"], (1, 1), "SAME", dimension_numbers=dn,
                                         feature_group_count=8)
        h = jnp.transpose(h, (0, 3, 1, 2))
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, p["K3"], (1, 1), "VALID",
                                                     rhs_dilation=(2, 2),
                                                     dimension_numbers=("NCHW", "OIHW", "NCHW")))
        logits = h.mean(axis=(2, 3)) @ p["W"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))
    l, g = jax.value_and_grad(loss)(params)
    m = jax.tree.map(lambda m, g: 0.9 * m + g, m, g)
    return (jax.tree.map(lambda p, m: p - 0.05 * m, params, m), m), {"loss": l}


def cnn():
    rng = np.random.default_rng(6)
    params = {"K1": grid(rng, (3, 3, 3, 4), 0.5), "K2": grid(rng, (3, 3, 4, 8), 0.25),
              "Kd": grid(rng, (3, 3, 1, 8), 0.5), "K3": grid(rng, (6, 8, 2, 2), 0.25),
              "W": grid(rng, (6, 5), 0.5)}
    specs = {"K1": P(), "K2": P(None, None, None, "model"), "Kd": P(),
             "K3": P("model"), "W": P()}
    state = (params, jax.tree.map(np.zeros_like, params))
    x = grid(rng, (8, 10, 10, 3), 1.0)
    labels = rng.integers(0, 5, size=8).astype(np.int32)
    return Export(cnn_step, (state, x, labels), {"data": 2, "model": 2},
                  ((specs, specs), P("data"), P("data")), donate_argnums=(0,))


# --- loops: lax.scan over stacked layers and over time, lax.fori_loop, a
# while_loop with a carried bound (while loops with known trip counts, unrolled; the scan
# body reads xs[i] and writes ys[i], dynamic_slice/dynamic_update_slice) --

def loops_step(params, xs, target):
    def loss(p):
        def layer(h, w):
            return jnp.tanh(h @ w), jnp.sum(h)
        h0 = jnp.mean(xs, axis=0)
        h, sums = jax.lax.scan(layer, h0, p["layers"])           # over 3 layers
        def cell(c, x):
            c = jnp.tanh(x @ p["Wx"] + c @ p["Wh"])
            return c, c
        c, cs = jax.lax.scan(cell, h, xs)                        # over 4 time steps
        c = jax.lax.fori_loop(0, 2, lambda i, c: c * 0.5 + i.astype(jnp.float32), c)
        return jnp.mean((c - target) ** 2) + 0.01 * jnp.mean(cs ** 2) + 0.001 * jnp.sum(sums)
    l, g = jax.value_and_grad(loss)(params)
    # A while_loop whose bound is carried (a constant passed on unchanged).
    _, _, decayed = jax.lax.while_loop(lambda s: s[0] < s[1],
                                       lambda s: (s[0] + 1, s[1], s[2] * 0.9), (0, 3, l))
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": l, "decayed": decayed}


def loops():
    rng = np.random.default_rng(7)
    params = {"layers": grid(rng, (3, 8, 8), 0.5), "Wx": grid(rng, (8, 8), 0.5),
              "Wh": grid(rng, (8, 8), 0.5)}
    xs = grid(rng, (4, 6, 8), 1.0)
    target = grid(rng, (6, 8), 1.0)
    return Export(loops_step, (params, xs, target), {"data": 2},
                  ({"layers": P(), "Wx": P(), "Wh": P()}, P(None, "data"), P("data")),
                  donate_argnums=(0,))


# --- windows: average pooling (reduce_window add; its gradient pads with
# interior padding), strided, and jnp.cumsum (a padded reduce_window) ------

def pooling_step(params, x, y):
    def loss(p):
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, p["K"], (1, 1), "SAME",
                                                     dimension_numbers=("NHWC", "HWIO", "NHWC")))
        h = jax.lax.reduce_window(h, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
        c = jnp.cumsum(h, axis=1)
        return jnp.mean((c.mean(axis=(1, 2)) @ p["W"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), l


def pooling():
    rng = np.random.default_rng(8)
    params = {"K": grid(rng, (3, 3, 2, 4), 0.5), "W": grid(rng, (4, 3), 0.5)}
    x, y = grid(rng, (8, 8, 8, 2), 1.0), grid(rng, (8, 3), 1.0)
    return Export(pooling_step, (params, x, y), {"data": 2},
                  ({"K": P(), "W": P()}, P("data"), P("data")), donate_argnums=(0,))


# --- max pooling: reduce_window max, whose gradient is select_and_scatter;
# SAME padding (padded positions are never selected), overlapping windows,
# and ties (the first maximum in window order takes the gradient) -----------

def maxpool_step(params, x, y):
    def loss(p):
        h = jax.lax.conv_general_dilated(x, p["K"], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        # No activation: a border window whose real values are all negative
        # tells a selected padding position from a real one.
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return jnp.mean((h.mean(axis=(1, 2)) @ p["W"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), l


def maxpool():
    # Inputs and kernel on coarse grids, so that many windows hold several
    # equal maxima of different positions: the tie rule decides the gradient.
    rng = np.random.default_rng(9)
    coarse = lambda shape, values: rng.choice(values, size=shape).astype(np.float32)
    params = {"K": coarse((3, 3, 2, 4), [-0.5, 0.0, 0.5]), "W": grid(rng, (4, 3), 0.5)}
    x, y = coarse((8, 9, 9, 2), [-1.0, 0.0, 1.0]), grid(rng, (8, 3), 1.0)
    return Export(maxpool_step, (params, x, y), {"data": 2},
                  ({"K": P(), "W": P()}, P("data"), P("data")), donate_argnums=(0,))


# --- control flow on data: lax.cond and lax.switch (stablehlo.case, also in
# the gradient), every branch computed and the results selected ------------

def branches_step(params, x, y):
    def loss(p):
        h = x @ p["W1"]
        h = jax.lax.cond(jnp.mean(h) > 0.0, jnp.tanh, lambda h: jax.nn.relu(h) * 0.5, h)
        which = jnp.clip(jnp.floor(jnp.sum(y) * 2.0), 0, 2).astype(jnp.int32)
        h = jax.lax.switch(which, [lambda h: h * 2.0, jnp.sin, lambda h: h * h], h)
        return jnp.mean((h @ p["W2"] - y) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), l


def branches():
    rng = np.random.default_rng(10)
    params = {"W1": grid(rng, (6, 8), 0.5), "W2": grid(rng, (8, 3), 0.5)}
    x, y = grid(rng, (8, 6), 1.0), grid(rng, (8, 3), 0.2) + 0.1
    return Export(branches_step, (params, x, y), {"data": 2},
                  ({"W1": P(), "W2": P()}, P("data"), P("data")), donate_argnums=(0,))


# --- dropout with jax.random inside the step: threefry on uint32 words and
# uint64 counters (shifts, xor, wrapping adds), bits bitcast to floats, a
# Bernoulli mask; the key made from an int32 step counter ------------------

def dropout_step(params, x, y, step):
    key = jax.random.PRNGKey(step)
    k1, k2 = jax.random.split(key)

    def loss(p):
        h = jnp.tanh(x @ p["W1"])
        keep = jax.random.bernoulli(k1, 0.75, h.shape)
        h = jnp.where(keep, h / 0.75, 0.0)
        noise = jax.random.uniform(k2, y.shape, minval=-0.01, maxval=0.01)
        return jnp.mean((h @ p["W2"] - y + noise) ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), l, step + 1


def dropout():
    rng = np.random.default_rng(11)
    params = {"W1": grid(rng, (6, 16), 0.5), "W2": grid(rng, (16, 3), 0.5)}
    x, y = grid(rng, (8, 6), 1.0), grid(rng, (8, 3), 0.2)
    return Export(dropout_step, (params, x, y, np.int32(3)), {"data": 2},
                  ({"W1": P(), "W2": P()}, P("data"), P("data"), P()), donate_argnums=(0, 3))


# --- a VAE step: Gaussian noise from jax.random.normal (threefry bits to a
# uniform draw, then erf_inv: the inverse CDF), the reparameterization
# z = mu + exp(logvar / 2) * eps, a reconstruction loss and the KL term ----

def vae_step(params, x, step):
    eps_key = jax.random.PRNGKey(step)

    def loss(p):
        h = jnp.tanh(x @ p["E"])
        mu, logvar = h @ p["Mu"], h @ p["LogVar"]
        eps = jax.random.normal(eps_key, mu.shape)
        z = mu + jnp.exp(0.5 * logvar) * eps
        recon = jnp.tanh(z @ p["D"])
        kl = -0.5 * jnp.mean(jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar), axis=-1))
        return jnp.mean((recon - x) ** 2) + 0.1 * kl
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), l, step + 1


def vae():
    rng = np.random.default_rng(12)
    params = {"E": grid(rng, (10, 16), 0.5), "Mu": grid(rng, (16, 4), 0.5),
              "LogVar": grid(rng, (16, 4), 0.25), "D": grid(rng, (4, 10), 0.5)}
    x = grid(rng, (12, 10), 1.0)
    return Export(vae_step, (params, x, np.int32(5)), {"data": 2},
                  (jax.tree.map(lambda _: P(), params), P("data"), P()), donate_argnums=(0, 2))


# --- sorting: jnp.sort, argsort (stable: ties keep their order), top_k, a
# descending sort along the sharded dim, an integer argsort, lexsort (two
# keys in one comparator); rows of 13 (not a power of two) with ties, ±inf
# and -0.0; median and quantile (a sort, then gathers of one column at a
# position computed when running) and jnp.take of one column -------------

def sorting_step(x, keys):
    finite = jnp.where(jnp.isfinite(x), x, keys.astype(x.dtype))
    return {
        "sort": jnp.sort(x, axis=1),
        "argsort": jnp.argsort(x, axis=1),
        "top_k": jax.lax.top_k(x, 5),
        "sort_rows": jnp.sort(x, axis=0, descending=True),
        "int_argsort": jnp.argsort(keys, axis=1),
        "lexsort": jnp.lexsort((x, keys), axis=1),
        "median": jnp.median(finite, axis=1),
        "quantile": jnp.quantile(finite, 0.3, axis=1),
        "take_col": jnp.take(x, jnp.array(4), axis=1),
        # under jax.grad a sort carries a uint32 iota along (ties: stable)
        "trimmed_grad": jax.grad(
            lambda v: jnp.mean(jnp.sort(v, axis=1)[:, 2:-2] ** 2))(finite),
        "median_grad": jax.grad(lambda v: jnp.sum(jnp.median(v, axis=1) ** 2))(finite),
    }


def sorting():
    rng = np.random.default_rng(13)
    x = rng.choice([-2.0, -0.5, -0.0, 0.0, 0.25, 1.0, 3.0, np.inf, -np.inf],
                   size=(6, 13)).astype(np.float32)
    keys = rng.integers(-3, 4, size=(6, 13)).astype(np.int32)
    return Export(sorting_step, (x, keys), {"data": 2}, (P("data"), P("data")))


# --- scans: reduce_window with other bodies than one op: cumlogsumexp
# (log-add-exp; -inf entries), reversed, its gradient (an associative scan of
# slices), and a windowed argmax of (value, index) pairs (two inputs, SAME
# padding, stride 2, its body calling jnp.where's function); rows written at
# a start known only when running (dynamic_update_slice) -------------------

def scans_step(x, w, at):
    def loss(x):
        return jnp.sum(jax.lax.cumlogsumexp(x, axis=1) * w)

    def pick(a, b):  # jnp.where: a call to a private function in the body
        take = a[0] >= b[0]
        return jnp.where(take, a[0], b[0]), jnp.where(take, a[1], b[1])
    positions = jax.lax.broadcasted_iota(jnp.int32, x.shape, 1)
    return {
        "lcse": jax.lax.cumlogsumexp(x, axis=1),
        "lcse_rev": jax.lax.cumlogsumexp(x, axis=0, reverse=True),
        "lcse_grad": jax.grad(loss)(x),
        "window_argmax": jax.lax.reduce_window((x, positions), (-jnp.inf, 0), pick,
                                               (1, 3), (1, 2), "SAME"),
        # three rows put at a row known only when running (clamped: 7 -> 5)
        "rows_update": jax.lax.dynamic_update_slice(w, x[:3] * 2.0, (at, 0)),
        "rows_update_end": jax.lax.dynamic_update_slice(w, x[:3], (at + 4, 0)),
    }


def scans():
    rng = np.random.default_rng(14)
    x = grid(rng, (8, 12), 2.0)
    x[0, 3] = -np.inf
    w = grid(rng, (8, 12), 1.0)
    return Export(scans_step, (x, w, np.int32(3)), {"data": 2}, (P("data"), P("data"), P()))


# --- windows: rows cut at a start known only when running, more of them
# than one-hot sums are built for: a minibatch of 80 rows of a dataset held
# on the devices (and its boolean mask), 100 columns, and 70 rows written
# back; starts past the end are clamped; .at[i].set of one row or column ---

def windows_step(data, keep, w, at):
    batch = jax.lax.dynamic_slice_in_dim(data, at * 80, 80, axis=0)
    mask = jax.lax.dynamic_slice_in_dim(keep, at * 80, 80, axis=0)

    def loss(w):
        r = batch @ w
        return jnp.sum(jnp.where(mask[:, None], r * r, 0.0)) / jnp.maximum(jnp.sum(mask), 1)
    l, g = jax.value_and_grad(loss)(w)
    return {
        "loss": l,
        "w": w - 0.1 * g,
        "cols": jax.lax.dynamic_slice_in_dim(data.T, at * 70, 100, axis=1),
        "clamped": jax.lax.dynamic_slice_in_dim(data, at * 150, 80, axis=0),
        "put": jax.lax.dynamic_update_slice(data, 2.0 * data[:70], (at * 50, 0)),
        "put_end": jax.lax.dynamic_update_slice(data, data[:70], (at * 190, 0)),
        # .at[...].set at one index: static, at a runtime row, out of range
        # (dropped, as JAX's default mode drops it)
        "set_col": data.at[:, 0].set(0.0),
        "set_row": data.at[at * 7].set(w[:, 0].sum() * jnp.ones(6)),
        "set_far": data.at[at * 300].set(jnp.ones(6)),
    }


def windows():
    rng = np.random.default_rng(15)
    data = grid(rng, (200, 6), 1.0)
    keep = rng.uniform(size=200) < 0.7
    w = grid(rng, (6, 3), 1.0)
    return Export(windows_step, (data, keep, w, np.int32(1)), {"data": 2},
                  (P("data", None), P("data"), P(), P()))


# --- edges: programs JAX writes with zero-size pieces (the gradient of
# jnp.cumprod, an associative scan, slices x[2:2] and pads it back; the
# gradient of jnp.pad in edge mode sums empty slices) and with
# reduce_precision (jax.checkpoint's saving policy marks saved values with
# an identity one; a rounding to bfloat16's widths) ---------------------------

def edges_step(x, w):
    def survival(x):
        return jnp.sum(jnp.cumprod(jax.nn.sigmoid(x), axis=1) * w)

    def block(w):
        return jnp.sum(jnp.tanh(x @ w.T))
    saved = jax.checkpoint(block, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return {
        "cumprod": jnp.cumprod(jax.nn.sigmoid(x), axis=1),
        "cumprod_grad": jax.grad(survival)(x),
        "remat_grad": jax.grad(saved)(w),
        "to_bf16": jax.lax.reduce_precision(x * 1.001, exponent_bits=8, mantissa_bits=7),
        # edge mode pads by (0, 0) on dim 1 too: its gradient sums empty slices
        "pad_edge_grad": jax.grad(lambda x: jnp.sum(jnp.pad(x, ((1, 2), (0, 0)), mode="edge")
                                                    * jnp.arange(11.0)[:, None]))(x),
    }


def edges():
    rng = np.random.default_rng(16)
    x = grid(rng, (8, 4), 2.0)
    w = grid(rng, (8, 4), 1.0)
    return Export(edges_step, (x, w), {"data": 2}, (P("data"), P()))


# --- solvers: lax.while_loop bounded by an iteration count and stopped by a
# test on data, `(i < n) & (err > tol)`: power iteration for a spectral
# norm (outside the gradient, as spectral normalization does), Newton's
# square root until converged, and a loop whose test fails at once --------

def solvers_step(x, W, y):
    def power(state):
        i, u, v, delta = state
        v2 = W.T @ u
        v2 = v2 / jnp.linalg.norm(v2)
        u2 = W @ v2
        u2 = u2 / jnp.linalg.norm(u2)
        return i + 1, u2, v2, jnp.max(jnp.abs(u2 - u))
    u0 = jnp.ones(W.shape[0], jnp.float32) / np.float32(np.sqrt(W.shape[0]))
    v0 = jnp.zeros(W.shape[1], jnp.float32)
    iters, u, v, _ = jax.lax.while_loop(lambda s: jnp.logical_and(s[0] < 40, s[3] > 1e-5), power,
                                        (0, u0, v0, jnp.float32(1.0)))
    u, v = jax.lax.stop_gradient(u), jax.lax.stop_gradient(v)

    def loss(W):
        sigma = u @ W @ v
        return jnp.mean((x @ (W / sigma).T - y) ** 2)
    l, g = jax.value_and_grad(loss)(W)

    def newton(state):
        i, r = state
        return i + 1, 0.5 * (r + x * x / r)
    _, root = jax.lax.while_loop(
        lambda s: (s[0] < 30) & (jnp.max(jnp.abs(s[1] * s[1] - x * x)) > 1e-3), newton,
        (0, jnp.ones_like(x) * 2.0))
    _, never = jax.lax.while_loop(lambda s: (s[0] < 10) & (jnp.sum(s[1]) < -1e9),
                                  lambda s: (s[0] + 1, s[1] * 2.0), (0, x))
    return {"loss": l, "W": W - 0.1 * g, "iters": iters, "root": root, "never": never}


def solvers():
    rng = np.random.default_rng(17)
    x = grid(rng, (8, 6), 1.0) + np.float32(2.0)
    W = grid(rng, (5, 6), 1.0)
    y = grid(rng, (8, 5), 1.0)
    return Export(solvers_step, (x, W, y), {"data": 2}, (P("data"), P(), P("data")))


# --- search: jnp.searchsorted and jnp.digitize (a binary search dividing
# uint32 positions by 2, a gather of x[idx] keeping a unit dim), and uint32
# hashing: multiply, floor_divide, remainder, sign, clip and a clipped take
# at indices of 2^31 and more, read unsigned --------------------------------

def search_step(x, edges, ids):
    u = ids.astype(jnp.uint32) * jnp.uint32(2654435761)
    bucket = u % jnp.uint32(1000)
    bits = lambda v: jax.lax.bitcast_convert_type(v, jnp.int32)  # noqa: E731
    return {
        "left": jnp.searchsorted(edges, x),
        "right": jnp.searchsorted(edges, x, side="right"),
        "digit": jnp.digitize(x, edges),
        "bucket": bits(bucket),
        "quot": bits(u // jnp.uint32(7)),
        "sign": bits(jnp.sign(u - jnp.uint32(2654435761))),
        "clip": bits(jnp.clip(u, jnp.uint32(10), jnp.uint32(3000000000))),
        "take": jnp.take(x, u, mode="clip"),
        "weighted": jnp.sum(x * edges[jnp.clip(jnp.searchsorted(edges, x), 0, 5)]),
    }


def search():
    rng = np.random.default_rng(18)
    x = grid(rng, (16,), 2.0)
    edges = np.array([-1.5, -0.5, 0.0, 0.25, 1.0, 1.75], np.float32)
    x[:3] = edges[[0, 2, 5]]  # ties with the edges
    ids = rng.integers(0, 5000, size=16).astype(np.int32)
    ids[0] = 1  # u = 2654435761 > 2^31
    return Export(search_step, (x, edges, ids), {"data": 2}, (P("data"), P(), P("data")))


# --- counts: a negative-binomial regression step (gammaln of counts plus a
# learned dispersion; its gradient is digamma) and both functions on a grid
# of points, negatives and poles included -------------------------------------

def counts_step(x, y, w, log_r, grid_pts):
    from jax.scipy.special import digamma, gammaln

    def nll(params):
        w, log_r = params
        mu = jnp.exp(x @ w)
        r = jnp.exp(log_r)
        ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1.0)
              + r * jnp.log(r / (r + mu)) + y * jnp.log(mu / (r + mu)))
        return -jnp.mean(ll)
    l, (gw, gr) = jax.value_and_grad(nll)((w, log_r))
    return {"loss": l, "w": w - 0.05 * gw, "log_r": log_r - 0.05 * gr,
            "gammaln": gammaln(grid_pts), "digamma": digamma(grid_pts)}


def counts():
    rng = np.random.default_rng(19)
    x = grid(rng, (16, 3), 0.5)
    y = rng.poisson(3.0, size=16).astype(np.float32)
    w = grid(rng, (3,), 0.25)
    pts = np.array([-3.75, -2.5, -1.25, -0.5, 0.25, 0.5, 1.0, 1.5, 2.0, 3.5, 7.25, 20.0,
                    150.0, 1e5, 3.0, 0.125], np.float32)
    return Export(counts_step, (x, y, w, np.float32(0.5), pts), {"data": 2},
                  (P("data"), P("data"), P(), P(), P("data")))


# --- keyed: the usual training-loop signature, a PRNG key passed in and its
# successor returned (uint32 at the boundary), images as uint8 pixels, and
# fresh random bits returned as uint32 -----------------------------------------

def keyed_step(params, key, pixels, labels):
    key, k_drop, k_bits = jax.random.split(key, 3)
    x = pixels.astype(jnp.float32) / 255.0

    def loss(p):
        h = jax.nn.relu(x @ p["W1"])
        keep = jax.random.bernoulli(k_drop, 0.8, h.shape)
        h = jnp.where(keep, h / 0.8, 0.0)
        logits = h @ p["W2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))
    l, g = jax.value_and_grad(loss)(params)
    params = jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
    # Bits with the top bit set in some words: read back as unsigned.
    bits = jax.random.bits(k_bits, (8,), jnp.uint32)
    brightest = jnp.max(pixels, axis=1)  # an unsigned max of uint8
    return params, key, {"loss": l, "bits": bits, "brightest": brightest}


def keyed():
    rng = np.random.default_rng(20)
    params = {"W1": grid(rng, (12, 16), 0.5), "W2": grid(rng, (16, 4), 0.5)}
    pixels = rng.integers(0, 256, size=(8, 12)).astype(np.uint8)
    pixels[0, :] = [0, 255, 128, 127, 200, 1, 2, 3, 4, 5, 6, 7]  # 255 above 127
    labels = rng.integers(0, 4, size=8).astype(np.int32)
    key = np.asarray(jax.random.PRNGKey(42))  # uint32[2]
    return Export(keyed_step, (params, key, pixels, labels), {"data": 2},
                  ({"W1": P(), "W2": P()}, P(), P("data"), P("data")),
                  donate_argnums=(0, 1))


# --- dirichlet: a Dirichlet KL term (lgamma, digamma) whose gradient needs
# trigamma (polygamma(1, .)), and polygamma and Hurwitz zeta on grids -------

def dirichlet_step(logits, target, n, pts, q):
    from jax.scipy.special import digamma, gammaln, polygamma, zeta

    def kl(logits):
        # KL(Dir(alpha) || Dir(target)) per row, alpha = softplus + 1.
        alpha = jax.nn.softplus(logits) + 1.0
        a0 = jnp.sum(alpha, -1)
        t0 = jnp.sum(target, -1)
        kl = (gammaln(a0) - jnp.sum(gammaln(alpha), -1) - gammaln(t0)
              + jnp.sum(gammaln(target), -1)
              + jnp.sum((alpha - target) * (digamma(alpha) - digamma(a0)[:, None]), -1))
        return jnp.mean(kl)
    # The gradient of a gradient: digamma's derivative is polygamma(1, .).
    l, g = jax.value_and_grad(lambda z: jnp.sum(jax.grad(kl)(z) ** 2))(logits)
    return {"loss": l, "grad": g, "polygamma": polygamma(n, pts),
            "zeta": zeta(n + 1.0, q)}


def dirichlet():
    rng = np.random.default_rng(21)
    logits = grid(rng, (8, 5), 1.0)
    target = (rng.random((8, 5)) * 3 + 0.5).astype(np.float32)
    # Orders 0-3 against points from near 0 to large, negatives off the poles.
    n = np.array([1, 2, 3, 0, 1, 1, 2, 3, 1, 2, 1, 3, 0, 1, 2, 1], np.int32)
    pts = np.array([0.25, 0.5, 1.0, 1.5, 2.0, 3.5, 7.25, 20.0, 150.0, 1e4,
                    -0.5, -1.25, -2.5, 0.125, 4.0, 1e-3], np.float32)
    q = np.array([0.5, 1.0, 2.0, 0.75, 3.0, 10.0, 0.1, 1e3, 0.0, 5.0, 1.0, 2.5,
                  7.0, 0.3, 1.5, 50.0], np.float32)  # zeta(1, .) = inf at n = 0
    return Export(dirichlet_step, (logits, target, n, pts, q), {"data": 2},
                  (P("data"), P("data"), P("data"), P("data"), P("data")))


# --- segments: a graph layer's max aggregation (segment_max, and its
# gradient), segment_min, `.at[ids].set` with repeated and out-of-range ids
# (the last write wins; those out of range are dropped), a boolean mask set
# at ids, `.at[ids].max`, and an integer segment_max ---------------------------

def segments_step(x, w, seg, ids, rows, counts):
    def loss(w):
        h = jnp.tanh(x @ w)
        agg = jax.ops.segment_max(h, seg, num_segments=5)  # every segment non-empty
        return jnp.sum(agg * agg), agg
    (l, agg), g = jax.value_and_grad(loss, has_aux=True)(w)
    table = jnp.zeros((6, 3), jnp.float32) + jnp.arange(3, dtype=jnp.float32)
    return {
        "loss": l, "grad": g, "agg": agg,
        "segmin": jax.ops.segment_min(x[:, :3], seg, num_segments=6),  # segment 5 empty: +inf
        "set": table.at[ids].set(rows),
        "mask": jnp.zeros(6, bool).at[ids].set(True),
        "atmax": table.at[ids].max(rows),
        "counts": jax.ops.segment_max(counts, seg, num_segments=5),
    }


def segments():
    rng = np.random.default_rng(22)
    x = grid(rng, (12, 4), 1.0)
    w = grid(rng, (4, 3), 0.5)
    seg = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2, 0], np.int32)
    ids = np.array([4, 1, 4, 9, 0, -1, 1, 4], np.int32)  # 4 three times, 1 twice; 9, -1 dropped
    rows = grid(rng, (8, 3), 2.0)
    counts = rng.integers(-50, 50, size=12).astype(np.int32)
    return Export(segments_step, (x, w, seg, ids, rows, counts), {"data": 2},
                  (P("data"), P(), P("data"), P(), P(), P("data")))


def flags_step(x, seg, ids, hits):
    on = x > 0
    return {
        # Boolean max- and min-scatters: an OR and an AND per segment or row.
        "any": jax.ops.segment_max(on, seg, num_segments=5),
        "all": jax.ops.segment_min(on, seg, num_segments=6),  # segment 5 empty: True
        "seen": jnp.zeros(6, bool).at[ids].max(hits),
        "kept": jnp.ones(6, bool).at[ids].min(hits),
        "count": jnp.sum(jax.ops.segment_max(on, seg, num_segments=5).astype(jnp.int32)),
    }


def flags():
    rng = np.random.default_rng(23)
    x = grid(rng, (12, 3), 1.0)
    seg = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2, 0], np.int32)
    ids = np.array([4, 1, 4, 9, 0, -1, 1, 4], np.int32)  # 9, -1 dropped
    hits = np.array([True, False, False, True, True, True, False, True])
    return Export(flags_step, (x, seg, ids, hits), {"data": 2}, (P("data"), P("data"), P(), P()))


def products_step(x, w, seg, ids, rows, counts):
    # JAX has no gradient of a scatter_mul with repeated indices
    # (NotImplementedError), so this program is forward only; the adjoint
    # is checked against finite differences (AutodiffFdTest.cpp).
    h = jnp.tanh(x @ w) + 1.5  # factors in (0.5, 2.5)
    l = jnp.sum(jnp.log(jax.ops.segment_prod(h, seg, num_segments=5)))
    table = jnp.zeros((6, 3), jnp.float32) + jnp.arange(1, 4, dtype=jnp.float32)
    return {
        "loss": l,
        "seg": jax.ops.segment_prod(x[:, :3], seg, num_segments=6),  # segment 5 empty: 1
        "mul": table.at[ids].mul(rows),
        "counts": jax.ops.segment_prod(counts, seg, num_segments=5),
    }


def products():
    rng = np.random.default_rng(24)
    x = grid(rng, (12, 4), 1.0)
    x[3, 1] = 0.0  # a zero factor
    w = grid(rng, (4, 3), 0.5)
    seg = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2, 0], np.int32)
    ids = np.array([4, 1, 4, 9, 0, -1, 1, 4], np.int32)  # 9, -1 dropped
    rows = grid(rng, (8, 3), 2.0)
    counts = rng.integers(-4, 5, size=12).astype(np.int32)
    return Export(products_step, (x, w, seg, ids, rows, counts), {"data": 2},
                  (P("data"), P(), P("data"), P(), P(), P("data")))


# --- gathers: JAX's fancy indexing beyond rows of a table --------------------
# `logp[arange(B), labels]` (an iota index next to the labels, negative and
# out-of-range labels among them), `x[:, idx]` and `jnp.take(axis=1)`,
# `jnp.diagonal`, the upper triangle by `triu_indices`, `v[l]` under vmap,
# random crops by a vmapped dynamic_slice, take_along_axis with indices
# broadcast along a trailing dim; their gradients (scatter-adds of the same
# shapes), `.at[arange(B), labels].set` and `.at[i, j].add` with repeated and
# out-of-range pairs.

def gathers_step(x, m, imgs, labels, cols, starts, pi, pj):
    b = x.shape[0]

    def loss(x, m, imgs):
        logp = jax.nn.log_softmax(x)
        ce = -jnp.mean(logp[jnp.arange(b), labels])
        picked = jnp.sum(jnp.tanh(x[:, cols]) ** 2) + jnp.sum(jnp.take(x, cols, axis=1) * 0.5)
        diag = jnp.sum(jnp.diagonal(m) ** 2)
        iu = jnp.triu_indices(m.shape[0], 1)
        tri = jnp.sum(jnp.sin(m[iu]))
        per_row = jnp.sum(jax.vmap(lambda v, l: v[l])(x, labels) ** 2)
        crops = jax.vmap(lambda im, s: jax.lax.dynamic_slice(im, s, (3, 4)))(imgs, starts)
        along = jnp.take_along_axis(imgs, jnp.abs(starts[:, :, None]) % 5, axis=1)
        return ce + picked + diag + tri + per_row + jnp.sum(crops ** 2) + jnp.sum(along), crops
    (l, crops), (gx, gm, gi) = jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True)(x, m, imgs)
    return {
        "loss": l, "gx": gx, "gm": gm, "gi": gi, "crops": crops,
        "onehot": jnp.zeros_like(x).at[jnp.arange(b), labels].set(1.0),
        "pairs": m.at[pi, pj].add(1.0),
        "pairs_set": m.at[pi, pj].set(-1.0),
    }


def gathers():
    rng = np.random.default_rng(25)
    x = grid(rng, (8, 6), 1.0)
    m = grid(rng, (5, 5), 1.0)
    imgs = grid(rng, (8, 5, 7), 1.0)
    labels = np.array([0, 5, 2, -1, 3, 7, 1, -6], np.int32)  # -1, -6 wrap; 7 clamps
    cols = np.array([4, 0, 4, 2], np.int32)
    starts = np.array([[0, 0], [2, 3], [1, 6], [-1, 2], [2, 0], [0, 3], [5, 1], [1, 1]], np.int32)
    pi = np.array([0, 4, 0, 2, 9, 1, 0], np.int32)  # (0, 3) twice; (9, 1) dropped
    pj = np.array([3, 4, 3, 1, 1, -7, 3], np.int32)  # (1, -7) dropped
    return Export(gathers_step, (x, m, imgs, labels, cols, starts, pi, pj), {"data": 2},
                  (P("data"), P(), P("data"), P("data"), P(), P("data"), P(), P()))


# --- cumulative: jnp.cumsum, lax.cummax and cumprod along dims of more
# than 1024 elements (prefix scans by doubling), forward and reversed, one
# along the sharded dim, and the gradient of a cumsum (a reversed cumsum) --

def cumulative_step(x, v, w):
    def loss(w):
        return jnp.sum(jnp.cumsum(jnp.tanh(x * w), axis=1) ** 2) / 1e4
    l, g = jax.value_and_grad(loss)(w)
    return {
        "loss": l, "grad": g,
        "sum": jnp.cumsum(x, axis=1),
        "rev": jax.lax.cumsum(x, axis=1, reverse=True),
        "max": jax.lax.cummax(x, axis=1),
        "prod": jnp.cumprod(1.0 + x / 256, axis=1),
        "along": jnp.cumsum(v),
        "along_min": jax.lax.cummin(v, reverse=True),
    }


def cumulative():
    rng = np.random.default_rng(26)
    x = grid(rng, (4, 1100), 1.0)
    v = grid(rng, (1030,), 1.0)
    w = grid(rng, (1100,), 1.0)
    return Export(cumulative_step, (x, v, w), {"data": 2}, (P("data", None), P("data"), P()))


# --- float to unsigned: astype(uint8 / uint16 / uint32) of negatives,
# fractions, values past the type's range, infinities and NaN --------------

def unsigned_casts_step(x):
    return {"u8": x.astype(jnp.uint8), "u16": x.astype(jnp.uint16),
            "u32": x.astype(jnp.uint32),
            "back": (x * 3).astype(jnp.uint32).astype(jnp.float32)}


def unsigned_casts():
    x = np.array([-3.5, -0.0, 0.0, 0.7, 1.5, 255.9, 256.0, 300.0, 65535.5, 70000.0,
                  4294967040.0, 5e9, np.inf, -np.inf, np.nan, 123456.7], np.float32)
    return Export(unsigned_casts_step, (x,), {"data": 2}, (P("data"),))


# --- shard_map: per-device code with explicit collectives --------------------

def mesh_of(axes):
    """The mesh jax_export.py jits on, for shard_map (same devices, names)."""
    n = int(np.prod(list(axes.values())))
    return jax.make_mesh(tuple(axes.values()), tuple(axes),
                         axis_types=(jax.sharding.AxisType.Auto,) * len(axes),
                         devices=jax.devices()[:n])


SHARDMAP_MESH = {"data": 2, "model": 2}


def shardmap_step(params, x, y):
    mesh = mesh_of(SHARDMAP_MESH)

    # A Megatron MLP written by hand: W1's columns and W2's rows split over
    # "model", the batch over "data"; one psum per layer pair, one for the
    # loss. JAX differentiates through it (the backward is a shard_map too).
    def local_loss(w1, w2, x, y):
        h = jax.nn.relu(x @ w1)
        out = jax.lax.psum(h @ w2, "model")
        return jax.lax.psum(jnp.sum((out - y) ** 2), "data") / (x.shape[0] * 2 * y.shape[1])

    loss_fn = jax.shard_map(local_loss, mesh=mesh,
                            in_specs=(P(None, "model"), P("model", None), P("data", None),
                                      P("data", None)),
                            out_specs=P())
    loss, g = jax.value_and_grad(
        lambda p: loss_fn(p["W1"], p["W2"], x, y))(params)
    new = jax.tree.map(lambda w, d: w - 0.1 * d, params, g)

    # The other collectives, each once.
    def local_misc(x):
        d = jax.lax.axis_index("data")
        m = jax.lax.axis_index("model")
        ring = jax.lax.ppermute(x, "data", [(0, 1), (1, 0)])
        gathered = jax.lax.all_gather(x * (m + 1), "model", axis=1, tiled=True)
        scattered = jax.lax.psum_scatter(x, "model", scatter_dimension=1, tiled=True)
        swapped = jax.lax.all_to_all(x, "model", 1, 0, tiled=True)
        top = jax.lax.pmax(jnp.max(x, axis=0), ("data", "model"))
        # Integers, a permute that leaves devices out (they receive zeros),
        # and a gather of scalars into a new axis (untiled).
        counts = jax.lax.psum((x > 0).astype(jnp.int32), "data")
        half = jax.lax.ppermute(x, "model", [(0, 1)])
        sums = jax.lax.all_gather(jnp.sum(x), ("data", "model"))
        return ring + d, gathered, scattered, swapped, top, counts, half, sums

    # all_gather's result is the same over "model", which JAX's replication
    # check cannot infer; shardc's run checks it on the gathered output.
    misc = jax.shard_map(local_misc, mesh=mesh, in_specs=(P("data", "model"),), check_vma=False,
                         out_specs=(P("data", "model"), P("data", None), P("data", "model"),
                                    P(("data", "model"), None), P(), P(None, "model"),
                                    P("data", "model"), P()))
    ring, gathered, scattered, swapped, top, counts, half, sums = misc(x)
    return new, {"loss": loss, "ring": ring, "gathered": gathered, "scattered": scattered,
                 "swapped": swapped, "top": top, "counts": counts, "half": half, "sums": sums}


def shardmap():
    rng = np.random.default_rng(25)
    params = {"W1": grid(rng, (8, 16), 0.5), "W2": grid(rng, (16, 4), 0.5)}
    x = grid(rng, (8, 8), 1.0)
    y = grid(rng, (8, 4), 1.0)
    # The parameters stay replicated from step to step, as they come in.
    metrics = {"loss": P(), "ring": P("data", "model"), "gathered": P("data", None),
               "scattered": P("data", "model"), "swapped": P(("data", "model"), None),
               "top": P(), "counts": P(None, "model"), "half": P("data", "model"), "sums": P()}
    return Export(shardmap_step, (params, x, y), SHARDMAP_MESH,
                  ({"W1": P(), "W2": P()}, P("data", None), P("data", None)),
                  out_specs=({"W1": P(), "W2": P()}, metrics), donate_argnums=(0,))


# --- shard_map over some axes only (`axis_names`) ------------------------------

def shardmap_partial_step(params, x, y):
    mesh = mesh_of(SHARDMAP_MESH)

    # Data parallel by hand over "data" only; "model" is left to the
    # partitioner (W1's columns are placed on it outside). JAX
    # differentiates through it: the backward is a shard_map over "data".
    def local_loss(w1, w2, x, y):
        out = jnp.tanh(x @ w1) @ w2
        return jax.lax.psum(jnp.sum((out - y) ** 2), "data") / (2 * x.shape[0] * y.shape[1])

    loss_fn = jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P(), P("data", None),
                                                             P("data", None)),
                            out_specs=P(), axis_names={"data"})
    loss, g = jax.value_and_grad(lambda p: loss_fn(p["W1"], p["W2"], x, y))(params)
    new = jax.tree.map(lambda w, d: w - 0.1 * d, params, g)

    # Every collective over the manual axis, and axis_index (which JAX
    # writes as a shard_map over the free axes nested in this one).
    def local_misc(x):
        d = jax.lax.axis_index("data")
        h = x * (d + 1)
        ring = jax.lax.ppermute(h, "data", [(0, 1), (1, 0)])
        gathered = jax.lax.all_gather(h, "data", axis=0, tiled=True)
        scattered = jax.lax.psum_scatter(h, "data", scatter_dimension=1, tiled=True)
        swapped = jax.lax.all_to_all(h, "data", 1, 0, tiled=True)
        top = jax.lax.pmax(jnp.max(h, axis=0), "data")
        return ring, gathered, scattered, swapped, top

    misc = jax.shard_map(local_misc, mesh=mesh, in_specs=(P("data", None),), check_vma=False,
                         out_specs=(P("data"), P(), P("data"), P("data"), P()),
                         axis_names={"data"})
    ring, gathered, scattered, swapped, top = misc(x)

    # Manual over "model" only: the other axis is the free one.
    def local_cols(w1):
        return jax.lax.psum(jnp.sum(w1 * w1, axis=1), "model"), w1 * 2

    norms, doubled = jax.shard_map(local_cols, mesh=mesh, in_specs=(P(None, "model"),),
                                   out_specs=(P(), P(None, "model")),
                                   axis_names={"model"})(params["W1"])
    return new, {"loss": loss, "ring": ring, "gathered": gathered, "scattered": scattered,
                 "swapped": swapped, "top": top, "norms": norms, "doubled": doubled}


def shardmap_partial():
    rng = np.random.default_rng(26)
    params = {"W1": grid(rng, (8, 16), 0.5), "W2": grid(rng, (16, 4), 0.5)}
    x = grid(rng, (8, 8), 1.0)
    y = grid(rng, (8, 4), 1.0)
    return Export(shardmap_partial_step, (params, x, y), SHARDMAP_MESH,
                  ({"W1": P(None, "model"), "W2": P("model", None)}, P("data", None),
                   P("data", None)), donate_argnums=(0,))


# --- shard_map edges: over "data" only on a 2x1 mesh (the free "model" axis
# has one device; JAX still writes the shardings open along it), with an
# argmax and a psum in the body (JAX writes sharding constraints on the
# reducers' scalars and the argmax's iota); and a shard_map on a one-device
# mesh, whose body JAX inlines, leaving its collectives over one device -----

def shardmap_unit_step(x):
    mesh = mesh_of({"data": 2, "model": 1})

    def local(x):
        best = jnp.argmax(x, axis=-1)
        return jax.lax.psum(jnp.sum(x, 0), "data"), jax.lax.psum(best, "data"), \
            jax.lax.pmax(jnp.max(x, axis=0), "data")

    s, b, m = jax.shard_map(local, mesh=mesh, in_specs=P("data", None),
                            out_specs=(P(), P(), P()), axis_names={"data"})(x)
    return {"sum": s, "best": b, "max": m}


def shardmap_unit():
    x = ((np.arange(8 * 5, dtype=np.float32).reshape(8, 5) * 7) % 11) / 4
    return Export(shardmap_unit_step, (x,), {"data": 2, "model": 1}, (P("data", None),))


def shardmap_one_step(x):
    mesh = mesh_of({"data": 1})

    def local(x):
        d = jax.lax.axis_index("data")
        h = x * (d + 1)
        return (jax.lax.psum(jnp.sum(h, 0), "data"),
                jax.lax.all_gather(h, "data", axis=0, tiled=True),
                jax.lax.psum_scatter(h, "data", scatter_dimension=1, tiled=True),
                jax.lax.ppermute(h, "data", [(0, 0)]))

    s, g, r, p = jax.shard_map(local, mesh=mesh, in_specs=P("data", None), check_vma=False,
                               out_specs=(P(), P(), P("data"), P("data")))(x)
    return {"sum": s, "gathered": g, "scattered": r, "permuted": p}


def shardmap_one():
    rng = np.random.default_rng(27)
    return Export(shardmap_one_step, (grid(rng, (4, 3), 1.0),), {"data": 1}, (P("data", None),))


# --- stacked scans: JAX's scan-over-layers idiom (weights stacked
# [layers, d, d], their output dim on "model") and a reversed scan over
# time, trained together: every backward step reads and writes stacked
# rows at n - 1 - i, which the importer folds to constants, and the
# stacked gradients are chains of row updates into zeros -----------------

def stacked_scans_step(params, xs, y):
    def loss(p):
        def layer(h, w):
            return jnp.tanh(h @ w["W"] + w["b"]), jnp.sum(h * h)
        h, sq = jax.lax.scan(layer, xs[0], {"W": p["W"], "b": p["b"]})

        def cell(c, x):
            c = jnp.tanh(x @ p["Wx"] + c @ p["Wh"])
            return c, c
        c, cs = jax.lax.scan(cell, h, xs, reverse=True)
        return jnp.mean((c - y) ** 2) + 0.01 * jnp.mean(cs ** 2) + 0.001 * jnp.sum(sq)
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), {"loss": l}


def stacked_scans():
    rng = np.random.default_rng(27)
    params = {"W": grid(rng, (4, 8, 8), 0.5), "b": grid(rng, (4, 8), 0.25),
              "Wx": grid(rng, (8, 8), 0.5), "Wh": grid(rng, (8, 8), 0.5)}
    xs = grid(rng, (6, 8, 8), 1.0)
    y = grid(rng, (8, 8), 1.0)
    return Export(stacked_scans_step, (params, xs, y), {"data": 2, "model": 2},
                  ({"W": P(None, None, "model"), "b": P(None, "model"), "Wx": P(), "Wh": P()},
                   P(None, "data"), P("data")), donate_argnums=(0,))


EXPORTS = {
    "linreg": linreg,
    "mlp_2x2": mlp_2x2,
    "mlp_1d": mlp_1d,
    "transformer": transformer,
    "embedding": embedding,
    "activations": activations,
    "cnn": cnn,
    "loops": loops,
    "pooling": pooling,
    "maxpool": maxpool,
    "branches": branches,
    "dropout": dropout,
    "vae": vae,
    "sorting": sorting,
    "scans": scans,
    "windows": windows,
    "edges": edges,
    "solvers": solvers,
    "search": search,
    "counts": counts,
    "keyed": keyed,
    "dirichlet": dirichlet,
    "segments": segments,
    "flags": flags,
    "products": products,
    "gathers": gathers,
    "cumulative": cumulative,
    "unsigned_casts": unsigned_casts,
    "shardmap": shardmap,
    "shardmap_partial": shardmap_partial,
    "shardmap_unit": shardmap_unit,
    "shardmap_one": shardmap_one,
    "stacked_scans": stacked_scans,
}
