// ESRI ASCII grids (io/raster/raster.hpp: parse_ascii_grid): every cell of what it returns is read.
#include "fuzz_common.hpp"
#include "silt/io/raster/raster.hpp"

void silt::fuzz::one_input(const std::string& text) {
  const io::Raster r = io::parse_ascii_grid(text, "fuzz.asc");
  if (static_cast<Index>(r.values.size()) != r.cells()) __builtin_trap();
  for (Index k = 0; k < r.cells(); ++k) (void)r.is_nodata(k);
}
