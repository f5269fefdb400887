// MemberBatch (member_batch.hpp): the rendezvous of a device's members and its rounds.
#include "silt/run/member_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "silt/core/error.hpp"

namespace silt::run {

// One member's advance, from its ask to the end of the round that stepped it.
struct MemberBatch::Ask {
  swe::Solver* solver = nullptr;
  swe::Batch::Leg leg;
  swe::Batch::LegEnd end;
  bool taken = false;  // in a round (no longer pending)
  bool done = false;   // its round has ended
  bool alone = false;  // the group fell back: the member advances alone
  bool own = false;    // its own stop ended its leg (not a member that came)
};

MemberBatch::MemberBatch(const Exec& exec, std::function<void(const std::string&)> log)
    : exec_(exec), stream_(exec), log_(std::move(log)) {}

MemberBatch::~MemberBatch() = default;

swe::SolverOptions MemberBatch::solver_options() const {
  swe::SolverOptions o;
  const std::lock_guard<std::mutex> lock(m_);
  if (!on_ || !exec_.is_cuda()) return o;
  o.stream = stream_.exec().stream;
  return o;
}

std::string MemberBatch::summary() const {
  const std::lock_guard<std::mutex> lock(m_);
  if (!on_ || rounds_ == 0) return {};
  const std::string where = exec_.is_cuda() ? fmt::format(
                                                  "cuda device {}, one launch of the tile kernel a "
                                                  "step for all",
                                                  exec_.device)
                                            : std::string("the cpu, one after another");
  return fmt::format(
      "members batched on {}: up to {} members a round, {:.2f} on average over {} rounds "
      "(run.batch_members)",
      where, most_, double(stepped_) / double(rounds_), rounds_);
}

// A lone member must be able to share the tile kernel on CUDA (one part, first order): else the
// group falls back before the others build their solvers on its stream.
bool MemberBatch::sit(swe::Solver& solver) {
  if (exec_.is_cuda()) {
    std::string why;
    try {
      why = swe::Batch({std::ref(solver)}).refusal();
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty()) {
      fall_back(why);
      return false;
    }
  }
  const std::lock_guard<std::mutex> lock(m_);
  if (!on_) return false;
  seated_.push_back(&solver);
  return true;
}

void MemberBatch::leave(swe::Solver& solver) {
  {
    const std::lock_guard<std::mutex> lock(m_);
    seated_.erase(std::remove(seated_.begin(), seated_.end(), &solver), seated_.end());
  }
  cv_.notify_all();  // the others may all have asked
}

void MemberBatch::fall_back(const std::string& why) {
  {
    const std::lock_guard<std::mutex> lock(m_);
    if (!on_) return;
    on_ = false;
  }
  cv_.notify_all();
  log_(fmt::format(
      "members not batched on {} device {}: {}; they run in flight, each stepping alone",
      to_string(exec_.backend), exec_.device, why));
}

// Waits until every seated member has asked (the last to ask, or the first to wake once all
// have, runs the round), or for the round that took this ask.
bool MemberBatch::ask(swe::Solver& solver, const swe::Batch::Leg& leg, swe::Batch::LegEnd& end,
                      bool& again) {
  std::unique_lock<std::mutex> lock(m_);
  if (!on_) return false;
  Ask a;
  a.solver = &solver;
  a.leg = leg;
  pending_.push_back(&a);
  if (running_) waiting_ = true;  // the round ends at its next batch of steps
  cv_.notify_all();
  for (;;) {
    cv_.wait(lock, [&] {
      return a.done || (!on_ && !a.taken) ||
             (on_ && !running_ && pending_.size() >= seated_.size());
    });
    if (a.done) break;
    if (!a.taken) {
      if (!on_) {
        pending_.erase(std::remove(pending_.begin(), pending_.end(), &a), pending_.end());
        return false;
      }
      run_round(lock);
    }
  }
  if (a.alone) return false;
  end = std::move(a.end);
  again = end.stopped && !a.own;
  return true;
}

// With the lock held: steps the pending asks outside it, then wakes their members.
void MemberBatch::run_round(std::unique_lock<std::mutex>& lock) {
  running_ = true;
  waiting_ = false;
  std::vector<Ask*> asks;
  asks.swap(pending_);
  for (Ask* a : asks) a->taken = true;
  lock.unlock();
  step(asks);
  lock.lock();
  running_ = false;
  if (asks.size() > 1 && !asks.front()->alone) {
    ++rounds_;
    stepped_ += (long long)asks.size();
    most_ = std::max(most_, asks.size());
  }
  for (Ask* a : asks) a->done = true;
  cv_.notify_all();
}

// One swe::Batch::advance_each for the asks: each member's outcome its own. An error of the
// round itself (not of one member) reaches every member of it.
void MemberBatch::step(std::vector<Ask*>& asks) {
  std::sort(asks.begin(), asks.end(),
            [](const Ask* a, const Ask* b) { return a->solver < b->solver; });
  try {
    if (!batch_for(asks)) {
      for (Ask* a : asks) a->alone = true;
      return;
    }
    std::vector<swe::Batch::Leg> legs;
    for (Ask* a : asks) {
      legs.push_back(a->leg);
      legs.back().stop = [this, a] {
        if (a->leg.stop && a->leg.stop()) return a->own = true;
        return waiting_.load();
      };
    }
    std::vector<swe::Batch::LegEnd> ends = batch_->advance_each(legs);
    for (std::size_t k = 0; k < asks.size(); ++k) asks[k]->end = std::move(ends[k]);
  } catch (...) {
    for (Ask* a : asks) a->end.fault = std::current_exception();
  }
}

// The batch of these members (the last one again when they are the same); false when
// swe::Batch refuses them (the group falls back).
bool MemberBatch::batch_for(const std::vector<Ask*>& asks) {
  std::vector<swe::Solver*> now;
  for (const Ask* a : asks) now.push_back(a->solver);
  if (batch_ && now == batch_of_) return true;
  batch_.reset();
  batch_of_.clear();
  std::vector<std::reference_wrapper<swe::Solver>> members;
  for (swe::Solver* s : now) members.emplace_back(*s);
  try {
    batch_ = std::make_unique<swe::Batch>(std::move(members));
  } catch (const Error& e) {
    fall_back(e.what());
    return false;
  }
  if (exec_.is_cuda() && !batch_->batched()) {
    fall_back(batch_->refusal());
    batch_.reset();
    return false;
  }
  batch_of_ = std::move(now);
  return true;
}

MemberBatch::Seat::Seat(MemberBatch* group, swe::Solver& solver)
    : group_(group && group->sit(solver) ? group : nullptr), solver_(solver) {}

MemberBatch::Seat::~Seat() {
  leave();
}

void MemberBatch::Seat::leave() {
  if (group_) group_->leave(solver_);
  group_ = nullptr;
}

bool MemberBatch::Seat::advance_to(double t_end, const std::function<bool()>& stop, double after) {
  swe::Batch::Leg leg;
  leg.t_end = t_end;
  leg.stop = stop;
  leg.after = after;
  // A target the solver refuses is refused alone (its own error).
  if (!group_ || !std::isfinite(t_end)) return solver_.advance_to(t_end, stop, after);
  for (;;) {
    swe::Batch::LegEnd end;
    bool again = false;
    if (!group_->ask(solver_, leg, end, again)) return solver_.advance_to(t_end, stop, after);
    if (end.fault) std::rethrow_exception(end.fault);
    if (!again) return end.reached;
  }
}

}  // namespace silt::run
