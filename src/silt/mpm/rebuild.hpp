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
  Index particles = 0;  // particle count (host-known: it changes only between frames)
  int dims = 3;         // 2: the blocks of the plane z = 0 only (2D stencils never leave it)
  GridGeometry geo;
};

/// Rebuilds that sort: every kSortEvery-th (the first included) moves the particles into block
/// order, by the cell of their nearest node within a block (a warp's particles share cells); the
/// others bin only. Measured on the H200 (bench/results/mpm-2026-11-29-h200.md): cell order 6%
/// faster than atomic order; sorting at every 16th rebuild 0.205 ms/step on the cube against 0.230
/// at every rebuild.
constexpr int kSortEvery = 16;

/// Enqueues the whole rebuild on exec's stream; no host synchronisation.
void enqueue_rebuild(const Exec& exec, const RebuildArgs& args, ParticleView p, ParticleView s,
                     GridView g, StepControl* ctl, FaultView fault);
/// The launches enqueue_rebuild makes with these args (kept next to it in rebuild.cpp).
int rebuild_launch_count();

}  // namespace silt::mpm
