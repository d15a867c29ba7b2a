"""Times JAX's own loop over one export of bench/train/models.py (or of
the models file BENCH_MODELS names).

    tools/jax_env.sh bench/train/jax_steps.py NAME STEPS

Runs 2 warm-up steps and STEPS timed steps of the jitted, donated step on
the export's mesh (virtual CPU devices) and prints one JSON line: the
per-step times in ms (timed steps only) and every step's loss.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import jax_export  # noqa: E402  (sets the virtual device count first)
import jax  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

models = jax_export.load_models(  # noqa: E402
    os.environ.get("BENCH_MODELS", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "models.py")))


def main():
    name, steps = sys.argv[1], int(sys.argv[2])
    e = models.EXPORTS[name]()
    axes = tuple(e.mesh)
    devices = 1
    for n in e.mesh.values():
        devices *= n
    mesh = jax.make_mesh(tuple(e.mesh.values()), axes,
                         axis_types=(jax.sharding.AxisType.Auto,) * len(axes),
                         devices=jax.devices()[:devices])
    shard = jax.tree.map(lambda s: NamedSharding(mesh, s), e.in_specs,
                         is_leaf=lambda x: isinstance(x, P))
    # The state comes back as it went in, so that it can be fed back (XLA
    # would otherwise be free to return a parameter sharded differently,
    # which the next call refuses); the other results are replicated.
    out_shape = jax.eval_shape(e.fn, *e.args)
    replicated = NamedSharding(mesh, P())
    out_shardings = (shard[0], jax.tree.map(lambda _: replicated, out_shape[1]))
    step = jax.jit(e.fn, in_shardings=shard, out_shardings=out_shardings,
                   donate_argnums=e.donate_argnums)
    args = jax.device_put(e.args, shard)
    state, data = args[0], args[1:]
    times, losses = [], []
    for i in range(2 + steps):
        t0 = time.perf_counter()
        state, metrics = step(state, *data)
        jax.block_until_ready(state)
        elapsed = (time.perf_counter() - t0) * 1e3
        losses.append(float(metrics["loss"]))
        if i >= 2:
            times.append(elapsed)
    print(json.dumps({"name": name, "times_ms": times, "losses": losses}))


if __name__ == "__main__":
    main()
