"""Exports jitted JAX programs for shardc: the StableHLO + Shardy lowering in
MLIR's generic op form, JAX's inputs and outputs, and XLA's collectives.

    tools/jax_env.sh tools/jax_export.py MODELS.py --out DIR [NAME ...]

MODELS.py defines EXPORTS, a dict from a name to a function returning an
`Export` (see below). For each NAME (default: all) this writes

    DIR/NAME.mlir                 the lowering, generic op form, with locations
    DIR/NAME/inputs/<arg>.npy     each argument, named as shardc names it
    DIR/NAME/outputs/<res>.npy    JAX's result of one call, named likewise
    DIR/NAME/xla_collectives.json XLA's collectives in the compiled program

and `shardc run DIR/NAME.mlir --in ARG=DIR/NAME/inputs/ARG.npy ...` runs the
same program. Names follow shardc's importer: pytree paths joined with '.'
(`params['W1']` -> `params.W1`), results `result0`, `result1.loss`, ...,
and a result aliased to a donated argument takes the argument's name.

It needs JAX (tested with jax 0.10.2, CPU); tools/jax_env.sh makes a virtual
environment with it. shardc itself, its tests and CI never run this script:
the tests read its checked-in output.
"""
import argparse
import dataclasses
import importlib.util
import json
import os
import re
import sys
from typing import Any, Callable, Dict, Optional, Tuple

# Virtual CPU devices for the mesh: before JAX is imported.
if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=8").strip()

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402,F401


@dataclasses.dataclass
class Export:
    """One program to export: `fn(*args)` jitted on a mesh."""
    fn: Callable
    args: Tuple[Any, ...]            # pytrees of NumPy arrays
    mesh: Dict[str, int]             # axis name -> size, e.g. {"data": 2, "model": 2}
    in_specs: Tuple[Any, ...]        # pytrees of P(...) matching args
    out_specs: Optional[Any] = None  # pytree of P(...) matching the result, or None
    donate_argnums: Tuple[int, ...] = ()


def shardc_name(path):
    """A JAX pytree path as shardc's importer names it (ImportStableHlo.h)."""
    m = re.match(r"[^\[.]*", path)
    out, rest = m.group(0), path[m.end():]
    result_root = out == "result"
    for key in re.findall(r"\.([^\[.]+)|\[([^\]]*)\]", rest):
        attr, index = key
        k = attr or index.strip()
        quoted = len(k) >= 2 and k[0] in "'\"" and k[-1] == k[0]
        if quoted:
            k = k[1:-1]
        elif result_root and k.isdigit() and not attr:
            out += k
            result_root = False
            continue
        result_root = False
        out += "." + k
    return out


def _main_signature(text):
    """Argument names, donation and result names of @main, from its text."""
    line = next(l for l in text.splitlines() if 'sym_name = "main"' in l)
    args_line = text[text.index(line) + len(line):].splitlines()[1]
    arg_names = [shardc_name(n) for n in re.findall(r'loc\("([^"]*)"\)', args_line)]
    arg_attrs = re.search(r"arg_attrs = \[(.*?)\], function_type", line)
    donors = []
    if arg_attrs:
        for i, attrs in enumerate(re.findall(r"\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}",
                                             arg_attrs.group(1))):
            alias = re.search(r"tf\.aliasing_output = (\d+)", attrs)
            if alias:
                donors.append((i, int(alias.group(1))))
            elif "jax.buffer_donor = true" in attrs:
                donors.append((i, None))
    result_names = [shardc_name(n) for n in re.findall(r'jax\.result_info = "([^"]*)"', line)]
    return arg_names, donors, result_names


def _bytes(shape_text):
    sizes = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4,
             "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8}
    total = 0
    for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", shape_text):
        n = 1
        for d in filter(None, dims.split(",")):
            n *= int(d)
        total += n * sizes.get(dtype, 0)
    return total


def _group_size(line):
    """The size of a collective's device groups, in any of HLO's spellings:
    {{0,2},{1,3}}, [2,2]<=[4] (groups x size), or mesh['a'=2,'b'=2] {'a'}
    (with a `device_ids=(...)` order between the mesh and the axes)."""
    m = re.search(r"replica_groups=\{\{([\d,]*)\}", line)
    if m:
        return len(m.group(1).split(","))
    m = re.search(r"replica_groups=\[([\d,]+)\]<=", line)
    if m:
        return int(m.group(1).split(",")[-1])
    m = re.search(r"replica_groups=mesh\[([^\]]*)\][^{]*\{([^}]*)\}", line)
    if m:
        sizes = dict(re.findall(r"'([^']*)'=(\d+)", m.group(1)))
        g = 1
        for axis in re.findall(r"'([^']*)'", m.group(2)):
            g *= int(sizes[axis])
        return g
    return 1


