#include "silt/io/mpm/checkpoint.hpp"

#include <fmt/format.h>

#include "silt/io/checkpoint_file.hpp"

namespace silt::io {

namespace {

// The carried step control values of a part, in this order (format version 1).
constexpr int kFloats = 4;  // dt, dt_prev, vmax, cmax
constexpr int kInts = 6;    // since_rebuild, zone_escape, rebuild_serial, serial, accum_parity,
                            // num_blocks

std::string key(int part, const char* what) {
  return fmt::format("part{}.{}", part, what);
}

}  // namespace

std::uint64_t mpm_scene_hash(const MpmJob& job) {
  nlohmann::json j = job.resolved;
  j.erase("provenance");
  if (j.contains("run") && j["run"].is_object()) {
    j["run"].erase("frames");
    j["run"].erase("end_time");
  }
  return scene_hash(j.dump());
}

void save_mpm_checkpoint(const std::string& path, const MpmJob& job, const mpm::RestartState& s,
                         const std::string& build) {
  Checkpoint k;
  k.header.solver = "mpm";
  k.header.scene_hash = mpm_scene_hash(job);
  k.header.build = build;
  k.header.step = s.frame;
  k.header.time = s.parts.empty() ? 0.0 : s.parts.front().time;
  k.header.parts = std::int32_t(s.parts.size());
  for (std::size_t q = 0; q < s.parts.size(); ++q) {
    const mpm::PartState& p = s.parts[q];
    const int i = int(q);
    k.put_vector(key(i, "x"), p.particles.x);
    k.put_vector(key(i, "v"), p.particles.v);
    k.put_vector(key(i, "c"), p.particles.c);
    k.put_vector(key(i, "f"), p.particles.f);
    k.put_vector(key(i, "plastic"), p.particles.plastic);
    k.put_vector(key(i, "material"), p.particles.material);
    k.put_vector(key(i, "id"), p.particles.id);
    k.put_vector(key(i, "home"), p.home);
    k.put_value(key(i, "time"), p.time);
    k.put_vector(key(i, "control.f32"), std::vector<float>{p.dt, p.dt_prev, p.vmax, p.cmax});
    k.put_vector(key(i, "control.i32"),
                 std::vector<std::int32_t>{p.since_rebuild, p.zone_escape, p.rebuild_serial,
                                           p.serial, p.accum_parity, p.num_blocks});
  }
  k.put_vector("emitter.taken", s.emitted);
  k.put_value("emitter.next_id", s.next_id);
  k.put_value("run.last_frame_steps", s.last_frame_steps);
  k.put_value("split.axis", s.axis);
  k.put_vector("split.cuts", s.cuts);
  k.put_value("split.rebalances", s.rebalances);
  write_checkpoint(path, k);
}

mpm::RestartState load_mpm_checkpoint(const std::string& path, const MpmJob& job) {
  const Checkpoint k = read_checkpoint(path);
  check_scene(k, "mpm", mpm_scene_hash(job));
  const auto fail = [&](const std::string& what) {
    return CheckpointError(CheckpointProblem::corrupt,
                           fmt::format("checkpoint '{}' is corrupt: {}", path, what));
  };
  if (k.header.parts < 1 || k.header.parts > 4096 || k.header.step < 0)
    throw fail(fmt::format("{} parts, frame {}", k.header.parts, k.header.step));
  mpm::RestartState s;
  s.frame = k.header.step;
  for (int i = 0; i < k.header.parts; ++i) {
    mpm::PartState p;
    p.particles.x = k.get_vector<float>(key(i, "x"));
    p.particles.v = k.get_vector<float>(key(i, "v"));
    p.particles.c = k.get_vector<float>(key(i, "c"));
    p.particles.f = k.get_vector<float>(key(i, "f"));
    p.particles.plastic = k.get_vector<float>(key(i, "plastic"));
    p.particles.material = k.get_vector<int>(key(i, "material"));
    p.particles.id = k.get_vector<int>(key(i, "id"));
    p.home = k.get_vector<std::int32_t>(key(i, "home"));
    const std::size_t n = p.particles.id.size();
    if (p.particles.x.size() != 3 * n || p.particles.v.size() != 3 * n ||
        p.particles.c.size() != 9 * n || p.particles.f.size() != 9 * n ||
        p.particles.plastic.size() != n || p.particles.material.size() != n ||
        p.home.size() != 3 * n)
      throw fail(fmt::format("the attributes of part {} hold different particle counts", i));
    for (int m : p.particles.material)
      if (m < 0 || std::size_t(m) >= job.scene.sources.size())
        throw fail(fmt::format("part {} names material {} of {}", i, m, job.scene.sources.size()));
    p.time = k.get_value<double>(key(i, "time"));
    const std::vector<float> f = k.get_vector<float>(key(i, "control.f32"));
    const std::vector<std::int32_t> c = k.get_vector<std::int32_t>(key(i, "control.i32"));
    if (f.size() != kFloats || c.size() != kInts)
      throw fail(fmt::format("part {}'s step control has {} + {} values", i, f.size(), c.size()));
    p.dt = f[0];
    p.dt_prev = f[1];
    p.vmax = f[2];
    p.cmax = f[3];
    p.since_rebuild = c[0];
    p.zone_escape = c[1];
    p.rebuild_serial = c[2];
    p.serial = c[3];
    p.accum_parity = c[4];
    p.num_blocks = c[5];
    s.parts.push_back(std::move(p));
  }
  s.emitted = k.get_vector<std::uint64_t>("emitter.taken");
  if (s.emitted.size() != job.scene.sources.size())
    throw fail(fmt::format("emitter state of {} sources; the scene has {}", s.emitted.size(),
                           job.scene.sources.size()));
  s.next_id = k.get_value<std::int32_t>("emitter.next_id");
  s.last_frame_steps = k.get_value<std::int32_t>("run.last_frame_steps");
  s.axis = k.get_value<std::int32_t>("split.axis");
  s.cuts = k.get_vector<double>("split.cuts");
  s.rebalances = k.get_value<std::int32_t>("split.rebalances");
  if (s.axis < -1 || s.axis > 2) throw fail(fmt::format("split axis {}", s.axis));
  return s;
}

}  // namespace silt::io
