// The body of the dt kernel (step_control.hpp), shared by the one-device dt launch and the
// lagged decision of parts on several GPUs (mpm/exchange/kernels.cpp).
#pragma once

#include <cfloat>

#include "silt/core/config.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/kernels/cfl_k.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// The step size from the largest speed vmax and the compressed-fluid wave speed cmax (m/s), or
/// the fixed dt, clipped to the frame end (last: the step ends the frame). Counts a fixed dt above
/// the stable limit and keeps the smallest stable dt. Raises kFaultBadDt (returns false) when
/// the result is not a positive finite number.
SILT_HD SILT_FORCEINLINE bool choose_dt(StepControl& c, const StepParams& params, float vmax,
                                        float cmax, const FaultView& fault, float& dt, bool& last) {
  // Compressed fluid carries faster waves than any material at rest (compressed_wave_speed).
  const float wave = cmax > params.wave_speed ? cmax : params.wave_speed;
  // The stable limit alone (no max_dt cap), for the warning about a too large fixed dt.
  const float limit = cfl_dt(params.dx, vmax, wave, params.cfl, params.elastic_cfl, FLT_MAX);
  dt = params.fixed_dt > 0.0f ? params.fixed_dt : (limit < params.max_dt ? limit : params.max_dt);
  if (params.fixed_dt > 0.0f && params.fixed_dt > limit) ++c.unstable_steps;
  if (limit < c.dt_limit_min) c.dt_limit_min = limit;
  // The last step of a frame is clipped to land on the frame end. A remainder within 0.1% of
  // dt is folded into this step: float dt summed over hundreds of steps would otherwise leave a
  // sliver step of ~1e-6 dt (0.1% more than the CFL dt is harmless).
  last = false;
  const double remaining = c.frame_end - c.time;
  if (remaining <= double(dt) * (1.0 + 1e-3)) {
    dt = float(remaining);
    last = true;
  }
  if (!(dt > 0.0f) || !(dt <= FLT_MAX)) {
    fault.raise(kFaultBadDt, c.steps, 0);
    return false;
  }
  return true;
}

/// The chosen dt into the control: the clock moves to the end of the step.
SILT_HD SILT_FORCEINLINE void commit_dt(StepControl& c, float dt, bool last) {
  c.dt = dt;
  c.time = last ? c.frame_end : c.time + double(dt);
  c.more = last ? 0 : 1;
  if (dt < c.dt_min) c.dt_min = dt;
  if (dt > c.dt_max) c.dt_max = dt;
}

/// One thread: dt from the largest speed and the wave speed (or fixed), clipped to the frame end;
/// whether the step runs at all (frame over, fault, halt, pause); the rebuild decision; clock and
/// counters. A step that runs resets vmax for its G2P. With params.lagged (several GPUs, one
/// synchronisation per step) only agreed values decide, and an adaptive dt is left to the grid
/// update (choose_dt and commit_dt there, after the barrier).
SILT_HD SILT_FORCEINLINE void decide_step(StepControl& c, const StepParams& params,
                                          const FaultView& fault) {
  const bool lagged = params.lagged != 0;
  // A part's own fault stops it only once agreed (halt): the others would wait for it.
  bool run = c.more != 0 && c.agreed.halt == 0 && (lagged || !fault.raised());
  if (run && ((!lagged && c.num_blocks > params.grow_blocks) || c.agreed.pause != 0)) {
    c.paused = 1;  // the host grows the grid and resumes; this step has not started
    run = false;
  }
  const bool defer = lagged && !(params.fixed_dt > 0.0f);
  float dt = 0.0f;
  bool last = false;
  if (run && !defer)
    run = choose_dt(c, params, lagged ? c.agreed.vmax : c.vmax, lagged ? c.agreed.cmax : c.cmax,
                    fault, dt, last);
  if (run && c.steps >= params.max_steps) {
    fault.raise(kFaultStepLimit, c.steps, 0);
    run = false;
  }
  if (!run) {
    c.active = 0;
    c.more = 0;
    c.rebuild = 0;
    return;
  }
  // agreed.escape: a lagged run's guard (also left over when single steps follow lagged frames).
  const bool escape = (!lagged && c.zone_escape != 0) || c.agreed.escape != 0;
  const bool rebuild = c.since_rebuild >= params.rebuild_period || escape;
  if (rebuild) {
    if (escape && c.since_rebuild < params.rebuild_period) ++c.forced_rebuilds;
    ++c.rebuilds;
    c.since_rebuild = 0;
    if (!lagged) c.zone_escape = 0;
    c.agreed.escape = 0;
  }
  ++c.since_rebuild;
  ++c.steps;
  ++c.serial;
  // Identity of the max that this step's G2P folds in (speeds are >= 0). A kernel that runs no
  // step keeps it: the next one that does still needs the last G2P's speeds. Lagged: the grid
  // update resets both once it has published them.
  if (!lagged) {
    c.vmax = 0.0f;
    c.cmax = 0.0f;  // likewise for this step's P2G
  }
  c.active = 1;
  c.rebuild = rebuild ? 1 : 0;
  c.accum_parity ^= 1;  // the other P2G accumulator (used where the grid has two)
  c.dt_prev = c.dt;
  if (!defer) commit_dt(c, dt, last);
}

/// Inside a frame graph: the WHILE node's `more` and the IF node's `rebuild` from the decision.
SILT_HD SILT_FORCEINLINE void set_step_conditionals(const StepHandles& handles,
                                                    const StepControl& c) {
  set_loop_conditionals(handles, unsigned(c.more), unsigned(c.rebuild));
}

}  // namespace silt::mpm
