/*===- shardc.h - shardc as a library: compile, inspect, run -------*- C -*-===
 *
 * The C API of libshardc.so, for frameworks that embed shardc. Plain C, no
 * MLIR or C++ in sight; arrays are the runtime's shardrt_array (shardrt.h,
 * whose functions libshardc.so also exports).
 *
 *   shardc_compilation *c;
 *   shardc_compile(text, len, "model.mlir", &options, "out/", &c);
 *   for (size_t i = 0; i < shardc_compilation_diagnostic_count(c); ++i)
 *     ... shardc_compilation_diagnostic(c, i) ...      (file, line, column, message)
 *   puts(shardc_compilation_report_json(c));           (each collective and why)
 *   shardc_compilation_free(c);
 *
 *   shardc_model *m;
 *   if (shardc_model_load("out/", &m) == SHARDC_OK)
 *     shardc_model_run(m, inputs, n_in, outputs, n_out); (global host arrays)
 *   shardc_model_free(m);
 *
 * The model text is a garray model or a JAX program in the generic
 * StableHLO + Shardy form (docs/import.md), as `shardc compile` reads it.
 *
 * Guarantees: no call exits the process, writes to stdout or stderr,
 * installs a signal handler or reads command-line options; MPI is never
 * loaded (ranks run as threads of the calling process). Calls on different
 * handles may run concurrently from different threads; one handle is used
 * by one thread at a time. Every string a handle returns lives as long as
 * the handle.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SHARDC_H
#define SHARDC_H

#include "shardrt.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; shardc_api_version() is the library's. A
 * program should refuse a library whose version differs from the header's. */
#define SHARDC_API_VERSION 1
int32_t shardc_api_version(void);

/* Results, numbered as the shardc command line's exit statuses. */
typedef enum shardc_status {
  SHARDC_OK = 0,
  SHARDC_ERR_ARGUMENT = 2, /* a null pointer or an option that is not valid */
  SHARDC_ERR_COMPILE = 3,  /* the model does not compile: see the diagnostics */
  SHARDC_ERR_INPUT = 4,    /* an artifact or input that does not fit */
  SHARDC_ERR_RUN = 5,      /* running failed */
  SHARDC_ERR_OUTPUT = 6    /* the artifact folder could not be written */
} shardc_status;

/*===--------------------------------------------------------------------===*
 * Compiling
 *===--------------------------------------------------------------------===*/

typedef struct shardc_compile_options {
  const char *mesh;      /* "data=2,model=2" overrides the model's sizes; NULL or "": none */
  const char *entry;     /* the function to compile; NULL or "": main (or the only public one) */
  const char *cpu;       /* LLVM CPU of the object; NULL or "": "host" */
  int64_t memory_budget; /* bytes per device the estimated peak may use; 0: no limit */
} shardc_compile_options;

typedef struct shardc_compilation shardc_compilation;

typedef struct shardc_diagnostic {
  const char *severity; /* "error", "warning", "note" or "remark" */
  const char *file;     /* "" when the location names no file */
  int32_t line;         /* 1-based; 0 when unknown */
  int32_t column;       /* 1-based; 0 when unknown */
  const char *message;
} shardc_diagnostic;

/* Compiles `length` bytes of model text (named `name` in diagnostics) and,
 * when `out_dir` is not NULL, writes the artifact folder there (model.o,
 * manifest.json, report.txt; each written aside and renamed into place, so
 * a failure leaves no half-written file). `options` may be NULL.
 * `*out` always receives a handle when `out` is not NULL, also on failure, so
 * that the diagnostics can be read; free it with shardc_compilation_free. */
shardc_status shardc_compile(const char *text, size_t length, const char *name,
                             const shardc_compile_options *options, const char *out_dir,
                             shardc_compilation **out);

size_t shardc_compilation_diagnostic_count(const shardc_compilation *c);
/* Diagnostic `index` (< the count); all fields empty past the end. */
shardc_diagnostic shardc_compilation_diagnostic(const shardc_compilation *c, size_t index);
/* Every diagnostic as `shardc compile` prints them (file:line:col: error: ...). */
const char *shardc_compilation_diagnostics_text(const shardc_compilation *c);
/* The collectives report and memory estimate as `shardc report` prints them;
 * "" when the compile failed. */
const char *shardc_compilation_report(const shardc_compilation *c);
/* The report as JSON: {"mesh": {...}, "collectives": [{"kind", "reduction",
 * "axes", "group_size", "bytes_per_device", "type", "local_in_type",
 * "local_out_type", "location", "within", "reason", "order"}, ...],
 * "bytes_per_device", "peak_bytes_per_device"}; "{}" when the compile failed. */
const char *shardc_compilation_report_json(const shardc_compilation *c);
void shardc_compilation_free(shardc_compilation *c);

/*===--------------------------------------------------------------------===*
 * Loading and running
 *===--------------------------------------------------------------------===*/

typedef struct shardc_model shardc_model;

typedef struct shardc_tensor_info {
  const char *name;     /* as in the model ("X", "params.W1", "arg0"...) */
  shardrt_dtype dtype;
  int32_t rank;
  const int64_t *shape; /* global shape, `rank` entries */
  const char *spec;     /* its placement, P("data", None) */
} shardc_tensor_info;

/* Loads an artifact folder written by shardc_compile or `shardc compile -o`
 * (checked: manifest bounds, the object's SHA-256). `*out` always receives a
 * handle when `out` is not NULL; on failure shardc_model_error says why. */
shardc_status shardc_model_load(const char *artifact_dir, shardc_model **out);
/* The last failure's message; "" when the last call succeeded. */
const char *shardc_model_error(const shardc_model *m);
/* The device count of the model's mesh (the ranks a run uses). */
int64_t shardc_model_device_count(const shardc_model *m);
int32_t shardc_model_input_count(const shardc_model *m);
int32_t shardc_model_output_count(const shardc_model *m);
/* Input or output `index`; SHARDC_ERR_ARGUMENT past the end. */
shardc_status shardc_model_input(const shardc_model *m, int32_t index, shardc_tensor_info *info);
shardc_status shardc_model_output(const shardc_model *m, int32_t index, shardc_tensor_info *info);

/* Runs one step on every device of the mesh (threads of this process):
 * `inputs` are the global arrays in the model's input order (not modified),
 * `outputs` receives every global output in output order, allocated by
 * shardc (free each with shardrt_array_free). Replicas of each output are
 * checked to agree. On failure no output is set. */
shardc_status shardc_model_run(shardc_model *m, const shardrt_array *inputs, int32_t num_inputs,
                               shardrt_array *outputs, int32_t num_outputs);
void shardc_model_free(shardc_model *m);

#ifdef __cplusplus
}
#endif

#endif /* SHARDC_H */
