#include "silt/view/swe_message.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "silt/io/image/map.hpp"
#include "silt/io/swe/output.hpp"
#include "silt/view/message.hpp"

namespace silt::view {

namespace {

bool maps_depth(const io::SweJob& job) {
  return job.outputs.png != io::PngMap::concentration;
}

// The smallest value drawn as water, as in the PNG maps (io/swe/output.cpp).
double show_min(const io::SweJob& job) {
  return std::max(maps_depth(job) ? job.scene.dry_depth : 0.0, 0.01 * job.outputs.png_max);
}

// Whether a layer is in the map's colours: [0, outputs.png_max], below show_min not drawn.
bool mapped(const std::string& name, const io::SweJob& job) {
  if (maps_depth(job)) return name == "depth" || name == "max_depth";
  return name == "concentration";
}

template <class F>
void sample(const swe::Grid& g, int k, F f) {
  const Index nx = (g.nx + k - 1) / k, ny = (g.ny + k - 1) / k;
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) f(j * nx + i, (j * k) * g.nx + i * k);
}

Layer field_layer(const io::SweJob& job, const swe::Fields& f, io::SweField which) {
  return {io::to_string(which), io::units_of(which), io::derived_field(job.scene, f, which)};
}

Layer hazard_class_layer(const io::SweJob& job, const swe::Fields& f) {
  const io::Raster r = io::hazard_raster(job, f, io::HazardField::hazard_class, true);
  Layer l{r.variable, r.units, r.values};
  for (Index c = 0; c < r.cells(); ++c)
    if (r.is_nodata(c)) l.values[std::size_t(c)] = std::numeric_limits<double>::quiet_NaN();
  return l;
}

}  // namespace

int swe_stride(const swe::Grid& grid) {
  const Index side = std::max(grid.nx, grid.ny);
  return int(std::max<Index>(1, (side + kMaxSide - 1) / kMaxSide));
}

std::vector<Layer> swe_layers(const swe::Fields& f, const io::SweJob& job) {
  using io::SweField;
  std::vector<Layer> out;
  if (f.h.empty()) return out;
  const std::size_t n = f.h.size();
  // Concentration where the run has a pollutant: it maps or writes it, or starts with one.
  const auto& fields = job.outputs.fields;
  const bool pollutant =
      f.hc.size() == n &&
      (!maps_depth(job) || !job.scene.concentration.empty() ||
       std::find(fields.begin(), fields.end(), SweField::concentration) != fields.end());
  if (!maps_depth(job) && pollutant) out.push_back(field_layer(job, f, SweField::concentration));
  for (SweField w : {SweField::depth, SweField::level}) out.push_back(field_layer(job, f, w));
  if (f.hu.size() == n && f.hv.size() == n) out.push_back(field_layer(job, f, SweField::velocity));
  if (f.max_depth.size() == n) out.push_back(field_layer(job, f, SweField::max_depth));
  if (maps_depth(job) && pollutant) out.push_back(field_layer(job, f, SweField::concentration));
  if (f.infiltration.size() == n) out.push_back(field_layer(job, f, SweField::infiltration));
  // The classes where the run accumulates what they are made of (the scene's hazard outputs ask
  // for them, or for the rating and the arrival).
  const unsigned classes = io::accumulated_fields(io::HazardField::hazard_class);
  if (f.max_rating.size() == n && f.max_depth.size() == n &&
      (job.scene.hazard.fields & classes) == classes)
    out.push_back(hazard_class_layer(job, f));
  return out;
}

