// Cell fields in scenes (bed, initial depth or level, velocities, Manning n, concentration). Each
// is one of:
//   a number                                   constant
//   "file.asc" or {"raster": "file.asc"}       a raster on the scene grid (path relative to the
//                                              scene file; .tif/.nc through GDAL)
//   {"value": v, "gradient": [gx, gy],         an analytic field: v + gx (x - x0) + gy (y - y0)
//    "patches": [...]}                         over the grid origin (x0, y0), overwritten in order
//                                              by patches (rectangles, circles) whose value has the
//                                              same form; a cell belongs to a patch when its centre
//                                              is inside.
//   "array:bed"                                an array given with the scene (scene_arrays.hpp:
//                                              Python's NumPy arrays), read as a raster on the grid
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "silt/io/json_keys.hpp"
#include "silt/io/raster/raster.hpp"
#include "silt/swe/scene.hpp"

namespace silt::io {

struct CellField {
  std::vector<double> values;        // nx * ny, south row first
  std::vector<std::uint8_t> nodata;  // 1 where the raster has no data (empty: none)
  std::string raster;                // raster path ("" for analytic fields)
  std::string nodata_rule;           // bed only: "wall" or "reject"
  bool constant_zero() const;
};

class FieldCache;

/// Reads cell fields of one scene: holds the grid (and where it came from, for messages about
/// mismatched rasters) and caches rasters so a DEM is read once. With a FieldCache
/// (field_cache.hpp), rasters and fields that are not constants come from it when another job of
/// the same scene file made them (errors are this scene's own, as without it).
class FieldReader {
 public:
  explicit FieldReader(const SceneSource& src, FieldCache* shared = nullptr)
      : src_(&src), shared_(shared) {}

  /// The raster path named by a field value ("" when the value is not a raster).
  std::string raster_path(const Json* value) const;
  /// Reads (once) the raster at path; errors name the file and the key that asked for it.
  const Raster& raster(const std::string& path, const std::string& key_path);

  void set_grid(const swe::Grid& grid, std::string origin);
  const swe::Grid& grid() const { return grid_; }
  const std::string& grid_origin() const { return origin_; }
  /// CRS of the scene's rasters (Raster::crs_wkt), "" when none of them has one; crs_raster is
  /// the first raster that gave it. read() requires every raster with a CRS to have this one.
  std::string crs, crs_raster;

  /// Reads keys[key] as a field (absent: the constant `fallback`). Every cell with data must be
  /// in `range`; the error names the key, the cell, its centre and the raster. bed = true accepts
  /// the "nodata" key ("wall" or "reject", default "reject").
  CellField read(Keys& keys, const std::string& key, double fallback, Range range,
                 bool bed = false);

  /// read() with fallback 0 for an optional field (range must admit 0), but a field that is
  /// absent or the number 0 comes back with no values, unpainted: a large grid's set-up then
  /// allocates and checks no array for it.
  CellField read_unless_zero(Keys& keys, const std::string& key, Range range);

  /// "cell (i, j) at x = .., y = .. m" for messages.
  std::string cell_text(Index k) const;
  /// Requires r (read from path for key_path) to be on the scene's CRS, or sets it.
  void check_crs(const Raster& r, const std::string& path, const std::string& key_path);

 private:
  /// The scene's array `name` ("array:bed") as a raster on the grid (set_grid() first).
  Raster array_raster(const std::string& name, const std::string& key_path) const;
  void check_matches(const Raster& r, const std::string& path, const std::string& key_path) const;
  /// Throws: the field's value at cell c is outside range (its error names the key and the cell).
  [[noreturn]] void range_error(const std::string& key_path, const CellField& f, Range range,
                                Index c) const;
  /// The key of a field in a FieldCache: everything its values and their check depend on.
  std::string field_key(const Json& value, const std::string& path, double fallback, Range range,
                        bool bed) const;

  const SceneSource* src_;
  FieldCache* shared_;
  swe::Grid grid_;
  std::string origin_;
  std::map<std::string, std::shared_ptr<const Raster>> cache_;
};

}  // namespace silt::io
