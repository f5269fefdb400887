/* Where a process's host threads wait inside the CUDA runtime: a CUPTI injection library that
 * sums, for every runtime API function, the calls, their wall time summed over all threads and the
 * longest call, and prints the table at exit (issue 37: which call an ensemble's members queue in).
 * Driver calls are listed too ("d"), each also inside its runtime call's time ("r").
 * Build and use (on the GPU machine; CUPTI ships with the toolkit or in a Python wheel):
 *   gcc -O2 -shared -fPIC bench/cuda_api_times.c -o /tmp/libapitimes.so \
 *     -I$CUDA/extras/CUPTI/include -I$CUDA/include -L$CUDA/extras/CUPTI/lib64 -lcupti
 *   CUDA_INJECTION64_PATH=/tmp/libapitimes.so LD_LIBRARY_PATH=$CUDA/extras/CUPTI/lib64 \
 *     CUDA_API_TIMES=/tmp/api.txt silt run ...
 * Prints numbers; asserts nothing. */
#if __has_include(<cupti.h>)
#include <cupti.h>
#else
/* CUPTI's callback ABI (cupti_callbacks.h), for machines whose toolkit has the library (e.g. in a
 * Python wheel) but not the headers. */
#include <stdint.h>
typedef int CUptiResult;
typedef void* CUpti_SubscriberHandle;
typedef int CUpti_CallbackDomain;
typedef uint32_t CUpti_CallbackId;
typedef void (*CUpti_CallbackFunc)(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*);
typedef struct {
  int callbackSite;
  const char* functionName;
  const void* functionParams;
  void* functionReturnValue;
  const char* symbolName;
  void* context;
  uint32_t contextUid;
  uint64_t* correlationData;
  uint32_t correlationId;
} CUpti_CallbackData;
#define CUPTIAPI
#define CUPTI_SUCCESS 0
#define CUPTI_API_ENTER 0
#define CUPTI_CB_DOMAIN_DRIVER_API 1
#define CUPTI_CB_DOMAIN_RUNTIME_API 2
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
CUptiResult cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_ID 2048

static _Atomic uint64_t calls[2 * MAX_ID], total_ns[2 * MAX_ID], longest_ns[2 * MAX_ID],
    over_1ms[2 * MAX_ID];
static const char* _Atomic names[2 * MAX_ID];

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void CUPTIAPI on_call(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                             const void* data) {
  (void)user;
  const CUpti_CallbackData* d = (const CUpti_CallbackData*)data;
  if (id >= MAX_ID) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    id += MAX_ID;
  else if (domain != CUPTI_CB_DOMAIN_RUNTIME_API)
    return;
  if (d->callbackSite == CUPTI_API_ENTER) {
    if (!atomic_load(&names[id])) atomic_store(&names[id], d->functionName);
    *d->correlationData = now_ns();
    return;
  }
  const uint64_t dt = now_ns() - *d->correlationData;
  atomic_fetch_add(&calls[id], 1);
  atomic_fetch_add(&total_ns[id], dt);
  if (dt > 1000000u) atomic_fetch_add(&over_1ms[id], 1);
  uint64_t old = atomic_load(&longest_ns[id]);
  while (dt > old && !atomic_compare_exchange_weak(&longest_ns[id], &old, dt)) {
  }
}

static int by_total(const void* a, const void* b) {
  const uint64_t x = total_ns[*(const int*)a], y = total_ns[*(const int*)b];
  return x < y ? 1 : x > y ? -1 : 0;
}

static void report(void) {
  const char* path = getenv("CUDA_API_TIMES");
  FILE* f = path ? fopen(path, "w") : stderr;
  if (!f) f = stderr;
  int order[2 * MAX_ID], n = 0;
  for (int i = 0; i < 2 * MAX_ID; ++i)
    if (calls[i]) order[n++] = i;
  qsort(order, n, sizeof(int), by_total);
  fprintf(f, "%-44s %10s %12s %10s %8s\n", "function (runtime, then driver calls inside them)",
          "calls", "summed s", "longest ms", ">1 ms");
  for (int k = 0; k < n && k < 50; ++k) {
    const int i = order[k];
    const char* name = names[i] ? names[i] : "?";
    fprintf(f, "%s%-42s %10llu %12.3f %10.3f %8llu\n", i >= MAX_ID ? "d " : "r ", name,
            (unsigned long long)calls[i], total_ns[i] * 1e-9, longest_ns[i] * 1e-6,
            (unsigned long long)over_1ms[i]);
  }
  if (f != stderr) fclose(f);
}

int InitializeInjection(void) {
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_call, NULL) != CUPTI_SUCCESS) return 0;
  if (cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS) return 0;
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  atexit(report);
  return 1;
}
