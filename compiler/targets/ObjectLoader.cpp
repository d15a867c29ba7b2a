//===- ObjectLoader.cpp - Load a shardc CPU object with LLVM ORC ----------===//
//
// One LLJIT (own ExecutionSession) per loaded object. The main JITDylib holds
// the object, an absoluteSymbols unit with the caller's table, and a
// generator for the current process, so resolution is "table, then process".
// LLJIT's default process-symbols JITDylib is turned off to keep that order
// explicit (which also means the inactive platform: the generic one needs
// that JITDylib). The object is linked eagerly in load() by looking up every symbol
// it defines; errors the session reports on the side (e.g. "Symbols not
// found: [ foo ]") are collected and attached to the returned llvm::Error
// instead of being printed.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/ObjectLoader.h"

#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectFileInterface.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace orc = llvm::orc;
using shardc::LoadedObject;

/// Errors the ExecutionSession reports outside of a returned llvm::Error.
struct LoadedObject::SessionErrors {
  std::mutex mutex;
  std::vector<std::string> messages;

  void report(llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    std::lock_guard<std::mutex> lock(mutex);
    messages.push_back(std::move(message));
  }
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string joined;
    for (const std::string &m : messages) joined += (joined.empty() ? "" : "; ") + m;
    messages.clear();
    return joined;
  }
};

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::make_error<llvm::StringError>(message, llvm::inconvertibleErrorCode());
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}
/// With SHARDC_PERF_MAP set (and not "0"), appends every function of the
/// object, with its address and size, to /tmp/perf-<pid>.map, where `perf
/// report` looks for names of JIT code: the kernels of a compiled model
/// (`main`, and `main_nest<i>` for the outlined loop nests of a large one)
/// show by name instead of as bare addresses. Local functions are placed by
/// the offset they have in their section, from a global symbol of the same
/// section whose address the link returned.
void writePerfMap(llvm::StringRef objectBytes, const orc::SymbolMap &linked, orc::LLJIT &jit) {
  const char *env = std::getenv("SHARDC_PERF_MAP");
  if (!env || !*env || std::strcmp(env, "0") == 0)
    return;
  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(objectBytes, "shardc-cpu-object"));
  if (!object) {
    llvm::consumeError(object.takeError());
    return;
  }
  std::vector<std::pair<uint64_t, uint64_t>> sectionBase; // (section index, base)
  auto baseOf = [&](uint64_t section) -> std::optional<uint64_t> {
    for (auto &[index, base] : sectionBase)
      if (index == section)
        return base;
    return std::nullopt;
  };
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    auto name = symbol.getName();
    auto section = symbol.getSection();
    auto value = symbol.getValue();
    if (!name || !section || !value || *section == (*object)->section_end()) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(section.takeError());
      llvm::consumeError(value.takeError());
      continue;
    }
    auto it = linked.find(jit.mangleAndIntern(*name));
    if (it != linked.end() && !baseOf((*section)->getIndex()))
      sectionBase.emplace_back((*section)->getIndex(),
                               it->second.getAddress().getValue() - *value);
  }
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  FILE *map = std::fopen(path.c_str(), "a");
  if (!map)
    return;
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    auto type = symbol.getType();
    auto name = symbol.getName();
    auto section = symbol.getSection();
    auto value = symbol.getValue();
    bool ok = type && name && section && value && *type == llvm::object::SymbolRef::ST_Function &&
              *section != (*object)->section_end();
    std::optional<uint64_t> base = ok ? baseOf((*section)->getIndex()) : std::nullopt;
    if (base)
      std::fprintf(map, "%llx %llx %s\n", static_cast<unsigned long long>(*base + *value),
                   static_cast<unsigned long long>(llvm::object::ELFSymbolRef(symbol).getSize()),
                   name->str().c_str());
    llvm::consumeError(type.takeError());
    llvm::consumeError(name.takeError());
    llvm::consumeError(section.takeError());
    llvm::consumeError(value.takeError());
  }
  std::fclose(map);
}

} // namespace

