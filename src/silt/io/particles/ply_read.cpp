#include "silt/io/particles/ply_read.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "silt/core/error.hpp"

namespace silt::io {

namespace {

int type_size(const std::string& t) {
  if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
  if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
  if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" || t == "float32")
    return 4;
  if (t == "double" || t == "float64") return 8;
  return 0;
}

struct Property {
  std::size_t offset = 0;
  std::string type;
};

double read_value(const char* p, const std::string& t) {
  if (t == "float" || t == "float32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t == "double" || t == "float64") {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (t == "int" || t == "int32") {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t == "uint" || t == "uint32") {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t == "uchar" || t == "uint8") return static_cast<unsigned char>(*p);
  if (t == "char" || t == "int8") return static_cast<signed char>(*p);
  if (t == "short" || t == "int16") {
    std::int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

}  // namespace

mpm::ParticleFrame read_particles_ply(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("{}: {}", path, why));
  };
  std::string line;
  std::getline(in, line);
  if (line != "ply") throw bad("not a PLY file");
  long long count = -1;
  std::size_t stride = 0;
  std::map<std::string, Property> props;
  bool in_vertex = false;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string word;
    s >> word;
    if (word == "end_header") break;
    if (word == "format") {
      std::string f;
      s >> f;
      if (f != "binary_little_endian") throw bad("not binary little-endian PLY");
    } else if (word == "element") {
      std::string name;
      long long n = 0;
      s >> name >> n;
      in_vertex = name == "vertex";
      if (in_vertex) count = n;
    } else if (word == "property" && in_vertex) {
      std::string type, name;
      s >> type >> name;
      const int size = type_size(type);
      if (size == 0) throw bad(fmt::format("vertex property '{}' has type '{}'", name, type));
      props[name] = {stride, type};
      stride += std::size_t(size);
    }
  }
  if (count < 0 || count > (1ll << 31)) throw bad("no vertex element");
  for (const char* p : {"x", "y", "z", "material"})
    if (!props.count(p)) throw bad(fmt::format("no vertex property '{}'", p));
  std::vector<char> data(std::size_t(count) * stride);
  in.read(data.data(), std::streamsize(data.size()));
  if (in.gcount() != std::streamsize(data.size()))
    throw bad(fmt::format("shorter than its {} vertices", count));
  mpm::ParticleFrame f;
  const std::size_t n = std::size_t(count);
  f.position.resize(3 * n);
  f.velocity.assign(3 * n, 0.0f);
  f.material.resize(n);
  const bool has_v = props.count("vx") && props.count("vy") && props.count("vz");
  const bool has_id = props.count("id") > 0;
  if (has_id) f.id.resize(n);
  // Stress: the six components the writer names, into the frame's 9 per particle (symmetric).
  const char* stress_names[6] = {"sxx", "syy", "szz", "sxy", "syz", "sxz"};
  const int stress_at[6][2] = {{0, 0}, {4, 4}, {8, 8}, {1, 3}, {5, 7}, {2, 6}};
  bool has_stress = true;
  for (const char* c : stress_names) has_stress = has_stress && props.count(c) > 0;
  if (has_stress) f.stress.resize(9 * n);
  const bool has_plastic = props.count("plastic") > 0;
  if (has_plastic) f.plastic.resize(n);
  const char* axes[3][2] = {{"x", "vx"}, {"y", "vy"}, {"z", "vz"}};
  for (std::size_t i = 0; i < n; ++i) {
    const char* row = data.data() + i * stride;
    for (int a = 0; a < 3; ++a) {
      const Property& p = props[axes[a][0]];
      f.position[3 * i + a] = float(read_value(row + p.offset, p.type));
      if (has_v) {
        const Property& v = props[axes[a][1]];
        f.velocity[3 * i + a] = float(read_value(row + v.offset, v.type));
      }
    }
    const Property& m = props["material"];
    f.material[i] = std::int32_t(read_value(row + m.offset, m.type));
    if (has_id) {
      const Property& d = props["id"];
      f.id[i] = std::int32_t(read_value(row + d.offset, d.type));
    }
    for (int c = 0; has_stress && c < 6; ++c) {
      const Property& t = props[stress_names[c]];
      const float v = float(read_value(row + t.offset, t.type));
      f.stress[9 * i + std::size_t(stress_at[c][0])] = v;
      f.stress[9 * i + std::size_t(stress_at[c][1])] = v;
    }
    if (has_plastic) {
      const Property& q = props["plastic"];
      f.plastic[i] = float(read_value(row + q.offset, q.type));
    }
  }
  return f;
}

}  // namespace silt::io
