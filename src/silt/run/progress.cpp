#include "silt/run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace silt::run {

namespace {
std::string clock_string(double seconds) {
  if (!(seconds >= 0) || seconds > 359999) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}
}  // namespace

Progress::Progress(double t_end, bool quiet)
    : t_end_(t_end),
      quiet_(quiet),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string Progress::bar(double t, long long steps) const {
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double frac = t_end_ > 0 ? std::clamp(t / t_end_, 0.0, 1.0) : 1.0;
  const double eta = frac > 0 ? wall * (1 - frac) / frac : -1;
  const double rate = wall > 0 ? steps / wall : 0;
  constexpr int kWidth = 28;
  const int filled = static_cast<int>(frac * kWidth);
  return fmt::format("[{}{}] {:3.0f}%  t = {:.4g} / {:.4g} s  {} steps  {:.0f} steps/s  ETA {}",
                     std::string(filled, '#'), std::string(kWidth - filled, ' '), 100 * frac, t,
                     t_end_, steps, rate, clock_string(eta));
}

void Progress::update(double t, long long steps) {
  if (quiet_ || !tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  fmt::print(stderr, "\r{}\x1b[K", bar(t, steps));
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::log(const std::string& line) {
  if (quiet_) return;
  if (tty_ && drawn_) fmt::print(stderr, "\r\x1b[K");
  fmt::print(stderr, "{}\n", line);
  drawn_ = false;
}

void Progress::clear() {
  if (tty_ && drawn_) fmt::print(stderr, "\r\x1b[K");
  drawn_ = false;
}

void Progress::done(double t, long long steps) {
  if (quiet_) return;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_ && drawn_) fmt::print(stderr, "\r\x1b[K");
  fmt::print(stderr, "finished: t = {:.6g} s, {} steps in {:.2f} s wall ({:.0f} steps/s)\n", t,
             steps, wall, wall > 0 ? steps / wall : 0.0);
}

}  // namespace silt::run
