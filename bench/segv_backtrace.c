// A backtrace on SIGSEGV/SIGBUS/SIGABRT for machines without gdb (the GPU machine): preloaded
// into a process (LD_PRELOAD), it prints the native frames of the thread that faulted to stderr,
// as "module(+offset)", then lets the signal end the process as before. bench/device_run.sh's
// python stage builds it with the image's gcc and names the frames with addr2line.
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  static const char head[] = "=== native backtrace (bench/segv_backtrace.c)\n";
  (void)!write(2, head, sizeof head - 1);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
}
