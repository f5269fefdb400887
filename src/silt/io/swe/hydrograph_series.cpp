#include "silt/io/swe/hydrograph_series.hpp"

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

HydrographPeaks hydrograph_peaks(const swe::Scene& s, const swe::StepPeaks& p) {
  std::vector<size_t> index = hydrograph_boundaries(s);  // into p: boundaries, sources, sections
  for (size_t k = 0; k < s.sources.size() + s.sections.size(); ++k)
    index.push_back(s.boundaries.size() + k);
  HydrographPeaks out;
  for (size_t k : index) {
    const bool known = k < p.q.size() && k < p.time.size();
    out.q.push_back(known ? p.q[k] : std::numeric_limits<double>::quiet_NaN());
    out.time.push_back(known ? p.time[k] : std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

}  // namespace silt::io
