// Stopping long set-up work (distance fields of mesh colliders, sampling) at the next safe point:
// a front end hands the library a StopCheck (the CLI's says whether SIGINT or SIGTERM arrived);
// the library polls it between pieces of work and throws Stopped when it says yes. The library
// never sees signals itself.
#pragma once

#include <functional>
#include <string>

#include "silt/core/error.hpp"

namespace silt {

/// Empty: nothing stops the work.
using StopCheck = std::function<bool()>;

/// Thrown where a poll saw a stop; the message says which work was stopped.
class Stopped : public Error {
 public:
  explicit Stopped(const std::string& what) : Error(what) {}
};

/// Throws Stopped("stopped during <during>") when stop says so.
inline void poll_stop(const StopCheck& stop, const std::string& during) {
  if (stop && stop()) throw Stopped("stopped during " + during);
}

}  // namespace silt
