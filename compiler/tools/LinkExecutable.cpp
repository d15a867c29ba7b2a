//===- LinkExecutable.cpp - `shardc compile --exe` -------------------------===//
//
// Writes the embedded runtime archives and the object to a temporary
// folder and runs the system C++ driver on them (ExeRuntime.h). The whole
// runtime is linked (--whole-archive): the model's object calls it by name
// and the main finds the model through shardc_entry.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/ExeRuntime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <vector>

namespace {

bool writeFile(const std::string &path, llvm::StringRef bytes, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << bytes;
  if (ec)
    error = "cannot write " + path + ": " + ec.message();
  return !ec;
}

/// The C++ driver: $CXX when set (it must be a program), else c++ on PATH.
bool findDriver(std::string &driver, std::string &error) {
  const char *cxx = std::getenv("CXX");
  std::string wanted = cxx && *cxx ? cxx : "c++";
  llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(wanted);
  if (!found || !llvm::sys::fs::can_execute(*found)) {
    error = "--exe needs a C++ compiler driver to link with, and " +
            (cxx && *cxx ? "CXX=" + wanted + " is not one"
                         : std::string("there is no c++ on PATH")) +
            "; install one (e.g. g++ or clang++) or set CXX";
    return false;
  }
  driver = *found;
  return true;
}

struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
};

} // namespace

bool shardc::linkExecutable(const std::string &object, std::string &program,
                            std::string &error) {
  std::string driver;
  if (!findDriver(driver, error))
    return false;
  TempDir dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("shardc-exe", dir.path)) {
    error = "cannot create a temporary folder: " + ec.message();
    return false;
  }
  auto in = [&](llvm::StringRef name) {
    llvm::SmallString<128> p(dir.path);
    llvm::sys::path::append(p, name);
    return p.str().str();
  };
  std::string objectPath = in("model.o");
  if (!writeFile(objectPath, object, error))
    return false;
  std::vector<std::string> archives;
  for (const EmbeddedFile *f = kExeRuntime; f->name; ++f) {
    archives.push_back(in(f->name));
    if (!writeFile(archives.back(),
                   llvm::StringRef(reinterpret_cast<const char *>(f->bytes), f->size), error))
      return false;
  }
  std::string output = in("program"), log = in("link.log");
  std::vector<std::string> args = {driver, "-o", output, objectPath, "-Wl,--whole-archive"};
  args.insert(args.end(), archives.begin(), archives.end());
  args.insert(args.end(), {"-Wl,--no-whole-archive", "-ldl", "-lpthread", "-lm"});
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(driver, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, /*MemoryLimit=*/0, &message);
  if (rc != 0) {
    auto text = llvm::MemoryBuffer::getFile(log);
    error = driver + " could not link the executable" +
            (message.empty() ? "" : " (" + message + ")") + ":\n" +
            (text ? (*text)->getBuffer().str() : "");
    return false;
  }
  auto bytes = llvm::MemoryBuffer::getFile(output, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes) {
    error = "cannot read the linked executable: " + bytes.getError().message();
    return false;
  }
  program = (*bytes)->getBuffer().str();
  return true;
}