def xla_collectives(hlo_text):
    """XLA's collectives, with bytes per device as shardc's report counts
    them (ring traffic: an all-reduce of S bytes over g devices moves
    2(g-1)/g S, a gather to S bytes (g-1)/g S, a permute S)."""
    out = []
    kinds = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
    for line in hlo_text.splitlines():
        m = re.match(r"\s*(?:ROOT )?%?[\w.\-]+ = (.*?) (" + "|".join(kinds) + r")(-start)?\(",
                     line)
        if not m:
            continue
        result, kind = m.group(1), m.group(2)
        g = _group_size(line)
        size = _bytes(result)  # the result: operand-sized but for gathers and scatters
        if kind == "all-reduce":
            moved = 2 * (g - 1) * size // g
        elif kind == "all-gather":
            moved = (g - 1) * size // g
        elif kind == "reduce-scatter":
            moved = (g - 1) * size
        elif kind == "all-to-all":
            moved = (g - 1) * size // g
        else:
            moved = size
        out.append({"kind": kind.replace("-", "_"), "result": result.strip(),
                    "group_size": g, "bytes_per_device": moved})
    return {"collectives": out, "count": len(out),
            "bytes_per_device": sum(c["bytes_per_device"] for c in out)}


def export(name, e, out_dir):
    axes = tuple(e.mesh)
    devices = np.prod(list(e.mesh.values()))
    mesh = jax.make_mesh(tuple(e.mesh.values()), axes,
                         axis_types=(jax.sharding.AxisType.Auto,) * len(axes),
                         devices=jax.devices()[:devices])
    to_sharding = lambda spec: NamedSharding(mesh, spec)  # noqa: E731
    is_spec = lambda x: isinstance(x, P)  # noqa: E731
    in_sh = jax.tree.map(to_sharding, e.in_specs, is_leaf=is_spec)
    out_sh = (jax.tree.map(to_sharding, e.out_specs, is_leaf=is_spec)
              if e.out_specs is not None else None)
    kwargs = {"in_shardings": in_sh, "donate_argnums": e.donate_argnums, "keep_unused": True}
    if out_sh is not None:
        kwargs["out_shardings"] = out_sh
    jitted = jax.jit(e.fn, **kwargs)
    lowered = jitted.lower(*e.args)
    text = lowered.compiler_ir("stablehlo").operation.get_asm(
        print_generic_op_form=True, enable_debug_info=True)
    # Locations name Python files: relative to the working directory, so an
    # export is the same on every machine.
    text = text.replace(os.getcwd() + os.sep, "")
    compiled = lowered.compile()
    collectives = xla_collectives(compiled.as_text())
    # Inputs are copied before the call: donation may consume them.
    flat_args = [np.asarray(a) for a in jax.tree.leaves(e.args)]
    results = compiled(*jax.tree.map(lambda a: jax.device_put(a), e.args))
    flat_results = [np.asarray(r) for r in jax.tree.leaves(results)]

    arg_names, donors, result_names = _main_signature(text)
    assert len(arg_names) == len(flat_args), (arg_names, len(flat_args))
    assert len(result_names) == len(flat_results), (result_names, len(flat_results))
    aliased = {r for _, r in donors if r is not None}
    for i, r in donors:
        if r is None:  # as XLA pairs a donor: the first free result of its type
            for k, res in enumerate(flat_results):
                if k not in aliased and res.shape == flat_args[i].shape and \
                        res.dtype == flat_args[i].dtype:
                    r = k
                    break
        if r is not None:
            aliased.add(r)
            result_names[r] = arg_names[i]

    base = os.path.join(out_dir, name)
    for sub in ("inputs", "outputs"):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    with open(base + ".mlir", "w") as f:
        f.write(text)
    for n, a in zip(arg_names, flat_args):
        np.save(os.path.join(base, "inputs", n + ".npy"), a)
    for n, r in zip(result_names, flat_results):
        np.save(os.path.join(base, "outputs", n + ".npy"), r)
    with open(os.path.join(base, "xla_collectives.json"), "w") as f:
        json.dump({"mesh": e.mesh, "jax": jax.__version__, **collectives}, f, indent=1)
    print(f"{name}: {len(flat_args)} inputs, {len(flat_results)} outputs, XLA: "
          f"{collectives['count']} collectives, {collectives['bytes_per_device']} B/device")


def load_models(path):
    """The models file at `path` as a module named after the file (it
    defines EXPORTS). Its folder goes on the import path, so a models file
    imports the files beside it by name (`import models`)."""
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.dirname(path))
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    models = importlib.util.module_from_spec(spec)
    sys.modules[name] = models
    spec.loader.exec_module(models)
    return models


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", help="a Python file defining EXPORTS")
    parser.add_argument("names", nargs="*", help="which exports (default: all)")
    parser.add_argument("--out", required=True, help="the folder to write")
    a = parser.parse_args()
    models = load_models(a.models)
    names = a.names or list(models.EXPORTS)
    for name in names:
        export(name, models.EXPORTS[name](), a.out)


if __name__ == "__main__":
    main()
