// Checked reading of a JSON scene. Every access names its key path ("physics.cfl") and the scene
// file; every object is checked for keys nobody read (typos are errors, not silently ignored
// settings); and every value read, or the default used in its place, is mirrored into a
// "resolved" tree that is written next to the outputs so a run documents exactly what it used.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/scene_arrays.hpp"
#include "silt/io/scene_text.hpp"

namespace silt::io {

/// Where a scene came from: its name in messages, the folder that relative paths are resolved
/// in, and the --set overrides applied to it (named in errors about the keys they touched).
struct SceneSource {
  std::string name;                    // as the user gave it, e.g. "scenes/dam_break.json"
  std::string base_dir;                // "" = current directory
  std::vector<std::string> overrides;  // "path=value" as given
  /// Where each override came from, named in errors ("--set", "ensemble member 'n_low'"); an
  /// override without a label here came from --set.
  std::vector<std::string> override_labels;
  /// In-memory arrays the scene names as "array:<name>" in place of raster files (null: none;
  /// scene_arrays.hpp). They must outlive the loading.
  const SceneArrays* arrays = nullptr;
  /// path relative to base_dir unless absolute, made absolute: every data file the resolved
  /// scene names opens from any working directory. An array's name ("array:bed") stays as it is.
  std::string resolve_path(const std::string& path) const;
  /// base_dir as an absolute path (the working directory when base_dir is "").
  std::string absolute_base_dir() const;
};

/// The error text for a key: "<file>: '<key>' <what>", plus " (set by --set ...)" when an override
/// touched that key.
std::string key_message(const SceneSource& src, const std::string& key_path,
                        const std::string& what);
/// " (set by --set ...)" for each override that touched key_path (or "" when none did).
std::string override_note(const SceneSource& src, const std::string& key_path);
[[noreturn]] void key_error(const SceneSource& src, const std::string& key_path,
                            const std::string& what);
/// A value for messages: its JSON text, shortened.
std::string show(const Json& v);

/// Allowed interval of a number; the text for messages is built from it.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  static Range any() { return {}; }
  static Range positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static Range non_negative() { return {0.0, std::numeric_limits<double>::infinity()}; }
  bool contains(double v) const;
  std::string text() const;  // "> 0", "in (0, 0.5]", ...
};

// Inline: FieldReader checks every cell of a field with it.
inline bool Range::contains(double v) const {
  if (!std::isfinite(v)) return false;
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return true;
}

/// One JSON object being read. Create the root with Keys(root_json, "", src, &resolved_root).
class Keys {
 public:
  Keys(const Json& object, std::string path, const SceneSource& src, Json* resolved);

  const std::string& path() const { return path_; }
  const SceneSource& source() const { return *src_; }
  std::string key_path(const std::string& key) const;
  bool has(const std::string& key) const;
  /// Marks key as read and returns it (nullptr when absent); the caller writes its resolved form.
  const Json* take(const std::string& key);
  Json& resolved(const std::string& key);

  double number(const std::string& key, double fallback, Range range = Range::any());
  double number(const std::string& key, Range range = Range::any());  // required
  int integer(const std::string& key, int lo, int hi);                // required
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  /// A string that is_plain_name accepts; `use` says why in the error ("it names the output
  /// folder").
  std::string name(const std::string& key, const std::string& fallback, const std::string& use);
  /// One of `choices`; the error lists them.
  std::string choice(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices);
  /// [x, y] in m.
  std::pair<double, double> point(const std::string& key);
  /// [[x, y], ...] in m (required): a line's points.
  std::vector<std::array<double, 2>> points(const std::string& key);
  /// A sub-object (an empty one when absent and optional).
  Keys object(const std::string& key, bool required = false);
  /// The elements of an array of objects.
  std::vector<Keys> objects(const std::string& key);

  /// Throws naming the first key present in the JSON that nothing read.
  void finish() const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const Json* obj_;
  std::string path_;
  const SceneSource* src_;
  Json* out_;
  std::set<std::string> read_;
};

/// Applies "path=value" to root before validation. path uses dots and [i] (or .i) for array
/// elements; value is parsed as JSON, and taken as a string when it is not valid JSON
/// (physics.precision=float64). Missing objects on the way are created.
void apply_override(Json& root, const std::string& assignment, const SceneSource& src);

/// The value at a key path ("boundaries[0].discharge", "boundaries.0.discharge") of root, or null
/// when a key on the way is absent; errors (a malformed path, a key into a number) name `where`.
const Json* find_key_path(const Json& root, const std::string& path, const std::string& where);

/// Names used as file and folder names and CSV column heads: letters, digits, '_', '-', '.', and
/// neither "." nor ".." (a scene named ".." would write into the parent of the output folder).
bool is_plain_name(const std::string& s);

}  // namespace silt::io
