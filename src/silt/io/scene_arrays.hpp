// Arrays a scene names instead of files: a front end that holds its inputs in memory (Python's
// NumPy arrays, docs/python.md) passes them with the scene text, and the scene names each one by
// a string "array:<name>" where a raster path may stand (the bed, initial fields, Manning n, rain
// frames, soil parameters). The loaders read them as rasters on the scene's grid, with the same
// checks and messages as a raster file; nothing else in a scene changes.
#pragma once

#include <map>
#include <string>

#include "silt/core/config.hpp"

namespace silt::io {

/// A row-major array of doubles that the caller keeps alive while the scene loads: `rows` x `cols`
/// (a grid array: ny x nx, row 0 the southern row, as the solver's cell fields).
struct ArrayView {
  const double* data = nullptr;
  Index rows = 0, cols = 0;
};

/// The arrays of one scene by their full name ("array:bed"), as the scene text names them.
using SceneArrays = std::map<std::string, ArrayView>;

/// The prefix of an array's name in a scene ("array:bed").
inline constexpr const char* kArrayPrefix = "array:";

/// True when `path` names an array of `arrays` (null: none).
inline bool names_array(const SceneArrays* arrays, const std::string& path) {
  return arrays && arrays->count(path) != 0;
}

}  // namespace silt::io
