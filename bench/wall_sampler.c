// A wall-clock stack sampler: where a process's host threads spend their time, blocked or not
// (in locks, syscalls, driver calls), which a CPU profiler does not show. Preloaded into a process
// (LD_PRELOAD), it interrupts every thread every WALL_SAMPLER_MS milliseconds (default 5) with a
// real-time signal (SIGRTMIN+3) whose handler takes the thread's native frames (backtrace()) into
// a preallocated ring; at exit it writes /proc/self/maps and the samples (one line a sample:
// "tid depth addr1 addr2 ..." in hex, innermost first) to WALL_SAMPLER_OUT (default
// /tmp/wall_samples.txt; a "%p" in the name becomes the process id). bench/wall_samples.py names
// the frames and prints where the threads waited.
//     gcc -O2 -shared -fPIC bench/wall_sampler.c -o /tmp/libwallsampler.so -lpthread
//     LD_PRELOAD=/tmp/libwallsampler.so WALL_SAMPLER_OUT=/tmp/ws.txt PROGRAM ARGS...
//     python3 bench/wall_samples.py /tmp/ws.txt --exe PROGRAM --stacks 5
//
// The handler is async-signal-safe but for backtrace(), which is safe once libgcc_s is loaded
// (the constructor calls it once). A thread interrupted in a syscall that the kernel does not
// restart after a handler (poll, epoll_wait, nanosleep, ...) sees EINTR, as under any profiler.
// Nothing is written when the process ends by _exit(), a signal or exec. WALL_SAMPLER_SLOTS sets
// the ring's size (default 2M samples, ~800 MB of address space, touched only as it fills).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

enum { max_frames = 48, max_threads = 4096 };

struct sample {
  int32_t tid;
  int16_t depth;
  int16_t ready;  // set (release) once the slot's frames are written
  void* frames[max_frames];
};

static struct sample* ring;
static uint64_t ring_slots;
static uint64_t next_slot;  // atomic
static uint64_t dropped;    // atomic
static int in_handler;      // atomic: handlers running now
static int sample_signal;
static int stop_sampler;  // atomic
static int sampler_running;
static pid_t sampler_tid;
static pid_t owner_pid;  // a forked child inherits the ring but writes nothing
static pthread_t sampler;
static long period_ms = 5;
static uint64_t ticks;

// The threads seen, with their names (/proc/self/task/TID/comm), kept by the sampler thread.
static struct {
  pid_t tid;
  char name[16];
} threads[max_threads];
static int n_threads;

static pid_t gettid_(void) {
  return (pid_t)syscall(SYS_gettid);
}

static void on_sample(int sig, siginfo_t* info, void* ucontext) {
  (void)sig;
  (void)info;
  const int saved_errno = errno;
  __atomic_add_fetch(&in_handler, 1, __ATOMIC_ACQ_REL);
  const uint64_t i = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);
  if (i >= ring_slots) {
    __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
  } else {
    struct sample* s = &ring[i];
    void* raw[max_frames + 4];
    const int n = backtrace(raw, max_frames + 4);
    // Frames 0 and 1 are this handler and the signal trampoline: start at the interrupted pc.
    int first = n < 2 ? n : 2;
#if defined(__x86_64__)
    const void* pc = (const void*)((ucontext_t*)ucontext)->uc_mcontext.gregs[REG_RIP];
    for (int k = 0; k < n && k < 4; ++k)
      if (raw[k] == pc) {
        first = k;
        break;
      }
#else
    (void)ucontext;
#endif
    int depth = n - first;
    if (depth > max_frames) depth = max_frames;
    for (int k = 0; k < depth; ++k) s->frames[k] = raw[first + k];
    s->tid = gettid_();
    s->depth = (int16_t)depth;
    __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
  }
  __atomic_sub_fetch(&in_handler, 1, __ATOMIC_ACQ_REL);
  errno = saved_errno;
}

static void read_name(int slot) {
  char path[64], buf[32];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)threads[slot].tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return;
  buf[r] = 0;
  for (char* c = buf; *c; ++c)
    if (*c == '\n' || *c == ' ' || *c == '\t') *c = *c == '\n' ? 0 : '_';
  snprintf(threads[slot].name, sizeof threads[slot].name, "%.15s", buf);
}

// A thread's name, on first sight and now and then after (threads name themselves once started).
static void note_thread(pid_t tid) {
  for (int k = 0; k < n_threads; ++k)
    if (threads[k].tid == tid) {
      if (ticks % 50 == 0) read_name(k);
      return;
    }
  if (n_threads == max_threads) return;
  threads[n_threads].tid = tid;
  read_name(n_threads++);
}