nlohmann::json describe_swe(const io::SweJob& job) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  nlohmann::json gauges = nlohmann::json::array();
  for (const auto& gauge : job.outputs.gauges)
    gauges.push_back({{"name", gauge.name}, {"x", gauge.x}, {"y", gauge.y}});
  nlohmann::json sections = nlohmann::json::array();
  for (const auto& s : job.scene.sections)
    sections.push_back({{"name", s.name}, {"points", s.points}});
  const bool depth = maps_depth(job);
  return {{"solver", "swe"},
          {"name", job.scene.name},
          {"nx", (g.nx + k - 1) / k},
          {"ny", (g.ny + k - 1) / k},
          {"dx", g.dx * k},
          {"x0", g.x0},
          {"y0", g.y0},
          {"stride", k},
          {"field", depth ? "depth" : "concentration"},
          {"units", depth ? "m" : "kg/m^3"},
          {"vmax", job.outputs.png_max},
          {"end_time", job.run.end_time},
          {"gauges", gauges},
          {"sections", sections}};
}

std::string encode_terrain(const io::SweJob& job) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  const std::vector<float> shade = io::hillshade(g, job.scene.bed, job.scene.active);
  const Index nx = (g.nx + k - 1) / k, ny = (g.ny + k - 1) / k;
  std::vector<std::uint8_t> img(std::size_t(nx * ny));
  sample(g, k, [&](Index o, Index c) {
    const bool active = job.scene.active.empty() || job.scene.active[std::size_t(c)];
    img[std::size_t(o)] =
        active ? std::uint8_t(1 + std::lround(254 * std::clamp(shade[std::size_t(c)], 0.f, 1.f)))
               : 0;
  });
  std::string msg = begin_message({{"type", "terrain"}, {"nx", nx}, {"ny", ny}, {"stride", k}});
  append(msg, img.data(), img.size());
  return msg;
}

namespace {

// One layer as uint16 over its [lo, hi]; its header entry.
nlohmann::json quantise_layer(const Layer& l, const io::SweJob& job,
                              std::vector<std::uint16_t>& img) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  const bool map = mapped(l.name, job);
  const double floor = map ? show_min(job) : -std::numeric_limits<double>::infinity();
  const auto shown = [&](double v) {
    return std::isfinite(v) && v >= floor;
  };
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  sample(g, k, [&](Index, Index c) {
    const double v = l.values[std::size_t(c)];
    if (shown(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  });
  if (!(lo <= hi)) lo = hi = 0;
  const double scale = hi > lo ? 65534 / (hi - lo) : 0;
  sample(g, k, [&](Index o, Index c) {
    const double v = l.values[std::size_t(c)];
    img[std::size_t(o)] = shown(v) ? std::uint16_t(1 + std::lround((v - lo) * scale)) : 0;
  });
  const double bottom = map ? 0.0 : lo, top = map ? job.outputs.png_max : hi;
  return {{"name", l.name}, {"units", l.units}, {"lo", lo}, {"hi", hi}, {"range", {bottom, top}}};
}

}  // namespace

std::string encode_swe(const std::vector<Layer>& layers, const io::SweJob& job,
                       const FrameInfo& info) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  const Index nx = (g.nx + k - 1) / k, ny = (g.ny + k - 1) / k;
  const bool depth = maps_depth(job);
  std::vector<std::vector<std::uint16_t>> images;
  nlohmann::json described = nlohmann::json::array();
  for (const Layer& l : layers) {
    images.emplace_back(std::size_t(nx * ny), 0);
    described.push_back(quantise_layer(l, job, images.back()));
  }
  std::string msg = begin_message({{"type", "swe"},
                                   {"frame", info.frame},
                                   {"time", info.time},
                                   {"steps", info.steps},
                                   {"nx", nx},
                                   {"ny", ny},
                                   {"field", depth ? "depth" : "concentration"},
                                   {"units", depth ? "m" : "kg/m^3"},
                                   {"vmax", job.outputs.png_max},
                                   {"layers", described}});
  for (const auto& img : images) append(msg, img.data(), img.size());
  return msg;
}

std::string encode_swe(const swe::Fields& f, const io::SweJob& job, const FrameInfo& info) {
  return encode_swe(swe_layers(f, job), job, info);
}

}  // namespace silt::view
