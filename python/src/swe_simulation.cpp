// silt._silt.SweSimulation: one swe::Solver over the parts of a grid, stepped with the GIL
// released and Ctrl-C looked for between batches of steps; fields as 2D NumPy arrays [j, i] (row
// j at y0 + (j + 0.5) dx) derived exactly as the output rasters are; gauges as arrays; frames,
// gauge rows and checkpoints through the CLI's writers.
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>

#include "bindings.hpp"
#include "silt/io/swe/checkpoint.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/run/devices.hpp"
#include "silt/run/swe_adapter.hpp"
#include "silt/swe/solver.hpp"

namespace silt::python {

namespace {

// "bed" is read from the scene (below), not derived from the fields.
constexpr io::SweField kFields[] = {
    io::SweField::depth,     io::SweField::velocity,     io::SweField::u,
    io::SweField::v,         io::SweField::level,        io::SweField::concentration,
    io::SweField::max_depth, io::SweField::infiltration, io::SweField::max_level};

std::string field_names() {
  std::string s;
  for (const io::SweField f : kFields) s += "'" + io::to_string(f) + "', ";
  return s + "'bed', 'hu', 'hv', 'hc'";
}

/// A 1D float64 array in host memory (the Python layer converts and checks it).
using Samples = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

class SweSimulation {
 public:
  SweSimulation(const SceneSpec& spec, const std::string& backend, const std::vector<int>& devices)
      : job_(std::make_unique<io::SweJob>(load_swe(spec))),
        execs_(choose_execs(backend, devices)),
        overrides_(spec.overrides) {
    swe::Split split;
    split.execs = execs_;
    split.this_process_only = true;
    nb::gil_scoped_release unlocked;
    solver_ = std::make_unique<swe::Solver>(job_->scene, split);
  }

  // Steps to t exactly; Ctrl-C between batches raises KeyboardInterrupt with the run short of t,
  // at a checked state it can go on from.
  void advance_to(double t) {
    Busy busy(busy_);
    if (!std::isfinite(t)) throw nb::value_error("advance_to: t must be a finite time in s");
    Interrupt interrupted;
    {
      nb::gil_scoped_release unlocked;
      solver_->advance_to(t, std::ref(interrupted));
    }
    interrupted.raise_if_interrupted();
  }

  // One step of the CFL's dt, clipped so as not to pass the next output time or run.end_time (a
  // loop of steps lands on each, as run() does); past the end, not clipped. Checked for faults
  // as advance_to's batches are. Returns the step's dt.
  double step() {
    Busy busy(busy_);
    const double now = solver_->time();
    const double stop = next_output(now) > now ? next_output(now) : now + kUnclipped;
    {
      nb::gil_scoped_release unlocked;
      solver_->advance_to(stop, {}, std::nextafter(now, stop));
    }
    return solver_->last_dt();
  }

  // To the scene's next output time (outputs.times / run.output_interval) after now.
  nb::dict advance_frame() {
    const double now = solver_->time();
    const double next = next_output(now);
    if (!(next > now))
      throw Error(
          fmt::format("swe scene '{}': the run is at its end (t = {} s, run.end_time = {} s); "
                      "advance_to(t) goes further",
                      job_->scene.name, now, job_->run.end_time));
    advance_to(next);
    return totals();
  }

  // What `silt run` does from here to run.end_time, through the same frame loop, writing into
  // out.dir (when given) what it writes; a run that writes starts at t = 0.
  nb::dict run(const std::string& dir, const std::string& checkpoint_every, bool overwrite) {
    {
      Busy busy(busy_);
      const bool continues = restored_ && solver_->steps() == restored_->state.steps &&
                             solver_->time() == restored_->state.time;
      const RunOut out{dir, checkpoint_every, overwrite, continues};
      if (!dir.empty() && solver_->steps() != 0 && !continues)
        throw Error(fmt::format(
            "run(out='{}'): a run that writes starts at t = 0 or at the checkpoint restore() "
            "read (this simulation is at t = {} s, step {}); make a new Simulation, or run() "
            "without out",
            dir, solver_->time(), solver_->steps()));
      check_run_options(out, solver_->time(), job_->run.end_time);
      if (!dir.empty())
        io::write_resolved_scene(*job_, dir, run::build_id(), describe_execs(execs_), overrides_);
      run::SweAdapter frames(*job_, *solver_, continues ? restored_.get() : nullptr, dir, true,
                             int(execs_.size()));
      run_frames(frames, out, job_->run.end_time);
    }
    return totals();
  }

