// Rebuilding the particle-block mapping (paper 000 §4.2.1, the non-essential phases): allocate the
// blocks around every particle (its nearest node's block and the 26 around it, the free zone),
// number them, record each block's neighbours, bin the particles by block with a counting sort and
// move them into block order. The launches are gated on StepControl::rebuild, read on the device: a
// step that does not rebuild pays only for early-exit launches in the plain path, and nothing at
// all inside a CUDA graph, where the rebuild sits in a conditional node.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// What the rebuild kernels need besides the views.
struct RebuildArgs {
  Index particles = 0;   // particle count (host-known: it changes only between frames)
  float origin[3] = {};  // m, position of node 0
  float inv_dx = 0;      // 1/m
  bool sort = true;      // move particles into block order (off: bin only, for ablation)
  int order = 0;         // the order within a block, a SortOrder (solver.hpp)
  int sort_every = 1;    // sort at every n-th rebuild (the first included), bin only at the rest
};

/// Enqueues the whole rebuild on exec's stream; no host synchronisation.
void enqueue_rebuild(const Exec& exec, const RebuildArgs& args, ParticleView p, ParticleView s,
                     GridView g, StepControl* ctl, FaultView fault);
/// The launches enqueue_rebuild makes with these args (kept next to it in rebuild.cpp).
int rebuild_launch_count(const RebuildArgs& args);

}  // namespace silt::mpm
