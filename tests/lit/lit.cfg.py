# lit configuration for shardc's FileCheck tests (tests/lit/**.mlir).
#
# Under Bazel (bazel test //tests/lit:all) each .mlir file is its own sh_test
# run by bazel/run_lit.sh from the runfiles tree: tools and samples come from
# the runfiles, and output goes to $TEST_TMPDIR because runfiles are read-only.
# By hand, from the repo root after `bazel build //compiler/tools:shardc-opt`:
#   /usr/lib/llvm-22/bin/lit -v tests/lit
# (SHARDC_TOOLS_DIR overrides where shardc-opt is looked up.)
#
# Substitutions: %samples is the repo's samples/ directory.
#
# tests/lit/pending/ holds tests of behaviour the compiler does not have yet
# (known bugs); directory runs and the Bazel suite skip it. Run one by hand
# while fixing the compiler: /usr/lib/llvm-22/bin/lit -v tests/lit/pending/<topic>.mlir
import os

import lit.formats

config.name = "shardc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["pending", "Output"]  # Output: by-hand scratch
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get(
    "TEST_TMPDIR", os.path.join(config.test_source_root, "Output"))

if "TEST_SRCDIR" in os.environ:  # under bazel test: the runfiles tree
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ.get("TEST_WORKSPACE", "shardc"))
    tools = os.path.join(root, "compiler", "tools")
else:  # by hand: the source tree and its bazel-bin
    root = os.path.dirname(os.path.dirname(config.test_source_root))
    tools = os.path.join(root, "bazel-bin", "compiler", "tools")
tools = os.environ.get("SHARDC_TOOLS_DIR", tools)
if not os.path.exists(os.path.join(tools, "shardc-opt")):
    lit_config.fatal("shardc-opt not found in %s; build //compiler/tools:shardc-opt "
                     "or set SHARDC_TOOLS_DIR" % tools)

config.substitutions.append(("%samples", os.path.join(root, "samples")))

llvm_bin = "/usr/lib/llvm-22/bin"  # FileCheck, not, count (Debian llvm-22-tools)
config.environment["PATH"] = os.pathsep.join(
    [tools, llvm_bin, config.environment.get("PATH", "")])
