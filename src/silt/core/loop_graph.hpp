// A device-side loop as one CUDA graph (paper 000 §3, principles 3 and 4: a launch inside a graph
// costs a tenth of a plain one, docs/NOTES.md): the host launches it once and never waits inside
// it. Built from conditional nodes:
//
//   WHILE (loop) {                  loop: cleared by the device after the last iteration
//                                   (the body below, copies times)
//     pre                           sets loop and branch (e.g. the MPM dt kernel)
//     IF (branch) { branch }        runs only when pre asked for it (costs nothing when skipped)
//     step
//   }
//
// The phases are recorded by stream capture (cudaStreamBeginCaptureToGraph on a non-default
// stream) of the very launches a plain loop makes, so both paths run the same kernels. The graph
// bakes in pointers and sizes: record it again when they change (record_again). The one CUDA-graph wrapper of
// silt.
#pragma once

#include <functional>
#include <memory>

#include "silt/core/config.hpp"
#include "silt/core/exec.hpp"

namespace silt {

/// The graph's conditional handles (cudaGraphConditionalHandle values) as device code sets them;
/// zero when the loop runs from plain launches.
struct LoopHandles {
  unsigned long long loop = 0;    // the WHILE node
  unsigned long long branch = 0;  // the IF node of this copy of the body
  int in_graph = 0;
};

/// Device code: the loop goes on (loop != 0) and this copy's branch runs (branch != 0).
SILT_HD SILT_FORCEINLINE void set_loop_conditionals(const LoopHandles& h, unsigned loop,
                                                    unsigned branch) {
#if SILT_DEVICE_PASS
  if (h.in_graph) {
    cudaGraphSetConditional(h.loop, loop);
    cudaGraphSetConditional(h.branch, branch);
  }
#else
  (void)h, (void)loop, (void)branch;
#endif
}

/// Device code: ends the loop after this iteration.
SILT_HD SILT_FORCEINLINE void end_loop(const LoopHandles& h) {
#if SILT_DEVICE_PASS
  if (h.in_graph) cudaGraphSetConditional(h.loop, 0u);
#else
  (void)h;
#endif
}

class LoopGraph {
 public:
  using Pre = std::function<void(const LoopHandles&)>;
  using Phase = std::function<void()>;

  /// Records the loop on exec's stream (which must not be the legacy default stream). Throws
  /// silt::Error when capture or instantiation fails (e.g. a launch that synchronises during
  /// capture, as debug builds do), leaving the stream usable for plain launches. copies: the body
  /// holds that many copies of pre -> IF(branch) -> step (each with its own IF node), so the
  /// loop's per-iteration cost is paid once per that many; a copy after the last iteration's
  /// work must find its gates clear. step gets the handles of its copy too (a step that decides
  /// late ends the loop itself).
  LoopGraph(const Exec& exec, const Pre& pre, const Phase& branch, const Pre& step, int copies);
  ~LoopGraph();
  LoopGraph(const LoopGraph&) = delete;
  LoopGraph& operator=(const LoopGraph&) = delete;

  /// Records the phases again (after sizes or pointers they baked in changed) and updates the
  /// instance in place when the topology is the same (cudaGraphExecUpdate), which costs far less
  /// than instantiating; instantiates again otherwise. Returns true when it updated in place.
  /// Throws silt::Error like the constructor.
  bool record_again(const Pre& pre, const Phase& branch, const Pre& step, int copies);
  /// Enqueues one run of the whole loop on the stream; no host wait.
  void launch();
  /// True when this build can record conditional graphs (CUDA 12.4 or newer).
  static bool supported();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt
