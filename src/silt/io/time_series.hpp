// Time series in scenes (boundary hydrographs, point-source discharges, rainfall): a constant, a
// list of [t, value] rows inline, or a CSV file of two columns (time in s, value), with an optional
// header row. Times must increase strictly; errors name the row.
#pragma once

#include <string>

#include "silt/io/json_keys.hpp"
#include "silt/swe/scene.hpp"

namespace silt::io {

/// Reads the series at keys[key] (required). Values are multiplied by `scale` (unit conversion,
/// e.g. mm/h to m/s) and must lie in `range` before scaling. The resolved form is the constant,
/// the inline rows, or the CSV path made absolute.
swe::Series read_series(Keys& keys, const std::string& key, double scale, Range range);

/// Reads a two-column CSV (time s, value); separators ',', ';', tab or spaces; lines starting
/// with '#' are comments; the first row may be a header. Errors name the file and line.
swe::Series read_series_csv(const std::string& path);
/// The same from the file's text; `path` names it in messages.
swe::Series parse_series_csv(const std::string& text, const std::string& path);

/// Linear interpolation holding the end values (the solver's convention, for tests and gauges).
double series_value(const swe::Series& s, double t);

}  // namespace silt::io
