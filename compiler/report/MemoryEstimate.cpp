//===- MemoryEstimate.cpp - peak live bytes per device --------------------===//
#include "compiler/report/MemoryEstimate.h"

#include "compiler/report/ReadSignature.h"
#include "dialects/garray/GArray.h"
#include "sharding/Limits.h"

#include <limits>

using namespace mlir;
using mlir::garray::locationText;

namespace shardc {
namespace {

/// Peak live bytes per device of the partitioned entry, read where every
/// value's sharding is known and types are still global. Arguments are live
/// for the whole function; an op's results from the op to their last use (by
/// the entry-block op that encloses the use), results of the function to the
/// end. A value's bytes are its local (ceil layout) shape times its element
/// size; values without a sharding are replicated. Non-tensor values count 0.
/// A call (or a shard_map, of its body) adds, at its program point, its
/// callee's temporaries (its peak without its arguments and returned
/// values, which the caller counts); callees are estimated the same way,
/// once each (a recursive call adds nothing more: its depth is not known).
struct FunctionMemory {
  int64_t peak = 0;
  /// The peak of what lives only inside the function: neither its
  /// arguments (the caller's operands) nor the values it returns (the
  /// call's results), which the caller counts.
  int64_t temporaries = 0;
  std::vector<MemoryValue> largest;
  /// The largest of those temporaries (what a caller lists of the callee).
  std::vector<MemoryValue> largestTemporaries;
};
using CalleePeaks = llvm::DenseMap<Operation *, std::optional<FunctionMemory>>;

FunctionMemory functionMemory(func::FuncOp func, const Signature &sig,
                              const UserPlaced &userPlaced, CalleePeaks &callees,
                              size_t keep);

FunctionMemory functionMemory(func::FuncOp func, const Signature &sig,
                              const UserPlaced &userPlaced, CalleePeaks &callees,
                              size_t keep) {
  FunctionMemory mem;
  if (func.getBody().empty())
    return mem;
  // Program points: the function's top-level ops, block after block in
  // region order. Within a block a value lives from its op to its last use;
  // a value used in another block, or passed along a branch, is counted
  // live at every point (an over- rather than an underestimate: which
  // blocks run, in which order and how often, is not known here). Branch
  // arguments alias what is passed and are not counted again.
  Region &body = func.getBody();
  llvm::DenseMap<Operation *, int64_t> index;
  int64_t n = 0;
  for (Operation &op : body.getOps())
    index[&op] = n++;
  garray::MeshOp meshOp;
  if (!sig.mesh.axes.empty())
    for (auto m : func->getParentOfType<ModuleOp>().getOps<garray::MeshOp>()) {
      FailureOr<Mesh> core = garray::toCoreMesh(m);
      if (succeeded(core) && core->axes == sig.mesh.axes)
        meshOp = m;
    }
  struct Live {
    MemoryValue value;
    int64_t from, to; // program points [from, to]
    bool temporary;   // neither an argument nor a returned value
    Value source = {}; // this function's value (its `why` is worded once kept)
  };
  std::vector<Live> values;
  // Why a value is whole over some mesh axis, in the user's terms.
  // A collective (or reshard) made for a constraint or reshard the user
  // wrote: its reason says so (passes/collectives/InsertReshards.cpp).
  auto userAsked = [](Operation *def) {
    auto reason = def ? def->getAttrOfType<StringAttr>("reason") : StringAttr();
    return reason && (reason.getValue().starts_with(garray::kConstraintReasonPrefix) ||
                      reason.getValue().starts_with(garray::kWrittenReshardReasonPrefix));
  };
  // The sharding group `v` belongs to, -1 if none.
  auto groupOf = [&](Value v) -> int64_t {
    IntegerAttr id;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->isEntryBlock() && arg.getOwner()->getParentOp() == func)
        id = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), garray::kGroupAttrName);
    } else {
      id = v.getDefiningOp()->getAttrOfType<IntegerAttr>(garray::kGroupAttrName);
    }
    return id ? id.getInt() : -1;
  };
  // The value a chain of collectives starts from (the layout a value had
  // before partitioning moved it).
  auto beforeCollectives = [](Value v) {
    for (Operation *d = v.getDefiningOp(); d && garray::isGlobalCollective(d);
         d = v.getDefiningOp())
      v = d->getOperand(0);
    return v;
  };
  // Whether `s` splits some dim over one of `axes` (mesh axis names).
  auto usesAny = [](garray::ShardingAttr s, ArrayRef<std::string> axes) {
    return s && llvm::any_of(s.getDims(), [&](garray::DimShardingAttr d) {
             return llvm::any_of(d.getAxes(), [&](StringAttr a) {
               return llvm::is_contained(axes, a.getValue());
             });
           });
  };
  // `axes`: the mesh axes `v` is whole over; the reason is about them.
  std::function<std::string(Value, ArrayRef<std::string>)> whyWhole =
      [&](Value v, ArrayRef<std::string> axes) -> std::string {
    auto arg = dyn_cast<BlockArgument>(v);
    Operation *def = v.getDefiningOp();
    bool annotated = arg ? func == userPlaced.entry() && arg.getOwner()->isEntryBlock() &&
                               arg.getArgNumber() < userPlaced.arguments.size() &&
                               userPlaced.arguments[arg.getArgNumber()]
                         : userPlaced.placed(def);
    if (annotated)
      return "its annotation places it so";
    if (int64_t group = groupOf(v); group >= 0)
      return "its sharding group " + std::to_string(group) +
             " gives it the layout of the group's members (`shardc explain` says which "
             "annotation decides it)";
    if (userAsked(def))
      return "its annotation places it so: " + def->getAttrOfType<StringAttr>("reason").str();
    if (def && garray::isGlobalCollective(def)) {
      // Partitioning gathered these axes only if the value it moved had
      // them; else the moved value was already whole over them.
      Value source = beforeCollectives(v);
      if (!usesAny(garray::getSharding(source), axes)) {
        std::string from;
        if (Operation *d = source.getDefiningOp()) {
          from = "'" + d->getName().getStringRef().str() + "' at " + locationText(d->getLoc());
        } else {
          auto a = cast<BlockArgument>(source);
          auto name = a.getOwner()->getParentOp() == func
                          ? func.getArgAttrOfType<StringAttr>(a.getArgNumber(), "garray.name")
                          : StringAttr();
          from = (name ? "argument '" + name.str() + "'"
                       : "argument #" + std::to_string(a.getArgNumber())) +
                 " at " + locationText(a.getLoc());
        }
        return "a copy of " + from + " in another layout, which was already whole over these axes: " +
               whyWhole(source, axes);
      }
      auto reason = def->getAttrOfType<StringAttr>("reason");
      return "partitioning made it so for an op that needs it" +
             (reason ? ": " + reason.str() : std::string());
    }
    // Operands of an elementwise op (every operand dim maps to the result's
    // dim) that reach it in different layouts: propagation keeps what they
    // share (the conflict policy), here not these axes.
    auto layoutText = [&](garray::ShardingAttr s) {
      FailureOr<TensorSharding> c =
          meshOp ? garray::toCore(s, meshOp, static_cast<unsigned>(s.getDims().size()))
                 : FailureOr<TensorSharding>(failure());
      if (failed(c))
        return garray::writtenSpec(s);
      c->pending.clear();
      return c->str(sig.mesh);
    };
    auto splits = [](garray::ShardingAttr s) {
      return llvm::any_of(s.getDims(), [](garray::DimShardingAttr d) { return !d.getAxes().empty(); });
    };
    auto ruled = dyn_cast_or_null<garray::ShardingRuleOpInterface>(def);
    FactorRule rule = ruled ? ruled.getFactorRule() : FactorRule();
    bool elementwise = ruled && rule.results.size() == 1 && rule.operands.size() > 1 &&
                       llvm::all_of(rule.operands, [&](const FactorRule::TensorFactors &t) {
                         return t == rule.results.front();
                       });
    if (elementwise) {
      // The layout an operand had before partitioning gathered it for the
      // op (the program is partitioned here).
      garray::ShardingAttr seen;
      for (Value operand : def->getOperands()) {
        auto s = garray::getSharding(beforeCollectives(operand));
        if (!s)
          continue;
        // Layouts only: a partial sum next to a whole value is no conflict;
        // and a conflict over other axes is not why these are unused.
        if (seen && s.getDims() != seen.getDims() && splits(s) &&
            (usesAny(s, axes) || usesAny(seen, axes)))
          return "its operands reach '" + def->getName().getStringRef().str() + "' at " +
                 garray::locationText(def->getLoc()) + " in different layouts, " +
                 layoutText(seen) + " and " + layoutText(s) +
                 ", and propagation keeps only what they share (`shardc explain` says where "
                 "each comes from)";
        if (splits(s))
          seen = seen ? seen : s;
      }
    }
    if (arg && !annotated)
      return "it is not annotated, and no annotation that reaches it splits it over these "
             "axes (`shardc explain` says what reaches it)";
    return "propagation gave it the layout that reaches it, which does not split it over "
           "these axes (`shardc explain` says where that layout comes from)";
  };
  // The function's returned values with their names (filled below, before
  // any add): neither they nor the arguments are temporaries.
  llvm::DenseMap<Value, std::string> resultNames;
  auto add = [&](Value v, std::string name, Location loc, int64_t from, int64_t to) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
      return;
    MemoryValue m;
    m.name = std::move(name);
    m.location = locationText(loc);
    m.dtype = dtypeName(t.getElementType());
    if (m.dtype.empty()) {
      llvm::raw_string_ostream os(m.dtype);
      os << t.getElementType();
    }
    m.shape.assign(t.getShape().begin(), t.getShape().end());
    TensorSharding sharding = TensorSharding::replicated(t.getRank());
    if (garray::ShardingAttr s = garray::getSharding(v); s && meshOp)
      if (FailureOr<TensorSharding> c = garray::toCore(s, meshOp, t.getRank()); succeeded(c))
        sharding = *c;
    for (DimSharding &d : sharding.dims)
      d.open = false;
    m.localShape = localShape(m.shape, sharding, sig.mesh);
    m.spec = sharding.str(sig.mesh);
    // Within the input contract's limits; saturated past them all the same.
    std::optional<int64_t> bytes = (t.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    for (int64_t d : m.localShape)
      if (bytes)
        bytes = checkedMul(*bytes, d);
    m.localBytes = bytes.value_or(std::numeric_limits<int64_t>::max());
    std::vector<int> used = sharding.usedAxes();
    for (size_t a = 0; a < sig.mesh.axes.size(); ++a) {
      if (sig.mesh.sizes[a] <= 1 || llvm::is_contained(used, static_cast<int>(a)))
        continue;
      if (m.unusedAxes.empty())
        // The largest unsplit dimension that the axis divides, else the
        // largest one at least as long as the axis.
        for (size_t d = 0; d < m.shape.size(); ++d) {
          if (!sharding.dims[d].axes.empty() || m.shape[d] < sig.mesh.sizes[a])
            continue;
          auto better = [&](size_t x, int y) {
            bool dx = m.shape[x] % sig.mesh.sizes[a] == 0,
                 dy = m.shape[y] % sig.mesh.sizes[a] == 0;
            return dx != dy ? dx : m.shape[x] > m.shape[y];
          };
          if (m.suggestedDim < 0 || better(d, m.suggestedDim))
            m.suggestedDim = static_cast<int>(d);
        }
      m.unusedAxes.push_back(sig.mesh.axes[a]);
    }
    Operation *def = v.getDefiningOp();
    m.gathered = def && isa<garray::AllGatherOp, garray::AllReduceOp>(def) && !userAsked(def);
    m.group = groupOf(v);
    values.push_back({std::move(m), from, to, !isa<BlockArgument>(v) && !resultNames.count(v), v});
  };
  // The returned values (of every return), with their names.
  for (Block &block : body)
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        auto name = func.getResultAttrOfType<StringAttr>(i, "garray.name");
        resultNames.try_emplace(v, name ? "result '" + name.str() + "'"
                                        : "result #" + std::to_string(i));
      }
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "garray.name");
    add(func.getArgument(i), name ? "argument '" + name.str() + "'" : "argument #" + std::to_string(i),
        func.getArgument(i).getLoc(), 0, n);
  }
  for (Operation &op : body.getOps())
    for (OpResult r : op.getResults()) {
      int64_t from = index[&op], to = from;
      for (Operation *user : r.getUsers()) {
        Operation *top = body.findAncestorOpInRegion(*user);
        if (!top)
          continue;
        // Blocks need not be written in the order they run: a value that
        // leaves its block is counted live at every program point.
        bool leavesBlock = top->getBlock() != op.getBlock() || top->getNumSuccessors() > 0;
        if (leavesBlock)
          from = 0;
        to = std::max(to, isa<func::ReturnOp>(top) || leavesBlock ? n : index[top]);
      }
      auto named = resultNames.find(r);
      std::string name = named != resultNames.end()
                             ? named->second
                             : op.getName().getStringRef().str() +
                                   (op.getNumResults() > 1
                                        ? " result #" + std::to_string(r.getResultNumber())
                                        : "");
      add(r, std::move(name), op.getLoc(), from, to);
    }
  // Sweep the program points: +bytes where a value starts, -bytes after it
  // ends. Summed in 128 bits, so no model can wrap the estimate around;
  // reported saturated at INT64_MAX.
  std::vector<__int128> delta(n + 2, 0), tempDelta(n + 2, 0);
  for (const Live &l : values) {
    delta[l.from] += l.value.localBytes;
    delta[l.to + 1] -= l.value.localBytes;
    if (l.temporary) {
      tempDelta[l.from] += l.value.localBytes;
      tempDelta[l.to + 1] -= l.value.localBytes;
    }
  }
  // A call holds its callee's temporaries while it runs, and a shard_map
  // its body's (whose values, placed nowhere, are the blocks themselves).
  for (Operation &op : body.getOps()) {
    FlatSymbolRefAttr target;
    if (auto call = dyn_cast<func::CallOp>(op))
      target = call.getCalleeAttr();
    else if (auto map = dyn_cast<garray::ShardMapOp>(op))
      target = map.getBodyAttr();
    if (!target)
      continue;
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(&op, target);
    if (!callee || callee.isExternal())
      continue;
    bool first = callees.try_emplace(callee, std::nullopt).second;
    if (first) {
      // Estimated once; in progress (nullopt) while it is. The map may grow
      // meanwhile, so the result is stored by key afterwards.
      FunctionMemory inner = functionMemory(callee, sig, userPlaced, callees, keep);
      callees[callee] = std::move(inner);
    }
    const std::optional<FunctionMemory> &inner = callees.find(callee)->second;
    if (!inner)
      continue;
    for (std::vector<__int128> *d : {&delta, &tempDelta}) {
      (*d)[index[&op]] += inner->temporaries;
      (*d)[index[&op] + 1] -= inner->temporaries;
    }
    // The callee's largest temporaries compete for the list, named with it
    // (its arguments and results are the caller's operands and results).
    if (first)
      for (const MemoryValue &v : inner->largestTemporaries) {
        Live l{v, index[&op], index[&op], /*temporary=*/true};
        l.value.name += " in @" + callee.getSymName().str();
        values.push_back(std::move(l));
      }
  }
  __int128 live = 0, temps = 0, peak = mem.peak, peakTemps = mem.temporaries;
  for (int64_t p = 0; p <= n; ++p) {
    peak = std::max(peak, live += delta[p]);
    peakTemps = std::max(peakTemps, temps += tempDelta[p]);
  }
  const __int128 most = std::numeric_limits<int64_t>::max();
  mem.peak = static_cast<int64_t>(std::min(peak, most));
  mem.temporaries = static_cast<int64_t>(std::min(peakTemps, most));
  std::stable_sort(values.begin(), values.end(), [](const Live &a, const Live &b) {
    return a.value.localBytes > b.value.localBytes;
  });
  // Why a kept value is whole is worded for the kept ones only (it reads
  // the op's factor rule: on a 100k-op program, a tenth of the compile).
  for (Live &l : values) {
    bool kept = mem.largest.size() < keep || (l.temporary && mem.largestTemporaries.size() < keep);
    if (kept && l.source && !l.value.unusedAxes.empty() && l.value.why.empty())
      l.value.why = whyWhole(l.source, l.value.unusedAxes);
    if (mem.largest.size() < keep)
      mem.largest.push_back(l.value);
    if (l.temporary && mem.largestTemporaries.size() < keep)
      mem.largestTemporaries.push_back(l.value);
  }
  return mem;
}

} // namespace

UserPlaced readUserPlaced(ModuleOp module, func::FuncOp entry) {
  UserPlaced placed;
  placed.entryFunc = entry;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    placed.arguments.push_back(entry.getArgAttr(i, garray::kShardingAttrName) != nullptr);
  module.walk([&](Operation *op) {
    if (!isa<garray::ShardingConstraintOp, garray::ReshardOp>(op) &&
        !op->getRawDictionaryAttrs().empty() && op->hasAttr(garray::kShardingAttrName))
      placed.ops.try_emplace(op, op->getName(), op->getLoc());
  });
  return placed;
}

void readMemory(func::FuncOp func, Signature &sig, const UserPlaced &userPlaced,
                size_t keep) {
  CalleePeaks callees;
  callees[func] = std::nullopt; // in progress: a call back into it adds nothing
  FunctionMemory m = functionMemory(func, sig, userPlaced, callees, keep);
  sig.memory = MemoryEstimate();
  sig.memory.known = true;
  sig.memory.peakBytesPerDevice = m.peak;
  sig.memory.largest = std::move(m.largest);
}

} // namespace shardc
