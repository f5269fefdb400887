// Cell fields and rasters read once for many jobs of one scene file: an ensemble's members are the
// scene with a few values changed (run/ensemble.hpp), and each member's job would otherwise paint
// the same bed and initial level over every cell, check them against their ranges, and read the
// same DEM again (docs/NOTES.md, "Member jobs from one parse and a field cache"). FieldReader
// (cell_field.hpp) asks it for what a read makes; thread-safe (members are checked on several
// threads at once).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "silt/core/config.hpp"
#include "silt/io/raster/cell_field.hpp"
#include "silt/io/raster/raster.hpp"

namespace silt::io {

/// Entries a cache keeps: a scene reads a handful of fields and rasters (bed, initial depth or
/// level, velocities, Manning n, soil and rain rasters), each about one grid of values; the first
/// ones asked for (the first member's, which include every field the members share) are kept,
/// later ones beyond this are made and not kept (one member's own field is asked for twice, by
/// its check and by its run: not worth a grid held for the whole run).
constexpr std::size_t kFieldCacheEntries = 16;

class FieldCache {
 public:
  /// A field on the grid and the first cell (south row first) with data outside the range it was
  /// read with (-1: none): the same values give the same verdict, so the check is kept with them.
  struct Checked {
    CellField field;
    Index outside = -1;
  };

  /// The field under key (everything its values depend on), made by make() when not held; an
  /// error make() throws is passed on and nothing is kept.
  std::shared_ptr<const Checked> field(const std::string& key,
                                       const std::function<Checked()>& make);
  /// The raster at path (a file), read by read() when not held; errors as field().
  std::shared_ptr<const Raster> raster(const std::string& path,
                                       const std::function<Raster()>& read);
  /// Forgets every entry (the jobs that shared them are built).
  void clear();

 private:
  struct Entry {
    std::string key;  // "field " or "raster " and the key
    std::shared_ptr<const Checked> field;
    std::shared_ptr<const Raster> raster;
  };
  const Entry* find(const std::string& key) const;  // under mutex_
  void keep(Entry e);                               // under mutex_
  /// The value in slot of the entry under key, made by make() and kept when not held.
  template <class V>
  std::shared_ptr<const V> held(const std::string& key, std::shared_ptr<const V> Entry::*slot,
                                const std::function<V()>& make);

  std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace silt::io
