#include "silt/run/ensemble_checkpoint.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/run/ensemble.hpp"
#include "silt/run/output_dir.hpp"

namespace silt::run {

namespace fs = std::filesystem;

namespace {

// The result format: bumped when a member's result changes (2: the shallow-water measures; 3: an
// MPM member's partial holds the steps of each frame, mpm_member_partial.hpp).
constexpr const char* kMagic = "silt ensemble member 3";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string member_file(const std::string& dir, std::size_t m, const std::string& ext) {
  return (fs::path(dir) / fmt::format("member_{}.{}", m, ext)).string();
}

std::string member_solver_checkpoint(const std::string& dir, std::size_t m) {
  return dir.empty() ? std::string() : member_file(dir, m, "silt");
}

std::string failed_mark(const std::string& dir) {
  return (fs::path(dir) / "rank_failed").string();
}

std::string ensemble_checkpoint_dir(const std::string& out) {
  return (fs::path(out) / "ensemble_checkpoint").string();
}

std::string ensemble_key(const EnsembleScene& scene, const io::Ensemble& e) {
  io::Json members = io::Json::array();
  for (const io::EnsembleMember& m : e.members)
    members.push_back({{"name", m.name}, {"set", m.overrides}});
  const io::Json key = {
      {"scene", fs::absolute(scene.path).lexically_normal().string()},
      {"scene_text_fnv1a", fmt::format("{:016x}", fnv1a(read_bytes(scene.path)))},
      {"set", scene.overrides},
      {"members", members},
      {"outputs", e.resolved.contains("outputs") ? e.resolved["outputs"] : io::Json()}};
  return key.dump(1) + "\n";
}

void start_ensemble_checkpoint(const std::string& dir, const std::string& key) {
  io::prepare_output_dir(dir);
  io::write_text_atomically((fs::path(dir) / "key.json").string(), key);
}

void check_ensemble_checkpoint(const std::string& dir, const std::string& key) {
  const std::string path = (fs::path(dir) / "key.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error(fmt::format(
        "--restart '{}': not an ensemble's checkpoint (no key.json there); an ensemble that "
        "stopped leaves OUT/ensemble_checkpoint",
        dir));
  const io::Json was = io::Json::parse(read_bytes(path), nullptr, false);
  const io::Json now = io::Json::parse(key);
  if (was == now) return;
  std::string what = "the ensemble";
  for (const char* part : {"scene", "scene_text_fnv1a", "set", "members", "outputs"})
    if (!was.is_object() || !was.contains(part) || was[part] != now[part]) {
      what = part == std::string("scene_text_fnv1a") ? "the scene file's text" : part;
      break;
    }
  throw Error(fmt::format(
      "--restart '{}': the checkpoint is of another ensemble ({} differs); run the stopped "
      "ensemble's scene, --set and ensemble file unchanged, or start afresh with --overwrite",
      dir, what));
}

void drop_member_checkpoint(const std::string& dir, std::size_t m) {
  std::error_code ec;
  fs::remove(member_solver_checkpoint(dir, m), ec);
  fs::remove(member_file(dir, m, "partial"), ec);
}

void remove_ensemble_checkpoint(const std::string& dir) {
  remove_stale_checkpoint_temporaries(dir);  // of a killed run that --overwrite replaces
  std::error_code ec;
  for (const fs::directory_entry& f : fs::directory_iterator(dir, ec)) {
    const std::string name = f.path().filename().string();
    const std::string ext = f.path().extension().string();
    if (name == "key.json" || name == "rank_failed" ||
        (name.rfind("member_", 0) == 0 && (ext == ".bin" || ext == ".silt" || ext == ".partial")))
      fs::remove(f.path(), ec);
  }
  fs::remove(dir, ec);  // only when empty
}

void MemberBytes::raw(void* p, std::size_t n) {
  if (at_ + n > bytes_.size()) throw Error("the file ends early");
  std::memcpy(p, bytes_.data() + at_, n);
  at_ += n;
}

void MemberBytes::put(double v) {
  bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void MemberBytes::put(std::int64_t v) {
  bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void MemberBytes::put(const std::vector<double>& v) {
  put(std::int64_t(v.size()));
  bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}
void MemberBytes::put(const std::string& s) {
  put(std::int64_t(s.size()));
  bytes_.append(s);
}
void MemberBytes::put_ref(const std::vector<double>& v) {
  put(std::int64_t(v.size()));
  borrowed_.push_back({bytes_.size(), std::string_view(reinterpret_cast<const char*>(v.data()),
                                                       v.size() * sizeof(double))});
}
std::vector<std::string_view> MemberBytes::pieces() const {
  std::vector<std::string_view> p;
  const std::string_view all(bytes_);
  std::size_t from = 0;
  for (const Borrowed& b : borrowed_) {
    p.push_back(all.substr(from, b.at - from));
    p.push_back(b.values);
    from = b.at;
  }
  p.push_back(all.substr(from));
  return p;
}
std::string MemberBytes::bytes() const {
  std::string joined;
  for (const std::string_view p : pieces()) joined.append(p);
  return joined;
}
double MemberBytes::number() {
  double v;
  raw(&v, sizeof v);
  return v;
}
std::int64_t MemberBytes::integer() {
  std::int64_t v;
  raw(&v, sizeof v);
  return v;
}
std::vector<double> MemberBytes::numbers() {
  const std::int64_t n = integer();
  if (n < 0 || std::size_t(n) > (bytes_.size() - at_) / sizeof(double))
    throw Error("a list longer than the file");
  std::vector<double> v(static_cast<std::size_t>(n));
  raw(v.data(), v.size() * sizeof(double));
  return v;
}
std::string MemberBytes::text() {
  const std::int64_t n = integer();
  if (n < 0 || std::size_t(n) > bytes_.size() - at_) throw Error("a text longer than the file");
  std::string s(static_cast<std::size_t>(n), '\0');
  raw(s.data(), s.size());
  return s;
}

void save_member_bytes(const std::string& dir, std::size_t m, const std::string& name,
                       const std::string& kind, const MemberBytes& b, const std::string& ext) {
  MemberBytes head;
  head.put(std::string(kMagic));
  head.put(kind);
  head.put(name);
  std::vector<std::string_view> pieces = head.pieces();
  for (const std::string_view p : b.pieces()) pieces.push_back(p);
  io::write_pieces_atomically(member_file(dir, m, ext), pieces);
}

bool load_member_bytes(const std::string& dir, std::size_t m, const std::string& name,
                       const std::string& kind, MemberBytes& b, const std::string& ext) {
  const std::string path = member_file(dir, m, ext);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  b = MemberBytes(read_bytes(path));
  try {
    const std::string magic = b.text();
    if (magic != kMagic)
      throw Error(
          fmt::format("it was written by another version of silt (format '{}'; this one "
                      "reads '{}'): run the ensemble again with --overwrite",
                      magic.substr(0, 40), kMagic));
    const std::string k = b.text(), n = b.text();
    if (k != kind || n != name)
      throw Error(fmt::format("it holds {} member '{}', not {} member '{}'", k, n, kind, name));
  } catch (const Error& e) {
    throw Error(fmt::format("--restart: '{}' is not member {}'s result: {}", path, m, e.what()));
  }
  return true;
}

MemberBytes result_bytes(const MemberResult& r) {
  MemberBytes b;
  b.put(r.time);
  b.put(r.wall_s);
  b.put(std::int64_t(r.steps));
  b.put(std::int64_t(r.maxima.size()));
  for (const std::vector<double>& v : r.maxima) b.put_ref(v);
  b.put_ref(r.hazard_class);
  b.put(r.measures);
  return b;
}

void read_result(MemberBytes& b, MemberResult& r) {
  r.time = b.number();
  r.wall_s = b.number();
  r.steps = b.integer();
  const std::int64_t fields = b.integer();
  r.maxima.clear();
  for (std::int64_t f = 0; f < fields; ++f) r.maxima.push_back(b.numbers());
  r.hazard_class = b.numbers();
  r.measures = b.numbers();
  if (!b.at_end()) throw Error("bytes after the result");
  r.done = true;
}

void save_member(const std::string& dir, std::size_t m, const std::string& name,
                 const MemberResult& r) {
  save_member_bytes(dir, m, name, "swe", result_bytes(r));
}

bool load_member(const std::string& dir, std::size_t m, const std::string& name, MemberResult& r) {
  MemberBytes b;
  if (!load_member_bytes(dir, m, name, "swe", b)) return false;
  try {
    read_result(b, r);
  } catch (const Error& e) {
    throw Error(fmt::format("--restart: '{}': {}", member_file(dir, m), e.what()));
  }
  return true;
}

}  // namespace silt::run
