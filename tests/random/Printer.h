//===- Printer.h - a random Program as garray text --------------*- C++ -*-===//
//
// The text shardc compiles: one `garray.mesh @mesh` with every axis of size
// 1 (the run sizes it with `--mesh`), the helpers as private functions, and
// `main` with its arguments' and results' names and shardings.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TESTS_RANDOM_PRINTER_H
#define SHARDC_TESTS_RANDOM_PRINTER_H

#include "tests/random/Program.h"

#include <string>

namespace shardc_random {

std::string printProgram(const Program &program);

/// A double as an MLIR float literal that reads back to the same f32/f64
/// (always with a '.', or an exponent, so it never parses as an integer).
std::string floatLiteral(double v);

} // namespace shardc_random

#endif
