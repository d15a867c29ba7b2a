//===- CudaToolkit.cpp - the CUDA toolkit and GPU architectures ----------===//
#include "compiler/targets/gpu/CudaToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

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

/// A temporary file's path, removed when this goes out of scope.
struct TempFile {
  std::string path;
  std::error_code make(llvm::StringRef prefix, llvm::StringRef suffix) {
    llvm::SmallString<128> p;
    int fd;
    std::error_code ec = llvm::sys::fs::createTemporaryFile(prefix, suffix, fd, p);
    if (!ec) {
      llvm::sys::fs::closeFile(fd);
      path = p.str().str();
    }
    return ec;
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

/// Runs `args` (args[0] is the program), stdin empty, stdout and stderr into
/// `output`; returns the exit status (-1 when it could not run).
int runTool(llvm::ArrayRef<llvm::StringRef> args, std::string &output) {
  TempFile out;
  if (std::error_code ec = out.make("shardc-tool", "txt")) {
    output = "cannot create a temporary file: " + ec.message();
    return -1;
  }
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out.path),
                                                llvm::StringRef(out.path)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], args, /*Env=*/std::nullopt, redirects,
                                     /*SecondsToWait=*/120, /*MemoryLimit=*/0, &message);
  auto text = llvm::MemoryBuffer::getFile(out.path);
  output = text ? (*text)->getBuffer().str() : "";
  if (!message.empty())
    output += message;
  return rc;
}

/// ptxas's release from `ptxas --version` ("... release 13.0, V13.0.48").
llvm::Expected<std::string> ptxasRelease(const std::string &ptxas) {
  std::string output;
  if (runTool({ptxas, "--version"}, output) != 0)
    return toolkitError(ptxas + " --version failed: " + output);
  llvm::StringRef version = output;
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
  // Kernels' math calls libdevice, which MLIR links from the toolkit.
  llvm::SmallString<128> libdevice(tk.root);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (!llvm::sys::fs::is_regular_file(libdevice))
    return toolkitError("the CUDA toolkit at " + tk.root + " has no " + libdevice +
                        " (libdevice, which GPU kernels' math needs); install the whole "
                        "toolkit or point CUDA_PATH at one");
  llvm::Expected<std::string> release = ptxasRelease(tk.ptxas);
  if (!release)
    return release.takeError();
  tk.release = *release;
  return tk;
}

llvm::Expected<std::string> assemblePtx(const CudaToolkit &toolkit, GpuArch arch,
                                        llvm::StringRef ptx) {
  TempFile in, out;
  if (std::error_code ec = in.make("shardc-kernel", "ptx"))
    return toolkitError("cannot create a temporary file for ptxas: " + ec.message());
  if (std::error_code ec = out.make("shardc-kernel", "cubin"))
    return toolkitError("cannot create a temporary file for ptxas: " + ec.message());
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in.path, ec);
    if (ec)
      return toolkitError("cannot write " + in.path + ": " + ec.message());
    os << ptx;
  }
  std::string arg = ("-arch=" + archName(arch)).str();
  std::string output;
  if (runTool({toolkit.ptxas, arg, "-O3", "-v", in.path, "-o", out.path}, output) != 0)
    return toolkitError(toolkit.ptxas + " " + arg + " refused the PTX:\n" + output);
  return output;
}

} // namespace shardc::gpu
