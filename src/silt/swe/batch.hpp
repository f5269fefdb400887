// Several shallow-water solvers of one grid size stepped together (an ensemble's members on one
// GPU, docs/ensembles.md "Design: batching members on the GPU"): in lock step, one step of every
// member at a time, each member with its own device clock, time step and target, so that each
// takes exactly the steps, and ends with exactly the bits, of its own run. On CUDA one launch of
// the tile kernel updates the cells of every member (fused_step.hpp, phase_fused_update_batch)
// between the members' clocks and the rest of their steps, all on the one stream they share; on
// the CPU (and wherever the tile kernel is unavailable) the members step one after another.
#pragma once

#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "silt/swe/solver.hpp"

namespace silt::swe {

class Batch {
 public:
  /// The members, kept by reference (they must outlive the batch; they may still be read, edited
  /// and stepped on their own between the batch's calls). Each is one part (the whole grid on one
  /// exec), all of the same grid size and precision; on CUDA each on the same device and the same
  /// stream (SolverOptions::stream), with the first-order scheme on the tile kernel, the same
  /// features of it (rain rasters or infiltration, flow boundaries, point sources) and the same
  /// active cells. Throws silt::Error naming the first member that differs from member 0, and how.
  explicit Batch(std::vector<std::reference_wrapper<Solver>> members);
  ~Batch();
  Batch(Batch&&) noexcept;
  Batch& operator=(Batch&&) noexcept;

  int size() const;
  /// True when one launch of the tile kernel steps every member (CUDA); false when they step one
  /// after another.
  bool batched() const;
  /// count steps of every member, queued without a host wait (as Solver::step(count) each).
  void step_many(long long count);
  /// Every member to t_end, as Solver::advance_to(t_end, stop) does for one: each member's steps
  /// land on t_end (and on its rain frames' times) on its own clock; a member at its target takes
  /// steps of dt 0 until the batch of steps ends. Faults are read after each batch of steps:
  /// silt::Error names the member, whose state of the last good check is kept (the others stand
  /// at the end of that batch). stop (when not empty), asked after each batch, ends it early
  /// (false): every member then stands at the end of that batch, ready to go on.
  bool advance_to(double t_end, const std::function<bool()>& stop = {});

  /// One member's part of advance_each(): what Solver::advance_to(t_end, stop, after) asks of it
  /// alone.
  struct Leg {
    double t_end = 0;
    std::function<bool()> stop;  // asked after each batch of steps (empty: none)
    double after = std::numeric_limits<double>::infinity();
  };
  /// How a member's leg ended: reached (as advance_to returns true), stopped short by its stop
  /// (false), or its fault (the error advance_to alone throws; its state of the last good check
  /// kept).
  struct LegEnd {
    bool reached = false;
    bool stopped = false;
    std::exception_ptr fault;
  };
  /// Member k as Solver::advance_to(legs[k].t_end, legs[k].stop, legs[k].after) alone, all in lock
  /// step: the steps, and the bits, of each member's own run. A member that reaches its target,
  /// is stopped or faults leaves the lock step; the others go on. legs: one a member.
  std::vector<LegEnd> advance_each(const std::vector<Leg>& legs);
  /// Why the members step one after another ("" when batched()): member 0's reason.
  std::string refusal() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::swe
