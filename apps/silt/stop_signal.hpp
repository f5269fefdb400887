// SIGINT and SIGTERM stop `silt run` between frames (DESIGN.md §7, "Signals stop a run cleanly"):
// the handler only records the signal; the run loop looks between frames, stops stepping, lets the
// frame writer drain (every queued frame written completely) and exits with 128 + the signal
// (130, 143). A second signal ends the process at once, the default way. The library never sees
// signals; this lives in the app.
#pragma once

namespace silt::app {

class StopSignals {
 public:
  /// Installs the handlers (and ignores SIGXFSZ, so that a file over the size limit fails to
  /// write with EFBIG and is reported as an error naming it rather than killing the process).
  StopSignals();
  /// Restores what was there before.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The signal received (SIGINT, SIGTERM), or 0.
  static int received();
  /// "SIGINT" / "SIGTERM".
  static const char* name(int signal);
};

}  // namespace silt::app