  nb::dict totals() {
    Busy busy(busy_);
    const swe::Totals t = solver_->totals();
    nb::dict d;
    d["time"] = solver_->time();
    d["steps"] = solver_->steps();
    d["last_dt"] = solver_->last_dt();
    d["volume"] = t.volume;
    d["pollutant_mass"] = t.pollutant_mass;
    d["net_inflow_volume"] = t.net_inflow_volume;
    d["inflow_volume"] = t.net_inflow_volume;  // the name before 2026-12 (the same net volume)
    d["rain_volume"] = t.rain_volume;
    d["infiltrated_volume"] = t.infiltrated_volume;
    d["boundary_net_volume"] = t.boundary_net_volume;
    d["source_net_volume"] = t.source_net_volume;
    nb::dict boundaries, sources, sections;
    const swe::Scene& s = job_->scene;
    for (size_t k = 0; k < t.boundary_volume.size(); ++k)
      boundaries[s.boundaries[k].name.c_str()] = t.boundary_volume[k];
    for (size_t k = 0; k < t.source_volume.size(); ++k)
      sources[s.sources[k].name.c_str()] = t.source_volume[k];
    d["boundary_volume"] = boundaries;
    d["source_volume"] = sources;
    for (size_t k = 0; k < t.section_volume.size(); ++k)
      sections[s.sections[k].name.c_str()] = t.section_volume[k];
    d["section_volume"] = sections;
    return d;
  }

  nb::ndarray<nb::numpy, double> field(const std::string& name) {
    Busy busy(busy_);
    const swe::Scene& s = job_->scene;
    const size_t nx = size_t(s.grid.nx), ny = size_t(s.grid.ny);
    if (name == "bed") return numpy_array(std::vector<double>(s.bed), {ny, nx});
    swe::Fields f;
    {
      nb::gil_scoped_release unlocked;
      f = solver_->fields();
    }
    if (name == "hu") return numpy_array(std::move(f.hu), {ny, nx});
    if (name == "hv") return numpy_array(std::move(f.hv), {ny, nx});
    if (name == "hc") return numpy_array(std::move(f.hc), {ny, nx});
    for (const io::SweField k : kFields)
      if (io::to_string(k) == name) return numpy_array(io::derived_field(s, f, k), {ny, nx});
    throw nb::value_error(
        fmt::format("field '{}' does not exist; fields are {}", name, field_names()).c_str());
  }

  // Cell centres along x (i) and y (j), m.
  nb::ndarray<nb::numpy, double> centres(int axis) const {
    const swe::Grid& g = job_->scene.grid;
    const size_t n = size_t(axis == 0 ? g.nx : g.ny);
    std::vector<double> c(n);
    for (size_t k = 0; k < n; ++k) c[k] = (axis == 0 ? g.x0 : g.y0) + (double(k) + 0.5) * g.dx;
    return numpy_array(std::move(c), {n});
  }

  // The scene's gauges now: names, positions and h, u, v, C as arrays in outputs.gauges order.
  nb::dict gauges() {
    Busy busy(busy_);
    const auto& gs = job_->outputs.gauges;
    std::vector<swe::Probe> p;
    {
      nb::gil_scoped_release unlocked;
      p = io::pick_gauges(*job_, solver_->probe(job_->gauge_cells()));  // snapped as gauges.csv
    }
    const size_t n = gs.size();
    std::vector<std::string> names;
    std::vector<double> x, y, h, u, v, c;
    for (size_t g = 0; g < n; ++g) {
      names.push_back(gs[g].name);
      x.push_back(gs[g].x), y.push_back(gs[g].y);
      h.push_back(p[g].h), u.push_back(p[g].u), v.push_back(p[g].v), c.push_back(p[g].c);
    }
    nb::dict d;
    d["time"] = solver_->time();
    d["name"] = names;
    d["x"] = numpy_array(std::move(x), {n});
    d["y"] = numpy_array(std::move(y), {n});
    d["depth"] = numpy_array(std::move(h), {n});
    d["u"] = numpy_array(std::move(u), {n});
    d["v"] = numpy_array(std::move(v), {n});
    d["concentration"] = numpy_array(std::move(c), {n});
    return d;
  }

