/*===- capi_test.c - a C program using shardc through libshardc.so only ---===
 *
 * Links libshardc.so and includes shardc.h, nothing else of shardc. It
 * compiles the seed (samples/linear_regression_step.mlir) and JAX's export
 * of the same step, reads diagnostics and the report, loads the artifact and
 * runs it on host arrays, comparing with a double-precision reference and
 * with JAX's outputs. stdout and stderr are redirected around every call:
 * the library must not write to either. Two compiles run on two threads.
 *
 *===----------------------------------------------------------------------===*/
#include "shardc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

static char *path_of(const char *relative) {
  const char *root = getenv("TEST_SRCDIR");
  const char *ws = getenv("TEST_WORKSPACE");
  static char buf[4][4096];
  static int next = 0;
  char *out = buf[next++ % 4];
  if (root)
    snprintf(out, 4096, "%s/%s/%s", root, ws ? ws : "shardc", relative);
  else
    snprintf(out, 4096, "%s", relative);
  return out;
}

static char *read_text(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  *length = fread(text, 1, (size_t)n, f);
  text[*length] = 0;
  fclose(f);
  return text;
}

/* fds 1 and 2 go to a scratch file while the library runs. */
static int saved_out, saved_err;
static FILE *scratch;
static void quiet_begin(void) {
  fflush(stdout);
  fflush(stderr);
  scratch = tmpfile();
  saved_out = dup(1);
  saved_err = dup(2);
  dup2(fileno(scratch), 1);
  dup2(fileno(scratch), 2);
}
static long quiet_end(void) {
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  long written = ftell(scratch);
  fseek(scratch, 0, SEEK_END);
  written = ftell(scratch);
  fclose(scratch);
  return written;
}

static shardrt_array f32_array(int32_t rank, const int64_t *shape, const double *values) {
  shardrt_array a;
  memset(&a, 0, sizeof a);
  shardrt_array_alloc(&a, SHARDRT_F32, rank, shape);
  for (int64_t i = 0; i < shardrt_array_numel(&a); ++i)
    ((float *)a.data)[i] = (float)values[i];
  return a;
}

static double max_rel_diff(const shardrt_array *a, const double *want, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double got = ((const float *)a->data)[i];
    double d = fabs(got - want[i]) / (fabs(want[i]) > 1e-6 ? fabs(want[i]) : 1e-6);
    if (d > worst)
      worst = d;
  }
  return worst;
}

struct job {
  const char *text;
  size_t length;
  const char *mesh;
  shardc_status status;
  char report[64];
};

static void *compile_job(void *arg) {
  struct job *j = arg;
  shardc_compile_options o = {j->mesh, NULL, NULL, 0};
  shardc_compilation *c = NULL;
  j->status = shardc_compile(j->text, j->length, "seed.mlir", &o, NULL, &c);
  snprintf(j->report, sizeof j->report, "%s", shardc_compilation_report(c));
  shardc_compilation_free(c);
  return NULL;
}

