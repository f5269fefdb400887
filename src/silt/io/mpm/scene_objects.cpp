// "materials", "sources" and "colliders" of an MPM scene.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "silt/core/error.hpp"
#include "silt/io/input_file.hpp"
#include "silt/io/mpm/scene_parts.hpp"

namespace silt::io::mpm_detail {

namespace {

// Half-extent along z of a 2D scene's box collider (a bar across the plane), m.
constexpr double kUnbounded = 1e30;

using mpm::MaterialKind;
using mpm::Vec3d;

// Every material parameter key, and the kinds it belongs to, so that a key of another kind is
// reported as such rather than as a typo.
const std::map<std::string, std::set<MaterialKind>>& parameter_kinds() {
  using K = MaterialKind;
  static const std::map<std::string, std::set<MaterialKind>> m = {
      {"youngs_modulus", {K::fixed_corotated, K::drucker_prager}},
      {"poisson_ratio", {K::fixed_corotated, K::drucker_prager, K::nacc}},
      {"bulk_modulus", {K::fluid}},
      {"gamma", {K::fluid}},
      {"viscosity", {K::fluid}},
      {"friction_angle", {K::drucker_prager}},
      {"cohesion", {K::drucker_prager}},
      {"kappa", {K::nacc}},
      {"m", {K::nacc}},
      {"beta", {K::nacc}},
      {"xi", {K::nacc}},
      {"alpha0", {K::nacc}},
  };
  return m;
}

bool kind_from_name(const std::string& s, MaterialKind& k) {
  // Canonical names and the everyday ones artists use.
  static const std::map<std::string, MaterialKind> names = {
      {"fixed_corotated", MaterialKind::fixed_corotated},
      {"elastic", MaterialKind::fixed_corotated},
      {"jelly", MaterialKind::fixed_corotated},
      {"fluid", MaterialKind::fluid},
      {"water", MaterialKind::fluid},
      {"drucker_prager", MaterialKind::drucker_prager},
      {"sand", MaterialKind::drucker_prager},
      {"nacc", MaterialKind::nacc},
      {"snow", MaterialKind::nacc}};
  const auto it = names.find(s);
  if (it == names.end()) return false;
  k = it->second;
  return true;
}

// Per-kind defaults where the Material struct's generic ones would be far off (docs list them).
mpm::Material defaults_for(MaterialKind k) {
  mpm::Material m;
  m.kind = k;
  switch (k) {
    case MaterialKind::drucker_prager:  // dry sand, Klar et al. 2016
      m.density = 1600.0;
      m.youngs_modulus = 3.5e5;
      m.friction_angle = 30.0;
      break;
    case MaterialKind::nacc:  // fresh to packed snow
      m.density = 400.0;
      break;
    default:
      break;
  }
  return m;
}

void read_material(Keys& k, std::size_t index, mpm::Scene& scene, std::set<std::string>& names) {
  const std::string name =
      k.name("name", fmt::format("material{}", index), "it names the material");
  if (!names.insert(name).second)
    k.fail("name", fmt::format("\"{}\" names two materials; names must be unique", name));
  const Json* kv = k.take("kind");
  MaterialKind kind{};
  if (!kv)
    k.fail("kind",
           "is missing: one of \"jelly\", \"water\", \"sand\", \"snow\" (or "
           "fixed_corotated, fluid, drucker_prager, nacc)");
  if (!kv->is_string() || !kind_from_name(kv->get<std::string>(), kind))
    k.fail("kind", fmt::format("must be one of \"fixed_corotated\" (\"jelly\", \"elastic\"), "
                               "\"fluid\" (\"water\"), \"drucker_prager\" (\"sand\"), \"nacc\" "
                               "(\"snow\"), got {}",
                               show(*kv)));
  k.resolved("kind") = to_string(kind);
  mpm::Material m = defaults_for(kind);
  m.name = name;
  m.density = k.number("density", m.density, Range::positive());
  // Poisson's ratio below 0.5: lambda = E nu / ((1 + nu)(1 - 2 nu)) is infinite at 0.5.
  const Range nu_range{-1.0, 0.5, true, true};
  switch (kind) {
    case MaterialKind::fixed_corotated:
      m.youngs_modulus = k.number("youngs_modulus", m.youngs_modulus, Range::positive());
      m.poisson_ratio = k.number("poisson_ratio", m.poisson_ratio, nu_range);
      break;
    case MaterialKind::fluid:
      m.bulk_modulus = k.number("bulk_modulus", m.bulk_modulus, Range::positive());
      m.gamma = k.number("gamma", m.gamma, Range::positive());
      m.viscosity = k.number("viscosity", m.viscosity, Range::non_negative());
      break;
    case MaterialKind::drucker_prager:
      m.youngs_modulus = k.number("youngs_modulus", m.youngs_modulus, Range::positive());
      m.poisson_ratio = k.number("poisson_ratio", m.poisson_ratio, nu_range);
      m.friction_angle =
          k.number("friction_angle", m.friction_angle, Range{0.0, 90.0, false, true});
      m.cohesion = k.number("cohesion", m.cohesion, Range::non_negative());
      break;
    case MaterialKind::nacc:
      m.poisson_ratio = k.number("poisson_ratio", m.poisson_ratio, nu_range);
      m.nacc_kappa = k.number("kappa", m.nacc_kappa, Range::positive());
      m.nacc_m = k.number("m", m.nacc_m, Range::positive());
      m.nacc_beta = k.number("beta", m.nacc_beta, Range::non_negative());
      m.nacc_xi = k.number("xi", m.nacc_xi, Range::non_negative());
      m.nacc_alpha0 =
          k.number("alpha0", m.nacc_alpha0, Range{-std::numeric_limits<double>::infinity(), 0.0});
      break;
  }
  for (const auto& [key, kinds] : parameter_kinds())
    if (k.has(key) && !kinds.count(kind)) {
      std::vector<std::string> owners;
      for (MaterialKind o : kinds) owners.push_back(to_string(o));
      k.fail(key, fmt::format("is not a parameter of kind {} (it belongs to {})", to_string(kind),
                              fmt::join(owners, ", ")));
    }
  k.finish();
  scene.materials.push_back(m);
}

void read_emit(Keys& s, mpm::Source& src) {
  const Json* v = s.take("emit");
  if (!v || v->is_null()) {  // a plain source (null is how the resolved scene says so)
    s.resolved("emit") = nullptr;
    return;
  }
  Keys e = s.object("emit");
  src.emit_interval = e.number("interval", Range::positive());
  src.emit_start = e.number("start", 0.0, Range::non_negative());
  src.emit_end = e.number("end", Range::non_negative());
  if (src.emit_end < src.emit_start)
    e.fail("end", fmt::format("= {} s is before start = {} s", src.emit_end, src.emit_start));
  e.finish();
}

// An (n, 3) array the scene names at `key` (scene_arrays.hpp), as doubles; `rows` (when > 0) the
// count it must have. In 2D the z column is ignored (the particles lie in the plane).
std::shared_ptr<const std::vector<double>> read_rows(Keys& s, const std::string& key,
                                                     std::size_t rows) {
  const std::string name = s.string(key, "");
  const SceneArrays* arrays = s.source().arrays;
  if (!names_array(arrays, name))
    s.fail(key, fmt::format("must name an array given with the scene (in Python an (n, 3) NumPy "
                            "array), got \"{}\"",
                            excerpt(name, 80)));
  s.resolved(key) = name;
  const ArrayView& a = arrays->at(name);
  if (a.cols != 3 || a.rows < 1 || (rows > 0 && std::size_t(a.rows) != rows))
    s.fail(key, fmt::format("'{}' is {} x {}; expected {} x 3 (a row per particle: x, y, z)", name,
                            a.rows, a.cols, rows > 0 ? fmt::format("{}", rows) : "n"));
  auto out = std::make_shared<std::vector<double>>(a.data, a.data + 3 * a.rows);
  for (std::size_t k = 0; k < out->size(); ++k)
    if (!std::isfinite((*out)[k]))
      s.fail(key, fmt::format("'{}' row {} is not finite", name, k / 3));
  return out;
}

// A points source: particles at the rows of "position", with "velocity" an array of as many
// rows or one velocity for all; given once (no "emit").
void read_points(Keys& s, mpm::Source& src) {
  src.points = read_rows(s, "position", 0);
  const std::size_t n = src.point_count();
  for (std::size_t a = 0; a < 3; ++a) {
    src.box_min[a] = src.box_max[a] = (*src.points)[a];
    for (std::size_t i = 1; i < n; ++i) {
      src.box_min[a] = std::min(src.box_min[a], (*src.points)[3 * i + a]);
      src.box_max[a] = std::max(src.box_max[a], (*src.points)[3 * i + a]);
    }
  }
  const Json* v = s.take("velocity");  // read again below when it is one velocity for all
  if (v && v->is_string()) src.point_velocities = read_rows(s, "velocity", n);
}

void read_source(Keys& s, std::size_t index, mpm::Scene& scene, std::set<std::string>& names) {
  mpm::Source src;
  src.name = s.name("name", fmt::format("source{}", index), "it names the source");
  if (!names.insert(src.name).second)
    s.fail("name", fmt::format("\"{}\" names two sources; names must be unique", src.name));

  const Json* mv = s.take("material");
  if (!mv)
    s.fail("material", fmt::format("is missing (source '{}'): name one of the scene's "
                                   "materials",
                                   src.name));
  if (!mv->is_string())
    s.fail("material", fmt::format("must be a material name, got {}", show(*mv)));
  const std::string mat = mv->get<std::string>();
  std::vector<std::string> known;
  int found = -1;
  for (std::size_t i = 0; i < scene.materials.size(); ++i) {
    known.push_back(scene.materials[i].name);
    if (scene.materials[i].name == mat) found = static_cast<int>(i);
  }
  if (found < 0)
    s.fail(
        "material",
        fmt::format("names material \"{}\", which source '{}' cannot find; the scene's materials "
                    "are: {}",
                    mat, src.name,
                    known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
  src.material = found;
  s.resolved("material") = mat;

  const int dims = scene.dimensions;
  const std::string shape =
      s.choice("shape", "box", {"box", "sphere", "cylinder", "mesh", "points"});
  if (dims == 2 && (shape == "cylinder" || shape == "mesh"))
    s.fail("shape", fmt::format("is \"{}\", which a 2D scene has not: it fills \"box\" and "
                                "\"sphere\" (a disc in the plane) sources",
                                shape));
  if (shape == "box") {
    src.shape = mpm::Shape::box;
    src.box_min = read_vec3(s, "min", "m", dims);
    src.box_max = read_vec3(s, "max", "m", dims);
    for (int d = 0; d < dims; ++d)
      if (!(src.box_max[d] > src.box_min[d]))
        s.fail("max", fmt::format("must exceed 'min' along every axis; axis {}: {} <= {}", "xyz"[d],
                                  src.box_max[d], src.box_min[d]));
  } else if (shape == "points") {
    src.shape = mpm::Shape::points;
    read_points(s, src);
  } else if (shape == "sphere") {
    src.shape = mpm::Shape::sphere;
    src.center = read_vec3(s, "center", "m", dims);
    src.radius = s.number("radius", Range::positive());
  } else if (shape == "cylinder") {
    src.shape = mpm::Shape::cylinder;
    src.center = read_vec3(s, "center", "m");
    src.radius = s.number("radius", Range::positive());
    src.height = s.number("height", Range::positive());
    src.axis = read_vec3(s, "axis", src.axis, "-");
    if (src.axis[0] == 0 && src.axis[1] == 0 && src.axis[2] == 0)
      s.fail("axis", "must not be [0, 0, 0]");
  } else {
    src.shape = mpm::Shape::mesh;
    const std::string file = s.string("file", "");
    if (file.empty()) s.fail("file", "is missing: the closed OBJ mesh to fill, e.g. \"bunny.obj\"");
    src.mesh_path = s.source().resolve_path(file);
    s.resolved("file") = src.mesh_path;
    const std::string problem = input_file_problem(src.mesh_path);
    if (!problem.empty())
      s.fail("file", fmt::format("names '{}': {}", excerpt(src.mesh_path, 200), problem));
    src.mesh_scale = s.number("scale", 1.0, Range::positive());
    src.mesh_offset = read_vec3(s, "offset", src.mesh_offset, "m");
  }
  if (!src.point_velocities) src.velocity = read_vec3(s, "velocity", src.velocity, "m/s", dims);
  // Per dx^3, or per dx^2 in 2D (2 x 2 there, as 2 x 2 x 2 in 3D).
  src.particles_per_cell = s.number("particles_per_cell", dims == 2 ? 4.0 : src.particles_per_cell,
                                    Range{0.0, 1000.0, true, false});
  src.sampling = s.choice("sampling", "jittered", {"jittered", "poisson"}) == "poisson"
                     ? mpm::Sampling::poisson
                     : mpm::Sampling::jittered;
  if (dims == 2 && src.sampling == mpm::Sampling::poisson)
    s.fail("sampling", "is \"poisson\", which is 3D only: use \"jittered\" in a 2D scene");
  src.jitter = s.number("jitter", src.jitter, Range{0.0, 1.0});
  const Json* seed = s.take("seed");
  if (seed) {
    if (!seed->is_number_unsigned())
      s.fail("seed", fmt::format("must be a non-negative integer, got {}", show(*seed)));
    src.seed = seed->get<std::uint64_t>();
  }
  s.resolved("seed") = src.seed;
  read_emit(s, src);
  if (src.shape == mpm::Shape::points && src.emit_interval > 0)
    s.fail("emit", "is for sampled shapes: a points source gives its particles once, at t = 0");
  s.finish();
  scene.sources.push_back(src);
}

// Most files a mesh sequence may list.
constexpr int kMaxMeshFrames = 100000;

// A sequence's file name pattern, parsed by silt (the scene's text never reaches a format
// function): literal text with exactly one frame-number field, %d or %i, optionally with a width
// (%4d) or a zero-padded width (%04d), up to kMaxPatternWidth; %% is a literal %.
struct FramePattern {
  std::string prefix, suffix;
  int width = 0;
  bool zero_pad = false;
};

// Widest frame-number field: frame numbers have at most 6 digits (kMaxMeshFrames).
constexpr int kMaxPatternWidth = 9;

// The literal text of a pattern's part, with %% read as %; false on any other %.
bool unescape(const std::string& text, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 1 >= text.size() || text[i + 1] != '%') return false;
    out += '%';
    ++i;
  }
  return true;
}

FramePattern parse_frame_pattern(Keys& f, const std::string& pattern) {
  const auto bad = [&](const std::string& why) {
    f.fail("pattern",
           fmt::format("= \"{}\" {}: a pattern is a file name with one frame-number field, %d, a "
                       "width (%4d) or a zero-padded width (%04d, at most {} digits); %% is a "
                       "literal %, e.g. \"wheel_%04d.obj\"",
                       excerpt(pattern, 200), why, kMaxPatternWidth));
  };
  // The field: the first % not doubled.
  std::size_t at = 0;
  for (;; at += 2) {
    at = pattern.find('%', at);
    if (at == std::string::npos) bad("has no frame-number field");
    if (at + 1 >= pattern.size() || pattern[at + 1] != '%') break;
  }
  FramePattern p;
  std::size_t i = at + 1;
  if (i < pattern.size() && pattern[i] == '0') {
    p.zero_pad = true;
    ++i;
  }
  while (i < pattern.size() && pattern[i] >= '0' && pattern[i] <= '9') {
    p.width = p.width * 10 + (pattern[i] - '0');
    if (p.width > kMaxPatternWidth)
      bad(fmt::format("has a field wider than {} digits", kMaxPatternWidth));
    ++i;
  }
  if (i >= pattern.size() || (pattern[i] != 'd' && pattern[i] != 'i'))
    bad(fmt::format("has the field \"{}\", which is not %d, %Nd or %0Nd",
                    excerpt(pattern.substr(at, i + 1 - at), 20)));
  if (!unescape(pattern.substr(0, at), p.prefix) || !unescape(pattern.substr(i + 1), p.suffix))
    bad("has a second % field (only one frame number; write %% for a literal %)");
  return p;
}

std::string frame_file(const FramePattern& p, int n) {
  const std::string digits = std::to_string(n);
  const std::size_t w = std::size_t(p.width);
  const std::string pad =
      digits.size() < w ? std::string(w - digits.size(), p.zero_pad ? '0' : ' ') : std::string();
  return p.prefix + pad + digits + p.suffix;
}

// "frames": {"pattern": "wheel_%03d.obj", "first": 0, "last": 23, "dt": s, "start": s}: one OBJ per
// frame at start + (n - first) dt, every file present.
void read_mesh_frames(Keys& c, mpm::Collider& col, const mpm::Scene& scene) {
  Keys f = c.object("frames");
  const std::string text = f.string("pattern", "");
  const FramePattern pattern = parse_frame_pattern(f, text);
  if (std::filesystem::path(text).is_relative()) {
    // The resolved pattern is absolute like every other path there; a '%' in the folder's name
    // is written %% so the pattern keeps one field.
    std::string dir;
    for (char ch : c.source().absolute_base_dir())
      dir += ch == '%' ? std::string("%%") : std::string(1, ch);
    f.resolved("pattern") = (std::filesystem::path(dir) / text).lexically_normal().string();
  }
  int first = 0;
  if (f.has("first")) {
    first = f.integer("first", 0, kMaxMeshFrames);
  } else {
    f.take("first");
    f.resolved("first") = 0;
  }
  const int last = f.integer("last", 0, kMaxMeshFrames);
  if (last <= first)
    f.fail("last", fmt::format("= {} must exceed first = {}: a sequence has two frames or more",
                               last, first));
  const double dt = f.number("dt", scene.frame_dt, Range::positive());
  const double start = f.number("start", 0.0, Range::non_negative());
  for (int n = first; n <= last; ++n) {
    const std::string file = c.source().resolve_path(frame_file(pattern, n));
    const std::string problem = input_file_problem(file);
    if (!problem.empty())
      f.fail("pattern", fmt::format("names frame {} as '{}': {} (collider '{}': a sequence needs "
                                    "every frame from {} to {}, each a regular file)",
                                    n, excerpt(file, 200), problem, col.name, first, last));
    col.mesh_files.push_back(file);
    col.frame_times.push_back(start + (n - first) * dt);
  }
  f.finish();
}

void read_mesh_keys(Keys& c, mpm::Collider& col, int dims) {
  std::vector<Keys> keys = c.objects("keys");
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Keys& k = keys[i];
    mpm::RigidKey key;
    key.time = k.number("time", Range::non_negative());
    if (!col.keys.empty() && !(key.time > col.keys.back().time))
      k.fail("time", fmt::format("= {} s must exceed the previous key's {} s", key.time,
                                 col.keys.back().time));
    key.translation = read_vec3(k, "translation", key.translation, "m", dims);
    key.axis = read_vec3(k, "axis", key.axis, "-", dims);
    if (key.axis[0] == 0 && key.axis[1] == 0 && key.axis[2] == 0)
      k.fail("axis", "must not be [0, 0, 0]");
    key.angle = k.number("angle", 0.0);
    k.finish();
    col.keys.push_back(key);
  }
}

void read_mesh_collider(Keys& c, mpm::Collider& col, const mpm::Scene& scene) {
  if (scene.dimensions == 2)
    c.fail("kind", "is \"mesh\", which a 2D scene has not: use \"box\" or \"sphere\"");
  col.kind = mpm::Collider::Kind::mesh;
  const bool file = c.has("file"), frames = c.has("frames");
  if (file == frames)
    c.fail(file ? "frames" : "file",
           file ? "and 'file' are both given: a mesh collider is one OBJ ('file', moved by 'keys') "
                  "or a sequence ('frames')"
                : "is missing: give 'file' (one closed OBJ, moved by 'keys') or 'frames' (a "
                  "sequence of OBJ files)");
  if (file) {
    const std::string path = c.string("file", "");
    col.mesh_files.push_back(c.source().resolve_path(path));
    c.resolved("file") = col.mesh_files[0];
    const std::string problem = input_file_problem(col.mesh_files[0]);
    if (!problem.empty())
      c.fail("file", fmt::format("names '{}': {}", excerpt(col.mesh_files[0], 200), problem));
    read_mesh_keys(c, col, scene.dimensions);
  } else {
    read_mesh_frames(c, col, scene);
    if (c.has("keys"))
      c.fail("keys", "moves a single mesh ('file'); a sequence moves by its frames");
  }
  col.mesh_scale = c.number("scale", 1.0, Range::positive());
  col.mesh_offset = read_vec3(c, "offset", col.mesh_offset, "m");
  col.voxel = c.number("voxel", 0.5 * scene.dx, Range::positive());
  col.grow = c.number("grow", scene.dx, Range::non_negative());
  if ((!col.keys.empty() || frames) && c.has("velocity"))
    c.fail("velocity",
           "is for a mesh at rest or in steady translation; an animated mesh gets its "
           "velocity from its keys or frames");
}

void read_collider(Keys& c, std::size_t index, mpm::Scene& scene, std::set<std::string>& names) {
  mpm::Collider col;
  col.name = c.name("name", fmt::format("collider{}", index), "it names the collider");
  if (!names.insert(col.name).second)
    c.fail("name", fmt::format("\"{}\" names two colliders; names must be unique", col.name));
  const int dims = scene.dimensions;
  const std::string kind =
      c.choice("kind", "plane", {"plane", "sphere", "box", "cylinder", "mesh"});
  const double friction = c.number("friction", kDefaultWallFriction, Range::non_negative());
  const mpm::Wall wall = read_wall(c, "wall", friction);
  col.wall = wall.kind;
  col.friction = wall.friction;
  c.resolved("friction") = wall.friction;
  auto nonzero = [&](const char* key, const Vec3d& v) {
    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
      c.fail(key, dims == 2 ? "must not be [0, 0]" : "must not be [0, 0, 0]");
  };
  if (kind == "plane") {
    col.kind = mpm::Collider::Kind::plane;
    col.point = read_vec3(c, "point", "m", dims);
    col.normal = read_vec3(c, "normal", "-", dims);
    nonzero("normal", col.normal);
  } else if (kind == "sphere") {  // 2D: a disc in the plane
    col.kind = mpm::Collider::Kind::sphere;
    col.center = read_vec3(c, "center", "m", dims);
    col.radius = c.number("radius", Range::positive());
  } else if (kind == "cylinder") {
    if (dims == 2)
      c.fail("kind",
             "is \"cylinder\", which a 2D scene has not: a disc in the plane is a "
             "\"sphere\", a bar across it a \"box\"");
    col.kind = mpm::Collider::Kind::cylinder;
    col.center = read_vec3(c, "center", "m");
    col.radius = c.number("radius", Range::positive());
    col.axis = read_vec3(c, "axis", col.axis, "-");
    nonzero("axis", col.axis);
  } else if (kind == "mesh") {
    read_mesh_collider(c, col, scene);
  } else {
    col.kind = mpm::Collider::Kind::box;
    col.box_min = read_vec3(c, "min", "m", dims);
    col.box_max = read_vec3(c, "max", "m", dims);
    for (int d = 0; d < dims; ++d)
      if (!(col.box_max[d] > col.box_min[d]))
        c.fail("max", fmt::format("must exceed 'min' along every axis; axis {}: {} <= {}", "xyz"[d],
                                  col.box_max[d], col.box_min[d]));
    if (dims == 2) col.box_min[2] = -kUnbounded, col.box_max[2] = kUnbounded;  // a bar across z
  }
  // An animated mesh takes its velocity from its motion and refuses the key, so its resolved
  // form leaves the key out (the resolved scene must load again).
  const bool animated =
      col.kind == mpm::Collider::Kind::mesh && (!col.keys.empty() || col.mesh_files.size() > 1);
  if (!animated) col.velocity = read_vec3(c, "velocity", col.velocity, "m/s", dims);
  c.finish();
  scene.colliders.push_back(col);
}

}  // namespace

