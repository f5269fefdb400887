// hydrograph.csv and mass_balance.csv (FlowTables, io/swe/output.hpp): the volumes of the solver's
// totals at each frame, as discharges over the frame intervals and as a water balance.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "silt/io/atomic_file.hpp"
#include "silt/io/swe/hydrograph_netcdf.hpp"
#include "silt/io/swe/hydrograph_series.hpp"
#include "silt/io/swe/output.hpp"

namespace silt::io {

namespace {

std::vector<double> numbers(const std::string& line) {
  std::vector<double> v;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) v.push_back(std::strtod(cell.c_str(), nullptr));
  return v;
}

// The header and the rows of frames below keep_below of a file written before (a restart).
std::string kept_rows(const std::string& path, const std::string& header, long keep_below,
                      std::vector<std::vector<double>>& rows) {
  std::string text = header;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    const long k = std::strtol(line.c_str(), nullptr, 10);
    if (line.empty() || k < 0 || k >= keep_below) continue;
    rows.push_back(numbers(line));
    text += line + '\n';
  }
  return text;
}

// Where each column's boundary, source or section is, for hydrograph.nc: a segment's middle on
// its side, the source's point, the middle of a line's first and last points.
void add_stations(const SweJob& job, const std::vector<size_t>& boundaries, HydrographSeries& h) {
  const swe::Scene& s = job.scene;
  const swe::Grid& g = s.grid;
  const auto add = [&](const std::string& name, int kind, double x, double y) {
    h.names.push_back(name);
    h.kinds.push_back(kind);
    h.x.push_back(x);
    h.y.push_back(y);
  };
  for (size_t b : boundaries) {
    const swe::Boundary& bd = s.boundaries[b];
    if (!bd.line.empty()) {  // a line: the middle of its first and last points, as a section's
      const auto &p = bd.line.front(), &q = bd.line.back();
      add(bd.name, 0, 0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]));
      continue;
    }
    const double mid = 0.5 * double(bd.begin + bd.end) * g.dx;
    const double x1 = g.x0 + double(g.nx) * g.dx, y1 = g.y0 + double(g.ny) * g.dx;
    switch (bd.side) {
      case swe::Side::west:
        add(bd.name, 0, g.x0, g.y0 + mid);
        break;
      case swe::Side::east:
        add(bd.name, 0, x1, g.y0 + mid);
        break;
      case swe::Side::south:
        add(bd.name, 0, g.x0 + mid, g.y0);
        break;
      case swe::Side::north:
        add(bd.name, 0, g.x0 + mid, y1);
        break;
    }
  }
  for (const auto& src : s.sources) {
    if (src.line.empty()) {  // a point, or a polygon's mean point
      add(src.name, 1, src.x, src.y);
    } else {  // an inflow line: the middle of its first and last points
      const auto &p = src.line.front(), &q = src.line.back();
      add(src.name, 1, 0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]));
    }
  }
  for (const auto& sec : s.sections) {
    const auto &a = sec.points.front(), &b = sec.points.back();
    add(sec.name, 2, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]));
  }
  h.time_units = "seconds since " + job.run.time_reference;
  h.crs_wkt = job.outputs.crs_wkt;
  h.q.resize(h.names.size());
  h.v.resize(h.names.size());
}

bool wants_netcdf(const SweJob& job) {
  const auto& f = job.outputs.formats;
  return netcdf_series_available() && std::find(f.begin(), f.end(), RasterFormat::nc) != f.end();
}

}  // namespace

FlowTables::FlowTables(const SweJob& job, const std::string& out_dir, long keep_below)
    : scene_(&job.scene),
      hydro_path_((std::filesystem::path(out_dir) / "hydrograph.csv").string()),
      balance_path_((std::filesystem::path(out_dir) / "mass_balance.csv").string()) {
  if (wants_netcdf(job)) {
    nc_path_ = (std::filesystem::path(out_dir) / "hydrograph.nc").string();
    nc_ = std::make_unique<HydrographSeries>();
  }
  std::string hydro = "frame,time_s", volumes;
  const std::vector<std::string> names = hydrograph_names(job.scene);
  for (const std::string& name : names) {
    hydro += fmt::format(",{}_q_m3_s", name);
    volumes += fmt::format(",{}_volume_m3", name);
  }
  if (nc_) add_stations(job, hydrograph_boundaries(job.scene), *nc_);
  hydro += volumes + '\n';
  const std::string balance =
      "frame,time_s,stored_m3,rain_m3,infiltrated_m3,boundary_net_m3,source_net_m3,residual_m3\n";
  prepare_output_dir(out_dir);
  hydro_ = hydro;
  balance_ = balance;
  if (keep_below >= 0) {
    std::vector<std::vector<double>> h, m;
    hydro_ = kept_rows(hydro_path_, hydro, keep_below, h);
    balance_ = kept_rows(balance_path_, balance, keep_below, m);
    const size_t n = names.size();
    if (!h.empty() && h.back().size() == 2 + 2 * n) {
      have_previous_ = true;
      previous_t_ = h.back()[1];
      previous_volume_.assign(h.back().begin() + 2 + long(n), h.back().end());
    }
    if (!m.empty() && m.front().size() > 2) stored_0_ = m.front()[2];
    for (const auto& r : h)
      if (r.size() == 2 + 2 * n) add_row(r[1], &r[2], &r[2 + n]);
  }
  write_text_atomically(hydro_path_, hydro_);
  write_text_atomically(balance_path_, balance_);
}

FlowTables::~FlowTables() = default;

void FlowTables::add_row(double t, const double* q, const double* v) {
  if (!nc_) return;
  nc_->t.push_back(t);
  for (size_t c = 0; c < nc_->q.size(); ++c) {
    nc_->q[c].push_back(q[c]);
    nc_->v[c].push_back(v[c]);
  }
}

void FlowTables::write(long k, double t, const swe::Totals& tot) {
  const std::vector<double> volume = hydrograph_volumes(*scene_, tot);
  const double dt = have_previous_ ? t - previous_t_ : 0.0;
  std::string row = fmt::format("{},{}", k, t), volumes;
  for (size_t c = 0; c < volume.size(); ++c) {
    const double q = dt > 0.0 ? (volume[c] - previous_volume_[c]) / dt : 0.0;
    row += fmt::format(",{:.10g}", q);
    volumes += fmt::format(",{}", volume[c]);  // read back exactly by a restart
  }
  if (!have_previous_) stored_0_ = tot.volume;
  const double residual =
      tot.volume - stored_0_ -
      (tot.rain_volume + tot.boundary_net_volume + tot.source_net_volume - tot.infiltrated_volume);
  const std::string hydro = hydro_ + row + volumes + '\n';
  const std::string balance =
      balance_ + fmt::format("{},{},{},{},{},{},{},{:.6g}\n", k, t, tot.volume, tot.rain_volume,
                             tot.infiltrated_volume, tot.boundary_net_volume, tot.source_net_volume,
                             residual);
  write_text_atomically(hydro_path_, hydro);
  write_text_atomically(balance_path_, balance);
  if (nc_) {
    std::vector<double> q(volume.size());
    for (size_t c = 0; c < volume.size(); ++c)
      q[c] = dt > 0.0 ? (volume[c] - previous_volume_[c]) / dt : 0.0;
    add_row(t, q.data(), volume.data());
    write_hydrograph_netcdf(nc_path_, *nc_);
  }
  hydro_ = hydro;
  balance_ = balance;
  have_previous_ = true;
  previous_t_ = t;
  previous_volume_ = volume;
}

}  // namespace silt::io
