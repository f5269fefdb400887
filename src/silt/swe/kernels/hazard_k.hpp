// Flood hazard of one cell, accumulated after every step: the maxima of speed, depth x speed,
// concentration and hazard rating, the time of first wetting and the time spent wet (the maximum
// depth is the solver's own max_depth). The hazard rating is the UK one of Defra/Environment
// Agency R&D reports FD2320/TR2 "Flood Risk Assessment Guidance for New Development" and
// FD2321/TR1 "Flood Risks to People, Phase 2" (2005/2006), as clarified by the Defra/EA
// "Supplementary note on flood hazard ratings and thresholds for development planning and control
// purpose" (May 2008):
//   HR = d (v + 0.5) + DF,   d depth (m), v speed (m/s), DF debris factor (by depth and land use),
// with the classes of the 2008 note: HR < 0.75 low (caution), 0.75 <= HR < 1.25 moderate (danger
// for some), 1.25 <= HR <= 2.0 significant (danger for most), HR > 2.0 extreme (danger for all).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::swe {

/// How the debris factor DF is chosen (FD2320/TR2 table 3.1; "conservative" as the 2008 note).
enum HazardDebris : int {
  kDebrisConservative = 0,  // DF = 0.5 for d <= 0.25 m, 1.0 deeper (the 2008 note's precaution)
  kDebrisPasture = 1,       // 0 for d <= 0.75 m; 0.5 for d > 0.75 m or v > 2 m/s
  kDebrisWoodland = 2,      // 0 for d <= 0.25 m; 0.5 to 0.75 m; 1.0 for d > 0.75 m or v > 2 m/s
  kDebrisUrban = 3          // 0 for d <= 0.25 m; 1.0 deeper or for v > 2 m/s
};

/// Hazard classes (the integer raster; 0 for a cell never wet above the wet depth).
enum HazardClass : int {
  kHazardDry = 0,
  kHazardLow = 1,
  kHazardModerate = 2,
  kHazardSignificant = 3,
  kHazardExtreme = 4
};

/// Debris factor DF (-) at depth d (m) and speed v (m/s).
template <class T>
SILT_HD SILT_FORCEINLINE T debris_factor_k(T d, T v, int debris) {
  const bool fast_or_deep = d > T(0.75) || v > T(2);
  switch (debris) {
    case kDebrisPasture:
      return fast_or_deep ? T(0.5) : T(0);
    case kDebrisWoodland:
      return fast_or_deep ? T(1) : d > T(0.25) ? T(0.5) : T(0);
    case kDebrisUrban:
      return fast_or_deep || d > T(0.25) ? T(1) : T(0);
    default:
      return d > T(0.25) ? T(1) : T(0.5);
  }
}

/// Flood hazard rating HR = d (v + 0.5) + DF (-), d in m, v in m/s.
template <class T>
SILT_HD SILT_FORCEINLINE T hazard_rating_k(T d, T v, int debris) {
  return d * (v + T(0.5)) + debris_factor_k(d, v, debris);
}

/// Class of a hazard rating (the 2008 note's thresholds 0.75, 1.25, 2.0).
template <class T>
SILT_HD SILT_FORCEINLINE int hazard_class_k(T hr) {
  if (hr < T(0.75)) return kHazardLow;
  if (hr < T(1.25)) return kHazardModerate;
  if (!(hr > T(2))) return kHazardSignificant;
  return kHazardExtreme;
}

/// The fields a run accumulates (HazardParams::fields): only those that its outputs, gauges or
/// ensemble statistics read, so that a run asking for the maximum speed and the arrival does not
/// load, divide and store the others in every wet cell each step.
enum HazardFieldBit : unsigned {
  kHazardMaxSpeed = 1u,
  kHazardMaxDepthSpeed = 2u,
  kHazardMaxConc = 4u,
  kHazardMaxRating = 8u,
  kHazardFirstWet = 16u,
  kHazardWetTime = 32u,
  kHazardAllFields = 63u
};

/// What a cell accumulates. first_wet < 0: never wet yet. Times in double whatever T is: a
/// duration summed over 10^6 steps in float32 would lose seconds.
template <class T>
struct HazardCell {
  T max_speed;        // m/s
  T max_depth_speed;  // m^2/s
  T max_conc;         // kg/m^3
  T max_rating;       // -
  double first_wet;   // s
  double wet_time;    // s
};

template <class T>
struct HazardParams {
  T wet_depth;                         // m: a cell counts as flooded above this depth
  int debris;                          // HazardDebris
  unsigned fields = kHazardAllFields;  // HazardFieldBit: the fields accumulated
};

/// a after a step of dt (s) that ended at t (s) with the cell at h (m), hu, hv (m^2/s) and hc
/// (kg/m^2). Only a wet cell (h > wet_depth) changes a: speed and concentration of thinner water
/// are not defined well (wet fronts, rain films) and carry no hazard. A step counts as wet time
/// in full when it ends wet (first order in dt, as the scheme). Only the fields of p.fields
/// change, each by the same operations whatever the others are (the same bits); p.fields is the
/// same for every cell of a run, so a GPU's threads take the same branches.
template <class T>
SILT_HD SILT_FORCEINLINE HazardCell<T> accumulate_hazard_k(HazardCell<T> a, T h, T hu, T hv, T hc,
                                                           double t, double dt,
                                                           const HazardParams<T>& p) {
  if (!(h > p.wet_depth)) return a;
  const unsigned f = p.fields;
  if (f & (kHazardMaxSpeed | kHazardMaxDepthSpeed | kHazardMaxRating)) {
    const T speed = math::sqrt(hu * hu + hv * hv) / h;
    if (f & kHazardMaxSpeed) a.max_speed = math::max(a.max_speed, speed);
    if (f & kHazardMaxDepthSpeed) a.max_depth_speed = math::max(a.max_depth_speed, h * speed);
    if (f & kHazardMaxRating)
      a.max_rating = math::max(a.max_rating, hazard_rating_k(h, speed, p.debris));
  }
  if (f & kHazardMaxConc) a.max_conc = math::max(a.max_conc, hc / h);
  if ((f & kHazardFirstWet) && a.first_wet < 0.0) a.first_wet = t;
  if (f & kHazardWetTime) a.wet_time += dt;
  return a;
}

}  // namespace silt::swe
