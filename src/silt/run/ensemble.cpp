#include "silt/run/ensemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "silt/core/error.hpp"
#include "silt/io/swe/checkpoint.hpp"
#include "silt/io/swe/hydrograph_series.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/partition/world.hpp"
#include "silt/run/checkpoint_policy.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/ensemble_checkpoint.hpp"
#include "silt/run/frame_loop.hpp"
#include "silt/run/hooks.hpp"
#include "silt/run/member_batch.hpp"
#include "silt/run/member_checks.hpp"
#include "silt/run/member_turns.hpp"
#include "silt/run/output_dir.hpp"
#include "silt/run/swe_adapter.hpp"
#include "silt/run/swe_measures.hpp"
#include "silt/swe/solver.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

// The maxima and measures of a member that has run (collective on the solver: fields(),
// totals()).
void take_maxima(const io::SweJob& job, const swe::Solver& solver, const io::EnsembleOutputs& o,
                 MemberResult& r) {
  const bool hazard = job.scene.hazard.enabled;
  const swe::Fields f = solver.fields(swe::arrays::depth | swe::arrays::max_depth |
                                      (hazard ? swe::arrays::hazard : 0u));
  for (io::EnsembleField which : o.fields) {
    switch (which) {
      case io::EnsembleField::max_depth:
        r.maxima.push_back(io::derived_field(job.scene, f, io::SweField::max_depth));
        break;
      case io::EnsembleField::max_level:
        r.maxima.push_back(io::derived_field(job.scene, f, io::SweField::max_level));
        break;
      case io::EnsembleField::max_speed:
        r.maxima.push_back(io::hazard_raster(job, f, io::HazardField::max_speed).values);
        break;
    }
  }
  if (o.hazard_classes)
    r.hazard_class = io::hazard_raster(job, f, io::HazardField::hazard_class).values;
  r.measures =
      swe_measures_of(job, f, solver.totals(), solver.step_peaks(), members_track_hazard(o));
}

// The accumulated hazard fields (swe::HazardFieldBit) that take_maxima reads of a member that
// tracks them: the gauges' speed and arrival (swe_measures_of, which reads both rasters even
// without gauges) and the rating of the classes.
unsigned member_hazard_fields(const io::EnsembleOutputs& o) {
  unsigned f = io::accumulated_fields(io::HazardField::max_speed) |
               io::accumulated_fields(io::HazardField::first_wet_time);
  if (o.hazard_classes) f |= io::accumulated_fields(io::HazardField::hazard_class);
  return f;
}

// One member through the frame loop, as `silt run` runs it alone: the same solver, the same
// adapter and the same files in `dir` ("": none); with a restart, from the member's own
// checkpoint when a stop or the checkpoint interval left one. Returns the signal that stopped it
// (0: none).
int run_member(io::SweJob job, const EnsembleScene& scene, const io::Ensemble& e, std::size_t m,
               const EnsembleOptions& o, const MemberSlot& slot, MemberResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckpointPolicy(o.checkpoint_every, o.checkpoint_option).check_run(0.0, job.run.end_time);
  // The hazard fields are accumulated beside the flow; they change no bit of it. Those of the
  // member's own outputs, and those that take_maxima reads.
  if (members_track_hazard(e.outputs)) {
    swe::HazardSettings& hz = job.scene.hazard;
    if (!hz.enabled) hz.fields = 0u;
    hz.enabled = true;
    hz.fields |= member_hazard_fields(e.outputs);
  }
  const std::string ckpt = member_solver_checkpoint(o.checkpoint, m);
  std::unique_ptr<io::SweCheckpoint> from;
  std::error_code ec;
  if (o.restart && fs::is_regular_file(ckpt, ec))
    from = std::make_unique<io::SweCheckpoint>(io::load_swe_checkpoint(ckpt, job));
  std::string dir;
  if (e.outputs.members) {
    dir = (fs::path(o.out) / "members" / e.members[m].name).string();
    // What a stopped run left: continued from the checkpoint, or cleared.
    claim_output_dir(dir, from ? OutputMode::restart : OutputMode::overwrite);
    const std::vector<std::string> overrides = member_overrides(scene, e, m, nullptr);
    // The member's own backend: its device, or this thread's OpenMP threads (one while members
    // run at once).
    io::write_resolved_scene(job, dir, build_id(),
                             describe_execs({slot.exec}, partition::World::self()), overrides);
  }
  swe::Split split;
  split.execs = {slot.exec};
  split.halo = halo_layers(0, slot.exec.is_cuda());
  split.this_process_only = true;
  swe::Solver solver(job.scene, split,
                     slot.batch ? slot.batch->solver_options() : swe::SolverOptions{});
  if (from) solver.restore(from->state);
  r.times.setup = seconds_since(t0);
  MemberBatch::Seat seat(slot.batch, solver);  // leaves on an error too
  if (slot.built) slot.built();
  SweAdapter frames(job, solver, from.get(), dir, true, 1);
  frames.set_advance([&seat](double t_end, const std::function<bool()>& stop, double after) {
    return seat.advance_to(t_end, stop, after);
  });
  frames.track_step_peaks();  // one part in this process: always on (the measures' peaks)
  Progress quiet(job.run.end_time, true);
  Hooks hooks;
  LoopOptions lo;
  lo.stop = slot.stop;
  lo.checkpoint_every = o.checkpoint_every;
  lo.checkpoint_option = o.checkpoint_option;
  lo.checkpoint_path = ckpt;     // at the interval and on a stop
  lo.checkpoint_at_end = false;  // its result is saved instead
  Outcome end;
  {
    const auto t1 = std::chrono::steady_clock::now();
    const StepTurn turn(slot.turns, slot.exec.device);  // built ahead: waits for a turn
    r.times.waiting = seconds_since(t1);
    end = run_frames(frames, partition::World::self(), lo, hooks, quiet);
    seat.leave();  // nobody waits for its maxima
  }
  r.times.stepping = frames.stepping_s();
  if (end.signal) return end.signal;
  take_maxima(job, solver, e.outputs, r);
  r.done = true;
  r.time = solver.time();
  r.steps = solver.steps();
  r.wall_s = seconds_since(t0);
  return 0;
}

