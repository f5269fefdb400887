#include "silt/swe/hazard_class.hpp"

#include "silt/swe/kernels/hazard_k.hpp"

namespace silt::swe {

int hazard_class(double max_rating, bool wet) {
  return wet ? hazard_class_k(max_rating) : kHazardDry;
}

int hazard_debris(const std::string& name) {
  if (name == "conservative") return kDebrisConservative;
  if (name == "pasture") return kDebrisPasture;
  if (name == "woodland") return kDebrisWoodland;
  if (name == "urban") return kDebrisUrban;
  return -1;
}

}  // namespace silt::swe
