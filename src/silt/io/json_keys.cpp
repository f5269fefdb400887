#include "silt/io/json_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace silt::io {

namespace fs = std::filesystem;

// Absolute, so that the resolved scene written next to the outputs names the same file from
// any folder (`silt view OUT`, a rerun of OUT/resolved_scene.json).
std::string SceneSource::resolve_path(const std::string& path) const {
  if (path.rfind(kArrayPrefix, 0) == 0) return path;
  fs::path p(path);
  if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
  return fs::absolute(p).lexically_normal().string();
}

std::string SceneSource::absolute_base_dir() const {
  return fs::absolute(base_dir.empty() ? fs::path(".") : fs::path(base_dir))
      .lexically_normal()
      .string();
}

namespace {

// The override path of "a.b[2].c=..." in the dotted form key paths use ("a.b[2].c").
std::string override_key(const std::string& assignment) {
  const auto eq = assignment.find('=');
  std::string p = assignment.substr(0, eq);
  std::string out;
  std::stringstream ss(p);
  std::string part;
  while (std::getline(ss, part, '.')) {
    const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    if (index)
      out += "[" + part + "]";
    else
      out += (out.empty() ? "" : ".") + part;
  }
  return out;
}

}  // namespace

std::string override_note(const SceneSource& src, const std::string& key_path) {
  std::string msg;
  for (size_t i = 0; i < src.overrides.size(); ++i) {
    const std::string& o = src.overrides[i];
    const std::string k = override_key(o);
    // The override set this key, or an object that contains it.
    if (key_path == k || key_path.rfind(k + ".", 0) == 0 || key_path.rfind(k + "[", 0) == 0 ||
        k.rfind(key_path + ".", 0) == 0) {
      const bool labelled = i < src.override_labels.size() && !src.override_labels[i].empty();
      // A long value (an ensemble's scaled or shifted series, a rain object) cut as show() cuts.
      const std::string text = o.size() > 100 ? o.substr(0, 97) + "..." : o;
      msg += fmt::format(" (set by {} {})", labelled ? src.override_labels[i] : "--set", text);
    }
  }
  return msg;
}

std::string key_message(const SceneSource& src, const std::string& key_path,
                        const std::string& what) {
  return fmt::format("{}: '{}' {}", src.name, key_path, what) + override_note(src, key_path);
}

void key_error(const SceneSource& src, const std::string& key_path, const std::string& what) {
  throw Error(key_message(src, key_path, what));
}

