#include "silt/mpm/mesh/obj_mesh.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <locale>
#include <sstream>

#include "silt/core/error.hpp"

namespace silt::mpm {

namespace {

// One OBJ face corner "i", "i/t", "i//n" or "i/t/n": the vertex index, 0-based, or -1 on error.
// Negative indices count back from the last vertex read so far (OBJ spec).
long parse_corner(const std::string& tok, long nverts) {
  const std::string head = tok.substr(0, tok.find('/'));
  if (head.empty()) return -1;
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(head, &used);
  } catch (const std::exception&) {
    return -1;
  }
  if (used != head.size() || v == 0) return -1;
  const long i = v > 0 ? v - 1 : nverts + v;
  return i >= 0 && i < nverts ? i : -1;
}

// Edge function of p against the directed projected edge u -> v in the y-z plane, made exactly
// antisymmetric (computed in one canonical order, then negated) and never zero: an exact zero is
// resolved as if p were moved by eps * (-eta, 1), eta << 1, the same move for every triangle.
int edge_sign(const Vec3d& u, const Vec3d& v, const Vec3d& p) {
  const bool flip = (v[1] < u[1]) || (v[1] == u[1] && v[2] < u[2]);
  const Vec3d& a = flip ? v : u;
  const Vec3d& b = flip ? u : v;
  const double dy = b[1] - a[1], dz = b[2] - a[2];
  const double e = dy * (p[2] - a[2]) - dz * (p[1] - a[1]);
  // Canonical order means dy > 0, or dy == 0 and dz >= 0: the perturbation then makes e positive.
  const int s = e > 0 ? 1 : (e < 0 ? -1 : 1);
  return flip ? -s : s;
}

// The bin of a coordinate already scaled to bins (offset * bins per metre), clamped to [0, n - 1]
// before the cast: a point far outside, or a mesh whose extent overflows, would overflow int.
int bin_index(double scaled, int n) {
  const double f = std::floor(scaled);
  return f >= n - 1 ? n - 1 : f >= 0 ? static_cast<int>(f) : 0;  // NaN: bin 0
}

}  // namespace

TriangleMesh TriangleMesh::load_obj(const std::string& path, double scale, const Vec3d& offset,
                                    const std::string& who) {
  // A directory opens as a stream that reads nothing; a device (/dev/zero) never ends a line.
  std::error_code ec;
  SILT_REQUIRE(!std::filesystem::is_directory(path, ec),
               fmt::format("{}: mesh file '{}' is a directory, not an OBJ file", who, path));
  SILT_REQUIRE(!std::filesystem::exists(path, ec) || std::filesystem::is_regular_file(path, ec),
               fmt::format("{}: mesh file '{}' is not a regular file", who, path));
  std::ifstream in(path);
  SILT_REQUIRE(in.good(), fmt::format("{}: cannot open mesh file '{}'", who, path));
  return parse_obj(in, path, scale, offset, who);
}

TriangleMesh TriangleMesh::parse_obj(std::istream& in, const std::string& where, double scale,
                                     const Vec3d& offset, const std::string& who) {
  SILT_REQUIRE(std::isfinite(scale) && scale > 0,
               fmt::format("{}: mesh scale = {} must be positive", who, scale));
  std::vector<Vec3d> verts;
  std::vector<std::array<int, 3>> tris;
  std::string line, part;
  long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const long first = lineno;
    while (!line.empty() && line.back() == '\\' && std::getline(in, part)) {  // continuation
      line.pop_back();
      line += ' ' + part;
      ++lineno;
    }
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream ss(line);
    ss.imbue(std::locale::classic());
    std::string key;
    if (!(ss >> key)) continue;
    const std::string at = fmt::format("{}: {}:{}", who, where, first);
    if (key == "v") {
      Vec3d x{};
      SILT_REQUIRE(static_cast<bool>(ss >> x[0] >> x[1] >> x[2]),
                   fmt::format("{}: a vertex needs three numbers: '{}'", at, excerpt(line)));
      for (int d = 0; d < 3; ++d) x[d] = x[d] * scale + offset[d];
      SILT_REQUIRE(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]),
                   fmt::format("{}: vertex is not finite: '{}'", at, excerpt(line)));
      verts.push_back(x);
    } else if (key == "f") {
      std::vector<int> poly;
      std::string tok;
      while (ss >> tok) {
        const long i = parse_corner(tok, static_cast<long>(verts.size()));
        SILT_REQUIRE(i >= 0, fmt::format("{}: bad face corner '{}' ({} vertices so far)", at,
                                         excerpt(tok), verts.size()));
        poly.push_back(static_cast<int>(i));
      }
      SILT_REQUIRE(poly.size() >= 3,
                   fmt::format("{}: a face needs at least three corners: '{}'", at, excerpt(line)));
      for (std::size_t k = 1; k + 1 < poly.size(); ++k)  // fan; planar convex polygons assumed
        tris.push_back({poly[0], poly[k], poly[k + 1]});
    }
    // vt, vn, o, g, s, usemtl, mtllib, l, p: not needed for an inside test.
  }
  SILT_REQUIRE(!tris.empty(), fmt::format("{}: mesh '{}' has no faces", who, where));
  return TriangleMesh(std::move(verts), std::move(tris), fmt::format("{}: mesh '{}'", who, where));
}

