// gauges.csv: one row per sample time, five columns per gauge; gauge_points.csv: each gauge's cell,
// ground, arrival time and maximum.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/swe/output.hpp"

namespace silt::io {

namespace {
// Per gauge h, u, v, c (the first columns, four per gauge as readers such as `silt view`'s replay
// expect), then every gauge's level after them.
constexpr size_t kGaugeColumns = 4;
}  // namespace

GaugeCsvWriter::GaugeCsvWriter(const SweJob& job, const std::string& out_dir, long keep_rows)
    : job_(&job),
      path_((std::filesystem::path(out_dir) / "gauges.csv").string()),
      points_path_((std::filesystem::path(out_dir) / "gauge_points.csv").string()),
      gauges_(job.outputs.gauges.size()),
      track_(job.outputs.gauges.size()) {
  prepare_output_dir(out_dir);
  std::string text = "time_s";
  for (const auto& g : job.outputs.gauges)
    text += fmt::format(",{0}_h_m,{0}_u_m_s,{0}_v_m_s,{0}_c_kg_m3", g.name);
  for (const auto& g : job.outputs.gauges) text += fmt::format(",{}_level_m", g.name);
  size_t snapping = 0;  // gauges that may read another cell: its i and j with every sample
  for (const auto& g : job.outputs.gauges)
    if (!g.snap_cells.empty()) {
      text += fmt::format(",{0}_cell_i,{0}_cell_j", g.name);
      ++snapping;
    }
  text += '\n';
  if (keep_rows > 0) {
    // A restart: the rows written up to the checkpoint (complete lines only; a row cut by a
    // crash after the checkpoint is dropped with the rest), which also give the arrival times
    // and maxima so far.
    std::ifstream in(path_);
    std::string line;
    std::getline(in, line);  // header
    for (long r = 0; r < keep_rows && std::getline(in, line) && !in.eof(); ++r) {
      text += line + '\n';
      std::vector<double> v;
      std::stringstream cells(line);
      std::string cell;
      while (std::getline(cells, cell, ',')) v.push_back(std::strtod(cell.c_str(), nullptr));
      if (v.size() != 1 + (kGaugeColumns + 1) * gauges_ + 2 * snapping) continue;
      for (size_t g = 0; g < gauges_; ++g) track(g, v[0], v[1 + kGaugeColumns * g]);
    }
  }
  write_text_atomically(path_, text);
  write_points();
  file_ = std::fopen(path_.c_str(), "ab");
  if (!file_) throw Error(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
}

GaugeCsvWriter::~GaugeCsvWriter() {
  if (file_) std::fclose(file_);
}

std::vector<swe::Probe> pick_gauges(const SweJob& job, const std::vector<swe::Probe>& probes,
                                    std::vector<Index>* cells) {
  const auto& gauges = job.outputs.gauges;
  std::vector<swe::Probe> out;
  if (cells) cells->clear();
  size_t next = gauges.size();  // the first snap cell of gauge g in probes
  for (size_t g = 0; g < gauges.size(); ++g) {
    size_t use = g;
    Index cell = gauges[g].cell;
    const size_t n = gauges[g].snap_cells.size();
    if (!(probes[g].h > job.scene.dry_depth))
      for (size_t k = 0; k < n; ++k)
        if (probes[next + k].h > job.scene.dry_depth) {
          use = next + k;
          cell = gauges[g].snap_cells[k];
          break;
        }
    next += n;
    out.push_back(probes[use]);
    if (cells) cells->push_back(cell);
  }
  return out;
}

void GaugeCsvWriter::write(double t, const std::vector<swe::Probe>& all) {
  const size_t n_cells = job_->gauge_cells().size();
  if (all.size() != n_cells)
    throw Error(fmt::format("'{}': {} probe values for {} gauges{}", path_, all.size(), gauges_,
                            n_cells == gauges_ ? "" : fmt::format(" ({} cells)", n_cells)));
  std::vector<Index> cells;
  const std::vector<swe::Probe> probes = pick_gauges(*job_, all, &cells);
  // The time as it is (the shortest form that reads back), the values to 9 digits (exact for
  // the float32 state, ample for float64). The level over the ground of the cell read.
  const Index nx = job_->scene.grid.nx;
  std::string row = fmt::format("{}", t);
  for (const swe::Probe& p : probes)
    row += fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g}", p.h, p.u, p.v, p.c);
  for (size_t g = 0; g < gauges_; ++g)
    row += fmt::format(",{:.9g}", job_->scene.bed[size_t(cells[g])] + probes[g].h);
  for (size_t g = 0; g < gauges_; ++g)
    if (!job_->outputs.gauges[g].snap_cells.empty())
      row += fmt::format(",{},{}", cells[g] % nx, cells[g] / nx);
  row += '\n';
  const long before = std::ftell(file_);
  if (std::fputs(row.c_str(), file_) < 0 || std::fflush(file_) != 0) {
    const int err = errno;
    // A row is whole or absent: what reached the file of this one is cut off again.
    if (before >= 0 && ::ftruncate(::fileno(file_), before) == 0)
      std::fseek(file_, before, SEEK_SET);
    throw Error(fmt::format("cannot write '{}': {}", path_, std::strerror(err)));
  }
  // The arrivals and maxima follow the depths as the row holds them (9 digits): a restart
  // rebuilds them from these rows, to the same bits (float64 depths have more digits).
  for (size_t g = 0; g < gauges_; ++g)
    track(g, t, std::strtod(fmt::format("{:.9g}", probes[g].h).c_str(), nullptr));
}

void GaugeCsvWriter::track(size_t g, double t, double h) {
  Track& k = track_[g];
  const double d = job_->outputs.gauges[g].arrival_depth;
  if (k.arrival < 0 && h > d) {
    // Linear between the last sample (below the depth) and this one; this one when it is the
    // first sample.
    k.arrival =
        k.sampled && h > k.last_h ? k.last_t + (d - k.last_h) / (h - k.last_h) * (t - k.last_t) : t;
  }
  if (h > k.max_h) {
    k.max_h = h;
    k.max_t = t;
  }
  k.last_t = t;
  k.last_h = h;
  k.sampled = true;
}

void GaugeCsvWriter::write_points() const {
  const swe::Grid& grid = job_->scene.grid;
  std::string text =
      "name,x_m,y_m,cell_i,cell_j,ground_m,arrival_depth_m,arrival_time_s,max_depth_m,"
      "max_level_m,time_of_max_s,snap_radius_m\n";
  for (size_t g = 0; g < gauges_; ++g) {
    const Gauge& p = job_->outputs.gauges[g];
    const Track& k = track_[g];
    const double ground = job_->scene.bed[size_t(p.cell)];
    text += fmt::format("{},{},{},{},{},{:.9g},{},", p.name, p.x, p.y, p.cell % grid.nx,
                        p.cell / grid.nx, ground, p.arrival_depth);
    text += k.arrival >= 0 ? fmt::format("{:.9g}", k.arrival) : std::string();
    text += k.max_h >= 0 ? fmt::format(",{:.9g},{:.9g},{}", k.max_h, ground + k.max_h, k.max_t)
                         : std::string(",,,");
    text += fmt::format(",{}\n", p.snap_radius);
  }
  write_text_atomically(points_path_, text);
}

}  // namespace silt::io
