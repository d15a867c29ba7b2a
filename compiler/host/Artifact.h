//===- Artifact.h - the artifact folder `shardc compile -o` writes -*- C++ -*-===//
//
//   OUT/model.o        the object (its entry, the embedded artifact record)
//   OUT/manifest.json  the signature, the object's file name and SHA-256
//   OUT/report.txt     the collectives report
//
// Written by the command line and the C API alike; read back (checked) by
// `shardc run OUT/` and shardc_model_load. No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_COMPILER_HOST_ARTIFACT_H
#define SHARDC_COMPILER_HOST_ARTIFACT_H

#include "compiler/host/Signature.h"

#include <string>

namespace shardc {

/// Writes the three files into `dir` (created if missing), each first aside
/// and then renamed into place, so a failure leaves no half-written file. On
/// failure returns false and sets `error` naming the file.
bool writeArtifact(const std::string &dir, const Signature &sig, const std::string &object,
                   std::string &error);

/// Reads an artifact folder back: the manifest within bounds, the object a
/// regular file of the folder whose SHA-256 is the manifest's and whose
/// embedded record matches the manifest. On failure returns false and sets
/// `error` saying which check failed and what would fix it.
bool readArtifact(const std::string &dir, Signature &sig, std::string &object,
                  std::string &error);

} // namespace shardc

#endif