std::string show(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string Range::text() const {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi)
    return fmt::format("in {}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
  if (has_lo) return fmt::format("{} {}", lo_open ? ">" : ">=", lo);
  if (has_hi) return fmt::format("{} {}", hi_open ? "<" : "<=", hi);
  return "a finite number";
}

Keys::Keys(const Json& object, std::string path, const SceneSource& src, Json* resolved)
    : obj_(&object), path_(std::move(path)), src_(&src), out_(resolved) {
  if (!obj_->is_object())
    key_error(src, path_.empty() ? "(scene)" : path_,
              fmt::format("must be an object {{...}}, got {}", show(*obj_)));
  if (out_ && !out_->is_object()) *out_ = Json::object();
}

std::string Keys::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool Keys::has(const std::string& key) const {
  return obj_->contains(key);
}

const Json* Keys::take(const std::string& key) {
  read_.insert(key);
  auto it = obj_->find(key);
  return it == obj_->end() ? nullptr : &*it;
}

Json& Keys::resolved(const std::string& key) {
  static Json sink;  // reading without a resolved tree (scene_solver)
  return out_ ? (*out_)[key] : sink;
}

void Keys::fail(const std::string& key, const std::string& what) const {
  key_error(*src_, key_path(key), what);
}

double Keys::number(const std::string& key, double fallback, Range range) {
  if (!has(key)) {
    take(key);
    resolved(key) = fallback;
    return fallback;
  }
  return number(key, range);
}

double Keys::number(const std::string& key, Range range) {
  const Json* v = take(key);
  if (!v) fail(key, "is missing (a number)");
  if (!v->is_number()) fail(key, fmt::format("must be a number, got {}", show(*v)));
  const double d = v->get<double>();
  if (!range.contains(d)) fail(key, fmt::format("must be {}, got {}", range.text(), show(*v)));
  resolved(key) = d;
  return d;
}

int Keys::integer(const std::string& key, int lo, int hi) {
  const Json* v = take(key);
  if (!v) fail(key, "is missing (an integer)");
  const bool integral = v->is_number_integer() ||
                        (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>());
  if (!integral) fail(key, fmt::format("must be an integer, got {}", show(*v)));
  const double d = v->get<double>();
  if (d < lo || d > hi) fail(key, fmt::format("must be in [{}, {}], got {}", lo, hi, show(*v)));
  resolved(key) = static_cast<int>(d);
  return static_cast<int>(d);
}

bool Keys::boolean(const std::string& key, bool fallback) {
  const Json* v = take(key);
  bool b = fallback;
  if (v) {
    if (!v->is_boolean()) fail(key, fmt::format("must be true or false, got {}", show(*v)));
    b = v->get<bool>();
  }
  resolved(key) = b;
  return b;
}

std::string Keys::string(const std::string& key, const std::string& fallback) {
  const Json* v = take(key);
  std::string s = fallback;
  if (v) {
    if (!v->is_string()) fail(key, fmt::format("must be a string, got {}", show(*v)));
    s = v->get<std::string>();
  }
  resolved(key) = s;
  return s;
}

std::string Keys::name(const std::string& key, const std::string& fallback,
                       const std::string& use) {
  const std::string s = string(key, fallback);
  if (!is_plain_name(s))
    fail(key, fmt::format("must be a plain name of letters, digits, '_', '-' and '.', and not "
                          "\".\" or \"..\" ({}), got \"{}\"",
                          use, excerpt(s)));
  return s;
}

std::string Keys::choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices) {
  const Json* v = take(key);
  std::string s = fallback;
  if (v) {
    bool ok = v->is_string();
    if (ok) {
      s = v->get<std::string>();
      ok = false;
      for (const auto& c : choices) ok = ok || c == s;
    }
    if (!ok)
      fail(key,
           fmt::format("must be one of \"{}\", got {}", fmt::join(choices, "\", \""), show(*v)));
  }
  resolved(key) = s;
  return s;
}

std::pair<double, double> Keys::point(const std::string& key) {
  const Json* v = take(key);
  if (!v) fail(key, "is missing (a point [x, y] in m)");
  if (!v->is_array() || v->size() != 2 || !(*v)[0].is_number() || !(*v)[1].is_number() ||
      !std::isfinite((*v)[0].get<double>()) || !std::isfinite((*v)[1].get<double>()))
    fail(key, fmt::format("must be a point [x, y] of two numbers (m), got {}", show(*v)));
  resolved(key) = *v;
  return {(*v)[0].get<double>(), (*v)[1].get<double>()};
}

std::vector<std::array<double, 2>> Keys::points(const std::string& key) {
  const Json* v = take(key);
  if (!v) fail(key, "is missing (a list of points [[x, y], ...] in m)");
  if (!v->is_array())
    fail(key, fmt::format("must be a list of points [[x, y], ...] (m), got {}", show(*v)));
  std::vector<std::array<double, 2>> out;
  for (size_t k = 0; k < v->size(); ++k) {
    const Json& p = (*v)[k];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number() ||
        !std::isfinite(p[0].get<double>()) || !std::isfinite(p[1].get<double>()))
      fail(fmt::format("{}[{}]", key, k),
           fmt::format("must be a point [x, y] of two numbers (m), got {}", show(p)));
    out.push_back({p[0].get<double>(), p[1].get<double>()});
  }
  resolved(key) = *v;
  return out;
}

Keys Keys::object(const std::string& key, bool required) {
  static const Json empty = Json::object();
  const Json* v = take(key);
  if (!v && required) fail(key, "is missing (an object {...})");
  Json* out = out_ ? &(*out_)[key] : nullptr;
  return Keys(v ? *v : empty, key_path(key), *src_, out);
}

