// Shallow-water scene JSON (io/swe_scene.hpp): parse, validate and describe.
#include "fuzz_common.hpp"
#include "silt/io/swe_scene.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  silt::fuzz::limit_memory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string t = silt::fuzz::text(data, size);
  return silt::fuzz::refuse_or_accept([&] {
    // Relative paths (rasters, CSV series) resolve in a folder that does not exist.
    const silt::io::SweJob job = silt::io::parse_swe_job(t, "fuzz.json", "/nonexistent-silt-fuzz");
    (void)silt::io::describe(job);
    (void)job.resolved.dump();
  });
}
