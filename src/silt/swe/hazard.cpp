#include "silt/swe/hazard.hpp"

#include <type_traits>

#include "silt/core/parallel_for.hpp"
#include "silt/swe/part.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

namespace {
// What HazardBuffers::copy moves (a device lambda cannot capture a function-local type).
template <class T>
struct HazardCopy {
  const T* from[4];
  T* to[4];
  const double* from_t[2];
  double* to_t[2];
};
}  // namespace

template <class T>
void HazardBuffers<T>::allocate(const Exec& exec, Index n) {
  DeviceBuffer<T>* maxima[] = {&max_speed,    &max_depth_speed,    &max_conc,    &max_rating,
                               &bk_max_speed, &bk_max_depth_speed, &bk_max_conc, &bk_max_rating};
  const char* labels[] = {"swe.hazard.max_speed",
                          "swe.hazard.max_depth_speed",
                          "swe.hazard.max_concentration",
                          "swe.hazard.max_rating",
                          "swe.checkpoint.hazard.max_speed",
                          "swe.checkpoint.hazard.max_depth_speed",
                          "swe.checkpoint.hazard.max_concentration",
                          "swe.checkpoint.hazard.max_rating"};
  for (int k = 0; k < 8; ++k) {
    *maxima[k] = DeviceBuffer<T>(exec, n, labels[k]);
    parallel_fill(exec, "swe.hazard.zero", maxima[k]->data(), n, T(0));
  }
  first_wet = DeviceBuffer<double>(exec, n, "swe.hazard.first_wet");
  wet_time = DeviceBuffer<double>(exec, n, "swe.hazard.wet_time");
  bk_first_wet = DeviceBuffer<double>(exec, n, "swe.checkpoint.hazard.first_wet");
  bk_wet_time = DeviceBuffer<double>(exec, n, "swe.checkpoint.hazard.wet_time");
  parallel_fill(exec, "swe.hazard.never_wet", first_wet.data(), n, -1.0);
  parallel_fill(exec, "swe.hazard.never_wet", bk_first_wet.data(), n, -1.0);
  parallel_fill(exec, "swe.hazard.zero", wet_time.data(), n, 0.0);
  parallel_fill(exec, "swe.hazard.zero", bk_wet_time.data(), n, 0.0);
}

template <class T>
void HazardBuffers<T>::copy(const Exec& exec, bool to_backup) {
  if (!enabled()) return;
  T* live[] = {max_speed.data(), max_depth_speed.data(), max_conc.data(), max_rating.data()};
  T* back[] = {bk_max_speed.data(), bk_max_depth_speed.data(), bk_max_conc.data(),
               bk_max_rating.data()};
  double* live_t[] = {first_wet.data(), wet_time.data()};
  double* back_t[] = {bk_first_wet.data(), bk_wet_time.data()};
  HazardCopy<T> c;
  for (int k = 0; k < 4; ++k) {
    c.from[k] = to_backup ? live[k] : back[k];
    c.to[k] = to_backup ? back[k] : live[k];
  }
  for (int k = 0; k < 2; ++k) {
    c.from_t[k] = to_backup ? live_t[k] : back_t[k];
    c.to_t[k] = to_backup ? back_t[k] : live_t[k];
  }
  parallel_for(
      exec, "swe.hazard.copy", max_speed.size(), SILT_LAMBDA(Index k) {
        for (int f = 0; f < 4; ++f) c.to[f][k] = c.from[f][k];
        for (int f = 0; f < 2; ++f) c.to_t[f][k] = c.from_t[f][k];
      });
}

