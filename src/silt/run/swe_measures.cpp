#include "silt/run/swe_measures.hpp"

#include "silt/io/swe/output.hpp"

namespace silt::run {

std::vector<MeasureText> swe_measure_names(const io::SweJob& job, bool hazard) {
  std::vector<MeasureText> names;
  for (const io::Gauge& g : job.outputs.gauges) {
    names.push_back({g.name + "_max_depth", "m",
                     "maximum water depth over the run in gauge " + g.name + "'s cell"});
    names.push_back(
        {g.name + "_max_level", "m",
         "maximum water level (bed + maximum depth) in gauge " + g.name + "'s cell, where wet"});
    if (!hazard) continue;
    names.push_back({g.name + "_max_speed", "m s-1",
                     "maximum flow speed over the run in gauge " + g.name + "'s cell", "m_s"});
    names.push_back({g.name + "_arrival", "s",
                     "time the water first wetted gauge " + g.name + "'s cell (hazard wet depth)"});
  }
  for (const std::string& h : io::hydrograph_names(job.scene)) {
    names.push_back({h + "_peak_q", "m3 s-1",
                     "largest magnitude of the discharge of a time step through " + h, "m3_s"});
    names.push_back(
        {h + "_peak_time", "s", "end of the time step of " + h + "'s largest discharge"});
    names.push_back(
        {h + "_volume", "m3", "net volume through " + h + " since the start (hydrograph.csv)"});
  }
  names.push_back({"rain", "m3", "volume of rain fallen since the start"});
  names.push_back({"infiltrated", "m3", "volume infiltrated into the soil since the start"});
  names.push_back(
      {"boundary_net", "m3", "net volume through the boundaries since the start (out negative)"});
  names.push_back(
      {"source_net", "m3", "net volume through the point sources since the start (out negative)"});
  names.push_back({"stored", "m3", "volume of water stored in the domain at the end"});
  return names;
}

std::vector<double> swe_measures_of(const io::SweJob& job, const swe::Fields& f,
                                    const swe::Totals& t, const swe::StepPeaks& p, bool hazard) {
  const std::vector<double> depth = io::derived_field(job.scene, f, io::SweField::max_depth);
  const std::vector<double> level = io::derived_field(job.scene, f, io::SweField::max_level);
  std::vector<double> speed, arrival;
  if (hazard) {
    speed = io::hazard_raster(job, f, io::HazardField::max_speed).values;
    arrival = io::hazard_raster(job, f, io::HazardField::first_wet_time).values;
  }
  std::vector<double> v;
  for (const io::Gauge& g : job.outputs.gauges) {
    const auto k = static_cast<size_t>(g.cell);
    v.push_back(depth[k]);
    v.push_back(level[k]);
    if (!hazard) continue;
    v.push_back(speed[k]);
    v.push_back(arrival[k]);
  }
  const std::vector<double> volume = io::hydrograph_volumes(job.scene, t);
  const io::HydrographPeaks peak = io::hydrograph_peaks(job.scene, p);
  for (size_t k = 0; k < volume.size(); ++k) {
    v.push_back(peak.q[k]);
    v.push_back(peak.time[k]);
    v.push_back(volume[k]);
  }
  for (double x :
       {t.rain_volume, t.infiltrated_volume, t.boundary_net_volume, t.source_net_volume, t.volume})
    v.push_back(x);
  return v;
}

}  // namespace silt::run
