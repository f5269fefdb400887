#include "stop_signal.hpp"

#include <atomic>
#include <csignal>

namespace silt::app {

namespace {

std::atomic<int> g_received{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

constexpr int kStopSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[2];
struct sigaction g_previous_xfsz;

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  if (!g_received.compare_exchange_strong(none, sig)) {
    // The second signal: the user insists; end now, as the default action would.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // writes in progress go on; the run stops between frames
  for (int k = 0; k < 2; ++k) sigaction(kStopSignals[k], &sa, &g_previous[k]);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, &g_previous_xfsz);
}

StopSignals::~StopSignals() {
  for (int k = 0; k < 2; ++k) sigaction(kStopSignals[k], &g_previous[k], nullptr);
  sigaction(SIGXFSZ, &g_previous_xfsz, nullptr);
}

int StopSignals::received() {
  return g_received.load();
}

const char* StopSignals::name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace silt::app
