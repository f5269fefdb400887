#include "silt/io/resolved_scene.hpp"

#include <filesystem>

#include "silt/io/atomic_file.hpp"

namespace silt::io {

std::string write_resolved_scene(const nlohmann::json& resolved, const std::string& scene_file,
                                 const std::string& out_dir, const std::string& build_id,
                                 const std::string& backend,
                                 const std::vector<std::string>& overrides) {
  prepare_output_dir(out_dir);
  nlohmann::json doc = resolved;
  // Ignored by the loader, so that this file runs again as a scene.
  doc["provenance"] = {{"build", build_id},
                       {"backend", backend},
                       {"scene_file", scene_file},
                       {"overrides", overrides}};
  const std::string path = (std::filesystem::path(out_dir) / "resolved_scene.json").string();
  write_text_atomically(path, doc.dump(2) + "\n");
  return path;
}

}  // namespace silt::io
