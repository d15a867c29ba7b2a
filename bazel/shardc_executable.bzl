"""Standalone executables of compiled models, for tests and the GPU bundle.

shardc_executable(name, model, target = "cpu", gpu = "sm_90", mesh = "", flags = "")
compiles `model` with shardc (a genrule: `shardc compile --target ...`, plus
`flags`) and
links its object with the standalone main and a static shardrt
(//runtime/exe:main) into `name`, a program that needs no LLVM, MLIR or
MPI at run time (it needs glibc 2.36 and libstdc++ of GCC 12 or later). `main` replaces
the standalone main (benchmarks bring their own).
"""

def shardc_executable(name, model, target = "cpu", gpu = "sm_90", mesh = "", flags = "",
                      testonly = False, main = "//runtime/exe:main", **kwargs):
    flags = "--target " + target + (" " + flags if flags else "")
    if target == "ptx":
        flags += " --gpu " + gpu
    else:
        # The host's CPU may not be the machine's that runs the program.
        flags += " --cpu x86-64-v3"
    if mesh:
        flags += " --mesh " + mesh
    native.genrule(
        name = name + "_object",
        srcs = [model],
        outs = [name + "_model.o"],
        tools = ["//compiler/tools:shardc"],
        cmd = ("out=$$(mktemp -d) && $(location //compiler/tools:shardc) compile $(location " +
               model + ") " + flags + " -o $$out/a --quiet && cp $$out/a/model.o $@ && rm -rf $$out"),
        testonly = testonly,
    )
    native.cc_binary(
        name = name,
        srcs = [name + "_model.o"],
        deps = [main],
        testonly = testonly,
        **kwargs
    )
