#include "commands.hpp"
#include "silt/core/error.hpp"

namespace silt::app {
int cmd_run(const RunOptions&) {
  throw Error("silt run: not wired yet");
}
int cmd_validate(const std::string&, const std::vector<std::string>&) {
  throw Error("silt validate: not wired yet");
}
int cmd_bench(const BenchOptions&) {
  throw Error("silt bench: not wired yet");
}
}  // namespace silt::app
