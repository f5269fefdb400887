#include "silt/view/run_control.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "silt/core/error.hpp"

namespace silt::view {

Command parse_command(const std::string& text, double* time) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("not JSON ({})", e.what()));
  }
  if (!j.is_object() || !j.contains("cmd") || !j["cmd"].is_string())
    throw Error("expected an object with a string \"cmd\"");
  const std::string c = j["cmd"];
  for (const auto& [key, value] : j.items())
    if (key != "cmd" && !(key == "time" && c == "seek"))
      throw Error(fmt::format("unknown key '{}'", key));
  if (c == "pause") return Command::pause;
  if (c == "resume") return Command::resume;
  if (c == "step") return Command::step;
  if (c == "shown") return Command::shown;
  if (c == "live") return Command::live;
  if (c == "seek") {
    if (!j.contains("time") || !j["time"].is_number() || !std::isfinite(j["time"].get<double>()))
      throw Error("seek needs a number \"time\" (s)");
    if (time) *time = j["time"];
    return Command::seek;
  }
  throw Error(fmt::format("unknown cmd '{}' (pause, resume, step, shown, seek or live)", c));
}

void RunControl::apply(Command c) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    switch (c) {
      case Command::pause:
        paused_ = true;
        break;
      case Command::resume:
        paused_ = false;
        steps_ = 0;
        break;
      case Command::step:
        paused_ = true;
        ++steps_;
        break;
      case Command::shown:  // the Client's and the Viewer's, not the run's
      case Command::seek:
      case Command::live:
        return;
    }
  }
  changed_.notify_all();
}

bool RunControl::paused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paused_;
}

bool RunControl::wait_for_go(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!paused_) return true;
  changed_.wait_for(lock, wait, [&] { return !paused_ || steps_ > 0; });
  if (!paused_) return true;
  if (steps_ > 0) {
    --steps_;
    return true;
  }
  return false;
}

}  // namespace silt::view