std::vector<Keys> Keys::objects(const std::string& key) {
  const Json* v = take(key);
  std::vector<Keys> out;
  if (!v) {
    resolved(key) = Json::array();
    return out;
  }
  if (!v->is_array()) fail(key, fmt::format("must be a list [...], got {}", show(*v)));
  Json& r = resolved(key);
  // Size the resolved array first: the element pointers handed out must stay valid.
  r = Json::array();
  for (size_t i = 0; i < v->size(); ++i) r.push_back(Json::object());
  for (size_t i = 0; i < v->size(); ++i)
    out.emplace_back((*v)[i], fmt::format("{}[{}]", key_path(key), i), *src_,
                     out_ ? &r[i] : nullptr);
  return out;
}

void Keys::finish() const {
  for (auto it = obj_->begin(); it != obj_->end(); ++it)
    if (!read_.count(it.key()))
      throw Error(fmt::format("{}: unknown key '{}'", src_->name, key_path(it.key())) +
                  override_note(*src_, key_path(it.key())));
}

namespace {

// "a.b[2].c" -> a, b, 2, c: keys separated by '.', each followed by any number of [index]. An
// empty key ("grid..nx", ".x", "x.") is an error: skipped, it set another key than the one
// written (grid..nx set grid.nx).
std::vector<std::string> split_key_path(const std::string& path, const std::string& where) {
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("{}: the key path '{}' {}", where, path, why));
  };
  std::vector<std::string> parts;
  std::size_t i = 0;
  for (;;) {
    const std::size_t end = std::min(path.find_first_of(".[]", i), path.size());
    if (end == i) throw bad(fmt::format("has an empty key at character {}", i + 1));
    parts.push_back(path.substr(i, end - i));
    i = end;
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) throw bad("has a '[' without its ']'");
      if (close == i + 1) throw bad(fmt::format("has an empty index at character {}", i + 1));
      parts.push_back(path.substr(i + 1, close - i - 1));
      i = close + 1;
    }
    if (i == path.size()) return parts;
    if (path[i] != '.') throw bad(fmt::format("has '{}' at character {}", path[i], i + 1));
    if (++i == path.size()) throw bad("ends with '.'");
  }
}

}  // namespace

void apply_override(Json& root, const std::string& assignment, const SceneSource& src) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(fmt::format("{}: --set {}: expected path=value, e.g. run.end_time=5", src.name,
                            assignment));
  require_utf8(assignment, fmt::format("{}: --set", src.name));
  const std::string text = assignment.substr(eq + 1);
  Json value;
  if (!parse_json_value(text, fmt::format("{}: --set {}", src.name, assignment), value))
    value = text;  // a bare word: physics.precision=float64
  const std::vector<std::string> parts =
      split_key_path(assignment.substr(0, eq), fmt::format("{}: --set {}", src.name, assignment));
  Json* node = &root;
  std::string walked;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string& p = parts[k];
    const bool last = k + 1 == parts.size();
    if (node->is_array()) {
      // At most 9 digits: a longer index is past the end of any list and would overflow stoul.
      const bool index = p.size() < 10 && p.find_first_not_of("0123456789") == std::string::npos;
      if (!index || std::stoul(p) >= node->size())
        throw Error(
            fmt::format("{}: --set {}: '{}' is a list of {} elements; '{}' is not an index "
                        "in it",
                        src.name, assignment, walked, node->size(), p));
      node = &(*node)[std::stoul(p)];
      walked += "[" + p + "]";
    } else {
      if (node->is_null()) *node = Json::object();
      if (!node->is_object())
        throw Error(fmt::format("{}: --set {}: '{}' is {}, not an object", src.name, assignment,
                                walked, show(*node)));
      node = &(*node)[p];
      walked += (walked.empty() ? "" : ".") + p;
    }
    if (last) *node = value;
  }
}

const Json* find_key_path(const Json& root, const std::string& path, const std::string& where) {
  const Json* node = &root;
  for (const std::string& p : split_key_path(path, where)) {
    if (node->is_array()) {
      const bool index = p.size() < 10 && p.find_first_not_of("0123456789") == std::string::npos;
      if (!index || std::stoul(p) >= node->size()) return nullptr;
      node = &(*node)[std::stoul(p)];
    } else if (node->is_object()) {
      const auto it = node->find(p);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      throw Error(fmt::format("{}: the key path '{}' goes into {}, which is not an object", where,
                              path, show(*node)));
    }
  }
  return node;
}

bool is_plain_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  return true;
}

}  // namespace silt::io
