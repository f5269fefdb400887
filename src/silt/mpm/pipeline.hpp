// The essential phases of an MPM step on one device (paper 000 §4.2): P2G with stress, plasticity
// and SVD merged in (material_k), the grid update with boundaries in one launch, and G2P with
// advection and the free-zone guard in one launch; plus the fused G2P2G variant for small scenes.
// Every launch reads dt and the active flag from the device StepControl, so the host never waits.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/kernels/grid_update_k.hpp"
#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// One row of the device material table. Particles store its index: a material plus the volume
/// and mass its source sampled particles with (particles_per_cell differs per source).
struct ParticleClass {
  MaterialParams<float> material;
  float volume0 = 0;       // m^3, initial particle volume dx^3 / ppc
  float mass = 0;          // kg, density * volume0
  int scene_material = 0;  // index into Scene::materials
  int first_body = 0;      // multi-field contact (Scene::contact): 1 in the first body, else 0
};

/// Settings of the transfers, copied into the kernels by value.
struct TransferArgs {
  Index particles = 0;
  int dims = 3;  // 3, or 2 (plane strain in x-y): the launches pick the stencil from it
  GridGeometry geo;
  float clamp_lo[3] = {}, clamp_hi[3] = {};  // m, particles are kept inside this box (walls)
  /// G2P moves particles out of these (device table; the grid update's colliders).
  const ColliderParams<float>* colliders = nullptr;
  int n_colliders = 0;
  const ParticleClass* classes = nullptr;  // device table
  /// P2G folds the wave speed of compressed fluid particles in here (StepControl::cmax of the
  /// solver; compressed_wave_speed), for the next step's dt. nullptr: not tracked.
  float* wave_max = nullptr;
  bool asflip = false;
  float flip = 0;            // ASFLIP blend a, -
  float advect = 0;          // ASFLIP position-correction weight b_max, -
  bool split_force = false;  // stress force in its own grid channels (ASFLIP, G2P2G)
  /// Cells by which G2P's free-zone guard fires early: 1 where the rebuild it asks for comes a
  /// step later (several GPUs with one synchronisation per step, StepParams::lagged).
  int zone_margin = 0;
  /// P2G: lanes sharing a stencil base sum first (lane_group.hpp). Always true, but a kernel
  /// argument on purpose: grouping known at compile time made nvcc spill 25% more in P2G at the
  /// 80-register cap (192 against 168 bytes of stack) and every MPM benchmark 6% slower on the
  /// H200 (docs/NOTES.md, 2026-12-01).
  bool warp_groups = true;
};

/// Settings of the grid update; dt and time are filled in on the device from StepControl.
struct GridArgs {
  GridUpdateParams<float> update{};
  const ColliderParams<float>* colliders = nullptr;  // device table
  int n_colliders = 0;
  GridGeometry geo;
};

/// Runs where *gate != 0 (StepControl::active for the split pipeline, ::rebuild for the re-scatter
/// after a rebuild under G2P2G). advance_f: apply the pending F update (F <- (I + dt_prev C) F)
/// first; false when F is already current (G2P2G advances it).
void enqueue_p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault, const int* gate, bool advance_f,
                 HostPartials partials = {});
/// fault: kFaultFixedRange for a node sum out of the fixed-point range (deterministic mode).
void enqueue_grid_update(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                         FaultView fault);
void enqueue_g2p(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                 StepControl* ctl, FaultView fault);
/// G2P of this step and P2G of the next in one launch (Wang et al. 2020; paper 000 §4.2 keeps it
/// for small scenes without emitters). Needs a.split_force.
void enqueue_g2p2g(const Exec& exec, const TransferArgs& a, ParticleView p, GridView g,
                   StepControl* ctl, FaultView fault, HostPartials partials = {});

}  // namespace silt::mpm