// What check_members compares between members: the grid (the statistics are per cell), the
// gauges and the hydrograph's series (measures.csv's columns), and the scene's warnings.
struct MemberShape {
  swe::Grid grid;
  std::string gauges, series;
  std::vector<std::string> warnings;
};

std::string quoted(const std::vector<std::string>& names) {
  std::string n;
  for (const std::string& x : names) n += (n.empty() ? "'" : ", '") + x + "'";
  return n.empty() ? std::string("none") : n;
}

MemberShape shape_of(io::SweJob& job) {
  MemberShape s;
  s.grid = job.scene.grid;
  std::vector<std::string> gauges;
  for (const io::Gauge& g : job.outputs.gauges) gauges.push_back(g.name);
  s.gauges = quoted(gauges);
  s.series = quoted(io::hydrograph_names(job.scene));
  s.warnings = std::move(job.warnings);
  return s;
}

// measures.csv has columns per gauge and per hydrograph series (swe_measures.hpp) of the first
// member's scene, and the statistics are per cell of its grid: every member needs the same.
void check_shape(const io::Ensemble& e, std::size_t m, const MemberShape& first,
                 const MemberShape& job) {
  if (job.gauges != first.gauges)
    throw Error(fmt::format(
        "{}: its gauges ({}) are not member '{}''s ({}); measures.csv has a column per gauge, so "
        "every member needs the same gauges",
        member_where(e, m), job.gauges, e.members[0].name, first.gauges));
  if (job.series != first.series)
    throw Error(fmt::format(
        "{}: its hydrograph's boundaries, sources and cross sections ({}) are not member '{}''s "
        "({}); measures.csv has columns per boundary that is not a wall, source and cross "
        "section, so every member needs the same ones",
        member_where(e, m), job.series, e.members[0].name, first.series));
  const swe::Grid &g = first.grid, &h = job.grid;
  if (h.nx != g.nx || h.ny != g.ny || h.dx != g.dx || h.x0 != g.x0 || h.y0 != g.y0)
    throw Error(fmt::format(
        "{}: its grid ({} x {} cells of {} m at ({}, {})) is not member '{}''s ({} x {} of {} m "
        "at ({}, {})); the statistics are per cell, so every member needs one grid",
        member_where(e, m), h.nx, h.ny, h.dx, h.x0, h.y0, e.members[0].name, g.nx, g.ny, g.dx, g.x0,
        g.y0));
}

}  // namespace

bool members_track_hazard(const io::EnsembleOutputs& o) {
  return o.hazard_classes ||
         std::count(o.fields.begin(), o.fields.end(), io::EnsembleField::max_speed) > 0;
}

std::string member_where(const io::Ensemble& e, std::size_t m) {
  return fmt::format("ensemble '{}', member '{}'", e.path, e.members[m].name);
}

std::vector<std::string> member_overrides(const EnsembleScene& scene, const io::Ensemble& e,
                                          std::size_t m, std::vector<std::string>* labels) {
  std::vector<std::string> overrides = scene.overrides;
  if (labels) labels->assign(overrides.size(), "--set");
  const io::EnsembleMember& mem = e.members[m];
  overrides.insert(overrides.end(), mem.overrides.begin(), mem.overrides.end());
  if (labels) labels->resize(overrides.size(), fmt::format("ensemble member '{}':", mem.name));
  return overrides;
}

