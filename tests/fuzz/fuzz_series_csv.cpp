// Two-column CSV time series (io/time_series.hpp: parse_series_csv), then interpolated.
#include "fuzz_common.hpp"
#include "silt/io/time_series.hpp"

void silt::fuzz::one_input(const std::string& text) {
  const swe::Series s = io::parse_series_csv(text, "fuzz.csv");
  if (s.t.size() != s.value.size() || s.t.empty()) __builtin_trap();
  (void)io::series_value(s, 0.5 * (s.t.front() + s.t.back()));
}
