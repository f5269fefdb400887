/* When a process's GPU works and when it idles: a CUPTI injection library that records every
 * kernel and copy (CUPTI's activity records, kernels in graphs included) and prints at exit, per
 * time bucket of the process's wall, the share of the bucket in which some kernel ran, in which
 * some copy ran, and the kernels begun (issue 37: where an ensemble's wall outside its members'
 * stepping goes). Times are seconds since the process started.
 * Build and use (on the GPU machine; CUPTI ships with the toolkit):
 *   C=/usr/local/cuda/targets/x86_64-linux
 *   gcc -O2 -shared -fPIC bench/gpu_busy.c -o /tmp/libgpubusy.so -I$C/include -L$C/lib -lcupti
 *   CUDA_INJECTION64_PATH=/tmp/libgpubusy.so LD_LIBRARY_PATH=$C/lib GPU_BUSY=/tmp/busy.txt \
 *     GPU_BUSY_BUCKET_MS=100 silt run ...
 * Prints numbers; asserts nothing. */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  uint64_t start, end;
  int copy; /* 0: kernel, 1: copy or memset */
} Span;

/* Per kernel name: launches and summed duration (kernels of several streams overlap, so the sums
 * can exceed the union). */
#define MAX_NAMES 256
static struct {
  char name[96];
  uint64_t count, ns;
} names[MAX_NAMES];
static size_t n_names;

static void add_named(const char* name, uint64_t ns) {
  if (!name) name = "?";
  size_t k = 0;
  while (k < n_names && strncmp(names[k].name, name, sizeof names[k].name - 1) != 0) ++k;
  if (k == n_names) {
    if (n_names == MAX_NAMES) return;
    strncpy(names[k].name, name, sizeof names[k].name - 1);
    ++n_names;
  }
  ++names[k].count;
  names[k].ns += ns;
}

static Span* spans;
static size_t n_spans, cap_spans;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cupti_at_init; /* CUPTI's clock at init */
static double init_after_start; /* seconds from the process's start to init */

static void add(uint64_t start, uint64_t end, int copy) {
  if (start < cupti_at_init || end < start) return; /* a record without times */
  pthread_mutex_lock(&lock);
  if (n_spans == cap_spans) {
    cap_spans = cap_spans ? 2 * cap_spans : 1 << 16;
    spans = realloc(spans, cap_spans * sizeof(Span));
  }
  spans[n_spans++] = (Span){start, end, copy};
  pthread_mutex_unlock(&lock);
}

static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = aligned_alloc(8, *size);
  *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size,
                                      size_t valid) {
  (void)ctx;
  (void)stream;
  (void)size;
  CUpti_Activity* record = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel9* k = (const CUpti_ActivityKernel9*)record;
        add(k->start, k->end, 0);
        if (k->end > k->start) {
          pthread_mutex_lock(&lock);
          add_named(k->name, k->end - k->start);
          pthread_mutex_unlock(&lock);
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy5* m = (const CUpti_ActivityMemcpy5*)record;
        add(m->start, m->end, 1);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4* m = (const CUpti_ActivityMemset4*)record;
        add(m->start, m->end, 1);
        break;
      }
      default:
        break;
    }
  }
  free(buffer);
}

