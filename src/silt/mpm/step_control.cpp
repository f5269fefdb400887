#include "silt/mpm/step_control.hpp"

#include <cfloat>

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/speed_max.hpp"
#include "silt/mpm/step_decide.hpp"

namespace silt::mpm {

void begin_frame(const Exec& exec, StepControl* ctl, double span) {
  parallel_for(
      exec, "mpm.begin_frame", 1, SILT_LAMBDA(Index) {
        StepControl& c = *ctl;
        // Single steps never clip: a frame end at +inf (1e300 s) is never reached.
        c.frame_end = span > 0 ? c.time + span : 1e300;
        c.more = 1;
        c.paused = 0;
        c.agreed.pause = 0;  // the host grows the grids before every frame
        c.active = 0;
        c.steps = 0;
        c.rebuilds = 0;
        c.forced_rebuilds = 0;
        c.sorts = 0;
        c.unstable_steps = 0;
        // vmax is kept: it holds the speeds of the particles as the last G2P left them.
        c.dt_limit_min = FLT_MAX;
        c.dt_min = FLT_MAX;
        c.dt_max = 0.0f;
      });
}

void resume_frame(const Exec& exec, StepControl* ctl) {
  parallel_for(
      exec, "mpm.resume_frame", 1, SILT_LAMBDA(Index) {
        ctl->more = 1;
        ctl->paused = 0;
        ctl->agreed.pause = 0;  // the host has grown the grids
      });
}

void reduce_max_speed(const Exec& exec, const float* v, Index n, StepControl* ctl) {
  parallel_reduce_into<detail::MaxOp>(
      exec, "mpm.dt.max_speed", n,
      SILT_LAMBDA(Index i)->float { return particle_speed(v[3 * i], v[3 * i + 1], v[3 * i + 2]); },
      &ctl->vmax);
}

void launch_dt_kernel(const Exec& exec, StepControl* ctl, const StepParams& params,
                      const StepHandles& handles, FaultView fault) {
  if (!exec.is_cuda()) {  // no OpenMP team for one thread's work
    decide_step(*ctl, params, fault);
    set_step_conditionals(handles, *ctl);
    return;
  }
  parallel_for(
      exec, "mpm.dt", 1, SILT_LAMBDA(Index) {
        decide_step(*ctl, params, fault);
        set_step_conditionals(handles, *ctl);
      });
}

}  // namespace silt::mpm