namespace {
// Cell (i, j) of v after a step of dt (s) ending at t (s); a dry cell changes nothing. Only the
// fields of v.params.fields are read and written (the others' views are null). The float64 tile
// kernel does the same in its update of the cell (fused_step.cpp, tile_hazard): keep them alike.
template <class T>
SILT_HD void hazard_cell(const HazardView<T>& v, Index i, Index j, double t, double dt) {
  if (!v.active(i, j) || !(v.h(i, j) > v.params.wet_depth)) return;
  const unsigned f = v.params.fields;
  HazardCell<T> before{T(0), T(0), T(0), T(0), -1.0, 0.0};
  if (f & kHazardMaxSpeed) before.max_speed = v.max_speed(i, j);
  if (f & kHazardMaxDepthSpeed) before.max_depth_speed = v.max_depth_speed(i, j);
  if (f & kHazardMaxConc) before.max_conc = v.max_conc(i, j);
  if (f & kHazardMaxRating) before.max_rating = v.max_rating(i, j);
  if (f & kHazardFirstWet) before.first_wet = v.first_wet(i, j);
  if (f & kHazardWetTime) before.wet_time = v.wet_time(i, j);
  const HazardCell<T> a =
      accumulate_hazard_k(before, v.h(i, j), v.hu(i, j), v.hv(i, j), v.hc(i, j), t, dt, v.params);
  // Only what changed is stored: a maximum that holds (math::max returns the old value, the same
  // bits) and a first wetting already seen cost a wet cell no write each step (~40 of its ~130
  // bytes a step in float64). A field not accumulated keeps its value in `before`.
  if (a.max_speed != before.max_speed) v.max_speed(i, j) = a.max_speed;
  if (a.max_depth_speed != before.max_depth_speed) v.max_depth_speed(i, j) = a.max_depth_speed;
  if (a.max_conc != before.max_conc) v.max_conc(i, j) = a.max_conc;
  if (a.max_rating != before.max_rating) v.max_rating(i, j) = a.max_rating;
  if (a.first_wet != before.first_wet) v.first_wet(i, j) = a.first_wet;
  if (f & kHazardWetTime) v.wet_time(i, j) = a.wet_time;
}
}  // namespace

template <class T>
void phase_hazard(const Exec& exec, const HazardView<T>& v) {
  parallel_for(
      exec, "swe.hazard", Box2{0, v.nx, 0, v.ny}, SILT_LAMBDA(Index i, Index j) {
        const double dt = v.clock[kDt];
        if (dt > 0.0) hazard_cell(v, i, j, v.clock[kTime], dt);  // a no-op step changes nothing
      });
}

template <class T>
void phase_hazard_start(const Exec& exec, const HazardView<T>& v, double t) {
  parallel_for(
      exec, "swe.hazard.start", Box2{0, v.nx, 0, v.ny},
      SILT_LAMBDA(Index i, Index j) { hazard_cell(v, i, j, t, 0.0); });
}

template <class T>
HazardView<T> Part<T>::hazard_view(int state) const {
  HazardView<T> v;
  v.h = grid(h[state]);
  v.hu = grid(hu[state]);
  v.hv = grid(hv[state]);
  v.hc = grid(hc[state]);
  v.active = Grid2<const std::uint8_t>{active.data(), nx, ny, ring};
  // The fields hazard_fold() selects (null where not accumulated: hazard_cell never reads them).
  const HazardFold<T> fold = hazard_fold();
  const auto field = [&](auto* data) {
    return Grid2<std::remove_pointer_t<decltype(data)>>{data, nx, ny, ring};
  };
  v.max_speed = field(fold.max_speed);
  v.max_depth_speed = field(fold.max_depth_speed);
  v.max_conc = field(fold.max_conc);
  v.max_rating = field(fold.max_rating);
  v.first_wet = field(fold.first_wet);
  v.wet_time = field(fold.wet_time);
  v.clock = clock.data();
  v.params = fold.params;
  v.nx = nx;
  v.ny = ny;
  return v;
}

template <class T>
HazardFold<T> Part<T>::hazard_fold() const {
  HazardFold<T> f;
  const unsigned m = scene->hazard.fields;
  // A field not accumulated: null, which tile_hazard never reads.
  const auto field = [m](const auto& b, unsigned bit) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(b.data())>>;
    return (m & bit) ? const_cast<V*>(b.data()) : nullptr;
  };
  f.max_speed = field(hazard.max_speed, kHazardMaxSpeed);
  f.max_depth_speed = field(hazard.max_depth_speed, kHazardMaxDepthSpeed);
  f.max_conc = field(hazard.max_conc, kHazardMaxConc);
  f.max_rating = field(hazard.max_rating, kHazardMaxRating);
  f.first_wet = field(hazard.first_wet, kHazardFirstWet);
  f.wet_time = field(hazard.wet_time, kHazardWetTime);
  f.params = HazardParams<T>{T(scene->hazard.wet_depth), scene->hazard.debris, m};
  return f;
}

template HazardView<float> Part<float>::hazard_view(int) const;
template HazardView<double> Part<double>::hazard_view(int) const;
template HazardFold<float> Part<float>::hazard_fold() const;
template HazardFold<double> Part<double>::hazard_fold() const;
template struct HazardBuffers<float>;
template struct HazardBuffers<double>;
template void phase_hazard<float>(const Exec&, const HazardView<float>&);
template void phase_hazard<double>(const Exec&, const HazardView<double>&);
template void phase_hazard_start<float>(const Exec&, const HazardView<float>&, double);
template void phase_hazard_start<double>(const Exec&, const HazardView<double>&, double);

}  // namespace silt::swe::detail
