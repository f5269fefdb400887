#include "silt/io/swe/checkpoint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "silt/io/checkpoint_file.hpp"
#include "silt/swe/boundary_lines.hpp"
#include "silt/swe/sections.hpp"

namespace silt::io {

namespace {
template <class F>
auto hazard_sections(F& f) {
  using V = decltype(&f.max_speed);
  return std::vector<std::pair<const char*, V>>{{"hazard.max_speed", &f.max_speed},
                                                {"hazard.max_depth_speed", &f.max_depth_speed},
                                                {"hazard.max_concentration", &f.max_concentration},
                                                {"hazard.max_rating", &f.max_rating},
                                                {"hazard.first_wet_time", &f.first_wet_time},
                                                {"hazard.wet_duration", &f.wet_duration}};
}
// The step peaks of a run that tracked them (absent: none; a restart starts them again).
void load_peaks(const Checkpoint& k, const std::string& path, const SweJob& job,
                swe::StepPeaks& p) {
  if (!k.has("flows.peak_q")) return;
  p.q = k.get_vector<double>("flows.peak_q");
  p.time = k.get_vector<double>("flows.peak_time");
  const swe::Scene& s = job.scene;
  const size_t n = s.boundaries.size() + s.sources.size() + s.sections.size();
  if (p.q.size() != n || p.time.size() != n)
    throw CheckpointError(CheckpointProblem::corrupt,
                          fmt::format("checkpoint '{}' is corrupt: sections 'flows.peak_q' and "
                                      "'flows.peak_time' hold {} and {} values for {} boundaries, "
                                      "sources and cross sections",
                                      path, p.q.size(), p.time.size(), n));
}

}  // namespace

std::uint64_t swe_scene_hash(const SweJob& job) {
  nlohmann::json j = job.resolved;
  j.erase("provenance");
  if (j.contains("run") && j["run"].is_object()) j["run"].erase("end_time");
  return scene_hash(j.dump());
}

void save_swe_checkpoint(const std::string& path, const SweJob& job, const SweCheckpoint& c,
                         const std::string& build) {
  Checkpoint k;
  k.header.solver = "swe";
  k.header.scene_hash = swe_scene_hash(job);
  k.header.build = build;
  k.header.step = c.state.steps;
  k.header.time = c.state.time;
  k.header.parts = c.parts;
  const swe::Fields& f = c.state.fields;
  k.put_value("grid.nx", std::int64_t(f.nx));
  k.put_value("grid.ny", std::int64_t(f.ny));
  k.put_vector("field.h", f.h);
  k.put_vector("field.hu", f.hu);
  k.put_vector("field.hv", f.hv);
  k.put_vector("field.hc", f.hc);
  k.put_vector("field.max_depth", f.max_depth);
  // Hazard outputs (the scene's outputs.hazard, which the scene hash covers): a restart continues
  // the maxima, first wetting times and durations.
  // Which of them the run accumulated (the others hold their start values): a restart that needs
  // more (an ensemble's statistics, which the hash does not cover) cannot continue them.
  if (!f.max_speed.empty()) {
    for (const auto& [name, v] : hazard_sections(c.state.fields)) k.put_vector(name, *v);
    k.put_value("hazard.fields", std::int64_t(job.scene.hazard.fields));
  }
  // Infiltration (the scene's "infiltration", which the hash covers): the soil's state.
  if (!f.infiltration.empty()) k.put_vector("field.infiltration", f.infiltration);
  k.put_value("clock.inflow", c.state.inflow);
  k.put_value("clock.rain", c.state.rain);
  k.put_vector("clock.flows", c.state.flows);
  k.put_value("clock.last_dt", c.state.last_dt);
  k.put_value("clock.cfl_dt", c.state.cfl_dt);
  k.put_value("run.next_frame", std::int64_t(c.next_frame));
  k.put_value("run.next_gauge", c.next_gauge);
  k.put_value("run.gauge_rows", std::int64_t(c.gauge_rows));
  if (!c.peaks.q.empty()) {  // the peak discharges of a step so far
    k.put_vector("flows.peak_q", c.peaks.q);
    k.put_vector("flows.peak_time", c.peaks.time);
  }
  write_checkpoint(path, k);
}

SweCheckpoint load_swe_checkpoint(const std::string& path, const SweJob& job) {
  const Checkpoint k = read_checkpoint(path);
  check_scene(k, "swe", swe_scene_hash(job));
  SweCheckpoint c;
  swe::Fields& f = c.state.fields;
  f.nx = Index(k.get_value<std::int64_t>("grid.nx"));
  f.ny = Index(k.get_value<std::int64_t>("grid.ny"));
  if (f.nx != job.scene.grid.nx || f.ny != job.scene.grid.ny)
    throw CheckpointError(CheckpointProblem::other_scene,
                          fmt::format("checkpoint '{}' holds a {} x {} grid; the scene has {} x {}",
                                      path, f.nx, f.ny, job.scene.grid.nx, job.scene.grid.ny));
  const std::size_t cells = std::size_t(f.nx) * std::size_t(f.ny);
  const auto field = [&](const char* name) {
    std::vector<double> v = k.get_vector<double>(name);
    if (v.size() != cells)
      throw CheckpointError(CheckpointProblem::corrupt,
                            fmt::format("checkpoint '{}' is corrupt: section '{}' holds {} cells "
                                        "of {}",
                                        path, name, v.size(), cells));
    return v;
  };
  f.h = field("field.h");
  f.hu = field("field.hu");
  f.hv = field("field.hv");
  f.hc = field("field.hc");
  f.max_depth = field("field.max_depth");
  if (job.scene.hazard.enabled) {
    for (const auto& [name, v] : hazard_sections(f)) {
      if (!k.has(name))
        throw CheckpointError(
            CheckpointProblem::corrupt,
            fmt::format("checkpoint '{}' has no section '{}' (hazard outputs)", path, name));
      *v = field(name);
    }
    // Written before the run chose its fields: every field was accumulated.
    const auto held = k.has("hazard.fields") ? unsigned(k.get_value<std::int64_t>("hazard.fields"))
                                             : unsigned(swe::kHazardAllFields);
    const unsigned missing = job.scene.hazard.fields & ~held;
    if (missing != 0) {
      // hazard_sections() lists the fields in the order of their bits.
      std::vector<std::string> names;
      unsigned bit = 1u;
      for (const auto& [name, v] : hazard_sections(f)) {
        if (missing & bit) names.push_back(name);
        bit <<= 1;
      }
      throw CheckpointError(CheckpointProblem::other_scene,
                            fmt::format("checkpoint '{}' was written by a run that did not "
                                        "accumulate {}, which this run reads",
                                        path, fmt::join(names, ", ")));
    }
  }
  if (job.scene.infiltration.enabled()) {
    if (!k.has("field.infiltration"))
      throw CheckpointError(
          CheckpointProblem::corrupt,
          fmt::format("checkpoint '{}' has no section 'field.infiltration' (infiltration)", path));
    f.infiltration = field("field.infiltration");
  }
  c.state.time = k.header.time;
  c.state.steps = k.header.step;
  c.state.inflow = k.get_value<double>("clock.inflow");
  c.state.rain = k.has("clock.rain") ? k.get_value<double>("clock.rain") : 0.0;
  // Each boundary's, source's and cross-section edge's volume (hydrograph.csv); absent before
  // they were kept: zeros (a checkpoint without the cross sections' restarts them from 0).
  if (k.has("clock.flows")) c.state.flows = k.get_vector<double>("clock.flows");
  const size_t n_boundary = swe::boundary_source_slots(job.scene);
  const size_t n_flows =
      n_boundary +
      swe::section_edges(job.scene.grid, job.scene.active, job.scene.sections).edges.size();
  if (!c.state.flows.empty() && c.state.flows.size() != n_flows &&
      c.state.flows.size() != n_boundary)
    throw CheckpointError(CheckpointProblem::corrupt,
                          fmt::format("checkpoint '{}' is corrupt: section 'clock.flows' holds {} "
                                      "volumes for {} edge cells, sources and cross-section edges",
                                      path, c.state.flows.size(), n_flows));
  c.state.last_dt = k.get_value<double>("clock.last_dt");
  c.state.cfl_dt = k.get_value<double>("clock.cfl_dt");
  c.next_frame = long(k.get_value<std::int64_t>("run.next_frame"));
  c.next_gauge = k.get_value<double>("run.next_gauge");
  c.gauge_rows = long(k.get_value<std::int64_t>("run.gauge_rows"));
  c.parts = k.header.parts;
  load_peaks(k, path, job, c.peaks);
  if (c.next_frame < 0 || c.gauge_rows < 0 || !(c.state.time >= 0))
    throw CheckpointError(
        CheckpointProblem::corrupt,
        fmt::format("checkpoint '{}' is corrupt: negative frame, row or time", path));
  return c;
}

}  // namespace silt::io