static void* sampler_main(void* arg) {
  (void)arg;
  sampler_tid = gettid_();
  const pid_t pid = getpid();
  const struct timespec period = {period_ms / 1000, (period_ms % 1000) * 1000000L};
  while (!__atomic_load_n(&stop_sampler, __ATOMIC_ACQUIRE)) {
    DIR* d = opendir("/proc/self/task");
    if (d) {
      for (struct dirent* e; (e = readdir(d)) != 0;) {
        const pid_t tid = (pid_t)atoi(e->d_name);
        if (tid <= 0 || tid == sampler_tid) continue;
        note_thread(tid);
        syscall(SYS_tgkill, pid, tid, sample_signal);  // ESRCH for a thread gone since: fine
      }
      closedir(d);
    }
    ++ticks;
    nanosleep(&period, 0);
  }
  return 0;
}

__attribute__((constructor)) static void wall_sampler_start(void) {
  void* warm[4];
  backtrace(warm, 4);  // loads libgcc_s now, not in the first handler
  const char* ms = getenv("WALL_SAMPLER_MS");
  if (ms && atol(ms) > 0) period_ms = atol(ms);
  const char* slots = getenv("WALL_SAMPLER_SLOTS");
  ring_slots = slots && atoll(slots) > 0 ? (uint64_t)atoll(slots) : (uint64_t)2 << 20;
  void* mem = mmap(0, ring_slots * sizeof(struct sample), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    fprintf(stderr, "wall_sampler: mmap of %llu samples failed; not sampling\n",
            (unsigned long long)ring_slots);
    return;
  }
  ring = (struct sample*)mem;
  owner_pid = getpid();
  sample_signal = SIGRTMIN + 3;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sample_signal, &sa, 0) != 0) {
    fprintf(stderr, "wall_sampler: sigaction failed; not sampling\n");
    return;
  }
  // The sampler thread starts with every signal blocked: the process's own signals go to its
  // own threads. It is the constructor's last step: everything it reads is set up before.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  sampler_running = pthread_create(&sampler, 0, sampler_main, 0) == 0;
  pthread_sigmask(SIG_SETMASK, &old, 0);
  if (!sampler_running) fprintf(stderr, "wall_sampler: no sampler thread; not sampling\n");
}

static void write_file(FILE* f, const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[65536];
  for (ssize_t r; (r = read(fd, buf, sizeof buf)) > 0;) fwrite(buf, 1, (size_t)r, f);
  close(fd);
}

__attribute__((destructor)) static void wall_sampler_stop(void) {
  if (!sampler_running || getpid() != owner_pid) return;
  __atomic_store_n(&stop_sampler, 1, __ATOMIC_RELEASE);
  pthread_join(sampler, 0);
  sampler_running = 0;
  // Signals sent just before the stop may still be on their way or in a handler: a moment for
  // them; a slot not marked ready after that is left out.
  const struct timespec ms = {0, 1000000L};
  for (int k = 0; k < 50 && __atomic_load_n(&in_handler, __ATOMIC_ACQUIRE) != 0; ++k)
    nanosleep(&ms, 0);
  nanosleep(&ms, 0);

  const char* out = getenv("WALL_SAMPLER_OUT");
  if (!out || !*out) out = "/tmp/wall_samples.txt";
  char path[4096];
  const char* p = strstr(out, "%p");
  if (p)
    snprintf(path, sizeof path, "%.*s%d%s", (int)(p - out), out, (int)getpid(), p + 2);
  else
    snprintf(path, sizeof path, "%s", out);
  FILE* f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "wall_sampler: cannot write %s\n", path);
    return;
  }
  static char fbuf[1 << 20];
  setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
  uint64_t n = __atomic_load_n(&next_slot, __ATOMIC_ACQUIRE);
  if (n > ring_slots) n = ring_slots;
  char exe[4096];
  const ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[el > 0 ? el : 0] = 0;
  fprintf(f, "wall_sampler period_ms %ld samples %llu dropped %llu\n", period_ms,
          (unsigned long long)n, (unsigned long long)__atomic_load_n(&dropped, __ATOMIC_RELAXED));
  fprintf(f, "exe %s\n", exe);
  for (int k = 0; k < n_threads; ++k)
    fprintf(f, "thread %d %s\n", (int)threads[k].tid, threads[k].name[0] ? threads[k].name : "?");
  fputs("maps begin\n", f);
  write_file(f, "/proc/self/maps");
  fputs("maps end\n", f);
  for (uint64_t i = 0; i < n; ++i) {
    const struct sample* s = &ring[i];
    if (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE)) continue;
    fprintf(f, "%d %d", (int)s->tid, (int)s->depth);
    for (int k = 0; k < s->depth; ++k) fprintf(f, " %lx", (unsigned long)(uintptr_t)s->frames[k]);
    fputc('\n', f);
  }
  if (fclose(f) != 0) fprintf(stderr, "wall_sampler: error writing %s\n", path);
}