int main(void) {
  CHECK(shardc_api_version() == SHARDC_API_VERSION, "library %d, header %d",
        shardc_api_version(), SHARDC_API_VERSION);

  size_t length = 0;
  char *seed = read_text(path_of("samples/linear_regression_step.mlir"), &length);
  CHECK(seed != NULL, "cannot read the seed");
  if (!seed)
    return 1;
  const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  char artifact[4096];
  snprintf(artifact, sizeof artifact, "%s/capi_seed", tmp);

  /* Compile for 4 ranks into an artifact folder. */
  shardc_compile_options options = {"data=4", NULL, NULL, 0};
  shardc_compilation *c = NULL;
  quiet_begin();
  shardc_status st = shardc_compile(seed, length, "seed.mlir", &options, artifact, &c);
  const char *report = shardc_compilation_report(c);
  const char *json = shardc_compilation_report_json(c);
  long noise = quiet_end();
  CHECK(st == SHARDC_OK, "compile: %d\n%s", st, shardc_compilation_diagnostics_text(c));
  CHECK(noise == 0, "the library wrote %ld bytes to stdout/stderr while compiling", noise);
  CHECK(shardc_compilation_diagnostic_count(c) == 0, "diagnostics on a valid model");
  CHECK(strstr(report, "all_reduce") != NULL, "report: %s", report);
  CHECK(strstr(json, "\"kind\":\"all_reduce\"") && strstr(json, "\"reduction\":\"sum\"") &&
            strstr(json, "\"axes\":[\"data\"]") && strstr(json, "\"reason\":\"pending sum"),
        "report JSON: %s", json);
  shardc_compilation_free(c);

  /* Load it and run it on host arrays. */
  shardc_model *m = NULL;
  quiet_begin();
  st = shardc_model_load(artifact, &m);
  noise = quiet_end();
  CHECK(st == SHARDC_OK, "load: %s", shardc_model_error(m));
  CHECK(noise == 0, "the library wrote %ld bytes while loading", noise);
  CHECK(shardc_model_device_count(m) == 4, "devices %lld",
        (long long)shardc_model_device_count(m));
  CHECK(shardc_model_input_count(m) == 3 && shardc_model_output_count(m) == 3, "3 in, 3 out");
  const char *want_in[] = {"X", "y", "w"}, *want_out[] = {"loss", "grad", "w_next"};
  for (int32_t i = 0; i < 3; ++i) {
    shardc_tensor_info info;
    CHECK(shardc_model_input(m, i, &info) == SHARDC_OK && strcmp(info.name, want_in[i]) == 0 &&
              info.dtype == SHARDRT_F32,
          "input %d", i);
    CHECK(shardc_model_output(m, i, &info) == SHARDC_OK && strcmp(info.name, want_out[i]) == 0,
          "output %d", i);
  }
  shardc_tensor_info none;
  CHECK(shardc_model_input(m, 3, &none) == SHARDC_ERR_ARGUMENT, "input past the end");

  double X[16], y[8], w[2] = {0.5, -0.25};
  for (int i = 0; i < 8; ++i) {
    X[2 * i] = (i + 1) * 0.125;
    X[2 * i + 1] = (i % 3) * 0.25 - 0.5;
    y[i] = (i % 4) * 0.5 - 0.75;
  }
  double r[8], loss = 0, grad[2] = {0, 0}, w_next[2];
  for (int i = 0; i < 8; ++i) {
    r[i] = X[2 * i] * w[0] + X[2 * i + 1] * w[1] - y[i];
    loss += r[i] * r[i] / 8;
    grad[0] += 0.25 * X[2 * i] * r[i];
    grad[1] += 0.25 * X[2 * i + 1] * r[i];
  }
  w_next[0] = w[0] - 0.1 * grad[0];
  w_next[1] = w[1] - 0.1 * grad[1];
  int64_t sx[2] = {8, 2}, sy[1] = {8}, sw[1] = {2};
  shardrt_array in[3] = {f32_array(2, sx, X), f32_array(1, sy, y), f32_array(1, sw, w)};
  shardrt_array out[3];
  quiet_begin();
  st = shardc_model_run(m, in, 3, out, 3);
  noise = quiet_end();
  CHECK(st == SHARDC_OK, "run: %s", shardc_model_error(m));
  CHECK(noise == 0, "the library wrote %ld bytes while running", noise);
  if (st == SHARDC_OK) {
    CHECK(out[0].rank == 0 && max_rel_diff(&out[0], &loss, 1) < 1e-5, "loss");
    CHECK(out[1].rank == 1 && max_rel_diff(&out[1], grad, 2) < 1e-5, "grad");
    CHECK(max_rel_diff(&out[2], w_next, 2) < 1e-5, "w_next");
    for (int i = 0; i < 3; ++i)
      shardrt_array_free(&out[i]);
  }
  /* A wrong input is an error with a message, not a crash. */
  int64_t bad_shape[1] = {3};
  shardrt_array bad = f32_array(1, bad_shape, w);
  shardrt_array swapped[3] = {in[0], in[1], bad};
  st = shardc_model_run(m, swapped, 3, out, 3);
  CHECK(st == SHARDC_ERR_INPUT && strstr(shardc_model_error(m), "'w'"), "bad input: %d %s", st,
        shardc_model_error(m));
  CHECK(shardc_model_run(m, in, 2, out, 3) == SHARDC_ERR_ARGUMENT, "input count");
  shardrt_array_free(&bad);
  for (int i = 0; i < 3; ++i)
    shardrt_array_free(&in[i]);
  shardc_model_free(m);

  /* A model that does not compile: structured diagnostics. */
  const char *broken = "garray.mesh @mesh [\"data\" = 2]\n"
                       "func.func @main(%x: tensor<4xf32> {garray.sharding = "
                       "#garray.sharding<@mesh, P(\"model\")>}) -> tensor<4xf32> {\n"
                       "  return %x : tensor<4xf32>\n}\n";
  quiet_begin();
  st = shardc_compile(broken, strlen(broken), "broken.mlir", NULL, NULL, &c);
  noise = quiet_end();
  CHECK(st == SHARDC_ERR_COMPILE, "broken model: %d", st);
  CHECK(noise == 0, "the library wrote %ld bytes on a compile error", noise);
  CHECK(shardc_compilation_diagnostic_count(c) >= 1, "a diagnostic");
  shardc_diagnostic d = shardc_compilation_diagnostic(c, 0);
  CHECK(strcmp(d.severity, "error") == 0 && strcmp(d.file, "broken.mlir") == 0 && d.line == 2 &&
            d.column > 0 && strstr(d.message, "model"),
        "diagnostic %s %s:%d:%d %s", d.severity, d.file, d.line, d.column, d.message);
  CHECK(strstr(shardc_compilation_diagnostics_text(c), "broken.mlir:2:") != NULL, "text: %s",
        shardc_compilation_diagnostics_text(c));
  CHECK(strcmp(shardc_compilation_report_json(c), "{}") == 0, "no report on failure");
  shardc_compilation_free(c);

  /* JAX's export of the same step (generic StableHLO), on 2 ranks. */
  size_t jax_length = 0;
  char *jax = read_text(path_of("tests/import/jax/linreg.mlir"), &jax_length);
  CHECK(jax != NULL, "cannot read the JAX export");
  char jax_artifact[4096];
  snprintf(jax_artifact, sizeof jax_artifact, "%s/capi_jax", tmp);
  shardc_compile_options two = {"data=2", NULL, NULL, 0};
  st = shardc_compile(jax, jax_length, "linreg.mlir", &two, jax_artifact, &c);
  CHECK(st == SHARDC_OK, "JAX compile: %s", shardc_compilation_diagnostics_text(c));
  shardc_compilation_free(c);
  free(jax);
  st = shardc_model_load(jax_artifact, &m);
  CHECK(st == SHARDC_OK, "JAX load: %s", shardc_model_error(m));
  if (st == SHARDC_OK) {
    int32_t n_in = shardc_model_input_count(m), n_out = shardc_model_output_count(m);
    shardrt_array jin[8], jout[8];
    char file[4096];
    for (int32_t i = 0; i < n_in; ++i) {
      shardc_tensor_info info;
      shardc_model_input(m, i, &info);
      snprintf(file, sizeof file, "tests/import/jax/linreg/inputs/%s.npy", info.name);
      CHECK(shardrt_npy_read(path_of(file), &jin[i]) == SHARDRT_OK, "%s", shardrt_last_error());
    }
    st = shardc_model_run(m, jin, n_in, jout, n_out);
    CHECK(st == SHARDC_OK, "JAX run: %s", shardc_model_error(m));
    for (int32_t o = 0; st == SHARDC_OK && o < n_out; ++o) {
      shardc_tensor_info info;
      shardc_model_output(m, o, &info);
      snprintf(file, sizeof file, "tests/import/jax/linreg/outputs/%s.npy", info.name);
      shardrt_array want;
      CHECK(shardrt_npy_read(path_of(file), &want) == SHARDRT_OK, "%s", shardrt_last_error());
      double values[64];
      int64_t n = shardrt_array_numel(&want);
      for (int64_t i = 0; i < n && i < 64; ++i)
        values[i] = ((float *)want.data)[i];
      CHECK(max_rel_diff(&jout[o], values, n) < 1e-5, "JAX output %s", info.name);
      shardrt_array_free(&want);
      shardrt_array_free(&jout[o]);
    }
    for (int32_t i = 0; i < n_in; ++i)
      shardrt_array_free(&jin[i]);
  }
  shardc_model_free(m);

  /* A folder that is no artifact. */
  st = shardc_model_load(tmp, &m);
  CHECK(st == SHARDC_ERR_INPUT && strstr(shardc_model_error(m), "manifest.json"), "no artifact");
  shardc_model_free(m);
  CHECK(shardc_compile(seed, length, NULL, NULL, NULL, NULL) == SHARDC_ERR_ARGUMENT, "NULL out");

  /* Separate handles on separate threads. */
  struct job jobs[2] = {{seed, length, "data=2", SHARDC_ERR_RUN, ""},
                        {seed, length, "data=8", SHARDC_ERR_RUN, ""}};
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i)
    pthread_create(&threads[i], NULL, compile_job, &jobs[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join(threads[i], NULL);
  CHECK(jobs[0].status == SHARDC_OK && strstr(jobs[0].report, "\"data\"=2"), "thread 0: %s",
        jobs[0].report);
  CHECK(jobs[1].status == SHARDC_OK && strstr(jobs[1].report, "\"data\"=8"), "thread 1: %s",
        jobs[1].report);
  free(seed);

  printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
  return failures ? 1 : 0;
}