static double seconds_since_start(void) {
  /* /proc/self/stat field 22: the start in clock ticks after boot; CLOCK_BOOTTIME: now. */
  FILE* f = fopen("/proc/self/stat", "r");
  if (!f) return 0.0;
  char text[4096];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  const char* p = strrchr(text, ')');
  unsigned long long ticks = 0;
  for (int field = 2; p && *p; ++p)
    if (*p == ' ' && ++field == 22) {
      ticks = strtoull(p + 1, NULL, 10);
      break;
    }
  struct timespec t;
  clock_gettime(CLOCK_BOOTTIME, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec - (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

static int by_start(const void* a, const void* b) {
  const uint64_t x = ((const Span*)a)->start, y = ((const Span*)b)->start;
  return x < y ? -1 : x > y;
}

/* At exit: the table (GPU_BUSY names its file; stderr without). */
static void report(void) {
  cuptiActivityFlushAll(1);
  const char* path = getenv("GPU_BUSY");
  FILE* out = path ? fopen(path, "w") : stderr;
  if (!out) out = stderr;
  const char* ms = getenv("GPU_BUSY_BUCKET_MS");
  const uint64_t bucket_ns = (uint64_t)((ms ? atof(ms) : 100.0) * 1e6) + 1;
  const double bucket = (double)bucket_ns * 1e-9;
  pthread_mutex_lock(&lock);
  qsort(spans, n_spans, sizeof(Span), by_start);
  uint64_t last = cupti_at_init;
  for (size_t i = 0; i < n_spans; ++i)
    if (spans[i].end > last) last = spans[i].end;
  const double length = (double)(last - cupti_at_init) * 1e-9;
  const size_t buckets = (size_t)(length / bucket) + 1;
  double* busy[2] = {calloc(buckets, sizeof(double)), calloc(buckets, sizeof(double))};
  size_t* begun = calloc(buckets, sizeof(size_t));
  double total[2] = {0, 0};
  for (int kind = 0; kind < 2; ++kind) {
    /* The union of this kind's intervals: runs of overlapping spans, each split over buckets. */
    uint64_t lo = 0, hi = 0;
    int open = 0;
    for (size_t i = 0; i <= n_spans; ++i) {
      if (i < n_spans && spans[i].copy != kind) continue;
      if (open && (i == n_spans || spans[i].start > hi)) {
        /* In integer nanoseconds, so that each piece ends past where it began. */
        uint64_t a = lo - cupti_at_init;
        const uint64_t b = hi - cupti_at_init;
        total[kind] += (double)(b - a) * 1e-9;
        while (a < b) {
          const uint64_t k = a / bucket_ns, edge = (k + 1) * bucket_ns, to = b < edge ? b : edge;
          if (k < buckets) busy[kind][k] += (double)(to - a) * 1e-9;
          a = to;
        }
        open = 0;
      }
      if (i == n_spans) break;
      if (!open) {
        lo = spans[i].start;
        hi = spans[i].end;
        open = 1;
      } else if (spans[i].end > hi) {
        hi = spans[i].end;
      }
      if (kind == 0) {
        const size_t k = (size_t)((spans[i].start - cupti_at_init) / bucket_ns);
        if (k < buckets) ++begun[k];
      }
    }
  }
  size_t kernels = 0;
  uint64_t first = 0;
  for (size_t i = 0; i < n_spans; ++i)
    if (!spans[i].copy) {
      if (!kernels) first = spans[i].start;
      ++kernels;
    }
  const double t0 = init_after_start;
  fprintf(out, "gpu busy: CUDA started %.3f s after the process; %zu kernels, the first at %.3f s, "
          "the last ended at %.3f s; kernels ran %.3f s of it (union), copies %.3f s\n",
          t0, kernels, kernels ? t0 + (double)(first - cupti_at_init) * 1e-9 : 0.0, t0 + length,
          total[0], total[1]);
  for (size_t a = 0; a < n_names; ++a) /* by summed duration, largest first */
    for (size_t b = a + 1; b < n_names; ++b)
      if (names[b].ns > names[a].ns) {
        const __typeof__(names[0]) t = names[a];
        names[a] = names[b];
        names[b] = t;
      }
  for (size_t a = 0; a < n_names && a < 12; ++a)
    fprintf(out, "kernel %.90s: %llu launches, %.3f s summed, %.2f us each\n", names[a].name,
            (unsigned long long)names[a].count, (double)names[a].ns * 1e-9,
            (double)names[a].ns * 1e-3 / (double)names[a].count);
  fprintf(out, "%9s %9s %9s %9s\n", "from_s", "kernel%", "copy%", "kernels");
  for (size_t k = 0; k < buckets; ++k)
    fprintf(out, "%9.3f %9.1f %9.1f %9zu\n", t0 + (double)k * bucket, 100.0 * busy[0][k] / bucket,
            100.0 * busy[1][k] / bucket, begun[k]);
  pthread_mutex_unlock(&lock);
  if (out != stderr) fclose(out);
}

int InitializeInjection(void) {
  init_after_start = seconds_since_start();
  cuptiGetTimestamp(&cupti_at_init);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  atexit(report);
  return 1;
}