EnsembleScene load_ensemble_scene(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  EnsembleScene s;
  s.path = path;
  s.overrides = overrides;
  s.source = io::SceneSource{path, fs::path(path).parent_path().string(), overrides, {}};
  s.parsed = io::parse_scene_text(io::read_text_file(path, "scene file"), path);
  s.tree = s.parsed;
  for (const std::string& a : overrides) io::apply_override(s.tree, a, s.source);
  s.fields = std::make_shared<io::FieldCache>();
  return s;
}

io::SweJob member_job(const EnsembleScene& scene, const io::Ensemble& e, std::size_t m) {
  // As io::load_swe_job(scene.path, overrides, labels) reads it, from the file parsed once.
  io::SceneSource src = scene.source;
  src.overrides = member_overrides(scene, e, m, &src.override_labels);
  return as_member(e, m, [&] { return io::read_swe_job(scene.parsed, src, scene.fields.get()); });
}

std::vector<std::string> member_warnings(const io::Ensemble& e,
                                         const std::vector<std::vector<std::string>>& warnings) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> seen;  // in first-seen order
  for (std::size_t m = 0; m < warnings.size(); ++m)
    for (const std::string& w : warnings[m]) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == w; });
      if (it == seen.end()) it = seen.insert(seen.end(), {w, {}});
      it->second.push_back(m);
    }
  constexpr std::size_t kNamed = 3;
  std::vector<std::string> out;
  for (const auto& [w, members] : seen) {
    if (members.size() == e.members.size()) {
      out.push_back(w + " (every member)");
      continue;
    }
    std::string names;
    for (std::size_t k = 0; k < members.size() && k < kNamed; ++k)
      names += fmt::format("{}'{}'", k ? ", " : "", e.members[members[k]].name);
    if (members.size() > kNamed) names += fmt::format(" and {} more", members.size() - kNamed);
    out.push_back(fmt::format("{} (member{} {})", w, members.size() > 1 ? "s" : "", names));
  }
  return out;
}

io::SweJob check_members(const EnsembleScene& scene, const io::Ensemble& e, std::size_t in_flight) {
  // The first member alone (its errors first, as in member order), then the others at once.
  io::SweJob first = member_job(scene, e, 0);
  const std::size_t n = e.members.size();
  std::vector<MemberShape> shapes(n);
  shapes[0] = shape_of(first);
  const std::size_t workers =
      check_workers(in_flight, n - 1, std::size_t(first.scene.grid.cells()));
  const std::vector<std::exception_ptr> errors =
      check_each_member(n - 1, workers, [&](std::size_t k) {
        io::SweJob job = member_job(scene, e, k + 1);
        shapes[k + 1] = shape_of(job);
      });
  std::vector<std::vector<std::string>> warnings{std::move(shapes[0].warnings)};
  for (std::size_t m = 1; m < n; ++m) {
    if (errors[m - 1]) std::rethrow_exception(errors[m - 1]);
    check_shape(e, m, shapes[0], shapes[m]);
    warnings.push_back(std::move(shapes[m].warnings));
  }
  first.warnings = member_warnings(e, warnings);
  return first;
}

int run_members(const EnsembleScene& scene, const io::Ensemble& e, const EnsembleOptions& o,
                Progress& progress, std::vector<MemberResult>& results) {
  results.assign(e.members.size(), MemberResult{});
  const MemberRun one = [&](std::size_t m, const MemberSlot& slot) {
    const std::string& name = e.members[m].name;
    if (o.restart && load_member(o.checkpoint, m, name, results[m])) {
      results[m].restored = true;
      return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    io::SweJob job = member_job(scene, e, m);  // its errors name the member
    MemberResult& r = results[m];
    r.times.job = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const int sig =
        as_member(e, m, [&] { return run_member(std::move(job), scene, e, m, o, slot, r); });
    r.times.end = seconds_since(t1) - r.wall_s;
    return sig;
  };
  // A finished member's result into the checkpoint, beside the members (not one read back).
  const auto save = [&](std::size_t m) {
    if (results[m].restored) return;
    as_member(e, m, [&] { save_member(o.checkpoint, m, e.members[m].name, results[m]); });
    drop_member_checkpoint(o.checkpoint, m);
  };
  const auto line = [&](std::size_t m) {
    const MemberResult& r = results[m];
    if (r.restored)
      return fmt::format("t = {:.6g} s, {} steps, {:.2f} s (from the checkpoint)", r.time, r.steps,
                         r.wall_s);
    return fmt::format("t = {:.6g} s, {} steps, {}", r.time, r.steps,
                       member_times_text(r.wall_s, r.times));
  };
  const int signal = for_each_member(
      e, o, progress, one, line, o.checkpoint.empty() ? std::function<void(std::size_t)>() : save);
  if (scene.fields) scene.fields->clear();  // every member's job is built
  return signal;
}

}  // namespace silt::run
