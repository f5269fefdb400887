// ESRI ASCII grids (io/raster.hpp: parse_ascii_grid), read and written back.
#include "fuzz_common.hpp"
#include "silt/io/raster.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  silt::fuzz::limit_memory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string t = silt::fuzz::text(data, size);
  return silt::fuzz::refuse_or_accept([&] {
    const silt::io::Raster r = silt::io::parse_ascii_grid(t, "fuzz.asc");
    if (static_cast<silt::Index>(r.values.size()) != r.cells()) __builtin_trap();
    for (silt::Index k = 0; k < r.cells(); ++k) (void)r.is_nodata(k);
  });
}
