// The members in flight on one device that step together (docs/ensembles.md, "On GPUs: members
// in flight"): each member keeps its own frame loop, adapter, files and checkpoints, but its
// advances meet here. When every member seated at the group has asked for its next advance, the
// last to ask runs one swe::Batch::advance_each for all of them (on CUDA one launch of the tile
// kernel a step for every member), each to its own target, and the others wake with their own
// outcomes: reached, stopped short, or the member's own fault, thrown in its own thread. A
// member that ends, faults or is stopped leaves (Seat's destructor), so nobody waits for it; a
// member that starts sits down before its first advance and is waited for from then on. A member
// that asks while a round runs without it ends that round at its next batch of steps (the
// round's members then ask again at once, as the wall-time stop of an advance does), so that it
// waits a batch of steps, not a whole round.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/swe/batch.hpp"
#include "silt/swe/solver.hpp"

namespace silt::run {

class MemberBatch {
 public:
  /// The group of `exec`'s device (on CUDA a stream of its own, made here, that every member's
  /// solver steps on; on the CPU the members step one after another: tests). log: a line to the
  /// run's log (called from the members' threads, one at a time).
  MemberBatch(const Exec& exec, std::function<void(const std::string&)> log);
  ~MemberBatch();
  MemberBatch(const MemberBatch&) = delete;
  MemberBatch& operator=(const MemberBatch&) = delete;

  /// What the group did, for the run's log ("": it stepped nothing together).
  std::string summary() const;

  /// The options of a member's solver: the group's stream. Left as they are once the group has
  /// fallen back to members in flight.
  swe::SolverOptions solver_options() const;

  /// A member's place at the group for its solver's life: its advances go through the group.
  /// With no group (null), or once the group has fallen back, the solver advances alone.
  class Seat {
   public:
    Seat(MemberBatch* group, swe::Solver& solver);
    ~Seat();
    Seat(const Seat&) = delete;
    Seat& operator=(const Seat&) = delete;
    /// As solver.advance_to(t_end, stop, after): the solver's own steps and bits, its own fault.
    bool advance_to(double t_end, const std::function<bool()>& stop, double after);
    /// Leaves the group (its run has ended: nobody waits for it any longer); again: nothing.
    void leave();

   private:
    MemberBatch* group_;  // null: not seated
    swe::Solver& solver_;
  };

 private:
  struct Ask;
  bool sit(swe::Solver& solver);
  void leave(swe::Solver& solver);
  /// The member's leg through the next round; false when the group has fallen back (the member
  /// then advances alone). again: the round ended short for a member that came (ask again).
  bool ask(swe::Solver& solver, const swe::Batch::Leg& leg, swe::Batch::LegEnd& end, bool& again);
  void run_round(std::unique_lock<std::mutex>& lock);
  void step(std::vector<Ask*>& asks);
  bool batch_for(const std::vector<Ask*>& asks);
  void fall_back(const std::string& why);

  const Exec exec_;
  Stream stream_;  // CUDA: the members' one stream
  const std::function<void(const std::string&)> log_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<swe::Solver*> seated_;
  std::vector<Ask*> pending_;         // asked, waiting for the next round
  bool running_ = false;              // a round is stepping (outside the lock)
  std::atomic<bool> waiting_{false};  // a member asked while a round runs without it
  bool on_ = true;                    // false: fallen back to members in flight
  // The batch of the last round's members (rebuilt when they change); the round's thread only.
  std::unique_ptr<swe::Batch> batch_;
  std::vector<swe::Solver*> batch_of_;
  long long rounds_ = 0, stepped_ = 0;  // rounds of more than one member, and their members
  std::size_t most_ = 0;                // members in one round at most
};

}  // namespace silt::run