mpm::Wall read_wall(Keys& k, const std::string& key, double friction) {
  static const std::vector<std::string> kinds{"sticky", "slip", "separate", "friction"};
  mpm::Wall w;
  w.friction = friction;
  std::string type;
  const Json* v = k.take(key);
  if (v && v->is_object()) {
    Keys o = k.object(key);
    type = o.choice("type", "separate", kinds);
    w.friction = o.number("friction", friction, Range::non_negative());
    if (type == "friction" && !(w.friction > 0))
      o.fail("friction", "is 0 on a \"friction\" wall: give a positive coefficient");
    o.finish();
  } else {
    type = k.choice(key, "separate", kinds);
    if (type == "friction" && !(friction > 0))
      k.fail(key,
             "is \"friction\" with a coefficient of 0: give {\"type\": \"friction\", "
             "\"friction\": mu} or a positive 'friction' beside it");
  }
  w.kind = type == "sticky" ? mpm::WallKind::sticky
           : type == "slip" ? mpm::WallKind::slip
                            : mpm::WallKind::separate;
  return w;
}

Vec3d read_vec3(Keys& k, const std::string& key, const char* units, int dims) {
  const Json* v = k.take(key);
  const char* form = dims == 2 ? "[x, y]" : "[x, y, z]";
  if (!v) k.fail(key, fmt::format("is missing ({} in {})", form, units));
  bool ok = v->is_array() && v->size() == std::size_t(dims);
  for (std::size_t i = 0; ok && i < v->size(); ++i) ok = (*v)[i].is_number();
  if (!ok)
    k.fail(key,
           fmt::format("must be {}, {} numbers in {}{}, got {}", form, dims, units,
                       dims == 2 ? " (the scene is 2D: domain.dimensions = 2)" : "", show(*v)));
  const Vec3d r{(*v)[0].get<double>(), (*v)[1].get<double>(),
                dims == 2 ? 0.0 : (*v)[2].get<double>()};
  k.resolved(key) = dims == 2 ? Json::array({r[0], r[1]}) : Json::array({r[0], r[1], r[2]});
  return r;
}

Vec3d read_vec3(Keys& k, const std::string& key, const Vec3d& fallback, const char* units,
                int dims) {
  if (k.has(key)) return read_vec3(k, key, units, dims);
  k.take(key);
  k.resolved(key) = dims == 2 ? Json::array({fallback[0], fallback[1]})
                              : Json::array({fallback[0], fallback[1], fallback[2]});
  return fallback;
}

void read_materials(Keys& root, mpm::Scene& scene) {
  std::vector<Keys> list = root.objects("materials");
  if (list.empty())
    root.fail("materials",
              "is missing or empty: list at least one material, e.g. [{\"name\": "
              "\"sand\", \"kind\": \"sand\"}]");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) read_material(list[i], i, scene, names);
}

void read_sources(Keys& root, mpm::Scene& scene) {
  std::vector<Keys> list = root.objects("sources");
  if (list.empty())
    root.fail("sources", "is missing or empty: list at least one source of particles");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) read_source(list[i], i, scene, names);
}

void read_colliders(Keys& root, mpm::Scene& scene) {
  std::vector<Keys> list = root.objects("colliders");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) read_collider(list[i], i, scene, names);
}

}  // namespace silt::io::mpm_detail
