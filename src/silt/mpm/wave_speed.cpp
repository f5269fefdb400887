#include "silt/mpm/wave_speed.hpp"

#include <limits>

#include "silt/mpm/scene_params.hpp"

namespace silt::mpm {

double material_wave_speed(const Material& m) {
  return make_material_params<double>(m).wave_speed;
}

double elastic_dt_limit(const Material& m, double dx, double elastic_cfl) {
  const double c = material_wave_speed(m);
  return c > 0 ? elastic_cfl * dx / c : std::numeric_limits<double>::infinity();
}

}  // namespace silt::mpm
