// The clock of a step (phase_clock's one thread; the batched clock's thread of each member): the
// step's dt from the last CFL reduction, max_dt and the forcing's speed, clipped to the target,
// and the step's time, counts, rain and boundary values, on the view's device clock. Once, here,
// for every launch that runs it.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/boundary_k.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Fastest wave speed (m/s) of what the forcing imposes during the step [t, t + dt]: the states of
/// inflow segments (inflow_speed_k) at the largest discharge of the step, a discharge spread over
/// the segment's wet cells as edge_forcing() spreads it (over all of its cells while none is wet),
/// and the columns point sources pour (source_speed_k). Nondecreasing in dt.
template <class T>
SILT_HD double forcing_speed(const SolverView<T>& v, double t, double dt) {
  const double g = double(v.e.g), t1 = t + dt;
  double speed = 0.0;
  for (int s = 0; s < v.n_seg; ++s) {
    const int code = v.e.seg_kind[s];
    if (code != kDischarge && code != kInflowDepth && code != kInflowVelocity) continue;
    const int wet = v.seg_wet[s];
    const int n = code == kDischarge && wet > 0 ? wet : v.e.seg_cells[s];
    const double q = v.series_range(v.seg_series[s], t, t1).hi / (double(n) * v.dx);
    const SeriesRange aux = v.series_range(v.seg_aux_series[s], t, t1);
    speed = math::max(speed, inflow_speed_k(code, q, aux.lo, aux.hi, g));
  }
  for (int k = 0; k < v.n_all_sources; ++k) {  // all of the scene's: the same dt on every part
    const double q = v.series_range(v.source_series[k], t, t1).hi;
    speed = math::max(speed, source_speed_k(q, dt, v.dx, g));
  }
  return speed;
}

/// The largest step <= dt0 (s) from t in which the forcing's speed keeps the Courant number
/// (forcing_speed(dt) dt <= cfl dx), within a few per cent below it. The speed grows with the
/// step (a longer step reaches further up a rising hydrograph, a source pours a deeper column), so
/// the step must be chosen with the speed it will see: the speed at t alone let a dry bed, whose
/// cells impose no bound, take one step as long as cfl dx / speed_floor (minutes) with the
/// hydrograph sampled at its middle, and the depth at the inflow depend on that step. C / S(d)
/// is nonincreasing in d: from a step above the fixed point it gives one below it (a safe step),
/// from a safe step one above or at it; each pair of iterations closes the gap by the speed's
/// order in d (1/9 for a linear hydrograph, 1/4 for a source), and the safe one is kept.
template <class T>
SILT_HD double forcing_step(const SolverView<T>& v, double t, double dt0) {
  const double c = v.cfl * v.dx;
  const double s0 = forcing_speed(v, t, dt0);
  if (!(dt0 * s0 > c)) return dt0;
  double safe = c / s0;
  for (int k = 0; k < 3; ++k) {
    const double s_safe = forcing_speed(v, t, safe);
    const double up = s_safe > 0.0 ? math::min(c / s_safe, dt0) : dt0;
    if (!(up > safe)) break;
    const double s_up = forcing_speed(v, t, up);
    if (!(up * s_up > c)) return up;
    safe = math::max(safe, c / s_up);
  }
  return safe;
}

/// The largest step <= dt0 (s) from t whose Courant number holds once the step's rain has fallen,
/// where the scheme's fluxes see it (v.rain_before_fluxes; rain_column_step_k): Heun's stage 2
/// takes the step dt chosen from U^n to the state its stage 1 rained on, and on a dry bed, whose
/// cells bound no step, the first step (cfl dx / speed_floor, minutes) rained a film whose
/// stage-2 Courant number was ~4: negative depths (docs/NOTES.md, "muscl positivity on
/// rain_plane"). The rate is bounded over [t, t + dt0] (the uniform series' largest value there
/// plus the rasters' largest), the speed by the cells' (or the floor).
template <class T>
SILT_HD double rain_step(const SolverView<T>& v, double t, double dt0) {
  if (!v.rain_before_fluxes) return dt0;
  const double rain =
      math::max(v.series_range(v.rain_series, t, t + dt0).hi, 0.0) + v.forcing.rain_rate_max();
  const double smax = double(*v.smax);
  return rain_column_step_k(smax > v.speed_floor ? smax : v.speed_floor, rain, double(v.e.g),
                            v.cfl * v.dx, dt0);
}

/// One step of v's clock (one thread): dt from the last CFL reduction (*v.smax) and the forcing's
/// speed, bounded by max_dt, clipped to the target (0 past the target, past kStopAfter or after a
/// fault: a no-op step); the time, step count, rain and boundary values of the step.
template <class T>
SILT_HD void clock_step(const SolverView<T>& v) {
  double* c = v.clock;
  const double t = c[kTime], target = c[kTarget];
  double dt = 0.0, dt_unclipped = 0.0;
  bool clipped = false;
  if (!v.fault.raised() && t < target && t < c[kStopAfter]) {
    // The cells' CFL step (the speed of the last reduction) and max_dt, then the forcing's.
    const double dt_cells = cfl_dt_k(double(*v.smax), v.dx, v.cfl, v.speed_floor);
    const double dt_rain = rain_step(v, t, dt_cells < v.max_dt ? dt_cells : v.max_dt);
    const double dt_cfl = forcing_step(v, t, dt_rain);
    if (dt_cfl < v.min_dt) {
      v.fault.raise(kFaultTimeStep, -1, int(c[kSteps]) + 1);
    } else {
      dt = dt_unclipped = dt_cfl;
      if (!(t + dt < target)) {
        dt = target - t;
        clipped = true;
      }
    }
  }
  c[kDt] = dt;
  c[kDtDx] = dt / v.dx;
  c[kLaunched] += 1.0;
  if (!(dt > 0.0)) {
    // A no-op step: the state is carried over unchanged (phase_update_box), so its wave
    // speed stays in *v.smax for the next real step.
    c[kRain] = 0.0;
    c[kRainDepth] = 0.0;
    c[kRainW] = 0.0;
    return;
  }
  *v.smax = T(0);  // identity for this step's max-reduction (speeds are >= 0)
  c[kCflDt] = dt_unclipped;
  const double tm = t + 0.5 * dt;
  c[kTMid] = tm;
  c[kTime] = clipped ? target : t + dt;  // lands exactly on the target
  c[kSteps] += 1.0;
  c[kLastDt] = dt;
  const double rain = v.series(v.rain_series, tm);
  c[kRain] = rain;
  c[kRainDepth] = rain * dt;
  // Rain rasters: the bracket's frames blended at mid-step (exact for rates linear in time
  // over a step, which never crosses a frame time: Engine::advance_to stops at them).
  const ForcingView<T>& f = v.forcing;
  double w = 0.0;
  if (!f.step && f.t_b > f.t_a)
    w = tm <= f.t_a ? 0.0 : tm >= f.t_b ? 1.0 : (tm - f.t_a) / (f.t_b - f.t_a);
  c[kRainW] = w;
  const double rain_volume =
      rain * dt * v.active_area + ((1.0 - w) * f.volume_a + w * f.volume_b) * dt;
  c[kInflow] += rain_volume;
  c[kRainIn] += rain_volume;
  for (int s = 0; s < v.n_seg; ++s) {
    const double value = v.series(v.seg_series[s], tm);
    v.seg_value[s] = T(v.e.seg_kind[s] == kLevel ? value - v.z_ref : value);
    v.seg_aux[s] = T(v.series(v.seg_aux_series[s], tm));
  }
}

}  // namespace silt::swe::detail
