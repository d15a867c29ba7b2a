//===- CudaToolkit.cpp - the CUDA toolkit and GPU architectures ----------===//
#include "compiler/targets/gpu/CudaToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

namespace shardc::gpu {

std::optional<GpuArch> parseGpuArch(llvm::StringRef name) {
  if (name == "sm_90")
    return GpuArch::Sm90;
  if (name == "sm_90a")
    return GpuArch::Sm90a;
  return std::nullopt;
}

llvm::StringRef archName(GpuArch arch) { return arch == GpuArch::Sm90 ? "sm_90" : "sm_90a"; }

llvm::StringRef acceptedArchs() { return "sm_90 (default) or sm_90a"; }

std::optional<MatmulPrecision> parseMatmulPrecision(llvm::StringRef name) {
  if (name == "exact")
    return MatmulPrecision::Exact;
  if (name == "tf32")
    return MatmulPrecision::Tf32;
  return std::nullopt;
}

namespace {

llvm::Error toolkitError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// ptxas's release from `ptxas --version` ("... release 13.0, V13.0.48").
llvm::Expected<std::string> ptxasRelease(const std::string &ptxas) {
  llvm::SmallString<128> out;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("shardc-ptxas", "txt", fd, out))
    return toolkitError("cannot create a temporary file to run " + ptxas + ": " + ec.message());
  llvm::sys::fs::closeFile(fd);
  std::string outPath = out.str().str();
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(outPath),
                                                llvm::StringRef(outPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/30, /*MemoryLimit=*/0, &message);
  auto text = llvm::MemoryBuffer::getFile(outPath);
  llvm::sys::fs::remove(outPath);
  if (rc != 0)
    return toolkitError(ptxas + " --version failed" +
                        (message.empty() ? llvm::Twine("") : llvm::Twine(": ") + message));
  llvm::StringRef version = text ? (*text)->getBuffer() : "";
  size_t at = version.find("release ");
  if (at == llvm::StringRef::npos)
    return toolkitError(ptxas + " --version did not name a release");
  return version.drop_front(at + 8).take_until([](char c) { return c == ',' || c == '\n'; })
      .trim()
      .str();
}

} // namespace

llvm::Expected<CudaToolkit> findCudaToolkit() {
  const char *env = std::getenv("CUDA_PATH");
  bool fromEnv = env && *env;
  CudaToolkit tk;
  tk.root = fromEnv ? env : "/usr/local/cuda";
  llvm::SmallString<128> ptxas(tk.root);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  tk.ptxas = ptxas.str().str();
  if (!llvm::sys::fs::can_execute(tk.ptxas)) {
    if (fromEnv)
      return toolkitError("no CUDA toolkit at CUDA_PATH=" + tk.root + ": " + tk.ptxas +
                          " is not an executable; set CUDA_PATH to the toolkit's folder "
                          "(the one holding bin/ptxas), or unset it to use /usr/local/cuda");
    return toolkitError("no CUDA toolkit found: CUDA_PATH is not set and " + tk.ptxas +
                        " is not an executable; install the CUDA toolkit or set CUDA_PATH to "
                        "its folder (the one holding bin/ptxas)");
  }
  llvm::Expected<std::string> release = ptxasRelease(tk.ptxas);
  if (!release)
    return release.takeError();
  tk.release = *release;
  return tk;
}

} // namespace shardc::gpu
