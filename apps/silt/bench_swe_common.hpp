// What the `silt bench swe` variants share (bench_swe.cpp defines them): the sizes, the scene, the
// precision and the step count, so that every variant times the same dam break.
#pragma once

#include <string>

#include "silt/swe/scene.hpp"

namespace silt::app {

/// A size such as 64K, 1M or 16M: that many cells.
long long bench_parse_size(const std::string& s);
/// The wet dam break of `silt bench swe` on about `cells` cells.
swe::Scene bench_swe_scene(long long cells, swe::Precision precision);
/// --precision's value: float32 or float64.
swe::Precision bench_precision(const std::string& name);
/// --steps when given (> 0), else a count for about the same run time at every size.
int bench_steps(int requested, long long cells, bool cuda);

}  // namespace silt::app
