// Shared by the particle writers: a file written under a temporary name and renamed into place
// when complete, so a viewer watching the output folder (Houdini, ParaView) never opens half a
// frame; little-endian stores; what a frame file says about itself.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "silt/mpm/particle_frame.hpp"

namespace silt::io {

/// Metadata written into particle files (PLY comments, VTK FieldData).
struct ParticleFileInfo {
  std::string scene;  // scene name
  long frame = 0;     // output frame index
  double time = 0;    // simulated time, s
};

/// Writes to "<path>.tmp<pid>" and renames onto `path` in commit(); the destructor removes an
/// uncommitted temporary. Errors name the path and the system's reason.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(const std::string& s) { write(s.data(), s.size()); }
  void commit();

 private:
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
};

/// Appends v to `out` as little-endian bytes, whatever the host's byte order.
template <class T>
inline void put_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
#endif
  out.append(b, sizeof(T));
}

/// Throws silt::Error naming `path` unless the frame's arrays have consistent sizes (position and
/// velocity 3 per particle, stress 9 or none, plastic and id 1 or none).
void check_frame(const mpm::ParticleFrame& f, const std::string& path);

}  // namespace silt::io
