#include "silt/view/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/io/mpm_scene.hpp"
#include "silt/io/particles_ply_read.hpp"
#include "silt/io/raster.hpp"
#include "silt/io/swe_scene.hpp"
#include "silt/view/mpm_message.hpp"
#include "silt/view/swe_message.hpp"

namespace silt::view {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p, const std::string& what) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot read ({})", p.string(), what));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, ',')) out.push_back(cell);
  return out;
}

std::string frame_name(const std::string& stem, long k, const std::string& ext) {
  return fmt::format("{}_{:04d}.{}", stem, k, ext);
}

}  // namespace

struct Replay::Impl {
  fs::path dir;
  std::string solver;
  std::optional<io::MpmJob> mpm;
  std::optional<io::SweJob> swe;
  nlohmann::json scene;
  std::vector<long> frames;
  std::vector<double> times;
  std::vector<std::vector<double>> gauges;
  std::string raster_ext;  // SWE: the format the run wrote

  fs::path swe_raster(const std::string& field, long k) const {
    return dir / frame_name(field, k, raster_ext);
  }
};

Replay::Replay(const std::string& dir) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.dir = dir;
  const fs::path resolved = m.dir / "resolved_scene.json";
  const std::string text = read_text(resolved, "is it the output folder of a silt run?");
  m.solver = io::scene_solver_of_text(text, resolved.string());
  if (m.solver == "mpm") {
    m.mpm = io::parse_mpm_job(text, resolved.string(), dir);
    m.scene = describe_mpm(m.mpm->scene);
  } else {
    m.swe = io::parse_swe_job(text, resolved.string(), dir);
    m.scene = describe_swe(*m.swe);
  }
  const fs::path index = m.dir / "frames.csv";
  std::istringstream rows(read_text(index, "the run's list of complete frames"));
  std::string line;
  std::getline(rows, line);
  while (std::getline(rows, line)) {
    const auto cells = split(line);
    if (cells.size() < 2) continue;
    m.frames.push_back(std::stol(cells[0]));
    m.times.push_back(std::stod(cells[1]));
  }
  if (m.frames.empty()) throw Error(fmt::format("{}: no complete frame listed", index.string()));
  if (m.mpm) {
    const fs::path first = m.dir / frame_name("particles", m.frames[0], "ply");
    if (!fs::exists(first))
      throw Error(
          fmt::format("{}: missing; `silt view` replays MPM frames written as PLY "
                      "(outputs.formats with \"ply\")",
                      first.string()));
    return;
  }
  const std::string field = m.scene["field"];
  for (const char* ext : {"asc", "tif", "nc"})
    if (fs::exists(m.dir / frame_name("depth", m.frames[0], ext))) m.raster_ext = ext;
  if (m.raster_ext.empty())
    throw Error(
        fmt::format("{}: no depth raster of frame {}; `silt view` replays the depth "
                    "(outputs.fields with \"depth\")",
                    m.dir.string(), m.frames[0]));
  if (field == "concentration" && !fs::exists(m.swe_raster("concentration", m.frames[0])))
    throw Error(fmt::format("{}: missing; the scene maps the concentration",
                            m.swe_raster("concentration", m.frames[0]).string()));
  // gauges.csv: time_s, then h u v c per gauge; the page plots the depths.
  const fs::path gauges = m.dir / "gauges.csv";
  if (fs::exists(gauges)) {
    std::istringstream g(read_text(gauges, "gauge series"));
    std::getline(g, line);
    while (std::getline(g, line)) {
      const auto cells = split(line);
      std::vector<double> row{std::stod(cells.at(0))};
      for (std::size_t c = 1; c < cells.size(); c += 4) row.push_back(std::stod(cells[c]));
      m.gauges.push_back(row);
    }
  }
}

Replay::~Replay() = default;

const nlohmann::json& Replay::scene() const {
  return impl_->scene;
}
const std::vector<double>& Replay::times() const {
  return impl_->times;
}
const std::vector<std::vector<double>>& Replay::gauge_rows() const {
  return impl_->gauges;
}

std::string Replay::static_message() const {
  return impl_->swe ? encode_terrain(*impl_->swe) : std::string();
}

std::size_t Replay::points(std::size_t, std::size_t budget) const {
  if (impl_->mpm) return budget;
  return std::size_t(impl_->scene["nx"].get<long>() * impl_->scene["ny"].get<long>());
}

std::string Replay::frame(std::size_t k, std::size_t budget) const {
  const Impl& m = *impl_;
  const FrameInfo info{m.frames.at(k), m.times.at(k), 0};
  if (m.mpm) {
    const mpm::ParticleFrame p =
        io::read_particles_ply((m.dir / frame_name("particles", m.frames[k], "ply")).string());
    return encode_mpm(p, m.mpm->scene, info, budget);
  }
  const io::Raster depth = io::read_raster(m.swe_raster("depth", m.frames[k]).string());
  const swe::Grid& g = m.swe->scene.grid;
  if (depth.nx != g.nx || depth.ny != g.ny)
    throw Error(fmt::format("{}: {} x {} cells, the scene has {} x {}",
                            m.swe_raster("depth", m.frames[k]).string(), depth.nx, depth.ny, g.nx,
                            g.ny));
  swe::Fields f;
  f.nx = g.nx;
  f.ny = g.ny;
  f.h = depth.values;
  for (Index c = 0; c < depth.cells(); ++c)
    if (depth.is_nodata(c)) f.h[std::size_t(c)] = 0;
  if (m.scene["field"] == "concentration") {
    const io::Raster conc = io::read_raster(m.swe_raster("concentration", m.frames[k]).string());
    f.hc.resize(f.h.size());
    for (std::size_t c = 0; c < f.h.size(); ++c)
      f.hc[c] = conc.is_nodata(Index(c)) ? 0 : conc.values[c] * f.h[c];
  }
  return encode_swe(f, *m.swe, info);
}

}  // namespace silt::view