TriangleMesh::TriangleMesh(std::vector<Vec3d> vertices, std::vector<std::array<int, 3>> triangles,
                           const std::string& where)
    : vertices_(std::move(vertices)) {
  // Drop triangles with a repeated corner: they have no area and no crossings.
  for (const auto& t : triangles)
    if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) triangles_.push_back(t);
  SILT_REQUIRE(!triangles_.empty(), fmt::format("{} has no non-degenerate triangles", where));

  // Closed: every undirected edge used an even number of times (ray parity needs no more).
  std::vector<std::pair<int, int>> edges;
  edges.reserve(triangles_.size() * 3);
  for (const auto& t : triangles_)
    for (int k = 0; k < 3; ++k)
      edges.emplace_back(std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3]));
  std::sort(edges.begin(), edges.end());
  std::size_t open = 0;
  std::pair<int, int> example{};
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if ((j - i) % 2 == 1 && open++ == 0) example = edges[i];
    i = j;
  }
  SILT_REQUIRE(open == 0,
               fmt::format("{} is not closed: {} boundary edges (e.g. between vertices {} and {}, "
                           "1-based); sampling needs a watertight mesh",
                           where, open, example.first + 1, example.second + 1));

  lo_ = hi_ = vertices_[triangles_[0][0]];
  double vol6 = 0;
  for (const auto& t : triangles_) {
    const Vec3d &a = vertices_[t[0]], &b = vertices_[t[1]], &c = vertices_[t[2]];
    for (const Vec3d* x : {&a, &b, &c})
      for (int d = 0; d < 3; ++d) {
        lo_[d] = std::min(lo_[d], (*x)[d]);
        hi_[d] = std::max(hi_[d], (*x)[d]);
      }
    vol6 += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  volume_ = std::abs(vol6) / 6.0;

  // ~1 triangle per bin on average keeps each ray test to a handful of triangles.
  const int n = std::clamp(static_cast<int>(std::sqrt(double(triangles_.size()))), 1, 1024);
  ny_ = nz_ = n;
  by_ = hi_[1] > lo_[1] ? n / (hi_[1] - lo_[1]) : 0.0;
  bz_ = hi_[2] > lo_[2] ? n / (hi_[2] - lo_[2]) : 0.0;
  auto bin_of = [&](double y, double z, int& iy, int& iz) {
    iy = bin_index((y - lo_[1]) * by_, ny_);
    iz = bin_index((z - lo_[2]) * bz_, nz_);
  };
  std::vector<int> count(std::size_t(ny_) * nz_ + 1, 0);
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      bin_start_.assign(count.size(), 0);
      for (std::size_t b = 0; b + 1 < count.size(); ++b)
        bin_start_[b + 1] = bin_start_[b] + count[b];
      bin_items_.assign(bin_start_.back(), 0);
      std::fill(count.begin(), count.end(), 0);
    }
    for (std::size_t ti = 0; ti < triangles_.size(); ++ti) {
      const auto& t = triangles_[ti];
      double y0 = vertices_[t[0]][1], y1 = y0, z0 = vertices_[t[0]][2], z1 = z0;
      for (int k = 1; k < 3; ++k) {
        y0 = std::min(y0, vertices_[t[k]][1]);
        y1 = std::max(y1, vertices_[t[k]][1]);
        z0 = std::min(z0, vertices_[t[k]][2]);
        z1 = std::max(z1, vertices_[t[k]][2]);
      }
      int iy0, iz0, iy1, iz1;
      bin_of(y0, z0, iy0, iz0);
      bin_of(y1, z1, iy1, iz1);
      for (int iz = iz0; iz <= iz1; ++iz)
        for (int iy = iy0; iy <= iy1; ++iy) {
          const std::size_t b = std::size_t(iz) * ny_ + iy;
          if (pass == 1) bin_items_[bin_start_[b] + count[b]] = static_cast<int>(ti);
          ++count[b];
        }
    }
  }
}

bool TriangleMesh::crosses(const std::array<int, 3>& t, const Vec3d& p) const {
  const Vec3d &a = vertices_[t[0]], &b = vertices_[t[1]], &c = vertices_[t[2]];
  const int s0 = edge_sign(a, b, p), s1 = edge_sign(b, c, p), s2 = edge_sign(c, a, p);
  if (s0 != s1 || s1 != s2) return false;
  // The ray hits the triangle's plane at x; count the crossing only on the +x side of p.
  const Vec3d e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const Vec3d nrm{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
  if (nrm[0] == 0) return false;  // parallel to the ray (projects to a segment)
  const double x = a[0] - (nrm[1] * (p[1] - a[1]) + nrm[2] * (p[2] - a[2])) / nrm[0];
  return x > p[0];
}

bool TriangleMesh::contains(const Vec3d& p) const {
  for (int d = 0; d < 3; ++d)
    if (!(p[d] >= lo_[d] && p[d] <= hi_[d])) return false;
  const int iy = bin_index((p[1] - lo_[1]) * by_, ny_);
  const int iz = bin_index((p[2] - lo_[2]) * bz_, nz_);
  const std::size_t b = std::size_t(iz) * ny_ + iy;
  bool inside = false;
  for (int k = bin_start_[b]; k < bin_start_[b + 1]; ++k)
    if (crosses(triangles_[bin_items_[k]], p)) inside = !inside;
  return inside;
}

}  // namespace silt::mpm
