#include "silt/mpm/step_control.hpp"

#include <cfloat>

#include "silt/core/parallel_for.hpp"
#include "silt/mpm/kernels/cfl_k.hpp"
#include "silt/mpm/speed_max.hpp"

namespace silt::mpm {

void begin_frame(const Exec& exec, StepControl* ctl, double span) {
  parallel_for(
      exec, "mpm.begin_frame", 1, SILT_LAMBDA(Index) {
        StepControl& c = *ctl;
        // Single steps never clip: a frame end at +inf (1e300 s) is never reached.
        c.frame_end = span > 0 ? c.time + span : 1e300;
        c.more = 1;
        c.paused = 0;
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
  parallel_for(
      exec, "mpm.dt", 1, SILT_LAMBDA(Index) {
        StepControl& c = *ctl;
        const float vmax = c.vmax;
        // The stable limit alone (no max_dt cap), for the warning about a too large fixed dt.
        const float limit =
            cfl_dt(params.dx, vmax, params.wave_speed, params.cfl, params.elastic_cfl, FLT_MAX);
        bool run = c.more != 0 && !fault.raised() && c.halt == 0;
        if (run && (c.num_blocks > params.grow_blocks || c.pause_request != 0)) {
          c.paused = 1;  // the host grows the grid and resumes; this step has not started
          run = false;
        }
        float dt = 0.0f;
        bool last = false;
        if (run) {
          dt = params.fixed_dt > 0.0f ? params.fixed_dt
                                      : (limit < params.max_dt ? limit : params.max_dt);
          if (params.fixed_dt > 0.0f && params.fixed_dt > limit) ++c.unstable_steps;
          if (limit < c.dt_limit_min) c.dt_limit_min = limit;
          // The last step of a frame is clipped to land on the frame end. A remainder within 0.1%
          // of
          // dt is folded into this step: float dt summed over hundreds of steps would otherwise
          // leave a sliver step of ~1e-6 dt (0.1% more than the CFL dt is harmless).
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
        } else {
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
          // Identity of the max that this step's G2P folds in (speeds are >= 0). A kernel that
          // runs no step keeps it: the next one that does still needs the last G2P's speeds.
          c.vmax = 0.0f;
          c.active = 1;
          c.rebuild = rebuild ? 1 : 0;
          c.dt_prev = c.dt;
          c.dt = dt;
          c.time = last ? c.frame_end : c.time + double(dt);
          c.more = last ? 0 : 1;
          if (dt < c.dt_min) c.dt_min = dt;
          if (dt > c.dt_max) c.dt_max = dt;
        }
#if SILT_DEVICE_PASS
        if (handles.in_graph) {
          cudaGraphSetConditional(handles.more, unsigned(c.more));
          cudaGraphSetConditional(handles.rebuild, unsigned(c.rebuild));
        }
#else
    (void)handles;
#endif
      });
}

}  // namespace silt::mpm
