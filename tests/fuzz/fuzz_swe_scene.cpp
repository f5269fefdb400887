// Shallow-water scene JSON (io/swe/scene_file.hpp): parse, validate, describe, write the resolved scene.
#include "fuzz_common.hpp"
#include "silt/io/swe/scene_file.hpp"

void silt::fuzz::one_input(const std::string& text) {
  // Relative paths (rasters, CSV series) resolve in a folder that does not exist.
  const io::SweJob job = io::parse_swe_job(text, "fuzz.json", "/nonexistent-silt-fuzz");
  (void)io::describe(job);
  (void)job.resolved.dump();
}
