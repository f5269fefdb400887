// What an MPM run continues from (mpm::Solver::state / restore; the file: io/mpm/checkpoint.hpp):
// every part's particles in store order with the block each was binned into at the last rebuild,
// the step control values that carry from one step to the next, the emitters' progress and the
// split between parts. Taken between frames.
#pragma once

#include <cstdint>
#include <vector>

#include "silt/mpm/particles.hpp"

namespace silt::mpm {

struct PartState {
  HostParticles particles;         // store order (the order P2G scatters in)
  std::vector<std::int32_t> home;  // 3 per particle: block coordinates of the last rebuild
  // StepControl values that carry over (step_control.hpp):
  double time = 0;  // s
  float dt = 0, dt_prev = 0, vmax = 0, cmax = 0;
  std::int32_t since_rebuild = 0, zone_escape = 0, rebuild_serial = 0, serial = 0;
  std::int32_t accum_parity = 0, num_blocks = 0;
};

struct RestartState {
  std::vector<PartState> parts;        // over all ranks, in part order (state(): on rank 0 only)
  std::vector<std::uint64_t> emitted;  // per source: emissions taken
  std::int32_t next_id = 0;            // next particle id
  std::int64_t frame = 0;              // frames advanced
  std::int32_t last_frame_steps = 0;
  std::int32_t axis = -1;    // split axis (several parts), -1: none yet
  std::vector<double> cuts;  // m, along the axis
  std::int32_t rebalances = 0;
};

}  // namespace silt::mpm
