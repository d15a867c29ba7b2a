// gen - writes the propagation benchmark's programs, each twice: as a garray
// model (for shardc-opt) and as the equivalent upstream MLIR `shard` program
// (for mlir-opt --sharding-propagation --shard-partition).
//
//   gen KIND N OUTDIR    writes OUTDIR/KIND_N.garray.mlir and OUTDIR/KIND_N.upstream.mlir
//
// KIND:
//   ew  elementwise chain of N ops: x[i+1] = add|sub(x[i], x[i-1]); the input
//       is row-sharded, everything else follows by propagation.
//   mm  matmul+add chain of N ops (N/2 layers): h = h @ W + h, where the one
//       weight W (replicated) is used by every layer.
//   mlp MLP stack of N ops (N/4 layers), each layer with its own weights:
//       h = (h @ W1_l) * (h @ W1_l)  then  h = h @ W2_l + h.
//
// Sizes are small on purpose: only compile time and memory are measured.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
constexpr int kRows = 64, kCols = 32, kMesh = 4;

std::string T() { return "tensor<" + std::to_string(kRows) + "x" + std::to_string(kCols) + "xf32>"; }
std::string W() { return "tensor<" + std::to_string(kCols) + "x" + std::to_string(kCols) + "xf32>"; }

void ew(FILE *g, FILE *u, long n) {
  std::string t = T();
  // garray
  std::fprintf(g, "garray.mesh @mesh [\"data\" = %d]\n", kMesh);
  std::fprintf(g,
               "func.func @main(%%x: %s {garray.sharding = #garray.sharding<@mesh, "
               "P(\"data\", None)>}) -> %s {\n",
               t.c_str(), t.c_str());
  // upstream
  std::fprintf(u, "shard.grid @grid(shape = %d)\n", kMesh);
  std::fprintf(u, "func.func @main(%%x: %s) -> %s {\n", t.c_str(), t.c_str());
  std::fprintf(u, "  %%s = shard.sharding @grid split_axes = [[0]] : !shard.sharding\n");
  std::fprintf(u, "  %%v0 = shard.shard %%x to %%s : %s\n", t.c_str());
  std::fprintf(g, "  %%v0 = garray.add %%x, %%x : %s\n", t.c_str());
  std::fprintf(u, "  %%v1 = tosa.add %%v0, %%v0 : (%s, %s) -> %s\n", t.c_str(), t.c_str(),
               t.c_str());
  // garray: v0 is op 1; v1..v(n-1) follow, n ops in all.
  std::fprintf(g, "  %%v1 = garray.add %%v0, %%v0 : %s\n", t.c_str());
  for (long i = 2; i < n; ++i) {
    const char *op = (i % 2) ? "add" : "sub";
    std::fprintf(g, "  %%v%ld = garray.%s %%v%ld, %%v%ld : %s\n", i, op, i - 1, i - 2, t.c_str());
  }
  // upstream: v1..v(n) are the n compute ops (v0 is the annotation).
  for (long i = 2; i <= n; ++i) {
    const char *op = (i % 2) ? "add" : "sub";
    std::fprintf(u, "  %%v%ld = tosa.%s %%v%ld, %%v%ld : (%s, %s) -> %s\n", i, op, i - 1, i - 2,
                 t.c_str(), t.c_str(), t.c_str());
  }
  std::fprintf(g, "  return %%v%ld : %s\n}\n", n - 1, t.c_str());
  std::fprintf(u, "  return %%v%ld : %s\n}\n", n, t.c_str());
}

void garrayDot(FILE *g, const char *res, const char *lhs, const char *rhs) {
  std::fprintf(g,
               "  %%%s = garray.dot_general %%%s, %%%s, batch = [] x [], contracting = [1] x [0] "
               ": (%s, %s) -> %s\n",
               res, lhs, rhs, T().c_str(), W().c_str(), T().c_str());
}
void upstreamDot(FILE *u, const char *res, const char *lhs, const char *rhs) {
  std::fprintf(u, "  %%%s = linalg.matmul ins(%%%s, %%%s : %s, %s) outs(%%z : %s) -> %s\n", res,
               lhs, rhs, T().c_str(), W().c_str(), T().c_str(), T().c_str());
}

