#include "silt/io/particles/up_axis.hpp"

#include <algorithm>
#include <cstddef>

namespace silt::io {

namespace {
// R = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]: row i of R picks component kFrom[i] with sign kSign[i].
constexpr int kFrom[3] = {0, 2, 1};
constexpr float kSign[3] = {1.0f, -1.0f, 1.0f};

void rotate3(float* v) {
  const float x = v[0], y = v[1], z = v[2];
  v[0] = x;
  v[1] = -z;
  v[2] = y;
}
}  // namespace

std::array<double, 3> to_up_axis(const std::array<double, 3>& v, UpAxis up) {
  if (up == UpAxis::y) return v;
  return {v[0], -v[2], v[1]};
}

void box_to_up_axis(std::array<double, 3>& lo, std::array<double, 3>& hi, UpAxis up) {
  const std::array<double, 3> a = to_up_axis(lo, up), b = to_up_axis(hi, up);
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::min(a[d], b[d]);
    hi[d] = std::max(a[d], b[d]);
  }
}

void frame_to_up_axis(mpm::ParticleFrame& f, UpAxis up) {
  if (up == UpAxis::y) return;
  const std::size_t n = f.count();
  for (std::size_t i = 0; i < n && 3 * i + 2 < f.position.size(); ++i) rotate3(&f.position[3 * i]);
  for (std::size_t i = 0; i < n && 3 * i + 2 < f.velocity.size(); ++i) rotate3(&f.velocity[3 * i]);
  if (f.stress.size() == 9 * n)
    for (std::size_t p = 0; p < n; ++p) {
      // S' = R S R^T: S'_ij = sign_i sign_j S_{from_i from_j}.
      float s[9], r[9];
      std::copy_n(&f.stress[9 * p], 9, s);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[3 * i + j] = kSign[i] * kSign[j] * s[3 * kFrom[i] + kFrom[j]];
      std::copy_n(r, 9, &f.stress[9 * p]);
    }
}

}  // namespace silt::io
