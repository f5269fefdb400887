// Wavefront OBJ meshes (mpm/mesh/obj_mesh.hpp: TriangleMesh::parse_obj), then an inside test.
#include <sstream>

#include "fuzz_common.hpp"
#include "silt/mpm/mesh/obj_mesh.hpp"

void silt::fuzz::one_input(const std::string& text) {
  std::istringstream in(text);
  const auto mesh = mpm::TriangleMesh::parse_obj(in, "fuzz.obj", 1.0, {0, 0, 0}, "fuzz");
  const auto lo = mesh.lower(), hi = mesh.upper();
  (void)mesh.contains({0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])});
  (void)mesh.volume();
}