  // The current state as the next frame of dir (the scene's rasters and map, frames.csv);
  // resolved_scene.json the first time.
  std::vector<std::string> write_frame(const std::string& dir) {
    Busy busy(busy_);
    Output& o = output(dir);
    nb::gil_scoped_release unlocked;
    swe::Fields f;
    if (io::wants_fields(job_->outputs)) f = solver_->fields(io::field_arrays_of(job_->outputs));
    return o.frames->write_frame(f, solver_->time(), o.next_frame++);
  }

  // A row of dir/gauges.csv at the current time.
  std::string write_gauges(const std::string& dir) {
    Busy busy(busy_);
    if (job_->outputs.gauges.empty())
      throw Error(fmt::format("swe scene '{}': no outputs.gauges to write", job_->scene.name));
    Output& o = output(dir);
    if (!o.gauges) o.gauges = std::make_unique<io::GaugeCsvWriter>(*job_, dir);
    nb::gil_scoped_release unlocked;
    o.gauges->write(solver_->time(), solver_->probe(job_->gauge_cells()));
    o.gauges->write_points();  // gauge_points.csv: arrivals and maxima so far
    return o.gauges->path();
  }

  void checkpoint(const std::string& path) {
    Busy busy(busy_);
    nb::gil_scoped_release unlocked;
    io::SweCheckpoint c;
    c.state = solver_->state();
    c.next_gauge = std::numeric_limits<double>::infinity();
    c.parts = int(execs_.size());
    io::save_swe_checkpoint(path, *job_, c, run::build_id());
  }

  // Continues from a checkpoint; run(out) then goes on with the frames and gauge rows after it,
  // as `silt run --restart` does.
  void restore(const std::string& path) {
    Busy busy(busy_);
    nb::gil_scoped_release unlocked;
    auto c = std::make_unique<io::SweCheckpoint>(io::load_swe_checkpoint(path, *job_));
    solver_->restore(c->state);
    c->state.fields = {};  // where the run stands is kept, not the cells
    restored_ = std::move(c);
  }

  // A boundary's or point source's series replaced from now on (Solver::set_series); the
  // library's messages (the boundary or source, the sample) as ValueError.
  void set_series(const std::string& name, Samples times, Samples values) {
    Busy busy(busy_);
    swe::Series s;
    s.t.assign(times.data(), times.data() + times.size());
    s.value.assign(values.data(), values.data() + values.size());
    std::string error;
    {
      nb::gil_scoped_release unlocked;
      try {
        solver_->set_series(name, s);
      } catch (const Error& e) {
        error = e.what();
      }
    }
    if (!error.empty()) throw nb::value_error(error.c_str());
  }

  // Setters between steps: `spec` is the simulation's scene with the change, validated by the
  // scene's loader (Python's Scene.update); the solver takes the changed values from it, and the
  // job the writers read keeps them too.
  void set_gravity(const SceneSpec& spec) {
    Busy busy(busy_);
    const io::SweJob changed = load_swe(spec);
    nb::gil_scoped_release unlocked;
    solver_->set_gravity(changed.scene.gravity);
    job_->scene.gravity = changed.scene.gravity;
  }

  // The uniform rainfall and, unless drop_rasters, the rain rasters of spec.
  void set_rain(const SceneSpec& spec, bool drop_rasters) {
    Busy busy(busy_);
    io::SweJob changed = load_swe(spec);
    if (drop_rasters) changed.scene.rain = {};
    nb::gil_scoped_release unlocked;
    solver_->set_rain(changed.scene.rainfall, changed.scene.rain);
    job_->scene.rainfall = std::move(changed.scene.rainfall);
    job_->scene.rain = std::move(changed.scene.rain);
  }

