#include "silt/view/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/particles/ply_read.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/io/swe/scene_file.hpp"
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

  std::vector<Layer> layers;  // SWE: the rasters of each frame (or the run's end): name, units

  fs::path swe_raster(const std::string& field, long k) const {
    return dir / frame_name(field, k, raster_ext);
  }

  // A raster of the scene's grid as a layer (nodata: NaN).
  Layer layer(const Layer& named, const fs::path& path) const {
    const io::Raster r = io::read_raster(path.string());
    const swe::Grid& g = swe->scene.grid;
    if (r.nx != g.nx || r.ny != g.ny)
      throw Error(fmt::format("{}: {} x {} cells, the scene has {} x {}", path.string(), r.nx, r.ny,
                              g.nx, g.ny));
    Layer l{named.name, named.units, r.values};
    for (Index c = 0; c < r.cells(); ++c)
      if (r.is_nodata(c)) l.values[std::size_t(c)] = std::numeric_limits<double>::quiet_NaN();
    return l;
  }

  // Every field of the run's output list whose frame rasters are in the folder, and the hazard
  // rasters (with every frame, or the run's end for all of them).
  void find_layers() {
    const long k = frames[0];
    for (const io::SweField f : swe->outputs.fields)
      if (fs::exists(swe_raster(io::to_string(f), k)))
        layers.push_back({io::to_string(f), io::units_of(f), {}});
    for (const io::HazardField f : swe->outputs.hazard) {
      const std::string name = "hazard_" + io::to_string(f);
      if (fs::exists(swe_raster(name, k)) || fs::exists(dir / (name + "." + raster_ext)))
        layers.push_back({name, io::hazard_raster(*swe, {}, f).units, {}});
    }
  }
};

Replay::Replay(const std::string& dir) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.dir = dir;
  const fs::path resolved = m.dir / "resolved_scene.json";
  std::error_code ec;
  if (!fs::exists(resolved, ec) && fs::exists(m.dir / "resolved_ensemble.json", ec))
    throw Error(fmt::format(
        "'{}' is an ensemble's folder: its statistics are rasters and tables (docs/ensembles.md, "
        "Outputs), with no frames to replay; `silt view` replays a member's own folder, "
        "{}/members/<name>, which an ensemble with \"outputs\": {{\"members\": true}} writes",
        dir, dir));
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
  m.find_layers();
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
  std::vector<Layer> layers;
  for (const Layer& named : m.layers) {
    const fs::path frame_file = m.swe_raster(named.name, m.frames[k]);
    const fs::path end_file = m.dir / (named.name + "." + m.raster_ext);  // hazard: the run's end
    layers.push_back(m.layer(named, fs::exists(frame_file) ? frame_file : end_file));
  }
  if (m.scene["field"] == "concentration")  // the map's field first, as in a live run
    std::stable_partition(layers.begin(), layers.end(),
                          [](const Layer& l) { return l.name == "concentration"; });
  return encode_swe(layers, *m.swe, info);
}

}  // namespace silt::view
