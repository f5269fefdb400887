#include "silt/run/member_turns.hpp"

namespace silt::run {

StepTurns::StepTurns(const std::map<int, std::size_t>& turns) {
  for (const auto& [device, n] : turns) lines_[device].turns = n;
}

// The k-th worker to ask (k from 0) goes on once k < turns + given: with tickets drawn in order
// and each give admitting one more, turns are served first come, first served.
void StepTurns::take(int device) {
  std::unique_lock<std::mutex> lock(m_);
  const auto it = lines_.find(device);
  if (it == lines_.end()) return;
  Line& l = it->second;
  const std::size_t ticket = l.asked++;
  cv_.wait(lock, [&l, ticket] { return ticket < l.turns + l.given; });
}

void StepTurns::give(int device) noexcept {
  {
    const std::lock_guard<std::mutex> lock(m_);
    const auto it = lines_.find(device);
    if (it == lines_.end()) return;
    ++it->second.given;
  }
  cv_.notify_all();
}

std::size_t StepTurns::waiting(int device) {
  const std::lock_guard<std::mutex> lock(m_);
  const auto it = lines_.find(device);
  if (it == lines_.end()) return 0;
  const Line& l = it->second;
  const std::size_t in = l.turns + l.given;
  return l.asked > in ? l.asked - in : 0;
}

}  // namespace silt::run
