#include "silt/io/particles/ply.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace silt::io {

namespace {

// Particles packed per write: ~2.6 MB of rows at the widest layout (68 bytes per particle).
constexpr std::size_t kRowsPerChunk = 1u << 16;

}  // namespace

void write_particles_ply(const std::string& path, const mpm::ParticleFrame& f,
                         const ParticleFileInfo& info) {
  check_frame(f, path);
  const std::size_t n = f.count();
  const bool stress = !f.stress.empty(), plastic = !f.plastic.empty(), ids = !f.id.empty();

  std::string h = "ply\nformat binary_little_endian 1.0\n";
  h += fmt::format("comment silt particles: scene {} frame {} time {:.9g} s\n",
                   info.scene.empty() ? "-" : info.scene, info.frame, info.time);
  h += "comment units: m, m/s, Pa\n";
  h += fmt::format("element vertex {}\n", n);
  for (const char* p : {"x", "y", "z", "vx", "vy", "vz"})
    h += fmt::format("property float {}\n", p);
  h += "property int material\n";
  if (ids) h += "property int id\n";
  if (stress)
    for (const char* p : {"sxx", "syy", "szz", "sxy", "syz", "sxz", "pressure"})
      h += fmt::format("property float {}\n", p);
  if (plastic) h += "property float plastic\n";
  h += "end_header\n";

  AtomicFile file(path);
  file.write(h);
  std::string buf;
  for (std::size_t start = 0; start < n; start += kRowsPerChunk) {
    buf.clear();
    const std::size_t end = std::min(n, start + kRowsPerChunk);
    for (std::size_t i = start; i < end; ++i) {
      for (int d = 0; d < 3; ++d) put_le(buf, f.position[3 * i + d]);
      for (int d = 0; d < 3; ++d) put_le(buf, f.velocity[3 * i + d]);
      put_le(buf, f.material[i]);
      if (ids) put_le(buf, f.id[i]);
      if (stress) {
        const float* s = &f.stress[9 * i];  // row-major 3x3
        for (float v : {s[0], s[4], s[8], s[1], s[5], s[2]}) put_le(buf, v);
        put_le(buf, -(s[0] + s[4] + s[8]) / 3.0f);
      }
      if (plastic) put_le(buf, f.plastic[i]);
    }
    file.write(buf);
  }
  file.commit();
}

}  // namespace silt::io
