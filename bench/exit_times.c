/* Where a process's end goes (issue 37: the flood ensemble's 0.39 s after its last output line):
 * an LD_PRELOAD library that stamps, on CLOCK_REALTIME as `date +%s.%N` prints it, the return
 * from main; each exit handler that takes 1 ms or more (static destructors, the CUDA runtime's
 * teardown: every function registered with atexit or __cxa_atexit after this library loaded,
 * named by dladdr where it can be, else by its offset in its file: `addr2line -fCe FILE OFFSET`);
 * this library's destructor (the shared libraries' destructors, run in reverse order of their
 * loading, end about then); and the last exit handler. What comes after (the kernel closing the
 * process's files, the driver's release of its device memory and pinned pages) is the parent's
 * wall minus the last stamp.
 * Build and use:
 *   gcc -O2 -shared -fPIC bench/exit_times.c -o /tmp/libexittimes.so -ldl
 *   LD_PRELOAD=/tmp/libexittimes.so silt run ... ; date +%s.%N
 * Prints numbers to standard error; asserts nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One line, written at once (stdio may be torn down by then). */
static void stamp(const char* what, double t, double took) {
  char line[512];
  int n = took >= 0.0 ? snprintf(line, sizeof line, "exit_times %.6f %-48s %.6f s\n", t, what, took)
                      : snprintf(line, sizeof line, "exit_times %.6f %s\n", t, what);
  if (n > 0) (void)!write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

/* main, through __libc_start_main. */
typedef int (*main_fn)(int, char**, char**);
static main_fn real_main;
static int timed_main(int argc, char** argv, char** envp) {
  const int rc = real_main(argc, argv, envp);
  stamp("main returned", now(), -1.0);
  return rc;
}
int __libc_start_main(main_fn main, int argc, char** argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void* stack_end) {
  typedef int (*start_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void),
                          void*);
  start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  real_main = main;
  return real(timed_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* Exit handlers: each one registered after this library loaded runs through a timed wrapper. */
struct handler {
  void (*fn)(void*);
  void* arg;
};
static void timed_handler(void* p) {
  const struct handler* h = (const struct handler*)p;
  const double t0 = now();
  h->fn(h->arg);
  const double t1 = now();
  if (t1 - t0 >= 1e-3) {
    Dl_info info;
    char what[256];
    if (dladdr((void*)h->fn, &info) && info.dli_sname)
      snprintf(what, sizeof what, "handler %s", info.dli_sname);
    else if (dladdr((void*)h->fn, &info) && info.dli_fname)
      snprintf(what, sizeof what, "handler in %s +0x%lx", info.dli_fname,
               (unsigned long)((char*)h->fn - (char*)info.dli_fbase));
    else
      snprintf(what, sizeof what, "handler %p", (void*)h->fn);
    stamp(what, t1, t1 - t0);
  }
}
int __cxa_atexit(void (*fn)(void*), void* arg, void* dso) {
  typedef int (*cxa_fn)(void (*)(void*), void*, void*);
  static cxa_fn real;
  if (!real) real = (cxa_fn)dlsym(RTLD_NEXT, "__cxa_atexit");
  struct handler* h = (struct handler*)malloc(sizeof *h);
  if (!h) return real(fn, arg, dso);
  h->fn = fn;
  h->arg = arg;
  return real(timed_handler, h, dso);
}
/* Registered first, so run last of the handlers. */
static void call_plain(void* fn) { ((void (*)(void))fn)(); }
static void handlers_done(void) { stamp("last exit handler", now(), -1.0); }
__attribute__((constructor)) static void start(void) {
  typedef int (*cxa_fn)(void (*)(void*), void*, void*);
  cxa_fn real = (cxa_fn)dlsym(RTLD_NEXT, "__cxa_atexit");
  real(call_plain, (void*)handlers_done, NULL);
  stamp("library loaded", now(), -1.0);
}
__attribute__((destructor)) static void done(void) { stamp("this library's destructor", now(), -1.0); }
