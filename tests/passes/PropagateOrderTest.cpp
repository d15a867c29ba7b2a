//===- PropagateOrderTest.cpp - garray-propagate is order-free, idempotent ===//
//
// Property (docs/propagation.md, "Order independence and idempotence"): the
// sharding garray-propagate gives each value does not depend on the order of
// independent ops in a function nor on the order of functions in the module,
// and propagating its own output changes nothing. Checked on random orders
// (seeded, so a failure names a reproducible order): each function body is
// rearranged into a random topological order (every operand still defined
// before use, terminator last) and the functions are shuffled. Values are
// compared by their `garray.name`, which every value of the program carries.
//
//===----------------------------------------------------------------------===//
#include "dialects/garray/GArray.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>

using namespace mlir;

namespace {

// Independent chains from three differently sharded arguments, a
// same-priority conflict (c2), one unannotated argument (w), a helper called
// twice (one signature for both calls) and a sharding group (g1, g2).
constexpr const char *kProgram = R"mlir(
garray.mesh @mesh ["data" = 2, "model" = 2]
func.func @main(%x: tensor<8x8xf32> {garray.name = "x", garray.sharding = #garray.sharding<@mesh, P("data", None)>},
                %y: tensor<8x8xf32> {garray.name = "y", garray.sharding = #garray.sharding<@mesh, P(None, "model")>},
                %z: tensor<8x8xf32> {garray.name = "z", garray.sharding = #garray.sharding<@mesh, P("model", None)>},
                %w: tensor<8x8xf32> {garray.name = "w"},
                %n: tensor<8x8xf32> {garray.name = "n"})
    -> (tensor<8x8xf32> {garray.name = "r0"}, tensor<8x8xf32> {garray.name = "r1"},
        tensor<8x8xf32> {garray.name = "r2"}, tensor<8x8xf32> {garray.name = "r3"},
        tensor<8x8xf32> {garray.name = "r4"}, tensor<8x8xf32> {garray.name = "r5"},
        tensor<8x8xf32> {garray.name = "r6"}, tensor<8x8xf32> {garray.name = "r7"}) {
  %a1 = garray.exp %x {garray.name = "a1"} : tensor<8x8xf32>
  %a2 = garray.tanh %a1 {garray.name = "a2"} : tensor<8x8xf32>
  %b1 = garray.exp %y {garray.name = "b1"} : tensor<8x8xf32>
  %b2 = garray.neg %b1 {garray.name = "b2"} : tensor<8x8xf32>
  %c1 = garray.exp %z {garray.name = "c1"} : tensor<8x8xf32>
  %c2 = garray.add %c1, %a2 {garray.name = "c2"} : tensor<8x8xf32>
  %d1 = garray.neg %x {garray.name = "d1"} : tensor<8x8xf32>
  %d2 = garray.add %d1, %b2 {garray.name = "d2"} : tensor<8x8xf32>
  %e1 = garray.sqrt %w {garray.name = "e1"} : tensor<8x8xf32>
  %e2 = garray.mul %e1, %e1 {garray.name = "e2"} : tensor<8x8xf32>
  %g1 = garray.exp %w {garray.name = "g1", garray.sharding_group = 7 : i64} : tensor<8x8xf32>
  %g2 = garray.tanh %b2 {garray.name = "g2", garray.sharding_group = 7 : i64} : tensor<8x8xf32>
  %m = garray.dot_general %a2, %g1, batch = [] x [], contracting = [1] x [0] {garray.name = "m"} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %k1 = call @h(%a2) {garray.name = "k1"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %k2 = call @h(%b2) {garray.name = "k2"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %p1 = garray.add %n, %y {garray.name = "p1"} : tensor<8x8xf32>
  %p2 = garray.add %n, %z {garray.name = "p2"} : tensor<8x8xf32>
  return %c2, %d2, %k1, %k2, %e2, %m, %p1, %p2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func private @h(%a: tensor<8x8xf32> {garray.name = "h.a"}) -> (tensor<8x8xf32> {garray.name = "h.r"}) {
  %e = garray.exp %a {garray.name = "h.e"} : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}
)mlir";

std::string str(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (a)
    a.print(os);
  else
    os << "<none>";
  return s;
}

/// garray.name -> sharding of every named argument, op result and result.
std::map<std::string, std::string> shardingsByName(ModuleOp module) {
  std::map<std::string, std::string> out;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "garray.name"))
        out[n.str()] = str(garray::getSharding(func.getArgument(i)));
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto n = func.getResultAttrOfType<StringAttr>(i, "garray.name"))
        out[n.str()] = str(garray::getResultSharding(func, i));
    func.walk([&](Operation *op) {
      if (auto n = op->getAttrOfType<StringAttr>("garray.name"))
        out[n.str()] = str(garray::getSharding(op->getResult(0)));
    });
  }
  return out;
}

/// Rearranges every function body into a random topological order and the
/// functions into a random order.
void shuffle(ModuleOp module, std::mt19937 &rng) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    Block &body = func.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> pending;
    for (Operation &op : body.without_terminator())
      pending.push_back(&op);
    llvm::DenseSet<Operation *> placed;
    while (!pending.empty()) {
      SmallVector<size_t> ready;
      for (size_t i = 0; i < pending.size(); ++i)
        if (llvm::all_of(pending[i]->getOperands(), [&](Value v) {
              Operation *def = v.getDefiningOp();
              return !def || placed.contains(def);
            }))
          ready.push_back(i);
      REQUIRE(!ready.empty());
      size_t pick = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng)];
      pending[pick]->moveBefore(terminator);
      placed.insert(pending[pick]);
      pending.erase(pending.begin() + pick);
    }
  }
  std::shuffle(funcs.begin(), funcs.end(), rng);
  for (func::FuncOp func : funcs)
    func->moveBefore(module.getBody(), module.getBody()->end());
}

