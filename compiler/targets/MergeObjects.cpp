//===- MergeObjects.cpp - `ld.lld -r` in process --------------------------===//
#include "compiler/targets/MergeObjects.h"

#include "lld/Common/Driver.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <vector>

LLD_HAS_DRIVER(elf)

namespace {

/// A temporary folder, removed with everything in it when this goes away.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
};

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<std::string> shardc::mergeRelocatableObjects(llvm::ArrayRef<std::string> objects) {
  if (objects.size() == 1)
    return objects.front();
  TempDir dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("shardc-objects", dir.path)) {
    llvm::SmallString<128> temp;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, temp);
    return failure("cannot create a temporary folder for the partitions' objects in " + temp +
                   ": " + ec.message() + "; set TMPDIR to a writable folder");
  }
  std::vector<std::string> paths;
  for (size_t i = 0; i < objects.size(); ++i) {
    paths.push_back(dir.file("part" + std::to_string(i) + ".o"));
    std::error_code ec;
    {
      llvm::raw_fd_ostream os(paths.back(), ec);
      if (!ec) {
        os << objects[i];
        os.close();
        ec = os.error();
      }
    }
    if (ec)
      return failure("cannot write " + paths.back() + ": " + ec.message());
  }
  std::string output = dir.file("merged.o");
  std::vector<const char *> args = {"ld.lld", "-r", "-o", output.c_str()};
  for (const std::string &p : paths)
    args.push_back(p.c_str());

  std::string messages;
  llvm::raw_string_ostream log(messages);
  lld::Result result;
  {
    static std::mutex lldMutex;
    std::lock_guard<std::mutex> lock(lldMutex);
    result = lld::lldMain(args, log, log, {{lld::Gnu, &lld::elf::link}});
  }
  if (result.retCode != 0)
    return failure("linking the partitions' objects into one failed (ld.lld -r):\n" + messages);
  auto merged = llvm::MemoryBuffer::getFile(output, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!merged)
    return failure("cannot read the merged object: " + merged.getError().message());
  return (*merged)->getBuffer().str();
}
