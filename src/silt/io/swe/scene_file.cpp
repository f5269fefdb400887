#include "silt/io/swe/scene_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/json_keys.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/raster/cell_field.hpp"
#include "silt/io/swe/scene_parts.hpp"
#include "silt/swe/boundary_lines.hpp"

namespace silt::io {

namespace {

// Host memory a run takes per cell, B: the scene's fields as they are read (bed, depth, u, v,
// Manning n, concentration, active; a raster and a field being read), the CPU backend's state in
// float64 (h, hu, hv, hc twice, z, n, maximum depth, the frame's backup copies, speeds) and an
// output frame. Measured (2026-12-01): peak RSS of `silt run --backend cpu` in float64 writing every
// field grows by 331 B per cell from 1000 x 1000 to 2000 x 1000 cells; rounded up.
constexpr double kSweBytesPerCell = 384;
// Cell sizes silt accepts, m: a micrometre to 10,000 km. Outside, float32 state and cell areas
// (dx^2) lose all meaning long before (1e-300 m squares to 0); a DEM in degrees is not in metres.
const Range kDxRange{1e-6, 1e7};

// The grid's cells must fit in memory before any field is allocated.
void check_grid_memory(const SceneSource& src, const std::string& key, const swe::Grid& g) {
  const double cells = double(g.nx) * double(g.ny);
  if (!fits_in_memory(cells, kSweBytesPerCell))
    key_error(src, key,
              fmt::format("has {} x {} = {:.4g} cells, which {}", g.nx, g.ny, cells,
                          memory_text(cells, kSweBytesPerCell)));
}

// The grid: from "grid" when present, else from the bed raster; when both, they must agree.
void read_grid(Keys& root, FieldReader& fields) {
  const SceneSource& src = root.source();
  const std::string bed_path = fields.raster_path(root.take("bed"));
  if (root.has("grid")) {
    Keys g = root.object("grid");
    swe::Grid grid;
    grid.nx = g.integer("nx", 1, 1 << 30);
    grid.ny = g.integer("ny", 1, 1 << 30);
    grid.dx = g.number("dx", kDxRange);
    if (g.has("origin")) {
      std::tie(grid.x0, grid.y0) = g.point("origin");
    } else {
      g.resolved("origin") = Json::array({0.0, 0.0});
    }
    g.finish();
    if (static_cast<double>(grid.nx) * grid.ny > 2147483647.0)
      key_error(src, "grid",
                fmt::format("has {} x {} cells, more than 2^31 - 1", grid.nx, grid.ny));
    check_grid_memory(src, "grid", grid);
    fields.set_grid(grid, fmt::format("'grid' in {}", src.name));
    return;
  }
  if (bed_path.empty())
    key_error(src, "grid",
              "is missing: give \"grid\": {\"nx\", \"ny\", \"dx\", \"origin\"}, or a bed raster "
              "(\"bed\": \"dem.asc\") that defines it");
  const Raster& r = fields.raster(bed_path, "bed");
  swe::Grid grid;
  grid.nx = r.nx;
  grid.ny = r.ny;
  grid.dx = r.dx;
  grid.x0 = r.x0;
  grid.y0 = r.y0;
  if (!kDxRange.contains(grid.dx))
    key_error(
        src, "bed",
        fmt::format("raster '{}' has cells of {} m; the cell size must be {} (m, not degrees: "
                    "reproject a geographic DEM, e.g. gdalwarp -t_srs EPSG:326..)",
                    bed_path, grid.dx, kDxRange.text()));
  check_grid_memory(src, "bed", grid);
  fields.set_grid(grid, fmt::format("from bed raster '{}'", bed_path));
  root.resolved("grid") = Json{{"nx", grid.nx},
                               {"ny", grid.ny},
                               {"dx", grid.dx},
                               {"origin", Json::array({grid.x0, grid.y0})}};
}

// The fastest wave speed over the wet cells, max(|u|, |v|) + sqrt(g h) (m/s), and the depth at
// the first cell that has it (m); 0, 0 when no cell is wet.
std::pair<double, double> fastest_wave(const swe::Scene& s) {
  double c = 0, h_at = 0;
  for (std::size_t k = 0; k < s.depth.size(); ++k) {
    const double h = s.depth[k];
    if (!(h > s.dry_depth)) continue;
    const double u = s.velocity_x.empty() ? 0.0 : std::abs(s.velocity_x[k]);
    const double v = s.velocity_y.empty() ? 0.0 : std::abs(s.velocity_y[k]);
    const double ck = std::max(u, v) + std::sqrt(s.gravity * h);
    if (ck > c) c = ck, h_at = h;
  }
  return {c, h_at};
}

// The depth of the deepest wet cell (m; 0 when none is wet): one vectorised maximum.
double deepest_wet(const swe::Scene& s) {
  const std::vector<double>& d = s.depth;
  const double dry = s.dry_depth;
  double top = 0;
#pragma omp parallel for simd schedule(static) reduction(max : top)
  for (std::size_t k = 0; k < d.size(); ++k) top = std::max(top, d[k] > dry ? d[k] : 0.0);
  return top;
}

// The run stops when a CFL step falls below min_dt (a collapsing time step); a scene whose first
// step already does is refused here, so that validate and run agree. Water at rest (no initial
// velocity) is fastest where it is deepest: sqrt(g h) never falls as h grows, rounding included,
// so its speed is fastest_wave's without a square root per cell.
void check_first_step(Keys& root, const swe::Scene& s) {
  const bool at_rest = s.velocity_x.empty() && s.velocity_y.empty();
  const double fastest = at_rest ? std::sqrt(s.gravity * deepest_wet(s)) : fastest_wave(s).first;
  if (fastest > 0 && s.cfl * s.grid.dx / fastest < s.min_dt) {
    const auto [c, h_at] = fastest_wave(s);
    root.fail(
        "physics.min_dt",
        fmt::format("= {} s is above the first CFL step cfl dx / c = {:.3g} s (dx = {} m, wave "
                    "speed c = {:.4g} m/s at a depth of {:.4g} m): the run would stop at its "
                    "first step. Raise grid.dx or lower physics.min_dt",
                    s.min_dt, s.cfl * s.grid.dx / c, s.grid.dx, c, h_at));
  }
}

void read_physics(Keys& root, swe::Scene& s) {
  Keys p = root.object("physics");
  s.gravity = p.number("gravity", s.gravity, Range::positive());
  const std::string scheme =
      p.choice("scheme", "first_order", {"first_order", "muscl", "muscl_hancock"});
  s.scheme = scheme == "muscl"           ? swe::Scheme::muscl
             : scheme == "muscl_hancock" ? swe::Scheme::muscl_hancock
                                         : swe::Scheme::first_order;
  // The second-order stages are positive up to half the first order's Courant number
  // (kernels/muscl_k.hpp): its default and its bound. MUSCL-Hancock defaults to the same; its
  // bound, 0.45, is where it was tested positive and stable, not proven (docs/NOTES.md,
  // "MUSCL-Hancock prototype").
  const bool muscl = s.scheme != swe::Scheme::first_order;
  const bool hancock = s.scheme == swe::Scheme::muscl_hancock;
  s.cfl = p.number("cfl", muscl ? 0.25 : s.cfl, Range{0.0, 0.5, true, false});
  if (muscl && !hancock && s.cfl > 0.25)
    p.fail("cfl", fmt::format("{} is above 0.25, where the stages of physics.scheme = \"muscl\" "
                              "stop being positive at wet/dry fronts; use <= 0.25 (its default)",
                              s.cfl));
  if (hancock && s.cfl > 0.45)
    p.fail("cfl", fmt::format("{} is above 0.45, beyond what physics.scheme = \"muscl_hancock\" "
                              "was tested positive and stable at; use <= 0.45 (default 0.25)",
                              s.cfl));
  s.dry_depth = p.number("dry_depth", s.dry_depth, Range::positive());
  const Json* max_dt = p.take("max_dt");
  if (max_dt && !max_dt->is_null()) {
    s.max_dt = p.number("max_dt", Range::positive());
  } else {
    p.resolved("max_dt") = nullptr;  // no limit
  }
  s.min_dt = p.number("min_dt", s.min_dt, Range::positive());
  s.precision = p.choice("precision", "float32", {"float32", "float64"}) == "float64"
                    ? swe::Precision::f64
                    : swe::Precision::f32;
  p.finish();
}

// An initial-condition field where nodata means "none" (dry, at rest, clean) on active cells.
std::vector<double> zero_nodata(CellField f) {
  for (size_t c = 0; c < f.nodata.size(); ++c)
    if (f.nodata[c]) f.values[c] = 0.0;
  return std::move(f.values);
}

std::vector<double> empty_if_zero(std::vector<double> v) {
  for (double x : v)
    if (x != 0.0) return v;
  return {};
}

void read_fields(Keys& root, FieldReader& fields, swe::Scene& s) {
  const SceneSource& src = root.source();
  const Index n = fields.grid().cells();
  CellField bed = fields.read(root, "bed", 0.0, Range::any(), /*bed=*/true);
  s.bed = std::move(bed.values);
  if (!bed.nodata.empty()) {
    const auto first = std::find(bed.nodata.begin(), bed.nodata.end(), 1) - bed.nodata.begin();
    if (bed.nodata_rule == "reject")
      key_error(src, "bed",
                fmt::format("raster '{}' has no data at {} ({} nodata cells in all); set \"bed\": "
                            "{{\"raster\": ..., \"nodata\": \"wall\"}} to make such cells walls",
                            bed.raster, fields.cell_text(static_cast<Index>(first)),
                            std::count(bed.nodata.begin(), bed.nodata.end(), 1)));
    // Inactive cells act as walls; give them the highest bed so that nothing (hillshade,
    // level = h + z) sees a nodata value as an elevation.
    double top = -std::numeric_limits<double>::infinity();
    for (Index c = 0; c < n; ++c)
      if (!bed.nodata[c]) top = std::max(top, s.bed[c]);
    if (!std::isfinite(top))
      key_error(src, "bed", fmt::format("raster '{}' has no data in any cell", bed.raster));
    s.active.assign(static_cast<size_t>(n), 1);
    for (Index c = 0; c < n; ++c)
      if (bed.nodata[c]) {
        s.active[c] = 0;
        s.bed[c] = top;
      }
  }
  auto is_active = [&](Index c) {
    return s.active.empty() || s.active[c];
  };

  Keys init = root.object("initial");
  if (init.has("depth") && init.has("level"))
    key_error(src, "initial", "gives both 'depth' and 'level'; give one of them");
  if (init.has("level")) {
    CellField level = fields.read(init, "level", 0.0, Range::any());
    // The level's array becomes the depth, in place.
    s.depth = std::move(level.values);
#pragma omp parallel for schedule(static)
    for (Index c = 0; c < n; ++c)
      s.depth[c] = is_active(c) && (level.nodata.empty() || !level.nodata[c])
                       ? std::max(s.depth[c] - s.bed[c], 0.0)
                       : 0.0;
  } else {
    s.depth = zero_nodata(fields.read(init, "depth", 0.0, Range::non_negative()));
  }
  s.velocity_x = empty_if_zero(zero_nodata(fields.read_unless_zero(init, "u", Range::any())));
  s.velocity_y = empty_if_zero(zero_nodata(fields.read_unless_zero(init, "v", Range::any())));
  s.concentration = empty_if_zero(
      zero_nodata(fields.read_unless_zero(init, "concentration", Range::non_negative())));
  init.finish();
  if (!s.active.empty())
    for (Index c = 0; c < n; ++c)
      if (!is_active(c)) {
        s.depth[c] = 0.0;
        if (!s.velocity_x.empty()) s.velocity_x[c] = 0.0;
        if (!s.velocity_y.empty()) s.velocity_y[c] = 0.0;
        if (!s.concentration.empty()) s.concentration[c] = 0.0;
      }

  CellField n_field = fields.read_unless_zero(root, "manning", Range::non_negative());
  for (size_t c = 0; c < n_field.nodata.size(); ++c)
    if (n_field.nodata[c] && is_active(static_cast<Index>(c)))
      key_error(src, "manning",
                fmt::format("raster '{}' has no data at {}, an active cell", n_field.raster,
                            fields.cell_text(static_cast<Index>(c))));
  s.manning = empty_if_zero(zero_nodata(std::move(n_field)));
}

// The suspicious boundaries of a valid scene, a warning each under the boundary's key: a
// "dry-only" level (swe::level_below_ground) and an `open` edge on a bed falling toward it
// (swe::open_on_falling_bed).
void warn_boundaries(const SceneSource& src, SweJob& job) {
  const swe::Scene& s = job.scene;
  for (size_t k = 0; k < s.boundaries.size(); ++k) {
    const swe::Boundary& b = s.boundaries[k];
    if (b.kind != swe::BoundaryKind::level && b.kind != swe::BoundaryKind::open) continue;
    const auto edges = swe::boundary_edges(s.grid, s.active, b, k);
    const std::string dry = swe::level_below_ground(s, b, edges);
    if (!dry.empty())
      job.warnings.push_back(key_message(src, fmt::format("boundaries[{}].level", k),
                                         fmt::format("boundary {} '{}': {}", k, b.name, dry)));
    const std::string fall = swe::open_on_falling_bed(s, b, edges);
    if (!fall.empty())
      job.warnings.push_back(key_message(src, fmt::format("boundaries[{}].type", k),
                                         fmt::format("boundary {} '{}' {}", k, b.name, fall)));
  }
}

SweJob parse_json(Json root, const SceneSource& src, const std::string& default_name,
                  const std::string& path, FieldCache* shared) {
  for (const auto& o : src.overrides) apply_override(root, o, src);
  SweJob job;
  job.path = path;
  Keys top(root, "", src, &job.resolved);
  const std::string solver = top.string("solver", "");
  if (solver.empty()) top.fail("solver", "is missing: set \"solver\": \"swe\"");
  if (solver != "swe")
    top.fail("solver",
             fmt::format("is \"{}\"; this loader reads shallow-water scenes (\"swe\")", solver));
  swe::Scene& s = job.scene;
  s.name = top.name("name", default_name, "it names the output folder");
  top.string("description", "");
  top.take("provenance");  // written next to outputs (build, backend); not part of the scene
  FieldReader fields(src, shared);
  read_grid(top, fields);
  s.grid = fields.grid();
  read_fields(top, fields, s);
  if (!s.active.empty() && std::count(s.active.begin(), s.active.end(), 1) == 0)
    top.fail("bed", "leaves no active cell");
  detail::read_swe_forcing(top, fields, s);
  warn_boundaries(src, job);
  read_physics(top, s);
  check_first_step(top, s);
  detail::read_swe_run_outputs(top, fields, job);
  detail::read_swe_rain_soil(top, fields, job);
  top.finish();
  return job;
}

std::string stem_of(const std::string& name) {
  std::string stem = std::filesystem::path(name).stem().string();
  return stem.empty() ? "scene" : stem;
}

}  // namespace

SweJob parse_swe_job(const std::string& text, const std::string& name, const std::string& base_dir,
                     const std::vector<std::string>& overrides, const SceneArrays* arrays) {
  SceneSource src{name, base_dir, overrides, {}, arrays};
  return parse_json(parse_scene_text(text, name), src, stem_of(name), "", nullptr);
}

SweJob load_swe_job(const std::string& path, const std::vector<std::string>& overrides) {
  return load_swe_job(path, overrides, {});
}

SweJob load_swe_job(const std::string& path, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& labels, const SceneArrays* arrays) {
  require_utf8(path, "scene file name");
  const std::string text = read_text_file(path, "scene file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  SceneSource src{path, dir, overrides, labels, arrays};
  return read_swe_job(parse_scene_text(text, path), src);
}

SweJob read_swe_job(Json tree, const SceneSource& src, FieldCache* shared) {
  require_utf8(src.name, "scene file name");
  return parse_json(std::move(tree), src, stem_of(src.name), src.name, shared);
}

std::string scene_solver_of_text(const std::string& text, const std::string& name) {
  const Json root = parse_scene_text(text, name);
  SceneSource src{name, "", {}, {}};
  if (!root.is_object()) key_error(src, "(scene)", "must be a JSON object {...}");
  if (!root.contains("solver")) {
    // An ensemble file where a scene goes (docs/ensembles.md): say so, and how to run it.
    for (const char* key : {"vary", "members"})
      if (root.contains(key))
        throw Error(fmt::format(
            "{}: is an ensemble file (it has '{}' and no 'solver'), not a scene: run it over the "
            "scene it varies, `silt run SCENE.json --ensemble {}`",
            name, key, name));
    key_error(src, "solver", "is missing: set \"solver\": \"swe\" or \"mpm\"");
  }
  if (!root["solver"].is_string())
    key_error(src, "solver", fmt::format("must be a string, got {}", show(root["solver"])));
  return root["solver"].get<std::string>();
}

std::string scene_solver(const std::string& path) {
  return scene_solver_of_text(read_text_file(path, "scene file"), path);
}

std::vector<Index> SweJob::gauge_cells() const {
  std::vector<Index> cells;
  for (const auto& g : outputs.gauges) cells.push_back(g.cell);
  for (const auto& g : outputs.gauges)
    cells.insert(cells.end(), g.snap_cells.begin(), g.snap_cells.end());
  return cells;
}

}  // namespace silt::io
