#include "silt/io/swe/hydrograph_series.hpp"

#include <cmath>
#include <limits>

namespace silt::io {

std::vector<size_t> hydrograph_boundaries(const swe::Scene& s) {
  std::vector<size_t> b;
  for (size_t k = 0; k < s.boundaries.size(); ++k)
    if (s.boundaries[k].kind != swe::BoundaryKind::wall) b.push_back(k);
  return b;
}

std::vector<std::string> hydrograph_names(const swe::Scene& s) {
  std::vector<std::string> names;
  for (size_t b : hydrograph_boundaries(s)) names.push_back(s.boundaries[b].name);
  for (const auto& src : s.sources) names.push_back(src.name);
  for (const auto& sec : s.sections) names.push_back(sec.name);
  return names;
}

std::vector<double> hydrograph_volumes(const swe::Scene& s, const swe::Totals& t) {
  std::vector<double> v;
  for (size_t b : hydrograph_boundaries(s)) v.push_back(t.boundary_volume.at(b));
  for (size_t k = 0; k < s.sources.size(); ++k) v.push_back(t.source_volume.at(k));
  for (size_t k = 0; k < s.sections.size(); ++k) v.push_back(t.section_volume.at(k));
  return v;
}

void FlowPeaks::add(double t, const std::vector<double>& volumes) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  if (!started) {
    peak_q.assign(volumes.size(), kNone);
    peak_time.assign(volumes.size(), kNone);
  } else if (t > time) {
    const double dt = t - time;
    for (size_t c = 0; c < volumes.size(); ++c) {
      const double q = std::abs((volumes[c] - volume.at(c)) / dt);  // as hydrograph.csv's q
      if (std::isnan(peak_q[c]) || q > peak_q[c]) {  // the first interval, or a larger one
        peak_q[c] = q;
        peak_time[c] = q > 0 ? t : kNone;
      }
    }
  }
  started = true;
  time = t;
  volume = volumes;
}

}  // namespace silt::io