void propagate(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(shardc::createGArrayPropagate());
  REQUIRE(succeeded(pm.run(module)));
}

std::string print(ModuleOp module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os);
  return s;
}

} // namespace

TEST_CASE("garray-propagate does not depend on op or function order, and is idempotent") {
  DialectRegistry registry;
  garray::registerShardcDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> reference = parseSourceString<ModuleOp>(kProgram, &ctx);
  REQUIRE(reference);
  propagate(*reference);
  std::map<std::string, std::string> expected = shardingsByName(*reference);
  // Not vacuous: every value is named, and the program's paths meet (the
  // helper's one signature joins a2's rows with b2's columns; c2 meets z's
  // "model" two ops away before x's "data" three ops away, and keeps it).
  REQUIRE(expected.size() == 33);
  CHECK(expected.at("a2") == "#garray.sharding<@mesh, P(\"data\", \"model\")>");
  CHECK(expected.at("c2") == "#garray.sharding<@mesh, P(\"model\", None)>");
  CHECK(expected.at("e2") == "#garray.sharding<@mesh, P(\"data\", \"model\")>");
  // Two users of n want "model" on different dims (from y and from z, each
  // one op away): a conflict across ops, which keeps neither.
  CHECK(expected.at("n") == "#garray.sharding<@mesh, P(None, None)>");
  CHECK(expected.at("p1") == "#garray.sharding<@mesh, P(None, \"model\")>");
  CHECK(expected.at("p2") == "#garray.sharding<@mesh, P(\"model\", None)>");

  for (unsigned seed = 0; seed < 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kProgram, &ctx);
    REQUIRE(module);
    shuffle(*module, rng);
    propagate(*module);
    REQUIRE(shardingsByName(*module) == expected);
    std::string once = print(*module);
    propagate(*module);
    REQUIRE(print(*module) == once);
  }
}

