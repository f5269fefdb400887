// MPM scene JSON (io/mpm_scene.hpp): parse, validate (shapes, particle counts, dt limits) and
// describe.
#include "fuzz_common.hpp"
#include "silt/io/mpm_scene.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  silt::fuzz::limit_memory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string t = silt::fuzz::text(data, size);
  return silt::fuzz::refuse_or_accept([&] {
    const silt::io::MpmJob job = silt::io::parse_mpm_job(t, "fuzz.json", "/nonexistent-silt-fuzz");
    (void)silt::io::describe(job);
    (void)job.resolved.dump();
  });
}
