#include "silt/run/mpm_member_partial.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "silt/core/error.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/run/ensemble_checkpoint.hpp"

namespace silt::run {

namespace {

// The first n values of v.
void cut(std::vector<double>& v, std::size_t n) {
  v.resize(std::min(v.size(), n));
}

}  // namespace

void MemberPartial::add(const mpm::FrameStats& s) {
  steps.push_back(double(steps_done() + s.steps));
  energy.add(s);
}

long long MemberPartial::steps_done() const {
  return steps.empty() ? 0 : (long long)steps.back();
}

void save_member_partial(const std::string& dir, std::size_t m, const std::string& name,
                         const MemberPartial& p) {
  MemberBytes b;
  b.put(std::vector<double>{p.start.front, p.start.back, p.start.height});
  b.put(p.steps);
  b.put(p.energy.time);
  b.put(p.energy.kinetic_energy);
  b.put(p.energy.rms_speed);
  save_member_bytes(dir, m, name, "mpm", b, "partial");
}

bool load_member_partial(const std::string& dir, std::size_t m, const std::string& name,
                         long long frame, MemberPartial& p) {
  MemberBytes b;
  if (!load_member_bytes(dir, m, name, "mpm", b, "partial")) return false;
  const std::string path = member_file(dir, m, "partial");
  try {
    const std::vector<double> start = b.numbers();
    p.steps = b.numbers();
    p.energy.time = b.numbers();
    p.energy.kinetic_energy = b.numbers();
    p.energy.rms_speed = b.numbers();
    const std::size_t n = p.steps.size();
    if (start.size() != 3 || !b.at_end() || p.energy.time.size() != n ||
        p.energy.kinetic_energy.size() != n || p.energy.rms_speed.size() != n)
      throw Error("not what this build writes");
    p.start = {start[0], start[1], start[2]};
  } catch (const Error& e) {
    throw Error(fmt::format("--restart: '{}' (member {} '{}'): {}", path, m, name, e.what()));
  }
  if (frame < 0 || std::size_t(frame) > p.steps.size())
    throw Error(fmt::format(
        "--restart: '{}' (member {} '{}') holds {} frames, its solver checkpoint '{}' is after "
        "frame {}: the partial is written before its checkpoint, so it was changed or is of "
        "another run; start the ensemble afresh with --overwrite",
        path, m, name, p.steps.size(), member_solver_checkpoint(dir, m), frame));
  // A partial newer than its .silt (a kill between the two writes): the .silt's frames.
  const std::size_t k = std::size_t(frame);
  cut(p.steps, k);
  cut(p.energy.time, k);
  cut(p.energy.kinetic_energy, k);
  cut(p.energy.rms_speed, k);
  return true;
}

}  // namespace silt::run
