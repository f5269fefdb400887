// A whole frame of MPM steps as one CUDA graph (paper 000 §3, principles 3 and 4: a launch inside
// a graph costs a fraction of a plain one, docs/NOTES.md). The graph is a device-side loop built
// from conditional nodes, so the host launches it once per frame and never waits inside it:
//
//   WHILE (more) {                  more: set by the dt kernel, 0 after the frame's last step
//                                   (the body below, steps_per_iteration times)
//     pre                           max-speed reduction, dt kernel (sets more and rebuild)
//     IF (rebuild) { rebuild }      the mapping rebuild and sort, only every k steps or when the
//                                   free-zone guard asked for it (costs nothing when skipped)
//     step                          P2G, grid update, G2P
//   }
//
// The phases are recorded by stream capture (cudaStreamBeginCaptureToGraph on a non-default
// stream) of the very launches the plain path makes, so both paths run the same kernels. The
// graph bakes in pointers and sizes: rebuild it when particles are added or storage moves.
#pragma once

#include <functional>
#include <memory>

#include "silt/core/exec.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

class StepGraph {
 public:
  using Pre = std::function<void(const StepHandles&)>;
  using Phase = std::function<void()>;

  /// Records the frame loop on exec's stream (which must not be the legacy default stream).
  /// Throws silt::Error when capture or instantiation fails (e.g. a launch that synchronises
  /// during capture, as debug builds do), leaving the stream usable for plain launches.
  /// steps_per_iteration: the loop body holds that many copies of pre -> IF(rebuild) -> step
  /// (each with its own IF node), so the loop's per-iteration cost is paid once per that many
  /// steps; a copy after the frame's last step finds `more` clear and runs gated no-ops.
  /// step gets the handles of its copy too (a step that decides dt late ends the loop itself).
  StepGraph(const Exec& exec, const Pre& pre, const Phase& rebuild, const Pre& step,
            int steps_per_iteration = 1);
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  /// Enqueues one frame (the whole WHILE loop) on the stream; no host wait.
  void launch();

  /// A non-blocking stream on exec's device for the solver's work (nullptr on the host backend).
  static CUstream_st* create_stream(const Exec& exec);
  static void destroy_stream(const Exec& exec, CUstream_st* stream) noexcept;
  /// True when this build can record conditional graphs (CUDA 12.4 or newer).
  static bool supported();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::mpm