  void set_bed(const SceneSpec& spec, bool keep_level) {
    Busy busy(busy_);
    io::SweJob changed = load_swe(spec);
    if (changed.scene.active != job_->scene.active)
      throw nb::value_error(
          "set_bed: the new bed has no data in other cells than the scene's bed; the active "
          "cells cannot change mid-run");
    nb::gil_scoped_release unlocked;
    solver_->set_bed(changed.scene.bed,
                     keep_level ? swe::BedChange::keep_level : swe::BedChange::keep_depth);
    job_->scene.bed = solver_->scene().bed;
  }

  double time() const { return solver_->time(); }
  long long steps() const { return solver_->steps(); }
  double last_dt() const { return solver_->last_dt(); }
  std::string layout() const { return solver_->layout(); }
  std::string backend() const { return describe_execs(execs_); }
  double end_time() const { return job_->run.end_time; }
  std::vector<double> output_times() const { return job_->run.output_times; }
  double dx() const { return job_->scene.grid.dx; }

 private:
  // A step past the run's end is not clipped: its target lies this far ahead, s.
  static constexpr double kUnclipped = 1e30;

  // The scene's first output time after `now`, else run.end_time.
  double next_output(double now) const {
    for (const double t : job_->run.output_times)
      if (t > now) return t;
    return job_->run.end_time;
  }

  struct Output {
    std::unique_ptr<io::SweOutputWriter> frames;
    std::unique_ptr<io::GaugeCsvWriter> gauges;
    int next_frame = 0;
  };
  Output& output(const std::string& dir) {
    Output& o = outputs_[dir];
    if (!o.frames) {
      o.frames = std::make_unique<io::SweOutputWriter>(*job_, dir);
      io::write_resolved_scene(*job_, dir, run::build_id(), describe_execs(execs_), overrides_);
    }
    return o;
  }

  std::unique_ptr<io::SweJob> job_;  // writers keep its address
  std::vector<Exec> execs_;
  std::vector<std::string> overrides_;
  std::unique_ptr<swe::Solver> solver_;
  std::unique_ptr<io::SweCheckpoint> restored_;  // the last restore()'s, without its fields
  std::map<std::string, Output> outputs_;
  std::atomic<bool> busy_{false};
};

}  // namespace

void bind_swe(nb::module_& m) {
  nb::class_<SweSimulation>(m, "SweSimulation")
      .def(nb::init<const SceneSpec&, const std::string&, const std::vector<int>&>(),
           nb::arg("spec"), nb::arg("backend"), nb::arg("devices"))
      .def("advance_to", &SweSimulation::advance_to, nb::arg("t"))
      .def("advance_frame", &SweSimulation::advance_frame)
      .def("step", &SweSimulation::step)
      .def("run", &SweSimulation::run, nb::arg("out"), nb::arg("checkpoint_every"),
           nb::arg("overwrite"))
      .def("totals", &SweSimulation::totals)
      .def("field", &SweSimulation::field, nb::arg("name"))
      .def("centres", &SweSimulation::centres, nb::arg("axis"))
      .def("gauges", &SweSimulation::gauges)
      .def("write_frame", &SweSimulation::write_frame, nb::arg("dir"))
      .def("write_gauges", &SweSimulation::write_gauges, nb::arg("dir"))
      .def("checkpoint", &SweSimulation::checkpoint, nb::arg("path"))
      .def("restore", &SweSimulation::restore, nb::arg("path"))
      .def("set_series", &SweSimulation::set_series, nb::arg("name"), nb::arg("times"),
           nb::arg("values"))
      .def("set_gravity", &SweSimulation::set_gravity, nb::arg("spec"))
      .def("set_rain", &SweSimulation::set_rain, nb::arg("spec"), nb::arg("drop_rasters"))
      .def("set_bed", &SweSimulation::set_bed, nb::arg("spec"), nb::arg("keep_level"))
      .def_prop_ro("time", &SweSimulation::time)
      .def_prop_ro("steps", &SweSimulation::steps)
      .def_prop_ro("last_dt", &SweSimulation::last_dt)
      .def_prop_ro("layout", &SweSimulation::layout)
      .def_prop_ro("backend", &SweSimulation::backend)
      .def_prop_ro("end_time", &SweSimulation::end_time)
      .def_prop_ro("output_times", &SweSimulation::output_times)
      .def_prop_ro("dx", &SweSimulation::dx);
}

}  // namespace silt::python
