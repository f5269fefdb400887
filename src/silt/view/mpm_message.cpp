#include "silt/view/mpm_message.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "silt/io/image/splat_render.hpp"
#include "silt/view/message.hpp"

namespace silt::view {

namespace {

nlohmann::json vec(const mpm::Vec3d& v) {
  return {v[0], v[1], v[2]};
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint16_t quantise(float v, double lo, double inv_extent) {
  const double q = std::round((double(v) - lo) * inv_extent * 65535.0);
  return static_cast<std::uint16_t>(std::clamp(q, 0.0, 65535.0));
}

}  // namespace

bool keeps(std::int32_t id, double fraction) {
  if (fraction >= 1) return true;
  const double u = double(splitmix64(std::uint64_t(std::uint32_t(id))) >> 11) * 0x1.0p-53;
  return u < fraction;
}

nlohmann::json describe_mpm(const mpm::Scene& scene) {
  nlohmann::json materials = nlohmann::json::array();
  const std::vector<io::Rgb> palette = io::material_palette(scene);
  for (std::size_t k = 0; k < scene.materials.size(); ++k)
    materials.push_back({{"name", scene.materials[k].name},
                         {"colour", {palette[k][0], palette[k][1], palette[k][2]}}});
  nlohmann::json colliders = nlohmann::json::array();
  for (const auto& c : scene.colliders)
    colliders.push_back({{"name", c.name},
                         {"kind", mpm::collider_kind_name(c.kind)},
                         {"point", vec(c.point)},
                         {"normal", vec(c.normal)},
                         {"center", vec(c.center)},
                         {"radius", c.radius},
                         {"axis", vec(c.axis)},
                         {"box_min", vec(c.box_min)},
                         {"box_max", vec(c.box_max)},
                         {"velocity", vec(c.velocity)}});
  return {{"solver", "mpm"},
          {"name", scene.name},
          {"dx", scene.dx},
          {"domain_min", vec(scene.domain_min)},
          {"domain_max", vec(scene.domain_max)},
          {"gravity", vec(scene.gravity)},
          {"frame_dt", scene.frame_dt},
          {"materials", materials},
          {"colliders", colliders}};
}

std::vector<Attribute> mpm_attributes(const mpm::ParticleFrame& p) {
  const std::size_t n = p.count();
  std::vector<Attribute> out;
  if (p.velocity.size() == 3 * n) {
    Attribute a{"speed", "m/s", std::vector<float>(n)};
    for (std::size_t i = 0; i < n; ++i) {
      const float* v = &p.velocity[3 * i];
      a.values[i] = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    out.push_back(std::move(a));
  }
  if (p.stress.size() == 9 * n) {
    Attribute pressure{"pressure", "Pa", std::vector<float>(n)};
    Attribute mises{"von_mises", "Pa", std::vector<float>(n)};
    for (std::size_t i = 0; i < n; ++i) {
      const float* t = &p.stress[9 * i];
      const double xx = t[0], yy = t[4], zz = t[8], xy = t[1], yz = t[5], xz = t[2];
      pressure.values[i] = float(-(xx + yy + zz) / 3);
      mises.values[i] = float(
          std::sqrt(0.5 * ((xx - yy) * (xx - yy) + (yy - zz) * (yy - zz) + (zz - xx) * (zz - xx)) +
                    3 * (xy * xy + yz * yz + xz * xz)));
    }
    out.push_back(std::move(pressure));
    out.push_back(std::move(mises));
  }
  if (p.plastic.size() == n) out.push_back({"plastic", "-", p.plastic});
  return out;
}

namespace {

// The picked particles' values of `a` as uint16 over their [lo, hi]; its header entry.
nlohmann::json quantise_attribute(const Attribute& a, const std::vector<std::uint32_t>& picked,
                                  std::vector<std::uint16_t>& q) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (const std::uint32_t i : picked)
    if (std::isfinite(a.values[i])) lo = std::min(lo, a.values[i]), hi = std::max(hi, a.values[i]);
  if (!(lo <= hi)) lo = hi = 0;
  const double scale = hi > lo ? 65535.0 / (double(hi) - double(lo)) : 0.0;
  q.resize(picked.size());
  for (std::size_t k = 0; k < picked.size(); ++k) {
    const float v = a.values[picked[k]];
    q[k] = std::isfinite(v) ? std::uint16_t(std::lround((double(v) - lo) * scale)) : 65535;
  }
  return {{"name", a.name}, {"units", a.units}, {"lo", lo}, {"hi", hi}};
}

}  // namespace

std::string encode_mpm(const mpm::ParticleFrame& p, const mpm::Scene& scene, const FrameInfo& info,
                       std::size_t budget) {
  const std::size_t n = p.count();
  const double fraction = n > budget ? double(budget) / double(n) : 1.0;
  std::vector<std::uint32_t> picked;
  picked.reserve(std::min(n, std::size_t(budget * 1.1) + 64));
  for (std::size_t i = 0; i < n; ++i)
    if (keeps(p.id.empty() ? std::int32_t(i) : p.id[i], fraction))
      picked.push_back(std::uint32_t(i));
  const std::size_t m = picked.size();
  double inv[3];
  for (int a = 0; a < 3; ++a)
    inv[a] = 1.0 / std::max(scene.domain_max[a] - scene.domain_min[a], 1e-30);
  std::vector<std::uint16_t> pos(3 * m);
  std::vector<std::uint8_t> material(m);
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t i = picked[k];
    for (int a = 0; a < 3; ++a)
      pos[3 * k + a] = quantise(p.position[3 * i + a], scene.domain_min[a], inv[a]);
    material[k] = static_cast<std::uint8_t>(std::clamp(p.material[i], 0, 255));
  }
  const std::vector<Attribute> attributes = mpm_attributes(p);
  std::vector<std::vector<std::uint16_t>> values(attributes.size());
  nlohmann::json described = nlohmann::json::array();
  double speed_max = 0;
  for (std::size_t a = 0; a < attributes.size(); ++a) {
    described.push_back(quantise_attribute(attributes[a], picked, values[a]));
    if (attributes[a].name == "speed") speed_max = described.back()["hi"];
  }
  std::string msg = begin_message({{"type", "mpm"},
                                   {"frame", info.frame},
                                   {"time", info.time},
                                   {"steps", info.steps},
                                   {"total", n},
                                   {"count", m},
                                   {"box", {vec(scene.domain_min), vec(scene.domain_max)}},
                                   {"speed_max", speed_max},
                                   {"full", m == n},
                                   {"attributes", described}});
  append(msg, pos.data(), pos.size());
  append(msg, material.data(), m);
  for (const auto& v : values) append(msg, v.data(), v.size());
  return msg;
}

}  // namespace silt::view
