// A batch of steps of one CUDA part as one launch of a CUDA graph (core/loop_graph.hpp), used by
// Engine::queue_steps (engine_graph.cpp). At ~50K cells a step's GPU work (~10 us) is below the
// host cost of its 2-5 plain launches; inside a graph a launch costs a tenth (docs/NOTES.md).
//
//   WHILE (steps left) {
//     countdown -> IF (run) { step at cur_ = parity }       copy 0
//     countdown -> IF (run) { step at cur_ = 1 - parity }   copy 1
//   }
//
// Both parities of the state's double buffer are in the body, so its baked pointers never change
// with cur_: a batch that starts at the other parity skips copy 0 of its first iteration. The
// countdown kernel (one thread) takes a slot from a device word the host sets before each launch
// (one tiny kernel: nothing baked changes) and ends the loop after the batch's last step. The
// graph runs exactly the steps the plain loop queues (no-op steps past the target included: they
// count in kLaunched), with the same kernels in the same order, so the results are the same bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/loop_graph.hpp"

namespace silt::swe::detail {

struct StepGraph {
  bool wanted = false;  // SolverOptions::step_graphs on a CUDA run of one part (tile kernels)
  bool failed = false;  // recording failed once: plain launches from then on
  bool dirty = true;    // something the graph baked in changed: record again before the next batch
  int parity = 0;       // cur_ of copy 0
  std::vector<int> rain_frames;  // the rain bracket it baked in (ForcingBuffers::frame_a, frame_b)
  // [0]: copies to skip before the first step (0 or 1); [1]: steps left.
  DeviceBuffer<int> count;
  std::unique_ptr<LoopGraph> graph;
};

/// Batches queued as one graph launch in this process so far (tests check the graph path ran).
std::uint64_t step_graph_launch_count();

}  // namespace silt::swe::detail
