"""Runs mlir-tblgen from the system LLVM 22 and bundles its outputs as a cc_library.

One action per output file; the generated .inc files land next to the .td's package
in bazel-bin and are included as "dialects/garray/GArrayOps.h.inc" (bazel passes
-iquote bazel-out/<cfg>/bin). Generated code is never committed.
"""

def _mlir_tblgen_impl(ctx):
    args = ctx.actions.args()
    args.add_all(ctx.attr.flags)
    args.add("-I", "external/llvm/include")
    args.add("-I", ".")
    args.add(ctx.file.td_file.path)
    args.add("-o", ctx.outputs.out.path)
    ctx.actions.run(
        executable = ctx.executable._tblgen,
        arguments = [args],
        inputs = depset([ctx.file.td_file] + ctx.files.td_srcs + ctx.files._mlir_td),
        outputs = [ctx.outputs.out],
        mnemonic = "MlirTblgen",
        progress_message = "mlir-tblgen %s" % ctx.outputs.out.short_path,
    )

mlir_tblgen = rule(
    implementation = _mlir_tblgen_impl,
    attrs = {
        "td_file": attr.label(allow_single_file = [".td"], mandatory = True),
        "td_srcs": attr.label_list(allow_files = [".td"]),
        "flags": attr.string_list(),
        "out": attr.output(mandatory = True),
        "_tblgen": attr.label(
            default = "@llvm//:bin/mlir-tblgen",
            executable = True,
            cfg = "host",
            allow_single_file = True,
        ),
        "_mlir_td": attr.label(default = "@llvm//:mlir_td_files"),
    },
)

def gentbl_cc_library(name, td_file, tbl_outs, td_srcs = [], deps = []):
    """tbl_outs: list of ([flags], "Out.inc") pairs."""
    outs = []
    for i, (flags, out) in enumerate(tbl_outs):
        mlir_tblgen(
            name = "%s_gen_%d" % (name, i),
            td_file = td_file,
            td_srcs = td_srcs,
            flags = flags,
            out = out,
        )
        outs.append(out)
    native.cc_library(name = name, textual_hdrs = [o for o in outs if o.endswith(".inc")], deps = deps)
    native.filegroup(name = name + "_docs", srcs = [o for o in outs if o.endswith(".md")])
