// Two-column CSV time series (io/time_series.hpp: parse_series_csv), then interpolated.
#include "fuzz_common.hpp"
#include "silt/io/time_series.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  silt::fuzz::limit_memory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string t = silt::fuzz::text(data, size);
  return silt::fuzz::refuse_or_accept([&] {
    const silt::swe::Series s = silt::io::parse_series_csv(t, "fuzz.csv");
    if (s.t.size() != s.value.size() || s.t.empty()) __builtin_trap();
    (void)silt::io::series_value(s, 0.5 * (s.t.front() + s.t.back()));
  });
}
