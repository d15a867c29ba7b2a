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

namespace {

llvm::Error writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << bytes;
  if (ec)
    return toolkitError("cannot write " + path + ": " + ec.message());
  return llvm::Error::success();
}

llvm::Expected<std::string> readFile(const std::string &path) {
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!bytes)
    return toolkitError("cannot read " + path + ": " + bytes.getError().message());
  return (*bytes)->getBuffer().str();
}

} // namespace

llvm::Expected<AssembledModule> assemblePtx(const CudaToolkit &toolkit, GpuArch arch,
                                            llvm::StringRef ptx) {
  TempFile in, out;
  if (std::error_code ec = in.make("shardc-kernel", "ptx"))
    return toolkitError("cannot create a temporary file for ptxas: " + ec.message());
  if (std::error_code ec = out.make("shardc-kernel", "cubin"))
    return toolkitError("cannot create a temporary file for ptxas: " + ec.message());
  if (llvm::Error e = writeFile(in.path, ptx))
    return std::move(e);
  std::string arg = ("-arch=" + archName(arch)).str();
  AssembledModule m;
  if (runTool({toolkit.ptxas, arg, "-O3", "-v", in.path, "-o", out.path}, m.report) != 0)
    return toolkitError(toolkit.ptxas + " " + arg + " refused the PTX:\n" + m.report);
  llvm::Expected<std::string> cubin = readFile(out.path);
  if (!cubin)
    return cubin.takeError();
  m.cubin = std::move(*cubin);
  return m;
}

llvm::Expected<std::string> moduleImage(const CudaToolkit &toolkit, GpuArch arch,
                                        llvm::StringRef ptx, llvm::StringRef cubin) {
  if (arch == GpuArch::Sm90a)
    return cubin.str();
  llvm::SmallString<128> fatbinary(toolkit.root);
  llvm::sys::path::append(fatbinary, "bin", "fatbinary");
  if (!llvm::sys::fs::can_execute(fatbinary))
    return toolkitError("the CUDA toolkit at " + toolkit.root + " has no executable " +
                        fatbinary.str().str() +
                        ", which packs sm_90 kernels with their PTX; install the whole toolkit, "
                        "or compile with --gpu sm_90a (cubin only)");
  TempFile ptxFile, cubinFile, out;
  for (TempFile *f : {&ptxFile, &cubinFile, &out})
    if (std::error_code ec = f->make("shardc-image", "bin"))
      return toolkitError("cannot create a temporary file for fatbinary: " + ec.message());
  if (llvm::Error e = writeFile(ptxFile.path, ptx))
    return std::move(e);
  if (llvm::Error e = writeFile(cubinFile.path, cubin))
    return std::move(e);
  std::string output;
  std::string create = "--create=" + out.path;
  std::string elf = "--image3=kind=elf,sm=90,file=" + cubinFile.path;
  std::string ptxImage = "--image3=kind=ptx,sm=90,file=" + ptxFile.path;
  if (runTool({fatbinary.str(), "--64", create, elf, ptxImage}, output) != 0)
    return toolkitError(fatbinary.str().str() + " failed:\n" + output);
  return readFile(out.path);
}

} // namespace shardc::gpu
