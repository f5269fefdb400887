#include "run_checkpoint.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace silt::app {

namespace {

/// s quoted for a POSIX shell when it holds anything but safe characters.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789_-./=:,+@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string checkpoint_path(const std::string& out) {
  return (std::filesystem::path(out) / "checkpoint.silt").string();
}

std::string restart_command(const RunOptions& o, const std::string& out,
                            const partition::World& world) {
  std::string c = world.distributed() ? fmt::format("mpirun -np {} silt run", world.size())
                                      : std::string("silt run");
  if (!o.scene_path.empty()) c += " " + shell_word(o.scene_path);
  for (const std::string& s : o.overrides) c += " --set " + shell_word(s);
  if (o.backend != "auto") c += " --backend " + o.backend;
  if (o.devices.size() != 1 || o.devices.front() != 0) {
    c += " --devices ";
    for (std::size_t k = 0; k < o.devices.size(); ++k)
      c += (k ? "," : "") + std::to_string(o.devices[k]);
  }
  if (o.halo > 0) c += fmt::format(" --halo {}", o.halo);
  if (!o.checkpoint_every.empty()) c += " --checkpoint-every " + shell_word(o.checkpoint_every);
  c += " --out " + shell_word(out) + " --restart " + shell_word(checkpoint_path(out));
  return c;
}

}  // namespace silt::app
