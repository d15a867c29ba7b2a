//===- Printer.cpp - a random Program as garray text ----------------------===//
#include "tests/random/Printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace shardc_random {

const char *mlirName(Dtype d) {
  switch (d) {
  case Dtype::F32: return "f32";
  case Dtype::I32: return "i32";
  case Dtype::I64: return "i64";
  case Dtype::I1: return "i1";
  }
  return "?";
}

const char *runtimeName(Dtype d) {
  return d == Dtype::I1 ? "bool" : mlirName(d);
}

int64_t Type::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::string typeText(const Type &t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  return s + mlirName(t.dtype) + ">";
}

std::string floatLiteral(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of("ni") != std::string::npos) // nan, inf: not generated
    return s;
  if (s.find('.') == std::string::npos) // MLIR wants 1.0 and 1.0e-08
    s.insert(std::min(s.find('e'), s.size()), ".0");
  return s;
}

namespace {

std::string list(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string element(Dtype d, double v) {
  if (d == Dtype::F32)
    return floatLiteral(v);
  if (d == Dtype::I1)
    return v != 0 ? "true" : "false";
  return std::to_string(static_cast<int64_t>(v));
}

/// dense<...> of `t` from row-major `values` (one value = splat).
std::string denseText(const Type &t, const std::vector<double> &values) {
  if (values.size() == 1)
    return "dense<" + element(t.dtype, values[0]) + ">";
  std::string s;
  size_t next = 0;
  // Nested brackets, dimension by dimension.
  auto emit = [&](auto &&self, size_t d) -> void {
    if (d == t.shape.size()) {
      s += element(t.dtype, values[next++]);
      return;
    }
    s += "[";
    for (int64_t i = 0; i < t.shape[d]; ++i) {
      if (i)
        s += ", ";
      self(self, d + 1);
    }
    s += "]";
  };
  emit(emit, 0);
  return "dense<" + s + ">";
}

class FunctionPrinter {
public:
  FunctionPrinter(const Function &f, const std::vector<Function> &all, std::ostringstream &os)
      : f_(f), all_(all), os_(os) {}

  void print() {
    os_ << "func.func " << (f_.isPrivate ? "private " : "") << "@" << f_.name << "(";
    for (size_t i = 0; i < f_.args.size(); ++i) {
      os_ << (i ? ",\n    " : "\n    ") << v(f_.argIds[i]) << ": " << typeText(f_.args[i]);
      if (!f_.argNames.empty())
        os_ << attrs(f_.argNames[i], f_.argSpecs[i]);
    }
    os_ << ")\n    -> (";
    for (size_t i = 0; i < f_.results.size(); ++i) {
      os_ << (i ? ", " : "") << typeText(type(f_.results[i]));
      if (!f_.resultNames.empty())
        os_ << attrs(f_.resultNames[i], f_.resultSpecs[i]);
    }
    os_ << ") {\n";
    for (const Op &op : f_.ops)
      printOp(op);
    os_ << "  return ";
    for (size_t i = 0; i < f_.results.size(); ++i)
      os_ << (i ? ", " : "") << v(f_.results[i]);
    os_ << " : ";
    for (size_t i = 0; i < f_.results.size(); ++i)
      os_ << (i ? ", " : "") << typeText(type(f_.results[i]));
    os_ << "\n}\n\n";
  }

private:
  static std::string v(int id) { return "%v" + std::to_string(id); }
  const Type &type(int id) const { return f_.valueTypes[id]; }
  std::string t(int id) const { return typeText(type(id)); }

  static std::string attrs(const std::string &name, const std::string &spec) {
    std::string s = " {garray.name = \"" + name + "\"";
    if (!spec.empty())
      s += ", garray.sharding = #garray.sharding<@mesh, " + spec + ">";
    return s + "}";
  }

  /// (A, B) -> R
  std::string fnType(const Op &op) const {
    std::string s = "(";
    for (size_t i = 0; i < op.operands.size(); ++i)
      s += (i ? ", " : "") + t(op.operands[i]);
    return s + ") -> " + typeText(op.results[0]);
  }

  std::string operands(const Op &op) const {
    std::string s;
    for (size_t i = 0; i < op.operands.size(); ++i)
      s += (i ? ", " : "") + v(op.operands[i]);
    return s;
  }

  void printOp(const Op &op) {
    os_ << "  ";
    for (size_t i = 0; i < op.resultIds.size(); ++i)
      os_ << (i ? ", " : "") << v(op.resultIds[i]);
    os_ << " = ";
    const std::string &n = op.name;
    const std::string r = typeText(op.results[0]);
    if (n == "call") {
      os_ << "call @" << all_[op.callee].name << "(" << operands(op) << ") : (";
      for (size_t i = 0; i < op.operands.size(); ++i)
        os_ << (i ? ", " : "") << t(op.operands[i]);
      os_ << ") -> (";
      for (size_t i = 0; i < op.results.size(); ++i)
        os_ << (i ? ", " : "") << typeText(op.results[i]);
      os_ << ")";
    } else if (n == "constant") {
      os_ << "garray.constant " << denseText(op.results[0], op.values) << " : " << r;
    } else if (n == "iota") {
      os_ << "garray.iota dim = " << op.dim << " : " << r;
    } else if (n == "compare") {
      os_ << "garray.compare <" << op.kind << "> " << operands(op) << " : " << fnType(op);
    } else if (n == "select") {
      os_ << "garray.select " << operands(op) << " : " << fnType(op);
    } else if (n == "convert") {
      os_ << "garray.convert " << operands(op) << (op.flag ? " lossy" : "") << " : "
          << fnType(op);
    } else if (n == "broadcast_in_dim") {
      os_ << "garray.broadcast_in_dim " << operands(op) << ", dims = " << list(op.a) << " : "
          << fnType(op);
    } else if (n == "reshape") {
      os_ << "garray.reshape " << operands(op) << " : " << fnType(op);
    } else if (n == "transpose") {
      os_ << "garray.transpose " << operands(op) << ", permutation = " << list(op.a) << " : "
          << fnType(op);
    } else if (n == "slice") {
      os_ << "garray.slice " << operands(op) << ", start = " << list(op.a)
          << ", limit = " << list(op.b) << ", strides = " << list(op.c) << " : " << fnType(op);
    } else if (n == "pad") {
      os_ << "garray.pad " << operands(op) << ", low = " << list(op.a) << ", high = " << list(op.b)
          << " : " << fnType(op);
    } else if (n == "concatenate") {
      os_ << "garray.concatenate " << operands(op) << ", dim = " << op.dim << " : " << fnType(op);
    } else if (n == "reverse") {
      os_ << "garray.reverse " << operands(op) << ", dims = " << list(op.a) << " : " << r;
    } else if (n == "shift") {
      os_ << "garray.shift " << operands(op) << ", dim = " << op.dim << ", offset = " << op.offset
          << " : " << fnType(op);
    } else if (n == "dot_general") {
      os_ << "garray.dot_general " << operands(op) << ", batch = " << list(op.a) << " x "
          << list(op.b) << ", contracting = " << list(op.c) << " x " << list(op.d) << " : "
          << fnType(op);
    } else if (n == "reduce") {
      os_ << "garray.reduce <" << op.kind << "> " << operands(op) << ", dims = " << list(op.a)
          << (op.flag ? " keepdims" : "") << " : " << fnType(op);
    } else if (n == "mean") {
      os_ << "garray.mean " << v(op.operands[0]) << ", dims = " << list(op.a)
          << (op.flag ? " keepdims" : "");
      if (op.operands.size() == 2)
        os_ << " weights " << v(op.operands[1]);
      os_ << " : " << fnType(op);
    } else if (n == "argmax" || n == "argmin") {
      os_ << "garray." << n << " " << operands(op) << ", dim = " << op.dim << " : " << fnType(op);
    } else if (n == "gather") {
      os_ << "garray.gather " << v(op.operands[0]) << "[" << v(op.operands[1])
          << "] : " << fnType(op);
    } else if (n == "scatter_add") {
      os_ << "garray.scatter_add " << operands(op) << " : " << fnType(op);
    } else if (n == "scatter_reduce") {
      os_ << "garray.scatter_reduce <" << op.kind << "> " << operands(op) << " : " << fnType(op);
    } else if (n == "sharding_constraint" || n == "reshard") {
      os_ << "garray." << n << " " << operands(op) << " : " << r << " to #garray.sharding<@mesh, "
          << op.spec << ">";
    } else if (n == "sgd_update") {
      os_ << "garray.sgd_update " << operands(op) << " {lr = " << floatLiteral(op.values[0])
          << " : f64} : " << r;
    } else if (n == "momentum_update") {
      os_ << "garray.momentum_update " << operands(op) << " {lr = " << floatLiteral(op.values[0])
          << " : f64, momentum = " << floatLiteral(op.values[1]) << " : f64} : " << r;
    } else if (n == "adam_update") {
      os_ << "garray.adam_update " << operands(op) << " {lr = " << floatLiteral(op.values[0])
          << " : f64, beta1 = " << floatLiteral(op.values[1])
          << " : f64, beta2 = " << floatLiteral(op.values[2])
          << " : f64, eps = " << floatLiteral(op.values[3])
          << " : f64, weight_decay = " << floatLiteral(op.values[4]) << " : f64} : " << r << ", "
          << t(op.operands[4]);
    } else if (n == "clip_by_global_norm") {
      os_ << "garray.clip_by_global_norm " << operands(op)
          << " {max_norm = " << floatLiteral(op.values[0]) << " : f64} : ";
      for (size_t i = 0; i < op.operands.size(); ++i)
        os_ << (i ? ", " : "") << t(op.operands[i]);
      os_ << " -> ";
      for (size_t i = 0; i < op.results.size(); ++i)
        os_ << (i ? ", " : "") << typeText(op.results[i]);
    } else { // same-typed elementwise ops: unary, binary, clamp
      os_ << "garray." << n << " " << operands(op) << " : " << r;
    }
    os_ << "\n";
  }

  const Function &f_;
  const std::vector<Function> &all_;
  std::ostringstream &os_;
};

} // namespace

std::string printProgram(const Program &program) {
  std::ostringstream os;
  os << "// random program, seed " << program.seed << "\n";
  os << "garray.mesh @mesh [";
  for (size_t i = 0; i < program.axes.size(); ++i)
    os << (i ? ", " : "") << "\"" << program.axes[i] << "\" = 1";
  os << "]\n\n";
  for (const Function &f : program.functions)
    FunctionPrinter(f, program.functions, os).print();
  return os.str();
}

} // namespace shardc_random
