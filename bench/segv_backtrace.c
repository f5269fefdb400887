// A backtrace on SIGSEGV/SIGBUS for machines without gdb (the GPU machine): preloaded into a
// process (LD_PRELOAD), it prints the fault (signal, code, address, the mapping that holds the
// address and the one that holds the faulting thread's stack pointer) and the native frames of
// the thread that faulted, each as "module(+offset)" (the offset from the module's load address,
// also for exported symbols: what addr2line takes), then lets the signal end the process as
// before. bench/device_run.sh's python stage builds it with the image's gcc and names the frames
// with addr2line.
//
// It writes to a copy of stderr taken when the process starts: pytest captures fd 2 into a file
// during a test, and what a dying process writes there is never shown. Python's faulthandler
// (pytest enables it) calls the handler installed before it after printing the Python frames.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static int out_fd = 2;

static void put(const char* s) {
  (void)!write(out_fd, s, strlen(s));
}

static void print_mapping_line(char* line, uintptr_t a, uintptr_t b) {
  unsigned long lo = 0, hi = 0;
  if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) return;
  const int has_a = a >= lo && a < hi, has_b = b >= lo && b < hi;
  if (!has_a && !has_b) return;
  put("  maps: ");
  put(line);
  put(has_a ? "  <- fault address" : "");
  put(has_b ? "  <- stack pointer" : "");
  put("\n");
}

// The lines of /proc/self/maps whose range holds `a` or `b` (read a piece at a time: a Python
// process maps hundreds of ranges).
static void print_mappings(uintptr_t a, uintptr_t b) {
  char buf[4096];
  size_t n = 0;
  ssize_t r;
  const int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;
  while ((r = read(fd, buf + n, sizeof buf - 1 - n)) > 0) {
    n += (size_t)r;
    buf[n] = 0;
    char* line = buf;
    for (char* end; (end = strchr(line, '\n')) != 0; line = end + 1) {
      *end = 0;
      print_mapping_line(line, a, b);
    }
    n = strlen(line);
    memmove(buf, line, n);
    if (n == sizeof buf - 1) n = 0;  // a line longer than the buffer: dropped
  }
  close(fd);
}

static void on_fault(int sig, siginfo_t* info, void* context) {
  char line[512];
  void* frames[64];
  uintptr_t sp = 0;
#if defined(__x86_64__)
  sp = (uintptr_t)((ucontext_t*)context)->uc_mcontext.gregs[REG_RSP];
#else
  (void)context;
#endif
  snprintf(line, sizeof line,
           "=== native backtrace (bench/segv_backtrace.c): signal %d code %d address %p, "
           "thread %ld of process %ld, stack pointer %p\n",
           sig, info ? info->si_code : 0, info ? info->si_addr : 0, (long)gettid(), (long)getpid(),
           (void*)sp);
  put(line);
  print_mappings(info ? (uintptr_t)info->si_addr : 0, sp);
  const int n = backtrace(frames, 64);
  for (int k = 0; k < n; ++k) {
    Dl_info d;
    if (dladdr(frames[k], &d) && d.dli_fname && d.dli_fbase)
      snprintf(line, sizeof line, "%s(+0x%lx) %s\n", d.dli_fname,
               (unsigned long)((uintptr_t)frames[k] - (uintptr_t)d.dli_fbase),
               d.dli_sname ? d.dli_sname : "");
    else
      snprintf(line, sizeof line, "?? %p\n", frames[k]);
    put(line);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  const int fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
  if (fd >= 0) out_fd = fd;
  void* warm[2];
  backtrace(warm, 2);  // loads libgcc_s now, not in the handler
  // An alternate stack for this (the main) thread, so that a stack overflow is reported too.
  stack_t ss;
  ss.ss_size = 1 << 16;
  ss.ss_sp = malloc(ss.ss_size);
  ss.ss_flags = 0;
  if (ss.ss_sp) sigaltstack(&ss, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
}
