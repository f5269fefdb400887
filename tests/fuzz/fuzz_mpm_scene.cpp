// MPM scene JSON (io/mpm/scene_file.hpp): parse, validate (shapes, particle counts, dt limits),
// describe, write the resolved scene.
#include "fuzz_common.hpp"
#include "silt/io/mpm/scene_file.hpp"

void silt::fuzz::one_input(const std::string& text) {
  const io::MpmJob job = io::parse_mpm_job(text, "fuzz.json", "/nonexistent-silt-fuzz");
  (void)io::describe(job);
  (void)job.resolved.dump();
}
