//===- Register.cpp - registers shardc's own dialects ---------------------===//
#include "dialects/comm/Comm.h"
#include "dialects/garray/GArray.h"

void mlir::garray::registerShardcDialects(DialectRegistry &registry) {
  registry.insert<GArrayDialect, comm::CommDialect, func::FuncDialect>();
  registerVjpModels(registry);
}
