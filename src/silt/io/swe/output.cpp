#include "silt/io/swe/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/image/legend.hpp"
#include "silt/io/image/map.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/resolved_scene.hpp"

namespace silt::io {

namespace fs = std::filesystem;

std::vector<double> derived_field(const swe::Scene& s, const swe::Fields& f, SweField which) {
  const Index n = s.grid.cells();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> out(static_cast<size_t>(n), nan);
  const bool needs_water = which != SweField::depth && which != SweField::max_depth &&
                           which != SweField::infiltration && which != SweField::bed &&
                           which != SweField::max_level;
  // On the calling thread's OpenMP team (a writer pool thread's share): a 16.8M-cell frame took
  // ~0.1 s on one thread.
#pragma omp parallel for schedule(static)
  for (Index k = 0; k < n; ++k) {
    if (!s.active.empty() && !s.active[k]) continue;
    const double h = f.h[k];
    const bool wet = h > s.dry_depth;
    if (needs_water && !wet) continue;
    switch (which) {
      case SweField::depth:
        out[k] = h;
        break;
      case SweField::max_depth:
        out[k] = f.max_depth.empty() ? h : f.max_depth[k];
        break;
      case SweField::level:
        out[k] = h + s.bed[k];
        break;
      case SweField::u:
        out[k] = f.hu[k] / h;
        break;
      case SweField::v:
        out[k] = f.hv[k] / h;
        break;
      case SweField::velocity:
        out[k] = std::hypot(f.hu[k], f.hv[k]) / h;
        break;
      case SweField::concentration:
        out[k] = f.hc.empty() ? 0.0 : f.hc[k] / h;
        break;
      case SweField::infiltration:
        out[k] = f.infiltration.empty() ? 0.0 : f.infiltration[k];
        break;
      case SweField::bed:
        out[k] = s.bed[k];
        break;
      case SweField::max_level: {
        const double m = f.max_depth.empty() ? h : f.max_depth[k];
        if (m > s.dry_depth) out[k] = m + s.bed[k];  // never wet: no level
        break;
      }
    }
  }
  return out;
}

namespace {
std::string prepared(const std::string& dir) {
  prepare_output_dir(dir);
  return dir;
}
}  // namespace

namespace {
bool run_file(const SweOutputSettings& o) {
  return o.netcdf == NetcdfLayout::run &&
         std::find(o.formats.begin(), o.formats.end(), RasterFormat::nc) != o.formats.end();
}

}  // namespace

Raster output_grid(const SweJob& job) {
  const swe::Grid& g = job.scene.grid;
  Raster r;
  r.nx = g.nx;
  r.ny = g.ny;
  r.dx = g.dx;
  r.x0 = g.x0;
  r.y0 = g.y0;
  r.nodata = job.outputs.nodata;
  r.crs_wkt = job.outputs.crs_wkt;
  r.type = job.outputs.precision;
  r.time_reference = job.run.time_reference;
  return r;
}

namespace {
void name_field(Raster& r, SweField field) {
  r.variable = to_string(field);
  r.units = units_of(field);
  r.standard_name = standard_name_of(field);
  r.long_name = long_name_of(field);
  r.cell_methods =
      field == SweField::max_depth || field == SweField::max_level ? "time: maximum" : "";
}
}  // namespace

SweOutputWriter::SweOutputWriter(const SweJob& job, std::string out_dir, long first_frame)
    : job_(&job), dir_(prepared(out_dir)), index_(dir_, first_frame) {
  if (job.outputs.png != PngMap::none)
    shade_ = hillshade(job.scene.grid, job.scene.bed, job.scene.active);
  if (run_file(job.outputs)) {
    series_.grid = output_grid(job);
    for (SweField field : job.outputs.fields) {
      series_.fields.push_back(series_.grid);
      name_field(series_.fields.back(), field);
    }
    for (HazardField field : job.outputs.hazard) {
      series_.statics.push_back(hazard_raster(job, {}, field));
      if (!job.outputs.hazard_every_frame) continue;
      series_.fields.push_back(hazard_raster(job, {}, field, /*at_frame=*/true));
      series_.fields.back().variable += kHazardFramesSuffix;
    }
    series_path_ = (fs::path(dir_) / kNetcdfRunFile).string();
    // A restart writes its frames over those from first_frame on in the file it continues.
    std::error_code ec;
    if (first_frame < 0 || !fs::exists(series_path_, ec)) {
      write_atomically(series_path_,
                       [&](const std::string& tmp) { create_netcdf_series(tmp, series_); });
    } else if (netcdf_series_frames(series_path_) < first_frame) {
      throw Error(fmt::format("'{}' holds {} frames; the restart continues from frame {}",
                              series_path_, netcdf_series_frames(series_path_), first_frame));
    }
  }
}

bool wants_fields(const SweOutputSettings& o) {
  return files_per_frame(o) > 0;
}

unsigned field_arrays_of(const SweOutputSettings& o) {
  if (!wants_fields(o)) return 0;
  unsigned a = swe::arrays::depth;
  const auto add = [&](SweField f) {
    if (f == SweField::velocity || f == SweField::u || f == SweField::v)
      a |= swe::arrays::discharge;
    if (f == SweField::concentration) a |= swe::arrays::pollutant;
    if (f == SweField::max_depth || f == SweField::max_level) a |= swe::arrays::max_depth;
    if (f == SweField::infiltration) a |= swe::arrays::infiltration;
  };
  for (SweField f : o.fields) add(f);
  if (o.png == PngMap::concentration) add(SweField::concentration);
  if (o.hazard_every_frame && !o.hazard.empty()) a |= kHazardArrays;
  return a;
}

std::size_t files_per_frame(const SweOutputSettings& o) {
  const bool prj = !o.crs_wkt.empty() && std::find(o.formats.begin(), o.formats.end(),
                                                   RasterFormat::asc) != o.formats.end();
  const std::size_t rasters = o.fields.size() + (o.hazard_every_frame ? o.hazard.size() : 0);
  return rasters * (o.formats.size() + (prj ? 1 : 0)) + (o.png != PngMap::none ? 1 : 0);
}

std::string SweOutputWriter::frame_path(const std::string& stem, int k,
                                        const std::string& ext) const {
  return (fs::path(dir_) / fmt::format("{}_{:04d}.{}", stem, k, ext)).string();
}

std::vector<std::string> SweOutputWriter::write_frame(const swe::Fields& f, double t, int k) {
  return commit_frame(encode_frame(f, t, k), t, k);
}

SweOutputWriter::EncodedFrame SweOutputWriter::encode_frame(const swe::Fields& f, double t,
                                                            int k) const {
  EncodedFrame e;
  try {
    if (wants_fields(job_->outputs)) write_files(f, t, k, e);
  } catch (...) {
    remove_files(e.written);
    throw;
  }
  return e;
}

std::vector<std::string> SweOutputWriter::commit_frame(EncodedFrame e, double t, int k) {
  try {
    // The run's file is not removed when the frame fails (it holds the frames before), and a
    // frame k written to it but not listed in frames.csv is written again by a restart.
    if (!series_path_.empty()) append_netcdf_frame(series_path_, series_, k, t, e.series_values);
    index_.add(k, t);  // last: frames.csv lists the frame once all its files are there
  } catch (...) {
    remove_files(e.written);
    throw;
  }
  if (!series_path_.empty()) e.written.push_back(series_path_);
  return std::move(e.written);
}

void SweOutputWriter::discard(const EncodedFrame& e) {
  remove_files(e.written);
}

void SweOutputWriter::write_files(const swe::Fields& f, double t, int k, EncodedFrame& e) const {
  const swe::Scene& s = job_->scene;
  const SweOutputSettings& o = job_->outputs;
  const auto n = static_cast<size_t>(s.grid.cells());
  const unsigned need = field_arrays_of(o);
  const bool discharge =
      (need & swe::arrays::discharge) == 0 || (f.hu.size() == n && f.hv.size() == n);
  const bool pollutant = (need & swe::arrays::pollutant) == 0 || f.hc.size() == n;
  const bool max_depth = (need & swe::arrays::max_depth) == 0 || f.max_depth.size() == n;
  if (f.nx != s.grid.nx || f.ny != s.grid.ny || f.h.size() != n || !discharge || !pollutant ||
      !max_depth)
    throw Error(
        fmt::format("output frame {}: fields are {} x {} ({} depths) but the scene grid is "
                    "{} x {}",
                    k, f.nx, f.ny, f.h.size(), s.grid.nx, s.grid.ny));
  Raster r = output_grid(*job_);
  r.time = t;
  // ESRI ASCII keeps its CRS in a .prj of the same name, the same text for every file.
  const std::string prj = o.crs_wkt.empty() ? "" : crs_to_prj(o.crs_wkt);
  std::vector<std::vector<double>>& series_values = e.series_values;
  std::vector<std::string>& written = e.written;
  // r in every format but the run's NetCDF file (whose values are kept for it).
  const auto write_each = [&](const Raster& r) {
    if (!series_path_.empty()) series_values.push_back(r.values);
    for (RasterFormat fmt_ : o.formats) {
      if (fmt_ == RasterFormat::nc && !series_path_.empty()) continue;
      const std::string path = frame_path(r.variable, k, extension_of(fmt_));
      write_atomically(path, [&](const std::string& tmp) { write_raster(tmp, r, fmt_); });
      written.push_back(path);
      if (fmt_ == RasterFormat::asc && !prj.empty()) {
        write_text_atomically(prj_path_of(path), prj);
        written.push_back(prj_path_of(path));
      }
    }
  };
  for (SweField field : o.fields) {
    r.values = derived_field(s, f, field);
    name_field(r, field);
    write_each(r);
  }
  // The maxima so far, in series_.fields' order (the fields, then the hazard rasters).
  if (o.hazard_every_frame) {
    for (HazardField field : o.hazard) {
      Raster hz = hazard_raster(*job_, f, field, /*at_frame=*/true);
      hz.time = t;
      write_each(hz);
    }
  }
  if (o.png != PngMap::none) {
    const bool depth = o.png == PngMap::depth;
    const auto v = derived_field(s, f, depth ? SweField::depth : SweField::concentration);
    // Hide what is below 1% of the colour scale: a film of rain on every cell would otherwise
    // colour the whole map.
    const double show_min = std::max(depth ? s.dry_depth : 0.0, 0.01 * o.png_max);
    const ColourRamp ramp = depth ? ColourRamp::blues : ColourRamp::heat;
    const PngImage img = with_map_legend(
        render_map(s.grid, shade_, s.active, v, show_min, o.png_max, ramp, o.png_scale),
        depth ? "depth" : "concentration", depth ? "m" : "kg/m^3", o.png_max, ramp, t,
        s.grid.dx / o.png_scale);
    const std::string path = frame_path(depth ? "depth" : "concentration", k, "png");
    write_atomically(path, [&](const std::string& tmp) { write_png(tmp, img); });
    written.push_back(path);
  }
}

std::string write_resolved_scene(const SweJob& job, const std::string& out_dir,
                                 const std::string& build_id, const std::string& backend,
                                 const std::vector<std::string>& overrides) {
  return write_resolved_scene(job.resolved, job.path, out_dir, build_id, backend, overrides);
}

}  // namespace silt::io
