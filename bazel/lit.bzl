"""One sh_test per lit file, so each file is cached and reported on its own."""

def lit_tests(name, srcs, data = [], cfg = "lit.cfg.py"):
    tests = []
    for src in srcs:
        test_name = src.replace("/", "_").replace(".mlir", "")
        native.sh_test(
            name = test_name,
            srcs = ["//bazel:run_lit.sh"],
            args = ["$(location %s)" % src],
            data = [src, cfg] + data,
            size = "small",
        )
        tests.append(test_name)
    native.test_suite(name = name, tests = tests)
