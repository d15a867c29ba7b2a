//===- ShardcApi.cpp - the C API of libshardc.so --------------------------===//
//
// Each handle owns everything it returns (strings, shapes), so a pointer
// stays valid while its handle lives. A compile is compileText (its own
// single-threaded MLIRContext and diagnostic handlers) with an observer that
// records each diagnostic structured: nothing is shared
// between handles but LLVM's once-initialized target registry. Nothing here
// prints; every message goes into the handle.
//
//===----------------------------------------------------------------------===//
#include "shardc.h"

#include "compiler/host/Artifact.h"
#include "compiler/host/Executor.h"
#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"

#include <cstring>
#include <deque>
#include <new>
#include <string>
#include <vector>

struct shardc_compilation {
  struct Diagnostic {
    std::string severity, file, message;
    int32_t line = 0, column = 0;
  };
  std::deque<Diagnostic> diagnostics;
  std::string text, report, reportJson = "{}";
};

struct shardc_model {
  shardc::Signature signature;
  std::string object;
  std::shared_ptr<void> code;
  shardc::EntryFn entry = nullptr;
  std::string error;
  std::vector<std::vector<int64_t>> shapes; // per input, then per output
};

namespace {

const char *severityName(mlir::DiagnosticSeverity s) {
  switch (s) {
  case mlir::DiagnosticSeverity::Error: return "error";
  case mlir::DiagnosticSeverity::Warning: return "warning";
  case mlir::DiagnosticSeverity::Note: return "note";
  case mlir::DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

void record(shardc_compilation &c, mlir::DiagnosticSeverity severity, mlir::Location loc,
            std::string message) {
  shardc_compilation::Diagnostic d;
  d.severity = severityName(severity);
  d.message = std::move(message);
  unsigned line = 0, column = 0;
  if (shardc::fileLocationOf(loc, d.file, line, column)) {
    d.line = static_cast<int32_t>(line);
    d.column = static_cast<int32_t>(column);
  }
  c.diagnostics.push_back(std::move(d));
}

/// A message of the API itself (not MLIR's), as a diagnostic without place.
void recordError(shardc_compilation &c, const std::string &message) {
  shardc_compilation::Diagnostic d;
  d.severity = "error";
  d.message = message;
  c.diagnostics.push_back(d);
  c.text += "error: " + message + "\n";
}

shardc_status compileInto(shardc_compilation &c, llvm::StringRef text, llvm::StringRef name,
                          const shardc_compile_options *options, const char *outDir) {
  shardc::CompileOptions opts;
  if (options) {
    opts.meshSizes = options->mesh ? options->mesh : "";
    opts.entry = options->entry ? options->entry : "";
    if (options->cpu && *options->cpu)
      opts.cpu = options->cpu;
    if (options->memory_budget < 0) {
      recordError(c, "memory_budget must be a byte count >= 0 (0: no limit)");
      return SHARDC_ERR_ARGUMENT;
    }
    if (options->memory_budget > 0)
      opts.memoryBudget = options->memory_budget;
  }
  std::optional<shardc::CompileResult> result =
      shardc::compileText(text, name, opts, c.text, [&](mlir::Diagnostic &d) {
        record(c, d.getSeverity(), d.getLocation(), d.str());
        for (mlir::Diagnostic &note : d.getNotes())
          record(c, note.getSeverity(), note.getLocation(), note.str());
      });
  if (!result)
    return SHARDC_ERR_COMPILE;
  c.report = shardc::formatReport(result->signature);
  c.reportJson = shardc::reportJson(result->signature);
  if (outDir) {
    std::string error;
    if (!shardc::writeArtifact(outDir, result->signature, result->object, error)) {
      recordError(c, error);
      return SHARDC_ERR_OUTPUT;
    }
  }
  return SHARDC_OK;
}

void fillInfo(const shardc::TensorSignature &t, const std::vector<int64_t> &shape,
              shardc_tensor_info *info) {
  info->name = t.name.c_str();
  info->dtype = static_cast<shardrt_dtype>(shardrt_dtype_from_name(t.dtype.c_str()));
  info->rank = static_cast<int32_t>(shape.size());
  info->shape = shape.data();
  info->spec = t.spec.c_str();
}

} // namespace

extern "C" {

int32_t shardc_api_version(void) { return SHARDC_API_VERSION; }

shardc_status shardc_compile(const char *text, size_t length, const char *name,
                             const shardc_compile_options *options, const char *out_dir,
                             shardc_compilation **out) {
  if (!out)
    return SHARDC_ERR_ARGUMENT;
  *out = new (std::nothrow) shardc_compilation();
  if (!*out)
    return SHARDC_ERR_RUN;
  if (!text) {
    recordError(**out, "shardc_compile: the model text is NULL");
    return SHARDC_ERR_ARGUMENT;
  }
  try {
    return compileInto(**out, llvm::StringRef(text, length), name && *name ? name : "model.mlir",
                       options, out_dir);
  } catch (const std::exception &e) {
    recordError(**out, std::string("shardc_compile: ") + e.what());
    return SHARDC_ERR_RUN;
  }
}

size_t shardc_compilation_diagnostic_count(const shardc_compilation *c) {
  return c ? c->diagnostics.size() : 0;
}

shardc_diagnostic shardc_compilation_diagnostic(const shardc_compilation *c, size_t index) {
  if (!c || index >= c->diagnostics.size())
    return shardc_diagnostic{"", "", 0, 0, ""};
  const auto &d = c->diagnostics[index];
  return shardc_diagnostic{d.severity.c_str(), d.file.c_str(), d.line, d.column,
                           d.message.c_str()};
}

const char *shardc_compilation_diagnostics_text(const shardc_compilation *c) {
  return c ? c->text.c_str() : "";
}

const char *shardc_compilation_report(const shardc_compilation *c) {
  return c ? c->report.c_str() : "";
}

const char *shardc_compilation_report_json(const shardc_compilation *c) {
  return c ? c->reportJson.c_str() : "{}";
}

void shardc_compilation_free(shardc_compilation *c) { delete c; }

shardc_status shardc_model_load(const char *artifact_dir, shardc_model **out) {
  if (!out)
    return SHARDC_ERR_ARGUMENT;
  *out = new (std::nothrow) shardc_model();
  shardc_model *m = *out;
  if (!m)
    return SHARDC_ERR_RUN;
  if (!artifact_dir) {
    m->error = "shardc_model_load: the artifact folder is NULL";
    return SHARDC_ERR_ARGUMENT;
  }
  try {
    if (!shardc::readArtifact(artifact_dir, m->signature, m->object, m->error))
      return SHARDC_ERR_INPUT;
    m->code = shardc::loadEntry(m->signature, m->object, m->entry, m->error);
    if (!m->code)
      return SHARDC_ERR_INPUT;
  } catch (const std::exception &e) {
    m->error = std::string("shardc_model_load: ") + e.what();
    return SHARDC_ERR_RUN;
  }
  for (const auto *list : {&m->signature.inputs, &m->signature.outputs})
    for (const shardc::TensorSignature &t : *list)
      m->shapes.push_back(t.shape);
  return SHARDC_OK;
}

const char *shardc_model_error(const shardc_model *m) { return m ? m->error.c_str() : ""; }

int64_t shardc_model_device_count(const shardc_model *m) {
  return m && m->entry ? m->signature.mesh.deviceCount() : 0;
}

int32_t shardc_model_input_count(const shardc_model *m) {
  return m && m->entry ? static_cast<int32_t>(m->signature.inputs.size()) : 0;
}

int32_t shardc_model_output_count(const shardc_model *m) {
  return m && m->entry ? static_cast<int32_t>(m->signature.outputs.size()) : 0;
}

shardc_status shardc_model_input(const shardc_model *m, int32_t index, shardc_tensor_info *info) {
  if (!info || index < 0 || index >= shardc_model_input_count(m))
    return SHARDC_ERR_ARGUMENT;
  fillInfo(m->signature.inputs[index], m->shapes[index], info);
  return SHARDC_OK;
}

shardc_status shardc_model_output(const shardc_model *m, int32_t index,
                                  shardc_tensor_info *info) {
  if (!info || index < 0 || index >= shardc_model_output_count(m))
    return SHARDC_ERR_ARGUMENT;
  fillInfo(m->signature.outputs[index], m->shapes[m->signature.inputs.size() + index], info);
  return SHARDC_OK;
}

shardc_status shardc_model_run(shardc_model *m, const shardrt_array *inputs, int32_t num_inputs,
                               shardrt_array *outputs, int32_t num_outputs) {
  if (!m)
    return SHARDC_ERR_ARGUMENT;
  m->error.clear();
  if (!m->entry) {
    m->error = "shardc_model_run: the model did not load";
    return SHARDC_ERR_ARGUMENT;
  }
  const shardc::Signature &sig = m->signature;
  if (num_inputs != shardc_model_input_count(m) || num_outputs != shardc_model_output_count(m) ||
      (num_inputs && !inputs) || (num_outputs && !outputs)) {
    m->error = "shardc_model_run: the model takes " + std::to_string(sig.inputs.size()) +
               " inputs and gives " + std::to_string(sig.outputs.size()) +
               " outputs; got arrays for " + std::to_string(num_inputs) + " and " +
               std::to_string(num_outputs);
    return SHARDC_ERR_ARGUMENT;
  }
  try {
    // The executor owns its arrays: copy the caller's, which stay theirs.
    shardc::ArraySet set;
    for (int32_t i = 0; i < num_inputs; ++i) {
      const shardrt_array &a = inputs[i];
      shardrt_array copy{};
      if (a.rank < 0 || a.rank > SHARDRT_MAX_RANK || shardrt_dtype_size(a.dtype) == 0 ||
          shardrt_array_alloc(&copy, a.dtype, a.rank, a.shape) != SHARDRT_OK) {
        m->error = "input #" + std::to_string(i) + " ('" + sig.inputs[i].name +
                   "') is not a valid array: " + shardrt_last_error();
        return SHARDC_ERR_INPUT;
      }
      size_t bytes = static_cast<size_t>(shardrt_array_numel(&a)) * shardrt_dtype_size(a.dtype);
      if (bytes && !a.data) {
        shardrt_array_free(&copy);
        m->error = "input #" + std::to_string(i) + " ('" + sig.inputs[i].name +
                   "') has no data";
        return SHARDC_ERR_INPUT;
      }
      if (bytes)
        std::memcpy(copy.data, a.data, bytes);
      set.add(sig.inputs[i].name, copy);
    }
    if (std::string e = shardc::checkInputs(sig, set); !e.empty()) {
      m->error = e;
      return SHARDC_ERR_INPUT;
    }
    shardc::RunResult result;
    if (!shardc::runThreadsEntry(sig, m->entry, set, result, m->error))
      return SHARDC_ERR_RUN;
    for (size_t o = 0; o < sig.outputs.size(); ++o)
      if (result.replicaDiffs[o] != 0) {
        m->error = shardc::replicaDisagreement(sig.outputs[o].name, result.replicaDiffs[o]);
        return SHARDC_ERR_RUN;
      }
    // Hand the outputs over: the set gives up their storage.
    for (size_t o = 0; o < sig.outputs.size(); ++o) {
      outputs[o] = result.outputs.arrays[o];
      result.outputs.arrays[o].data = nullptr;
    }
  } catch (const std::exception &e) {
    m->error = std::string("shardc_model_run: ") + e.what();
    return SHARDC_ERR_RUN;
  }
  return SHARDC_OK;
}

void shardc_model_free(shardc_model *m) { delete m; }

} // extern "C"
