//===- Comm.h - the comm dialect's one public header ------------*- C++ -*-===//
//
// Local collectives over explicit device groups (see CommOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_COMM_COMM_H
#define SHARDC_DIALECTS_COMM_COMM_H

#include "dialects/garray/GArray.h"

#include "dialects/comm/CommDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/comm/CommOps.h.inc"

#endif // SHARDC_DIALECTS_COMM_COMM_H
