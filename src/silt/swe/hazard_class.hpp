// What host code that writes hazard outputs (io) needs of the hazard classes, without the device
// kernels (kernels/hazard_k.hpp, the UK FD2320/FD2321 hazard rating and the 2008 note's classes):
// a cell's class from its largest rating, and the debris factor's choice by its scene name.
#pragma once

#include <string>

namespace silt::swe {

/// The class of a cell whose largest hazard rating (-) was max_rating: 1 low, 2 moderate,
/// 3 significant, 4 extreme; 0 when the cell was never wet above the wet depth (`wet` false).
int hazard_class(double max_rating, bool wet);

/// The HazardDebris (kernels/hazard_k.hpp) of a scene's outputs.hazard.debris: "conservative",
/// "pasture", "woodland" or "urban"; -1 for another name.
int hazard_debris(const std::string& name);

}  // namespace silt::swe
