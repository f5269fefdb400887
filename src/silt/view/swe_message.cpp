#include "silt/view/swe_message.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "silt/io/png_map.hpp"
#include "silt/io/swe_output.hpp"
#include "silt/view/message.hpp"

namespace silt::view {

namespace {

bool maps_depth(const io::SweJob& job) {
  return job.outputs.png != io::PngMap::concentration;
}

// The smallest value drawn as water, as in the PNG maps (swe_output.cpp).
double show_min(const io::SweJob& job) {
  return std::max(maps_depth(job) ? job.scene.dry_depth : 0.0, 0.01 * job.outputs.png_max);
}

template <class F>
void sample(const swe::Grid& g, int k, F f) {
  const Index nx = (g.nx + k - 1) / k, ny = (g.ny + k - 1) / k;
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) f(j * nx + i, (j * k) * g.nx + i * k);
}

}  // namespace

int swe_stride(const swe::Grid& grid) {
  const Index side = std::max(grid.nx, grid.ny);
  return int(std::max<Index>(1, (side + kMaxSide - 1) / kMaxSide));
}

nlohmann::json describe_swe(const io::SweJob& job) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  nlohmann::json gauges = nlohmann::json::array();
  for (const auto& gauge : job.outputs.gauges)
    gauges.push_back({{"name", gauge.name}, {"x", gauge.x}, {"y", gauge.y}});
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
          {"gauges", gauges}};
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

std::string encode_swe(const swe::Fields& f, const io::SweJob& job, const FrameInfo& info) {
  const swe::Grid& g = job.scene.grid;
  const int k = swe_stride(g);
  const Index nx = (g.nx + k - 1) / k, ny = (g.ny + k - 1) / k;
  const bool depth = maps_depth(job);
  const double lo = show_min(job), vmax = job.outputs.png_max;
  std::vector<std::uint16_t> img(std::size_t(nx * ny), 0);
  if (!f.h.empty())
    sample(g, k, [&](Index o, Index c) {
      const double h = f.h[std::size_t(c)];
      double v = h;
      if (!depth) v = h > job.scene.dry_depth ? f.hc[std::size_t(c)] / h : 0.0;
      if (std::isfinite(v) && v >= lo && h > job.scene.dry_depth)
        img[std::size_t(o)] = std::uint16_t(1 + std::lround(65534 * std::min(v / vmax, 1.0)));
    });
  std::string msg = begin_message({{"type", "swe"},
                                   {"frame", info.frame},
                                   {"time", info.time},
                                   {"steps", info.steps},
                                   {"nx", nx},
                                   {"ny", ny},
                                   {"field", depth ? "depth" : "concentration"},
                                   {"units", depth ? "m" : "kg/m^3"},
                                   {"vmax", vmax}});
  append(msg, img.data(), img.size());
  return msg;
}

}  // namespace silt::view