namespace {

/// A random program over a 2x2 mesh: four 8x8 arguments with random
/// shardings (priorities and open dims among them), then elementwise ops,
/// dots, transposes, constraints and calls of a helper on random earlier
/// values. Every value is named. The same seed gives the same text.
std::string randomProgram(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const char *specs[] = {"P()", "P(\"a\", None)", "P(None, \"a\")", "P(\"b\", None)",
                         "P(None, \"b\")", "P(\"a\", \"b\")", "P(\"b\", \"a\")",
                         "P((\"a\", \"b\"), None)", "P(\"a\" p0, None)", "P(None, \"b\" p1)",
                         "P(\"a\"?, ?)", "P(?, \"b\")"};
  const char *T = "tensor<8x8xf32>";
  std::string s = "garray.mesh @mesh [\"a\" = 2, \"b\" = 2]\n"
                  "func.func private @h(%p: tensor<8x8xf32> {garray.name = \"h.p\"}) -> "
                  "tensor<8x8xf32> {\n"
                  "  %e = garray.exp %p {garray.name = \"h.e\"} : tensor<8x8xf32>\n"
                  "  return %e : tensor<8x8xf32>\n}\n"
                  "func.func @main(";
  std::vector<std::string> vals;
  for (int i = 0; i < 4; ++i) {
    std::string name = "%x" + std::to_string(i);
    s += (i ? ", " : "") + name + ": " + T + " {garray.name = \"x" + std::to_string(i) + "\"";
    if (pick(3) != 0)
      s += ", garray.sharding = #garray.sharding<@mesh, " + std::string(specs[pick(12)]) + ">";
    s += "}";
    vals.push_back(name);
  }
  s += ") -> (tensor<8x8xf32>, tensor<8x8xf32>) {\n";
  size_t n = 8 + pick(14);
  for (size_t k = 0; k < n; ++k) {
    std::string v = "%v" + std::to_string(k), named = " {garray.name = \"v" + std::to_string(k) + "\"}";
    const std::string &a = vals[pick(vals.size())], &b = vals[pick(vals.size())];
    switch (pick(7)) {
    case 0: s += "  " + v + " = garray.exp " + a + named + " : " + T + "\n"; break;
    case 1: s += "  " + v + " = garray.add " + a + ", " + b + named + " : " + T + "\n"; break;
    case 2: s += "  " + v + " = garray.mul " + a + ", " + b + named + " : " + T + "\n"; break;
    case 3:
      s += "  " + v + " = garray.dot_general " + a + ", " + b +
           ", batch = [] x [], contracting = [1] x [0]" + named + " : (" + T + ", " + T +
           ") -> " + T + "\n";
      break;
    case 4:
      s += "  " + v + " = garray.transpose " + a + ", permutation = [1, 0]" + named + " : (" + T +
           ") -> " + T + "\n";
      break;
    case 5:
      s += "  " + v + " = garray.sharding_constraint " + a + " : " + T +
           " to #garray.sharding<@mesh, " + specs[pick(12)] + ">" + named + "\n";
      break;
    default: s += "  " + v + " = func.call @h(" + a + ")" + named + " : (" + T + ") -> " + T + "\n";
    }
    vals.push_back(v);
  }
  s += "  return " + vals[vals.size() - 1] + ", " + vals[vals.size() - 2] + " : " + T + ", " + T +
       "\n}\n";
  return s;
}

/// Swaps the operands of some adds and muls (the same program).
void commute(ModuleOp module, std::mt19937 &rng) {
  module.walk([&](Operation *op) {
    if (isa<garray::AddOp, garray::MulOp>(op) && rng() % 2) {
      Value a = op->getOperand(0), b = op->getOperand(1);
      op->setOperands({b, a});
    }
  });
}

} // namespace

TEST_CASE("garray-propagate on random programs: no order, operand order or rerun matters") {
  DialectRegistry registry;
  garray::registerShardcDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.getDiagEngine().registerHandler([](Diagnostic &) {}); // group errors are expected
  unsigned propagated = 0;
  for (unsigned seed = 0; seed < 120; ++seed) {
    INFO("seed " << seed << "\n" << randomProgram(seed));
    auto run = [&](ModuleOp m) {
      PassManager pm(&ctx);
      pm.addPass(shardc::createGArrayPropagate());
      return succeeded(pm.run(m));
    };
    OwningOpRef<ModuleOp> base = parseSourceString<ModuleOp>(randomProgram(seed), &ctx);
    REQUIRE(base);
    bool ok = run(*base);
    std::map<std::string, std::string> expected;
    if (ok) {
      ++propagated;
      expected = shardingsByName(*base);
      std::string once = print(*base);
      REQUIRE(run(*base));
      REQUIRE(print(*base) == once); // idempotent
    }
    for (unsigned k = 0; k < 3; ++k) {
      std::mt19937 rng(seed * 7919 + k);
      OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(randomProgram(seed), &ctx);
      shuffle(*m, rng);
      commute(*m, rng);
      REQUIRE(run(*m) == ok);
      if (ok)
        REQUIRE(shardingsByName(*m) == expected);
    }
  }
  // Not vacuous: most programs propagate (the rest end in a clean error).
  CHECK(propagated > 100);
}
