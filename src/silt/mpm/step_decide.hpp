// The body of the dt kernel (step_control.hpp), shared by the one-device dt launch and the
// multi-GPU kernel that agrees, decides and clears in one launch (multi_kernels.cpp).
#pragma once

#include <cfloat>

#include "silt/core/config.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/kernels/cfl_k.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// One thread: dt from the largest speed and the wave speed (or fixed), clipped to the frame end;
/// whether the step runs at all (frame over, fault, halt, pause); the rebuild decision; clock and
/// counters. A step that runs resets vmax for its G2P.
SILT_HD SILT_FORCEINLINE void decide_step(StepControl& c, const StepParams& params,
                                          const FaultView& fault) {
  const float vmax = c.vmax;
  // Compressed fluid carries faster waves than any material at rest (compressed_wave_speed).
  const float wave = c.cmax > params.wave_speed ? c.cmax : params.wave_speed;
  // The stable limit alone (no max_dt cap), for the warning about a too large fixed dt.
  const float limit = cfl_dt(params.dx, vmax, wave, params.cfl, params.elastic_cfl, FLT_MAX);
  bool run = c.more != 0 && !fault.raised() && c.halt == 0;
  if (run && (c.num_blocks > params.grow_blocks || c.pause_request != 0)) {
    c.paused = 1;  // the host grows the grid and resumes; this step has not started
    run = false;
  }
  float dt = 0.0f;
  bool last = false;
  if (run) {
    dt = params.fixed_dt > 0.0f ? params.fixed_dt : (limit < params.max_dt ? limit : params.max_dt);
    if (params.fixed_dt > 0.0f && params.fixed_dt > limit) ++c.unstable_steps;
    if (limit < c.dt_limit_min) c.dt_limit_min = limit;
    // The last step of a frame is clipped to land on the frame end. A remainder within 0.1% of
    // dt is folded into this step: float dt summed over hundreds of steps would otherwise leave a
    // sliver step of ~1e-6 dt (0.1% more than the CFL dt is harmless).
    const double remaining = c.frame_end - c.time;
    if (remaining <= double(dt) * (1.0 + 1e-3)) {
      dt = float(remaining);
      last = true;
    }
    if (!(dt > 0.0f) || !(dt <= FLT_MAX)) {
      fault.raise(kFaultBadDt, c.steps, 0);
      run = false;
    } else if (c.steps >= params.max_steps) {
      fault.raise(kFaultStepLimit, c.steps, 0);
      run = false;
    }
  }
  if (!run) {
    c.active = 0;
    c.more = 0;
    c.rebuild = 0;
    return;
  }
  const bool rebuild = c.since_rebuild >= params.rebuild_period || c.zone_escape != 0;
  if (rebuild) {
    if (c.zone_escape != 0 && c.since_rebuild < params.rebuild_period) ++c.forced_rebuilds;
    ++c.rebuilds;
    c.since_rebuild = 0;
    c.zone_escape = 0;
  }
  ++c.since_rebuild;
  ++c.steps;
  ++c.serial;
  // Identity of the max that this step's G2P folds in (speeds are >= 0). A kernel that runs no
  // step keeps it: the next one that does still needs the last G2P's speeds.
  c.vmax = 0.0f;
  c.cmax = 0.0f;  // likewise for this step's P2G
  c.active = 1;
  c.rebuild = rebuild ? 1 : 0;
  c.dt_prev = c.dt;
  c.dt = dt;
  c.time = last ? c.frame_end : c.time + double(dt);
  c.more = last ? 0 : 1;
  if (dt < c.dt_min) c.dt_min = dt;
  if (dt > c.dt_max) c.dt_max = dt;
}

/// Inside a frame graph: the WHILE node's `more` and the IF node's `rebuild` from the decision.
SILT_HD SILT_FORCEINLINE void set_step_conditionals(const StepHandles& handles,
                                                    const StepControl& c) {
#if SILT_DEVICE_PASS
  if (handles.in_graph) {
    cudaGraphSetConditional(handles.more, unsigned(c.more));
    cudaGraphSetConditional(handles.rebuild, unsigned(c.rebuild));
  }
#else
  (void)handles;
  (void)c;
#endif
}

}  // namespace silt::mpm
