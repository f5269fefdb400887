#include "silt/run/member_times.hpp"

#include <fmt/format.h>

namespace silt::run {

std::string member_times_text(double wall_s, const MemberTimes& t) {
  const std::string graphs =
      t.recordings >= 0 ? fmt::format(" with {} graph recordings", t.recordings) : std::string();
  return fmt::format(
      "{:.2f} s (job {:.3f} s before; set-up {:.3f} s, waiting {:.3f} s, stepping {:.3f} s, "
      "other {:.3f} s{}; teardown {:.3f} s after)",
      wall_s, t.job, t.setup, t.waiting, t.stepping, wall_s - t.setup - t.waiting - t.stepping,
      graphs, t.end);
}

}  // namespace silt::run
