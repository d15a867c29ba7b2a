//===- AxisOrigins.h - where each axis a value holds came from -*- C++ -*-===//
//
// `explain` says, for every value, which annotations its sharding came from
// and through which ops. A value's sharding is not one thing that travelled:
// P("a", "b") can hold "a" from an argument and "b" from a constraint three
// ops away, and two annotations can agree on one axis. So the question is
// asked per axis, on the final shardings, after propagation:
//
//   a value v holding mesh axis `a` is connected to a value w through an op
//   when both hold `a` under the same factor of the op's rule (the dims the
//   op maps to each other), or under the same dim of an identity tie (a
//   constraint, a call's argument or result, a sharding group);
//
//   the origins of (v, a) are the annotations that wrote `a` on a value
//   they reach through such a chain, nearest first.
//
//   x: P("a", None)   e = exp x        s = add e, f
//   z: P(None, "b")   f = exp z
//
//   s holds "a" (from x through exp, add) and "b" (from z through exp, add);
//   e holds "b" from z through exp (z to f) and add (f to e): the add maps
//   its operands' dim 1 to one factor. No chain from x reaches e's "b".
//
// Every hop is one that propagation could have taken (each value on the
// path holds the axis where the op's rule puts it), so a printed path is a
// real flow, never a cycle, and an annotation whose axis lost a conflict is
// not named: it reaches no value that holds that axis where it wrote it.
//
// Sources are stepped in rounds of their written priority (p0 first, then
// p1, ..., unprioritised last), as propagation steps them (an annotated dim
// takes part from its own round on), and breadth first within a round: a value names the strongest annotation that reaches
// it, the nearest among equals, then up to kMaxOrigins - 1 others that agree
// (first reached first). Each (value, axis) keeps at most kMaxOrigins
// origins, so the search is linear in the links (times kMaxOrigins).
//
// IR-free: values, axes, links and sources are integers the caller names.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SHARDING_AXISORIGINS_H
#define SHARDC_SHARDING_AXISORIGINS_H

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace shardc {

class AxisOrigins {
public:
  static constexpr size_t kMaxOrigins = 3;

  /// `value` holds `axis` under `key` (a factor of a rule op, a dim of a tie,
  /// with the axes before it there). A hold that does not `receive` only
  /// passes its axis on: a partial sum flows from an operand to the result,
  /// never from one operand to another.
  struct Hold {
    unsigned value;
    int axis;
    int key;
    bool receives = true;
  };

  /// An op or tie that connects the holds with equal (axis, key); `via` is
  /// the caller's name for it, reported in paths, or -1 for a hop with
  /// nothing to name (not counted in a path's length).
  void addLink(int via, const std::vector<Hold> &holds);

  /// An annotation (`source`, the caller's index) that wrote `axis` on
  /// `value`, stepped in the round of `priority`. `via` (or -1) is an op the
  /// axis enters through, counted as the path's first hop (a function
  /// result annotation enters through its return).
  void addSource(unsigned value, int axis, int64_t priority, int source, int via = -1);

  /// `value` holding `axis` takes part only from the round of `priority` on:
  /// an annotated dim whose round has not come is closed and empty in
  /// propagation, so it neither passes an axis on nor takes one. (Values
  /// not named here take part in every round.)
  void activateIn(unsigned value, int axis, int64_t priority);

  /// Runs the search; call once, after every link and source.
  void solve();

  struct Origin {
    int source;
    /// Hops from the source to the value (0: the value itself is annotated).
    size_t length;
    /// The hops' vias from the source on: all of them when length <=
    /// 2 * ends + 1, else the first `ends` then the last `ends`.
    std::vector<int> path;
  };

  /// The origins of `axis` on `value`, strongest then nearest first; empty
  /// when no source reaches it (or it was never held).
  std::vector<Origin> origins(unsigned value, int axis, size_t ends) const;

private:
  struct Label {
    int source;
    int parent; // label index, or -1 at a source
    int via;    // -1: none (a source without an entry op)
    unsigned state;
    size_t depth; // hops with a via, from the source
    int anchor;   // this path's label at depth min(depth, kAnchorDepth)
  };
  struct PendingSource {
    unsigned state;
    int64_t priority;
    int source;
    int via;
    size_t order;
  };
  struct Activation {
    unsigned state;
    int64_t priority;
  };
  struct Group { // holds of one link with one (axis, key)
    int via;
    std::vector<unsigned> states;
    std::vector<bool> receives; // per state
    size_t open; // members with fewer than kMaxOrigins labels
  };

  unsigned stateOf(unsigned value, int axis);
  int findState(unsigned value, int axis) const;
  bool hasSource(unsigned state, int source) const;
  void addLabel(unsigned state, int source, int parent, int via, std::vector<int> &queue);
  std::vector<int> vias(int label, size_t limit) const;

  std::unordered_map<uint64_t, unsigned> states;
  std::vector<std::vector<int>> labelsOf; // per state
  std::vector<std::vector<unsigned>> groupsOf; // per state
  std::vector<Group> groups;
  std::vector<Label> labels;
  std::vector<PendingSource> sources;
  std::vector<Activation> activations;
  std::vector<int64_t> activeFrom; // per state; absent: every round
  static constexpr size_t kAnchorDepth = 8;
};

} // namespace shardc

#endif // SHARDC_SHARDING_AXISORIGINS_H