void header(FILE *g, FILE *u, long weights) {
  std::string t = T(), w = W();
  std::fprintf(g, "garray.mesh @mesh [\"data\" = %d]\n", kMesh);
  std::fprintf(g,
               "func.func @main(%%h0: %s {garray.sharding = #garray.sharding<@mesh, "
               "P(\"data\", None)>}",
               t.c_str());
  for (long i = 0; i < weights; ++i)
    std::fprintf(g, ", %%w%ld: %s {garray.sharding = #garray.sharding<@mesh, P()>}", i,
                 w.c_str());
  std::fprintf(g, ") -> %s {\n", t.c_str());
  std::fprintf(u, "shard.grid @grid(shape = %d)\n", kMesh);
  std::fprintf(u, "func.func @main(%%x: %s", t.c_str());
  for (long i = 0; i < weights; ++i)
    std::fprintf(u, ", %%w%ld: %s", i, w.c_str());
  std::fprintf(u, ") -> %s {\n", t.c_str());
  std::fprintf(u, "  %%s = shard.sharding @grid split_axes = [[0]] : !shard.sharding\n");
  std::fprintf(u, "  %%h0 = shard.shard %%x to %%s : %s\n", t.c_str());
  // linalg.matmul accumulates into its init: one zero tensor shared by all.
  std::fprintf(u, "  %%c0 = arith.constant 0.0 : f32\n  %%e = tensor.empty() : %s\n", t.c_str());
  std::fprintf(u, "  %%z = linalg.fill ins(%%c0 : f32) outs(%%e : %s) -> %s\n", t.c_str(),
               t.c_str());
}

void addLine(FILE *g, FILE *u, const char *op, const std::string &res, const std::string &a,
             const std::string &b) {
  std::string t = T();
  std::fprintf(g, "  %%%s = garray.%s %%%s, %%%s : %s\n", res.c_str(), op, a.c_str(), b.c_str(),
               t.c_str());
  std::fprintf(u, "  %%%s = tosa.%s %%%s, %%%s : (%s, %s) -> %s\n", res.c_str(), op, a.c_str(),
               b.c_str(), t.c_str(), t.c_str(), t.c_str());
}

void mm(FILE *g, FILE *u, long n) {
  long layers = n / 2;
  header(g, u, 1);
  for (long l = 0; l < layers; ++l) {
    std::string m = "m" + std::to_string(l), h = "h" + std::to_string(l),
                h1 = "h" + std::to_string(l + 1);
    garrayDot(g, m.c_str(), h.c_str(), "w0");
    upstreamDot(u, m.c_str(), h.c_str(), "w0");
    addLine(g, u, "add", h1, m, h);
  }
  std::fprintf(g, "  return %%h%ld : %s\n}\n", layers, T().c_str());
  std::fprintf(u, "  return %%h%ld : %s\n}\n", layers, T().c_str());
}

void mlp(FILE *g, FILE *u, long n) {
  long layers = n / 4;
  header(g, u, 2 * layers);
  for (long l = 0; l < layers; ++l) {
    std::string s = std::to_string(l), a = "a" + s, q = "q" + s, m = "m" + s, h = "h" + s,
                h1 = "h" + std::to_string(l + 1), w1 = "w" + std::to_string(2 * l),
                w2 = "w" + std::to_string(2 * l + 1);
    garrayDot(g, a.c_str(), h.c_str(), w1.c_str());
    upstreamDot(u, a.c_str(), h.c_str(), w1.c_str());
    addLine(g, u, "sub", q, a, h); // stands in for an activation
    garrayDot(g, m.c_str(), q.c_str(), w2.c_str());
    upstreamDot(u, m.c_str(), q.c_str(), w2.c_str());
    addLine(g, u, "add", h1, m, h);
  }
  std::fprintf(g, "  return %%h%ld : %s\n}\n", layers, T().c_str());
  std::fprintf(u, "  return %%h%ld : %s\n}\n", layers, T().c_str());
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen ew|mm|mlp N OUTDIR\n");
    return 2;
  }
  std::string kind = argv[1];
  long n = std::atol(argv[2]);
  if (n < 4 || (kind != "ew" && kind != "mm" && kind != "mlp")) {
    std::fprintf(stderr, "gen: unknown kind '%s' or N < 4\n", argv[1]);
    return 2;
  }
  std::string base = std::string(argv[3]) + "/" + kind + "_" + argv[2];
  FILE *g = std::fopen((base + ".garray.mlir").c_str(), "w");
  FILE *u = std::fopen((base + ".upstream.mlir").c_str(), "w");
  if (!g || !u) {
    std::perror("gen");
    return 1;
  }
  if (kind == "ew")
    ew(g, u, n);
  else if (kind == "mm")
    mm(g, u, n);
  else
    mlp(g, u, n);
  std::fclose(g);
  std::fclose(u);
  return 0;
}
