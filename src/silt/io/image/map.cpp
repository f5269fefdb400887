#include "silt/io/image/map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "silt/core/error.hpp"

#if SILT_WITH_PNG
#include <png.h>
#endif

namespace silt::io {

std::vector<float> hillshade(const swe::Grid& g, const std::vector<double>& bed,
                             const std::vector<std::uint8_t>& active) {
  const double kPi = 3.14159265358979323846;
  const double az = 315.0 * kPi / 180.0, alt = 45.0 * kPi / 180.0;
  // Direction towards the light, east/north/up.
  const double lx = std::cos(alt) * std::sin(az), ly = std::cos(alt) * std::cos(az),
               lz = std::sin(alt);
  std::vector<float> shade(static_cast<size_t>(g.cells()), static_cast<float>(lz));
  auto ok = [&](Index i, Index j) {
    return i >= 0 && j >= 0 && i < g.nx && j < g.ny && (active.empty() || active[j * g.nx + i]);
  };
  // Rows on all threads: the writer computes it before the first frame of a large grid.
#pragma omp parallel for schedule(static)
  for (Index j = 0; j < g.ny; ++j)
    for (Index i = 0; i < g.nx; ++i) {
      if (!ok(i, j)) continue;
      const double zc = bed[static_cast<size_t>(j) * g.nx + i];
      // Neighbours outside the grid or inactive take the centre value (no slope towards them).
      auto z = [&](Index di, Index dj) {
        return ok(i + di, j + dj) ? bed[static_cast<size_t>(j + dj) * g.nx + (i + di)] : zc;
      };
      // Horn (1981): weighted central differences over the 3x3 neighbourhood (j + 1 is north).
      const double dzdx =
          ((z(1, 1) + 2 * z(1, 0) + z(1, -1)) - (z(-1, 1) + 2 * z(-1, 0) + z(-1, -1))) / (8 * g.dx);
      const double dzdy =
          ((z(-1, 1) + 2 * z(0, 1) + z(1, 1)) - (z(-1, -1) + 2 * z(0, -1) + z(1, -1))) / (8 * g.dx);
      const double norm = std::sqrt(dzdx * dzdx + dzdy * dzdy + 1.0);
      const double s = (-dzdx * lx - dzdy * ly + lz) / norm;
      shade[static_cast<size_t>(j) * g.nx + i] = static_cast<float>(std::max(0.0, s));
    }
  return shade;
}

namespace {

using Rgb = std::array<double, 3>;

// ColorBrewer ramps (Brewer, colorbrewer2.org), 5 stops each, interpolated linearly.
constexpr Rgb kBlues[] = {
    {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 81, 156}, {8, 48, 107}};
constexpr Rgb kHeat[] = {
    {255, 255, 178}, {254, 204, 92}, {253, 141, 60}, {240, 59, 32}, {189, 0, 38}};

}  // namespace

std::array<double, 3> ramp_colour(ColourRamp r, double s) {
  if (r == ColourRamp::hazard_classes) {
    static constexpr Rgb kClasses[] = {
        {254, 217, 118}, {253, 141, 60}, {227, 26, 28}, {128, 0, 38}};
    return kClasses[std::clamp(int(std::lround(s * 4.0)), 1, 4) - 1];
  }
  const Rgb* stops = r == ColourRamp::blues ? kBlues : kHeat;
  s = std::clamp(s, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(s));
  const double w = s - k;
  Rgb c;
  for (int q = 0; q < 3; ++q) c[q] = (1 - w) * stops[k][q] + w * stops[k + 1][q];
  return c;
}

PngImage render_map(const swe::Grid& g, const std::vector<float>& shade,
                    const std::vector<std::uint8_t>& active, const std::vector<double>& value,
                    double show_min, double vmax, ColourRamp ramp, int scale) {
  constexpr double kOpacity = 0.8;  // of the field over the terrain: relief stays visible
  PngImage img;
  img.width = g.nx * scale;
  img.height = g.ny * scale;
  img.rgba.assign(static_cast<size_t>(img.width) * img.height * 4, 0);
#pragma omp parallel for schedule(static)
  for (Index row = 0; row < g.ny; ++row) {
    const Index j = g.ny - 1 - row;  // north up
    for (Index i = 0; i < g.nx; ++i) {
      const size_t k = static_cast<size_t>(j) * g.nx + i;
      if (!active.empty() && !active[k]) continue;  // transparent
      const double grey = 255.0 * shade[k];
      Rgb c{grey, grey, grey};
      const double v = value[k];
      if (!std::isnan(v) && v >= show_min) {
        const Rgb f = ramp_colour(ramp, v / vmax);
        for (int q = 0; q < 3; ++q) c[q] = (1 - kOpacity) * grey + kOpacity * f[q];
      }
      std::uint8_t rgba[4];
      // Rounded to nearest as lround would (c is in [0, 255]; half-way cases away from zero),
      // without its library call per channel.
      for (int q = 0; q < 3; ++q)
        rgba[q] = static_cast<std::uint8_t>(std::clamp(c[q], 0.0, 255.0) + 0.5);
      rgba[3] = 255;
      for (int dy = 0; dy < scale; ++dy)
        for (int dx = 0; dx < scale; ++dx) {
          const size_t p = (static_cast<size_t>(row * scale + dy) * img.width + i * scale + dx) * 4;
          std::copy(rgba, rgba + 4, &img.rgba[p]);
        }
    }
  }
  return img;
}

#if SILT_WITH_PNG

bool png_available() {
  return true;
}

void write_png(const std::string& path, const PngImage& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGBA;
  // Speed over size: a 4096 x 4096 map took 9.0 s at the default compression and 1.1 s with
  // this, 56% larger (docs/NOTES.md, frames off the stepping thread); a frame's map is a preview.
  png.flags = PNG_IMAGE_FLAG_FAST;
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.rgba.data(), 0, nullptr))
    throw Error(fmt::format("cannot write PNG '{}': {}", path, png.message));
}

PngImage read_png(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str()))
    throw Error(fmt::format("cannot read PNG '{}': {}", path, png.message));
  png.format = PNG_FORMAT_RGBA;
  PngImage img;
  img.width = static_cast<int>(png.width);
  img.height = static_cast<int>(png.height);
  img.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, img.rgba.data(), 0, nullptr)) {
    png_image_free(&png);
    throw Error(fmt::format("cannot read PNG '{}': {}", path, png.message));
  }
  return img;
}

#else

bool png_available() {
  return false;
}

void write_png(const std::string& path, const PngImage&) {
  throw Error(fmt::format("cannot write '{}': this build of silt has no libpng", path));
}

PngImage read_png(const std::string& path) {
  throw Error(fmt::format("cannot read '{}': this build of silt has no libpng", path));
}

#endif

}  // namespace silt::io
