#include "silt/mpm/sampling/tile_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "silt/mpm/sampling/poisson_tile.hpp"
#include "silt/mpm/splitmix.hpp"

namespace silt::mpm {

namespace {

namespace fs = std::filesystem;

// Bump whenever periodic_poisson_tile's points change for the same (seed, r, L): older files then
// never match.
constexpr std::uint64_t kTileAlgorithm = 2;
constexpr char kMagic[8] = {'S', 'I', 'L', 'T', 'T', 'I', 'L', 'E'};

// The file's fixed part: everything the points depend on, and their count and hash.
struct Header {
  char magic[8];
  std::uint64_t algorithm, seed, r_bits, l_bits[3], count, hash;
};

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::uint64_t hash_points(const std::vector<Vec3d>& pts) {
  std::uint64_t h = mix64(pts.size());
  for (const Vec3d& p : pts)
    for (double v : p) h = mix64(h ^ bits_of(v));
  return h;
}

Header key_of(const double* L, double r, std::uint64_t seed) {
  Header k{};
  std::memcpy(k.magic, kMagic, sizeof kMagic);
  k.algorithm = kTileAlgorithm;
  k.seed = seed;
  k.r_bits = bits_of(r);
  for (int d = 0; d < 3; ++d) k.l_bits[d] = bits_of(L[d]);
  return k;
}

bool same_key(const Header& a, const Header& b) {
  return std::memcmp(a.magic, b.magic, sizeof a.magic) == 0 && a.algorithm == b.algorithm &&
         a.seed == b.seed && a.r_bits == b.r_bits && a.l_bits[0] == b.l_bits[0] &&
         a.l_bits[1] == b.l_bits[1] && a.l_bits[2] == b.l_bits[2];
}

std::string file_of(const std::string& dir, const Header& k) {
  std::uint64_t h = mix64(k.algorithm ^ mix64(k.seed));
  for (std::uint64_t b : {k.r_bits, k.l_bits[0], k.l_bits[1], k.l_bits[2]}) h = mix64(h ^ b);
  return (fs::path(dir) / fmt::format("poisson-tile-{:016x}.bin", h)).string();
}

// The points of a file holding exactly this key, or false (nothing thrown).
bool read_tile(const std::string& path, const Header& key, std::vector<Vec3d>& pts) {
  std::ifstream in(path, std::ios::binary);
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || !same_key(h, key)) return false;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size != sizeof h + h.count * sizeof(Vec3d)) return false;
  pts.resize(h.count);
  if (!in.read(reinterpret_cast<char*>(pts.data()), std::streamsize(h.count * sizeof(Vec3d))) ||
      hash_points(pts) != h.hash) {
    pts.clear();
    return false;
  }
  return true;
}

// Written to a temporary file beside it and renamed over it, so that a reader sees a whole file
// or none; any failure leaves no file behind and is ignored.
void write_tile(const std::string& dir, const std::string& path, Header h,
                const std::vector<Vec3d>& pts) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return;
  h.count = pts.size();
  h.hash = hash_points(pts);
  static std::atomic<unsigned> serial{0};  // two solvers of one process may write at once
  const std::string tmp = fmt::format("{}.{}.{}.part", path, ::getpid(), serial++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(pts.data()),
              std::streamsize(pts.size() * sizeof(Vec3d)));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string tile_cache_dir() {
  const char* off = std::getenv("SILT_TILE_CACHE");
  if (off && (std::strcmp(off, "off") == 0 || std::strcmp(off, "0") == 0)) return {};
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return (fs::path(xdg) / "silt").string();
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".cache" / "silt").string();
  return {};
}

std::vector<Vec3d> cached_poisson_tile(const double L[3], double r, std::uint64_t seed) {
  const std::string dir = tile_cache_dir();
  if (dir.empty()) return periodic_poisson_tile(L, r, seed);
  const Header key = key_of(L, r, seed);
  const std::string path = file_of(dir, key);
  std::vector<Vec3d> pts;
  try {
    if (read_tile(path, key, pts)) return pts;
  } catch (const std::exception&) {  // e.g. a count too large to allocate: not our file
  }
  pts = periodic_poisson_tile(L, r, seed);
  try {
    write_tile(dir, path, key, pts);
  } catch (const std::exception&) {
  }
  return pts;
}

}  // namespace silt::mpm
