// hydrograph.csv and mass_balance.csv (FlowTables, swe_output.hpp): the volumes of the solver's
// totals at each frame, as discharges over the frame intervals and as a water balance.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "silt/io/atomic_file.hpp"
#include "silt/io/swe_output.hpp"

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

}  // namespace

FlowTables::FlowTables(const SweJob& job, const std::string& out_dir, long keep_below)
    : sources_(job.scene.sources.size()),
      hydro_path_((std::filesystem::path(out_dir) / "hydrograph.csv").string()),
      balance_path_((std::filesystem::path(out_dir) / "mass_balance.csv").string()) {
  const swe::Scene& s = job.scene;
  for (size_t b = 0; b < s.boundaries.size(); ++b)
    if (s.boundaries[b].kind != swe::BoundaryKind::wall) boundaries_.push_back(b);
  std::string hydro = "frame,time_s", volumes;
  const auto column = [&](const std::string& name) {
    hydro += fmt::format(",{}_q_m3_s", name);
    volumes += fmt::format(",{}_volume_m3", name);
  };
  for (size_t b : boundaries_) column(s.boundaries[b].name);
  for (const auto& src : s.sources) column(src.name);
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
    const size_t n = boundaries_.size() + sources_;
    if (!h.empty() && h.back().size() == 2 + 2 * n) {
      have_previous_ = true;
      previous_t_ = h.back()[1];
      previous_volume_.assign(h.back().begin() + 2 + long(n), h.back().end());
    }
    if (!m.empty() && m.front().size() > 2) stored_0_ = m.front()[2];
  }
  write_text_atomically(hydro_path_, hydro_);
  write_text_atomically(balance_path_, balance_);
}

void FlowTables::write(long k, double t, const swe::Totals& tot) {
  std::vector<double> volume;
  for (size_t b : boundaries_) volume.push_back(tot.boundary_volume.at(b));
  for (size_t s = 0; s < sources_; ++s) volume.push_back(tot.source_volume.at(s));
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
  hydro_ = hydro;
  balance_ = balance;
  have_previous_ = true;
  previous_t_ = t;
  previous_volume_ = volume;
}

}  // namespace silt::io