LoadedObject::LoadedObject(std::unique_ptr<orc::LLJIT> jit, std::shared_ptr<SessionErrors> errors)
    : jit(std::move(jit)), sessionErrors(std::move(errors)) {}

LoadedObject::~LoadedObject() = default;

llvm::Error LoadedObject::withSessionErrors(llvm::Error error) {
  std::string side = sessionErrors->take();
  if (side.empty()) return error;
  return llvm::joinErrors(std::move(error), makeError(side));
}

llvm::Expected<std::unique_ptr<LoadedObject>> LoadedObject::load(llvm::StringRef objectBytes,
                                                                 llvm::ArrayRef<Symbol> symbols) {
  initializeNativeTarget();
  // No process-symbols JITDylib (we add the process generator to the main
  // JITDylib ourselves, after the table) and hence no platform: shardc objects
  // have no static constructors, TLS or other platform needs.
  auto jitOrError = orc::LLJITBuilder()
                        .setLinkProcessSymbolsByDefault(false)
                        .setPlatformSetUp(orc::setUpInactivePlatform)
                        .create();
  if (!jitOrError) return jitOrError.takeError();
  auto errors = std::make_shared<SessionErrors>();
  (*jitOrError)->getExecutionSession().setErrorReporter([errors](llvm::Error error) {
    errors->report(std::move(error));
  });
  std::unique_ptr<LoadedObject> loaded(new LoadedObject(std::move(*jitOrError), errors));
  orc::LLJIT &jit = *loaded->jit;
  orc::JITDylib &main = jit.getMainJITDylib();

  // 1. The caller's table.
  orc::SymbolMap table;
  for (const Symbol &symbol : symbols) {
    if (symbol.first.empty() || !symbol.second)
      return makeError("symbol table entry '" + symbol.first +
                       "' has an empty name or a null address");
    auto def = orc::ExecutorSymbolDef(orc::ExecutorAddr::fromPtr(symbol.second),
                                      llvm::JITSymbolFlags::Exported);
    if (!table.try_emplace(jit.mangleAndIntern(symbol.first), def).second)
      return makeError("symbol table lists '" + symbol.first + "' twice");
  }
  if (!table.empty())
    if (llvm::Error error = main.define(orc::absoluteSymbols(std::move(table))))
      return std::move(error);

  // 2. The current process (libc, libm, and anything else it exports).
  auto process = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit.getDataLayout().getGlobalPrefix());
  if (!process) return process.takeError();
  main.addGenerator(std::move(*process));

  // 3. The object itself, linked now: look up everything it defines.
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(objectBytes, "shardc-cpu-object");
  auto interface =
      orc::getObjectFileInterface(jit.getExecutionSession(), buffer->getMemBufferRef());
  if (!interface)
    return llvm::joinErrors(makeError("not a loadable object file"), interface.takeError());
  orc::SymbolLookupSet defined;
  for (const auto &entry : interface->SymbolFlags) defined.add(entry.first);
  if (llvm::Error error = jit.addObjectFile(main, std::move(buffer))) return std::move(error);
  if (!defined.empty()) {
    // All symbols, hidden ones too: a partitioned compile (LlvmCodegen.h)
    // makes every internal function and constant a hidden global.
    auto linked = jit.getExecutionSession().lookup(
        orc::makeJITDylibSearchOrder(&main, orc::JITDylibLookupFlags::MatchAllSymbols),
        std::move(defined));
    if (!linked)
      return loaded->withSessionErrors(
          llvm::joinErrors(makeError("linking the object failed"), linked.takeError()));
    writePerfMap(objectBytes, *linked, jit);
  }
  return std::move(loaded);
}

llvm::Expected<LoadedObject::EntryFn> LoadedObject::lookup(llvm::StringRef name) {
  auto address = jit->lookup(name);
  if (!address) return withSessionErrors(address.takeError());
  return address->toPtr<EntryFn>();
}

llvm::Expected<const void *> LoadedObject::lookupData(llvm::StringRef name) {
  auto address = jit->lookup(name);
  if (!address) return withSessionErrors(address.takeError());
  return address->toPtr<const void *>();
}
