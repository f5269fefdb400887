// resolved_scene.json, the scene a run ran (defaults filled in, data paths absolute) with a
// "provenance" object that the loader ignores, so that the file runs again as a scene.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace silt::io {

/// Creates out_dir when missing (errors name it) and writes <out_dir>/resolved_scene.json
/// atomically: `resolved` with "provenance" naming the build, the backend, the scene file and the
/// overrides. Returns its path.
std::string write_resolved_scene(const nlohmann::json& resolved, const std::string& scene_file,
                                 const std::string& out_dir, const std::string& build_id,
                                 const std::string& backend,
                                 const std::vector<std::string>& overrides);

}  // namespace silt::io
