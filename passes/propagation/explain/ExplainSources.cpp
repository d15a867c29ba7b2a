//===- ExplainSources.cpp - explain: the remark of each value ---------------===//
//
// Per value: its final sharding and, per axis it holds, the annotations
// that wrote it and the ops it came through, or why it holds none;
// partial sums with where their split came from (docs/propagation.md,
// "Explanations").
//
//===----------------------------------------------------------------------===//
#include "passes/propagation/explain/PropagationExplainer.h"

#include "sharding/FactorMerge.h"

#include "mlir/IR/AsmState.h"

#include <deque>
#include <map>
#include <memory>

namespace shardc::propagation {

using namespace mlir;
using namespace mlir::garray;

/// " annotated " between an annotation's description and its sharding; a
/// hand-written reshard is an op the user wrote, not an annotation.
static StringRef annotatedVerb(const Annotation &a) {
  return a.kind == Annotation::Kind::OpResult && isa<ReshardOp>(a.op) ? " written to "
                                                                      : " annotated ";
}


auto PropagationExplainer::sourcesOf(Value v, ArrayRef<int> axes, std::vector<Named> &detours,
                                    std::vector<int> &unexplained) -> std::vector<Named> {
  using Origin = shardc::AxisOrigins::Origin;
  std::vector<Named> named;
  auto own = ownSource.find(v);
  if (own != ownSource.end())
    named.push_back({own->second, Origin{own->second, 0, {}}, {}});
  for (int a : axes) {
    std::vector<Origin> origins = axisOrigins->origins(st.idOf(v), a, kViaEnds);
    // Its own annotation wrote it: that is the reason, whoever agrees.
    if (own != ownSource.end() &&
        llvm::any_of(origins, [&](const Origin &o) { return o.source == own->second; })) {
      named.front().axes.push_back(a);
      continue;
    }
    if (origins.empty()) {
      std::vector<Origin> around = detourOrigins->origins(st.idOf(v), a, kViaEnds);
      if (around.empty())
        unexplained.push_back(a);
      for (Origin &o : around) {
        auto at = llvm::find_if(detours, [&](const Named &n) { return n.source == o.source; });
        if (at == detours.end())
          at = detours.insert(detours.end(), Named{o.source, o, {}});
        at->axes.push_back(a);
      }
    }
    for (Origin &o : origins) {
      auto at = llvm::find_if(named, [&](const Named &n) { return n.source == o.source; });
      if (at == named.end())
        at = named.insert(named.end(), Named{o.source, o, {}});
      at->axes.push_back(a);
    }
  }
  llvm::erase_if(named, [](const Named &n) { return n.axes.empty(); });
  return named;
}

void PropagationExplainer::printSources(llvm::raw_ostream &os, Value v, ArrayRef<Named> named,
                                       ArrayRef<int> axes, ArrayRef<Named> detours,
                                       ArrayRef<int> unexplained, StringRef also,
                                       bool apartAgreeing,
                                       llvm::function_ref<std::string(Value)> name,
                                       const llvm::DenseSet<int> *parts) {
  // One annotation is named once, however it is seen: a declared result
  // from its return and its calls, a group member's annotation itself and
  // through the group's copy on another member (same text, same place).
  std::set<std::string> said;
  std::set<int> explained;
  bool first = true;
  SmallVector<const Named *> agreeing;
  for (const Named &n : named) {
    const OriginSource &src = originSources[n.source];
    if (!said.insert(st.written(*src.annotation) + "@" + locationText(src.annotation->loc)).second)
      continue;
    // A source whose axes an earlier one already explained only agrees:
    // named after the others, without its way (the first way is the one
    // propagation took; repeating each agreeing way made remarks of 2 KB).
    bool agrees = parts ? !parts->contains(n.source)
                        : apartAgreeing &&
                              llvm::all_of(n.axes, [&](int a) { return explained.count(a); });
    if (agrees) {
      agreeing.push_back(&n);
      continue;
    }
    explained.insert(n.axes.begin(), n.axes.end());
    // Each source says which axes it gave when not all (the first too: an
    // annotation of P("a", "b") may give only "a" here).
    if (!first)
      os << also;
    if (n.axes.size() != axes.size())
      os << "for " << axisList(st.core, n.axes) << ", ";
    first = false;
    printSource(os, v, n, name);
  }
  if (!agreeing.empty()) {
    os << " (also reached by annotations that agree: ";
    llvm::interleaveComma(agreeing, os, [&](const Named *n) {
      Named bare = *n;
      bare.path.length = 0; // the source only, with how far it is
      printSource(os, v, bare, name);
      if (n->path.length > 0)
        os << ", " << n->path.length << (n->path.length == 1 ? " op" : " ops") << " away";
    });
    os << ")";
  }
  // Axes that came through an op that, in the end, does not run with them
  // there (another factor or operand took the axis): named with the path
  // they came by, and said so (dims only grow, so the value kept them).
  for (const Named &n : detours) {
    os << (first ? "" : also) << "for " << axisList(st.core, n.axes) << ", ";
    first = false;
    printSource(os, v, n, name);
    os << ", though an op on that way ends up not running with "
       << (n.axes.size() == 1 ? "it" : "them")
       << " there (a conflict gave the axis to another dim or operand; a reshard follows)";
  }
  // The one way known to leave an axis no chain of holders: it came in an
  // earlier priority round through an open dim that a later round's
  // annotation took it back from (rounds only grow what others hold).
  if (!unexplained.empty())
    os << (first ? "" : "; also ") << "for " << axisList(st.core, unexplained)
       << ", no value between it and an annotation holds that axis now: it came in an "
          "earlier priority round through an open dim that gave it back when a later "
          "round's annotation claimed it";
}

void PropagationExplainer::printSource(llvm::raw_ostream &os, Value v, const Named &n,
                                      llvm::function_ref<std::string(Value)> name) {
  const OriginSource &src = originSources[n.source];
  const Annotation &a = *src.annotation;
  bool elsewhere = !src.sink && src.value != v;
  if (!a.group) {
    os << describe(a);
    if (elsewhere)
      os << " (" << name(src.value) << ")";
    os << annotatedVerb(a) << st.written(a) << " at " << locationText(a.loc);
  } else {
    // A group's copy: the annotation where it is written, then the member
    // the group gave it to ("argument 'W' (%5)" read as if W were %5).
    os << describeWritten(a) << annotatedVerb(a) << st.written(a) << " at " << locationText(a.loc)
       << ", given ";
    if (elsewhere)
      os << "to " << name(src.value) << " ";
    os << "by sharding group " << *a.group;
  }
  if (n.path.length > 0)
    os << " via " << pathOf(n.path);
}

std::string PropagationExplainer::originOf(Value v, llvm::function_ref<std::string(Value)> name) {
  // A call's result is written as its callee's result (one sharding per
  // signature, writtenLayout): explained from inside the callee. (Its
  // users propagated from the call's own state; where that differs, the
  // tie conflicted and insert-reshards reshards them.)
  if (auto r = dyn_cast<OpResult>(v); r && !ownSource.count(v))
    if (auto call = dyn_cast<func::CallOp>(r.getOwner()))
      if (func::FuncOp callee = st.calleeInSet(call)) {
        // Keyed by the returned value: a recursive call returns what its
        // caller's call returns, which is said once.
        Value ret = st.returnsOf(callee).front().getOperand(r.getResultNumber());
        if (ret != v && explainingCalls.insert(ret).second) {
          std::string out = "as @" + callee.getSymName().str() + " returns it (" + name(ret) +
                            ", one sharding per signature): " + originOf(ret, name);
          explainingCalls.erase(ret);
          return out;
        }
      }
  // The axes its dims hold (a pending value's partial sum is partialOf's).
  std::vector<int> axes;
  for (const shardc::DimSharding &d : st.closedFinal(v).dims)
    axes.insert(axes.end(), d.axes.begin(), d.axes.end());
  if (axes.empty())
    return replicatedOrigin(v, name);
  std::vector<int> unexplained;
  std::vector<Named> detours;
  std::vector<Named> named = sourcesOf(v, axes, detours, unexplained);
  std::string out;
  llvm::raw_string_ostream os(out);
  printSources(os, v, named, axes, detours, unexplained, "; also ", true, name);
  return out;
}

std::string PropagationExplainer::partialOf(Value v, llvm::function_ref<std::string(Value)> name) {
  const std::vector<int> &axes = heldPending[st.idOf(v)];
  if (axes.empty())
    return "";
  if (annotatedPartial.contains(st.idOf(v)))
    return "; each device holds a partial result over " + axisList(st.core, axes) +
           " (as its annotation says), which insert-reshards reduces where a use needs it "
           "whole";
  std::vector<int> unexplained;
  std::vector<Named> detours;
  std::vector<Named> named = sourcesOf(v, axes, detours, unexplained);
  std::string out;
  llvm::raw_string_ostream os(out);
  // Its own reduced dims, or a partial sum an operand passed on (a
  // linear op: neg, a sum of partial sums, a reduce of one).
  os << "; each device holds a partial result over " << axisList(st.core, axes)
     << (ownPartial[st.idOf(v)] ? " (the axes its operands split the reduced dims by: "
              : " (a partial sum it passes on from its operands: ");
  // The parts of an op's own partial sum are what split its operands'
  // reduced dims: per operand and axis, the first (strongest, nearest)
  // source. Another source that reaches the result came to an operand that
  // held the axis already: it agrees, and is named last without its way.
  llvm::DenseSet<int> parts;
  if (Operation *def = v.getDefiningOp(); def && ownPartial[st.idOf(v)])
    for (Value u : def->getOperands())
      if (isTensor(u))
        for (int a : axes)
          if (std::vector<shardc::AxisOrigins::Origin> o =
                  axisOrigins->origins(st.idOf(u), a, kViaEnds);
              !o.empty())
            parts.insert(o.front().source);
  bool partNamed = llvm::any_of(named, [&](const Named &n) { return parts.contains(n.source); });
  printSources(os, v, named, axes, detours, unexplained, ", and ", false, name,
               partNamed ? &parts : nullptr);
  os << "), which insert-reshards reduces where a use needs it whole";
  return out;
}

std::string PropagationExplainer::pathOf(const shardc::AxisOrigins::Origin &o) {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto print = [&](ArrayRef<int> vias) {
    SmallVector<int> once; // two hops in a row through one op name it once
    for (int via : vias)
      if (once.empty() || once.back() != via)
        once.push_back(via);
    llvm::interleave(
        once, os,
        [&](int via) {
          auto [op, group] = originVias[via];
          if (op)
            os << op->getName() << " (" << locationText(op->getLoc()) << ")";
          else
            os << "sharding group " << group;
        },
        ", ");
  };
  // A long way shows its first and last kViaEnds ops. `o.path` holds the
  // whole way or (AxisOrigins::origins, for long ones) those ends only.
  if (o.length <= 2 * kViaEnds + 1) {
    print(o.path);
  } else {
    print(ArrayRef<int>(o.path).take_front(kViaEnds));
    os << ", ... " << o.length - 2 * kViaEnds << " more ops ..., ";
    print(ArrayRef<int>(o.path).take_back(kViaEnds));
  }
  return out;
}


void PropagationExplainer::explainAll() {
  traceAxes();
  findLosses();
  for (func::FuncOp func : st.funcs)
    explainAll(func);
}

void PropagationExplainer::explainAll(func::FuncOp func) {
  // A chain may cross a call: a value of another function is named with
  // that function's numbering and its name ("%arg0 in @main").
  std::map<Operation *, std::unique_ptr<AsmState>> states;
  auto name = [&](Value v) {
    auto owner = v.getParentRegion()->getParentOfType<func::FuncOp>();
    if (!owner)
      owner = func;
    std::unique_ptr<AsmState> &state = states[owner];
    if (!state)
      state = std::make_unique<AsmState>(owner);
    std::string s;
    llvm::raw_string_ostream os(s);
    v.printAsOperand(os, *state);
    if (owner != func)
      os << " in @" << owner.getSymName();
    return s;
  };
  auto finalStr = [&](Value v) { return st.writtenLayout(v).str(st.core); };
  for (BlockArgument arg : func.getArguments())
    if (isTensor(arg)) {
      std::string what = name(arg);
      if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "garray.name"))
        what += " '" + n.str() + "'";
      emitRemark(arg.getLoc()) << what << " (argument of @" << func.getSymName()
                               << "): " << finalStr(arg) << " <- " << originOf(arg, name)
                               << conflictOf(arg) << lostOf(arg, name);
    }
  func.walk([&](Operation *op) {
    for (Region &region : op->getRegions()) // arguments of non-entry blocks
      for (Block &block : region)
        if (&block != &region.front() || op != func)
          for (BlockArgument arg : block.getArguments())
            if (isTensor(arg))
              emitRemark(arg.getLoc()) << name(arg) << " (block argument): " << finalStr(arg)
                                       << " <- " << originOf(arg, name) << conflictOf(arg)
                                       << lostOf(arg, name);
    if (op == func)
      return;
    // An op the compiler derived says from what ("garray.div, from
    // garray.mean"), its location being the user's op's.
    std::string label = derivedLabel(op->getLoc());
    if (!label.empty())
      label = ", " + label;
    for (Value r : op->getResults())
      if (isTensor(r))
        emitRemark(op->getLoc()) << name(r) << " (" << op->getName() << label
                                 << "): " << finalStr(r)
                                 << " <- " << originOf(r, name) << conflictOf(r)
                                 << droppedOf(r) << lostOf(r, name) << partialOf(r, name);
  });
}


} // namespace shardc::propagation
