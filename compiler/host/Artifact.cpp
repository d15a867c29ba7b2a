//===- Artifact.cpp - the artifact folder `shardc compile -o` writes ------===//
#include "compiler/host/Artifact.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace shardc {

namespace {

bool readBytes(const std::string &path, std::string &out) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return false;
  out = (*buf)->getBuffer().str();
  return true;
}

} // namespace

bool writeArtifact(const std::string &dir, const Signature &sig, const std::string &object,
                   std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  // Each file is written aside and renamed into place once all three are
  // written: a failure leaves no half-written file, and a reader never sees
  // a new manifest next to an old object.
  const std::pair<std::string, std::string> files[] = {
      {"model.o", object},
      {"manifest.json", writeManifest(sig, "model.o", object)},
      {"report.txt", formatReport(sig)}};
  auto aside = [&](const std::string &name) { return dir + "/." + name + ".partial"; };
  auto removeAside = [&] {
    for (const auto &f : files)
      llvm::sys::fs::remove(aside(f.first));
  };
  for (const auto &[name, bytes] : files) {
    std::error_code ec;
    llvm::raw_fd_ostream os(aside(name), ec, llvm::sys::fs::OF_None);
    if (!ec) {
      os << bytes;
      os.close();
      ec = os.error();
    }
    if (ec) {
      error = "cannot write " + dir + "/" + name + ": " + ec.message();
      removeAside();
      return false;
    }
  }
  for (const auto &f : files)
    if (std::error_code ec = llvm::sys::fs::rename(aside(f.first), dir + "/" + f.first)) {
      error = "cannot move " + f.first + " into '" + dir + "': " + ec.message();
      removeAside();
      return false;
    }
  return true;
}

bool readArtifact(const std::string &dir, Signature &sig, std::string &object,
                  std::string &error) {
  std::string manifest;
  ManifestObject entry;
  std::string path = dir + "/manifest.json";
  if (!readBytes(path, manifest)) {
    error = "'" + dir + "' is a directory without manifest.json; pass a model file or a "
            "directory written by `shardc compile -o`";
    return false;
  }
  if (!readManifest(manifest, sig, entry, error)) {
    error = path + ": " + error;
    return false;
  }
  // Only a regular file of the artifact folder is read, and only the bytes
  // compiled with this manifest are loaded.
  std::string objectPath = dir + "/" + entry.file;
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(objectPath, st, /*Follow=*/false) ||
      st.type() != llvm::sys::fs::file_type::regular_file) {
    error = objectPath + " is not a regular file of the artifact folder";
    return false;
  }
  if (!readBytes(objectPath, object)) {
    error = "cannot read " + objectPath;
    return false;
  }
  if (sha256Hex(object) != entry.sha256) {
    error = objectPath + " is not the object " + path +
            " was compiled with (its SHA-256 differs); recompile the model";
    return false;
  }
  // The object's own record of its ABI, mesh and buffers must be what the
  // manifest says: a manifest edited apart from its object is refused.
  std::string embedded = embeddedArtifactRecord(object);
  if (std::string expected = artifactRecord(sig); embedded != expected) {
    error = objectPath + " records \"" + (embedded.empty() ? "nothing" : embedded) + "\", but " +
            path + " describes \"" + expected + "\"; recompile the model";
    return false;
  }
  return true;
}

} // namespace shardc
