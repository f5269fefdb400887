// A uniformly random rotation (a normalised Gaussian quaternion), for the 3x3 math tests.
#pragma once

#include <cmath>
#include <random>

#include "silt/core/math/mat.hpp"

namespace silt {

template <class T>
inline Mat3<T> random_rotation(std::mt19937& rng) {
  // Normalised quaternion -> rotation matrix.
  std::normal_distribution<double> n(0, 1);
  double q[4] = {n(rng), n(rng), n(rng), n(rng)};
  const double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& x : q) x /= l;
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return Mat3<double>{1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                      2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                      2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)}
      .template cast<T>();
}

}  // namespace silt
